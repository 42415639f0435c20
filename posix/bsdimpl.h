/*
 * bsdimpl.h - what the files of the BSD socket calls (posix/bsd*.c)
 * share: the socket behind a descriptor, the descriptor table (bsd.c),
 * the address conversions (bsd_addr.c), the wake-ups of poll()
 * (bsd_poll.c) and UDP's implicit bind (bsd_conn.c).  The design is at
 * the top of bsd.c.
 *
 * The kernel is linked with the apps, so the names here that have
 * external linkage carry a bsd_ (or bsock_) prefix.  Uses the BSD headers
 * of include/bsd/: bare metal only, as are the files that include it.
 */
#ifndef NET_BSDIMPL_H
#define NET_BSDIMPL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spindle/sync.h>
#include "posix/fd.h"

struct sp_sock;

#define ADDRLEN     24          /* "a.b.c.d:port" and its NUL */

enum state {
    ST_NEW,                     /* socket(); UDP: not bound yet */
    ST_BOUND,                   /* TCP: bind() recorded `local` */
    ST_LISTEN,                  /* TCP: s is a listener */
    ST_CONNECTING,              /* TCP: a connect() is dialling `peer` */
    ST_CONNECTED,               /* TCP: s is a connection */
    ST_FAILED,                  /* TCP: a non-blocking connect() failed */
    ST_UDP,                     /* UDP: s is bound */
};

struct bsock {
    struct file f;              /* first: a socket is a file (fd.h) */
    int type;                   /* SOCK_STREAM or SOCK_DGRAM */
    bool rshut, wshut;          /* shutdown() of a direction; atomic */
    bool wblocked;              /* a non-blocking write got EAGAIN when */
    unsigned wblock_gen;        /* bsd_event_gen was this; both atomic */
    uint64_t rcvtimeo, sndtimeo;    /* ns, 0 none; atomic */
    sp_mutex rmu, wmu;          /* one reader, one writer at a time */
    bool reuseaddr, keepalive, nodelay;     /* options; atomic */
    sp_mutex mu;                /* guards what follows (writes) */
    int state;                  /* enum state; atomic reads */
    struct sp_sock *s;          /* set once, never changed; atomic reads */
    struct sockaddr_in local;   /* ST_BOUND: bind's address */
    struct sockaddr_in peer;    /* TCP: connect's; UDP: connect's, if */
    bool has_peer;              /* it was called */
    int soerror;                /* SO_ERROR (an errno): a failed
                                   non-blocking connect's */
};

/* ---- Little helpers ------------------------------------------------- */

static inline int fail(int e)
{
    errno = e;
    return -1;
}

#define LOAD(x)     __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

static inline bool nonblocking(struct bsock *b, int flags)
{
    return file_nonblock(&b->f, flags & MSG_DONTWAIT);
}

/* ---- The descriptor table (bsd.c) ----------------------------------- */

/* A new socket of `type`, ST_NEW, with one reference, the caller's;
   NULL if there is no memory.  bsd_fd_alloc gives it a descriptor. */
struct bsock *bsock_new(int type);

/* The socket behind fd with a reference for the caller, or NULL and
   *e (EBADF; ENOTSOCK for a descriptor that is not an IPv4 socket). */
struct bsock *bsd_fd_get(int fd, int *e);

/* Another reference to b, for a G of its own; the caller holds one. */
static inline void bsd_fd_hold(struct bsock *b)
{
    file_hold(&b->f);
}

/* Drops a reference; the last one closes the socket and frees b. */
static inline void bsd_fd_put(struct bsock *b)
{
    file_put(&b->f);
}

/* The lowest free descriptor, now b's (taking over the caller's
   reference); -1 if the table is full.  cloexec: SOCK_CLOEXEC. */
int bsd_fd_alloc(struct bsock *b, bool cloexec);

/* What b is ready for now: POLL* bits (bsd_poll.c). */
unsigned bsd_revents(struct bsock *b);

/* The socket calls' recvfrom and sendto on a socket in hand (bsd_data.c). */
ssize_t bsd_recvfrom(struct bsock *b, void *buf, size_t len, int flags,
                     struct sockaddr *from, socklen_t *fromlen);
ssize_t bsd_sendto(struct bsock *b, const void *buf, size_t len, int flags,
                   const struct sockaddr *to, socklen_t tolen);

/* Sets s's deadline in direction mode ('r' or 'w') for a call, and puts
   it back in the past if that direction is dead (bsd.c's "Deadlines"). */
void bsd_set_deadline(struct bsock *b, struct sp_sock *s, int mode,
                      int64_t ns);

/* Makes s b's socket, state st; under b->mu.  If b was closed meanwhile,
   s's waiters are told as close() would have. */
void bsd_attach(struct bsock *b, struct sp_sock *s, int st);

/* ---- Addresses (bsd_addr.c) ----------------------------------------- */

/* "a.b.c.d:port" of an IPv4 socket address into buf (ADDRLEN bytes);
   the any address as ":port" (sock.c's "any local address"). */
void bsd_sin_format(const struct sockaddr_in *a, char *buf);

/* The reverse, of what sock.c formats ("a.b.c.d:port"); false if s is
   not such an address. */
bool bsd_sin_parse(const char *s, struct sockaddr_in *a);

/* An address argument into *a: 0, or EAFNOSUPPORT / EINVAL. */
int bsd_sin_arg(const struct sockaddr *addr, socklen_t len,
                struct sockaddr_in *a);

/* Copies an address out, cut to *len as the kernel's; *len becomes the
   full size.  Nothing if addr or len is NULL. */
void bsd_sin_out(const struct sockaddr_in *a, struct sockaddr *addr,
                 socklen_t *len);

/* connect's and sendto's destination, formatted as bsd_sin_format's:
   Linux takes the any address for this machine. */
void bsd_dest_format(const struct sockaddr_in *to, char *buf);

/* ---- Readiness (bsd_poll.c) ----------------------------------------- */

/* Socket events so far (sock.c's, counted by bsd_poll.c's hook); atomic.
   A write that got EAGAIN records it in wblock_gen. */
extern unsigned bsd_event_gen;

/* Tells b's watchers, for a change made by a BSD call (a connect's
   outcome, shutdown) after it was stored.  Holding no spinlock. */
static inline void bsd_wake(struct bsock *b)
{
    file_wake(&b->f);
}

/* Installs the hook on sock.c's events; before the first socket. */
void bsd_install_hook(void);

/* ---- UDP (bsd_conn.c) ----------------------------------------------- */

/* b's UDP socket, bound to ":0" first if it was not bound yet (as Linux
   binds on the first sendto); NULL and *e if that fails. */
struct sp_sock *bsd_udp_sock(struct bsock *b, int *e);

#endif
