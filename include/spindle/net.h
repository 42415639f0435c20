/*
 * spindle/net.h - TCP and UDP for Gs, in the spirit of Go's net package.
 *
 *   sp_listener *l = sp_listen(":80", &err);
 *   for (;;) {
 *       sp_conn *c = sp_accept(l, &err);       parks until a client comes
 *       sp_go(serve, c);                       a G per connection
 *   }
 *   ...  n = sp_read(c, buf, sizeof buf);      > 0 bytes, 0 end, < 0 error
 *        sp_write(c, buf, n);                  all of it, or an error
 *        sp_close(c);
 *
 * Every call that waits parks the calling G, never the core.  Errors are
 * negative errno values (sp_net_strerror names them): -ETIMEDOUT when a
 * deadline passed, -ECONNRESET, -ECONNREFUSED, -EPIPE (the connection
 * was closed while the call waited: sp_close wakes every G blocked on
 * it), -ENETDOWN when the machine has no NIC, -EADDRINUSE, -ENOMEM.
 *
 * Addresses are "a.b.c.d:port" strings; ":port" means any local address.
 * Deadlines are absolute sp_nanotime() values (0: none), as Go's
 * SetDeadline: one in the past makes waiting calls fail at once, and
 * moving it wakes nobody that it does not concern.
 *
 * One G may read and another write a connection at once; two readers
 * (or two writers) of one connection at once is a panic.
 */
#ifndef SPINDLE_NET_H
#define SPINDLE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sp_sock sp_conn;         /* a TCP connection */
typedef struct sp_sock sp_listener;     /* a listening TCP socket */
typedef struct sp_sock sp_udp;          /* a UDP socket */

/* Waits until the network has an address (DHCP can take a moment):
   0, -ENETDOWN (no NIC) or -ETIMEDOUT after timeout_ns. */
int sp_net_wait(uint64_t timeout_ns);

/* The machine's address as "a.b.c.d", into buf (at least 16 bytes);
   -ENETDOWN if it has none yet. */
int sp_net_addr(char *buf, size_t len);

sp_listener *sp_listen(const char *addr, int *err);
/* With a NIC queue per core, returns on the core whose queue the
   connection's packets come to (the calling G moves there), so a G it
   spawns for the connection starts where its packets are handled. */
sp_conn *sp_accept(sp_listener *l, int *err);
/* timeout_ns 0: wait as long as TCP tries.  With a NIC queue per core
   and RSS, the local port is chosen so that the connection's packets
   come to the calling core's queue. */
sp_conn *sp_dial(const char *addr, uint64_t timeout_ns, int *err);

long sp_read(sp_conn *c, void *buf, size_t len);
/* Returns len once all of it is queued; fewer bytes if an error or a
   deadline stopped it midway (the next call returns that error); or an
   error before anything was queued. */
long sp_write(sp_conn *c, const void *buf, size_t len);
/* Ends the sending half (a FIN), reading goes on. */
int sp_close_write(sp_conn *c);
/* Closes a connection, listener or UDP socket; its memory is gone. */
int sp_close(struct sp_sock *s);
/* sp_close with a reset (RST), as Go's SetLinger(0) before Close: what
   is queued either way is dropped and the connection's memory is back
   at once, however the peer behaves (a peer that reads nothing would
   otherwise keep it for minutes of zero-window probes). */
int sp_abort(sp_conn *c);

int sp_set_deadline(struct sp_sock *s, int64_t ns);
int sp_set_read_deadline(struct sp_sock *s, int64_t ns);
int sp_set_write_deadline(struct sp_sock *s, int64_t ns);

/* "a.b.c.d:port" of either end, into buf (at least 22 bytes). */
int sp_local_addr(struct sp_sock *s, char *buf, size_t len);
int sp_remote_addr(struct sp_sock *s, char *buf, size_t len);

sp_udp *sp_listen_udp(const char *addr, int *err);
/* One datagram: its length (cut to len), its sender into from (22
   bytes, or NULL). */
long sp_recvfrom(sp_udp *u, void *buf, size_t len, char *from,
                 size_t fromlen);
long sp_sendto(sp_udp *u, const void *buf, size_t len, const char *to);

const char *sp_net_strerror(int err);

/*
 * The IPv4 address of host name, as "a.b.c.d" into addr (at least 16
 * bytes), asked of the DNS server DHCP gave (lwIP's resolver, which
 * caches a few names and retries for about 7 s per server).  Parks the
 * calling G until the answer, or until timeout_ns passed (0: as long as
 * the resolver tries).  0; -ENOENT (the server answered: no such name,
 * or an error); -ETIMEDOUT (no answer); -EINVAL (empty, or too long);
 * -ENETDOWN (no NIC, or no DNS server yet); -EAGAIN (too many lookups
 * under way); -ENOSPC (len < 16).
 */
int sp_resolve(const char *name, char *addr, size_t len, uint64_t timeout_ns);

/* sp_resolve's counts since boot, and the server it asks. */
struct sp_dns_stats {
    char server[16];            /* "a.b.c.d"; "0.0.0.0" before DHCP */
    uint64_t queries;           /* lookups lwIP sent (not from its cache) */
    uint64_t found;             /* answered with an address */
    uint64_t failed;            /* answered: no such name, or an error */
    uint64_t unanswered;        /* given up with no reply */
};

/* Fills *st; 0, or -ENETDOWN without a NIC. */
int sp_dns_stats(struct sp_dns_stats *st);

/* The NIC's and the stack's counters (frames, bytes, and every kind of
   drop: runts, oversize frames, bad checksums...) for a person. */
int sp_net_report(char *buf, size_t len);

/*
 * Where the network's work ran, summed since boot.  A NIC with a queue
 * per core (multiqueue with RSS) has core c poll queue c; with fewer
 * queues than cores, core c polls queue c % nqueues.
 */
struct sp_net_stats {
    int nqueues;                /* RX/TX queue pairs in use */
    bool rss;                   /* the NIC steers flows by their hash */
    uint64_t rx, tx;            /* frames the stack took in and sent */
    uint64_t away;              /* frames handled on a core not their
                                   queue's */
    uint64_t xwake;             /* Gs the network readied on a core other
                                   than the one they last ran on */
    uint64_t split;             /* TCP segments handled on a core other
                                   than the one that took their
                                   connection's first */
    uint64_t misdial;           /* sp_dial connections whose packets came
                                   to another core than the dialling one
                                   (with RSS) */
    uint64_t rescues;           /* polls of a queue whose core had not
                                   polled it for 50 ms, by another core
                                   (the only polls that handle frames
                                   away from their queue's core) */
    int stacks;                 /* copies of lwIP, each under its own
                                   lock: one per queue with RSS, else 1 */
    uint64_t lock_takes;        /* the stacks' locks, summed: acquisitions, */
    uint64_t lock_contended;    /* how many found it held, */
    uint64_t lock_foreign;      /* how many were by a core whose queue is
                                   another stack's (a G that moved, stack
                                   0's ARP and DHCP hand-offs, rescues), */
    uint64_t lock_wait_ns;      /* their total wait, */
    uint64_t lock_hold_ns;      /* and the mean hold of a sample of them */
};

/* Fills *st; per_core, if not NULL, gets ncores entries: core c's rx,
   tx, away and xwake (the other fields zero).  0, or -ENETDOWN without
   a NIC. */
int sp_net_stats(struct sp_net_stats *st, struct sp_net_stats *per_core,
                 int ncores);

#endif
