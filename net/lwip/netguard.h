/*
 * netguard.h - the limits of lwiphooks.h's lines against a hostile peer,
 * which the kernel's sockets size themselves by (net/sock_tcp.c), and
 * what those lines refused, counted by the kernel (net/stack.c) for
 * every copy of lwIP together: the hooks run inside a copy, under its
 * stack's lock, and call net_attack_count, whose name no copy renames.
 */
#ifndef NET_LWIP_NETGUARD_H
#define NET_LWIP_NETGUARD_H

/* Half-open connections (SYN_RCVD) a listener keeps in each stack: past
   it, a SYN drops the oldest.  lwIP's listen backlog is this plus the
   accepted connections the socket queues (sock_tcp.c), and the pcb pool
   (MEMP_NUM_TCP_PCB) leaves 256 beside it for the rest. */
#define HALF_OPEN_MAX   128

/* Challenge ACKs a stack sends a second (RFC 5961 7), on average: each
   second's limit is drawn between half of this and 3/2 of it. */
#define CHALLENGE_ACKS  500

enum {
    NET_HALF_OPEN_DROPPED,      /* half-open connections dropped: to make
                                   room in a full backlog, or too old */
    NET_HALF_OPEN_REVIVED,      /* of those, opened by their peer's ACK */
    NET_ACK_OUT_OF_RANGE,       /* segments whose ACK was outside what
                                   was sent (RFC 5961 5.2) */
    NET_MSS_RAISED,             /* SYNs whose MSS was raised to the floor */
    NET_SYN_UNRESOLVED,         /* SYNs dropped under a flood: from this
                                   link, their sender not in ARP's table */
    NET_SYN_QUEUE_FULL,         /* SYNs and handshakes' last ACKs dropped:
                                   the listening socket's queue of accepted
                                   connections was full */
    NET_CHALLENGE_ACK_CAPPED,   /* RSTs, SYNs and blind data dropped
                                   unanswered: the second's challenge ACKs
                                   were spent (RFC 5961 7) */
    NET_ATTACK_COUNTERS
};

/* Counts one of what; any core, any context.  Relaxed: a statistic. */
void net_attack_count(int what);

#endif
