/*
 * sockimpl.h - what the socket files share (kernel/net/sock*.c): the
 * socket itself, its lifetime and the helpers every operation uses.  See
 * sock.c for the design.
 */
#ifndef KERNEL_NET_SOCKIMPL_H
#define KERNEL_NET_SOCKIMPL_H

#include <stdbool.h>
#include <stdint.h>
#include "lwip/ip_addr.h"
#include "lwip/memp.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "polldesc.h"

#define BACKLOG     64          /* connections accepted, not yet taken */
#define UDP_QUEUE   64          /* datagrams queued per socket */
#define CHUNK       0xFFFF      /* lwIP's u16 lengths */

enum kind { K_TCP, K_LISTEN, K_UDP };

struct dgram {
    struct pbuf *p;
    ip_addr_t from;
    u16_t port;
};

struct sp_sock {
    struct polldesc pd;
    enum kind kind;
    /* Under stack_lock: */
    union {
        struct tcp_pcb *tcp;
        struct udp_pcb *udp;
    } pcb;                      /* NULL once lwIP is done with it */
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

/*
 * The start of every call that makes a socket: parses addr into *a (a
 * remote one needs an address and a port), then takes stack_lock and a
 * socket of this kind with a fresh pcb (a TCP one for K_LISTEN too).
 * NULL with *err set (-EINVAL, -ENETDOWN, or -ENOMEM when a pool is
 * empty) and the lock not held; on success the caller holds stack_lock
 * with flags *f.
 */
struct sp_sock *sock_open(enum kind kind, const char *addr, bool remote,
                          struct sock_addr *a, unsigned long *f, int *err);

/* Gives back a socket sock_open made that never reached its user; under
   stack_lock. */
void sock_discard(struct sp_sock *s);

/* A socket for a connection lwIP accepted; NULL when the pool is empty.
   Under stack_lock. */
struct sp_sock *sock_new(enum kind kind);

/* Takes a reference for an operation; under stack_lock. */
void hold(struct sp_sock *s);

/* Leaves the stack and drops the reference; frees s if it was the last
   one of a closed socket. */
void release(struct sp_sock *s, unsigned long f);

/* Frees the queued receive data of a TCP socket; under stack_lock. */
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

/* Tells bsd_poll.c's poll() that s changed; under stack_lock (bsd.h). */
void sock_event(struct sp_sock *s);

/* ---- Per protocol (sock_tcp.c, sock_udp.c) -------------------------- */

/* Unhooks a TCP or listening socket's pcb from its callbacks and closes
   it: no callback comes after.  Under stack_lock. */
void tcp_detach(struct sp_sock *s);

/* Frees what a UDP socket still holds; under stack_lock. */
void udp_drain(struct sp_sock *s);

#endif
