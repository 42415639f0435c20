/*
 * sockimpl.h - what the socket files share (net/sock*.c): the
 * socket itself, its lifetime and the helpers every operation uses.  See
 * sock.c for the design.
 */
#ifndef NET_SOCKIMPL_H
#define NET_SOCKIMPL_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/spinlock.h"
#include "net/netimpl.h"
#include "sched/polldesc.h"

#define BACKLOG     64          /* connections accepted, not yet taken */
#define UDP_QUEUE   64          /* datagrams queued per socket */
#define CHUNK       0xFFFF      /* lwIP's u16 lengths */

enum kind { K_TCP, K_LISTEN, K_UDP };

struct dgram {
    struct pbuf *p;
    ip_addr_t from;
    u16_t port;
};

struct sp_sock;

/* A listener's pcb in one stack, the argument of that pcb's callbacks. */
struct lslot {
    struct sp_sock *l;
    struct stack *st;
    struct tcp_pcb *pcb;        /* NULL once closed; under st's lock */
};

/*
 * A socket lives in one stack (its pcb is that lwIP's, its memory that
 * stack's pool), and its fields are under that stack's lock: TCP
 * connections in the stack of their queue, UDP sockets in stack 0's.  A
 * listener has a pcb in every stack and its fields are under its own
 * lock (acc.lock), since every stack's accept callback queues onto it;
 * sock_lock takes the right one.
 */
struct sp_sock {
    struct polldesc pd;
    enum kind kind;
    struct stack *st;           /* fixed */
    struct sp_sock *next_free;  /* on st->free_socks; st's lock */
    void *owner;                /* the BSD calls' file, for sock_event;
                                   atomic (sp_sock_set_owner) */
    /* Under sock_lock: */
    union {
        struct tcp_pcb *tcp;
        struct udp_pcb *udp;
    } pcb;                      /* NULL once lwIP is done with it (a
                                   listener's are in acc.slot) */
    int err;                    /* sticky: the connection's fate, -errno */
    int refs;                   /* operations in progress (and sp_close) */
    bool closed;                /* sp_close was called */
    bool connected;             /* dial: the handshake finished */
    bool eof;                   /* TCP: the peer's FIN came */
    struct pbuf *rxq, *rxtail;  /* TCP: received, linked through next */
    u16_t rxoff;                /* bytes of rxq already read */
    uint64_t udp_drops;         /* UDP: datagrams the queue had no room for */
    int home;                   /* TCP: 1 + the core that handled the
                                   connection's first segment, 0 before */
    int dialq;                  /* TCP: 1 + the queue a dial's port was
                                   chosen for (RSS), 0 if none was */
    union {
        struct {                /* K_LISTEN: accepted, not yet taken */
            struct sp_sock *q[BACKLOG];
            int head, n;
            struct spinlock lock;   /* the listener's sock_lock */
            struct lslot slot[NET_STACKS];  /* its pcb in stack i */
        } acc;
        struct {                /* K_UDP: received, not yet read */
            struct dgram q[UDP_QUEUE];
            int head, n;
        } dg;
    };
};


/* ---- Lifetime (sock.c) ---------------------------------------------- */

/* An address of a call, parsed. */
struct sock_addr {
    ip_addr_t ip;
    u16_t port;
};

/* Parses addr into *a (a remote one needs an address and a port): 0, or
   -EINVAL, or -ENETDOWN when there is no NIC. */
int sock_parse(const char *addr, bool remote, struct sock_addr *a);

/*
 * The start of every call that makes a socket: takes st's lock and a
 * socket of this kind from st's pool, with a fresh pcb of st's lwIP (none
 * for K_LISTEN).  NULL with *err = -ENOMEM (a pool is empty) and the lock
 * not held; on success the caller holds st's lock with flags *f.
 */
struct sp_sock *sock_open(struct stack *st, enum kind kind,
                          unsigned long *f, int *err);

/* Gives back a socket sock_open made that never reached its user; under
   s->st's lock. */
void sock_discard(struct sp_sock *s);

/* A socket of st for a connection its lwIP accepted; NULL when the pool
   is empty.  Under st's lock. */
struct sp_sock *sock_new(struct stack *st, enum kind kind);

/* s's lwIP. */
static inline const struct lwip_api *lw(const struct sp_sock *s)
{
    return s->st->lw;
}

/* Takes the lock of s's fields: its stack's, a listener's own. */
unsigned long sock_lock(struct sp_sock *s);
void sock_unlock(struct sp_sock *s, unsigned long f);

/* Takes a reference for an operation; under sock_lock. */
void hold(struct sp_sock *s);

/* Leaves sock_lock and drops the reference; frees s if it was the last
   one of a closed socket. */
void release(struct sp_sock *s, unsigned long f);

/* Frees the queued receive data of a TCP socket; under its stack's
   lock. */
void rxq_free(struct sp_sock *s);

/* A polldesc result, or an lwIP error, as -errno. */
int pd_errno(int rc);
int lwip_errno(err_t e);

/* *err = e (if err), and NULL: the failure of a call making a socket. */
struct sp_sock *fail(int *err, int e);

/* "a.b.c.d:port" or ":port"; false if it is neither. */
bool parse_addr(const char *s, ip_addr_t *ip, u16_t *port);
int format_addr(const ip_addr_t *ip, u16_t port, char *buf, size_t len);

/* True if the machine has a NIC (the calls fail with -ENETDOWN if not). */
bool net_up(void);

/* Tells bsd_poll.c's poll() that s changed; under the lock of the stack
   whose callback noticed (bsd.h), which readies the pollers. */
void sock_event(struct stack *st, struct sp_sock *s);

/* ---- Per protocol (sock_tcp.c, sock_udp.c) -------------------------- */

/* Unhooks a TCP socket's pcb from its callbacks and closes it (with
   reset, or when lwIP cannot close it, aborts it with a RST): no
   callback comes after.  Under its stack's lock. */
void tcp_detach(struct sp_sock *s, bool reset);

/* The same for a listener's pcbs, each under its stack's lock; takes
   them.  No accept callback comes after. */
void listen_detach(struct sp_sock *l);

/* Frees what a UDP socket still holds; under its stack's lock. */
void udp_drain(struct sp_sock *s);

#endif
