/*
 * bsd.c - the BSD socket calls (include/bsd/: sys/socket.h, netinet/in.h,
 * arpa/inet.h, poll.h) on the socket layer of spindle/net.h, for C code
 * ported to Spindle: socket, bind, listen, accept, connect, send, recv,
 * sendto, recvfrom, shutdown, [gs]etsockopt, getsockname, getpeername,
 * poll, fcntl, and read/write/close through newlib (kernel/newlib.c);
 * arpa/inet.h's address conversions are in inet.c.  Bare metal only:
 * ARCH=hosted links glibc's.
 *
 * Descriptors.  A fixed table of NFD entries under fd_lock; 0-2 are the
 * console, sockets take the lowest free one from 3.  An entry points at a
 * struct bsock, reference-counted under fd_lock: the table holds one,
 * every call in progress another.  close() takes the entry out of the
 * table at once (its number is free again), marks the bsock closed, and
 * wakes the Gs blocked on its socket by setting the socket's deadlines
 * into the past; they see `closed` and fail with EBADF.  Whoever drops
 * the last reference sp_close's the socket and frees the bsock, so no
 * call ever uses a freed socket, and sp_close never runs under a G that
 * is still inside sp_read.  (sp_close alone would wake them too, but a
 * call between its table look-up and its first step inside sock.c would
 * then touch freed memory.)
 *
 * Deadlines.  SO_RCVTIMEO and SO_SNDTIMEO become the socket's read or
 * write deadline for one call (set before, cleared after; -ETIMEDOUT
 * becomes EAGAIN).  close() and shutdown() also use them, to wake
 * waiters, so every deadline a call sets is followed by a look at
 * `closed` (and the shut flags): if the direction is dead the call puts
 * the deadline back in the past itself.  close() marks before it sets,
 * so whichever of the two writes comes last, the deadline ends up past.
 *
 * One reader and one writer at a time per socket (sock.c panics on two
 * waiters in one direction): rmu and wmu, G mutexes, as Go's fdMutex.  A
 * non-blocking call that finds its mutex taken fails with EAGAIN.
 *
 * Non-blocking calls (O_NONBLOCK, MSG_DONTWAIT) ask sp_sock_ready first
 * and call the blocking operation only when it cannot wait: the reader
 * holds rmu, so nobody takes the data in between.  Writes go through
 * sp_write_nowait (a partial count, or EAGAIN).  A non-blocking connect
 * returns EINPROGRESS and dials in a G of its own, which records the
 * outcome (state, SO_ERROR) and wakes poll().
 *
 * poll().  A G in poll() with nothing ready registers a struct poller (a
 * polldesc of its own, which also carries the timeout as its read
 * deadline) on a global list and parks in pd_wait.  sock.c's lwIP
 * callbacks call sock_event after every change of a socket's readiness;
 * our hook (poll_hook, under stack_lock) makes every registered poller's
 * polldesc ready, and each woken poller looks at all its descriptors
 * again.  A poller registers, then looks, then waits, so an event either
 * comes after its look (and readies its polldesc, which pd_wait then
 * finds) or before (and the look sees it).  Changes made here rather than
 * by lwIP (a connect's outcome, close, shutdown) wake the pollers
 * directly (wake_pollers).  Every event wakes every poller: simple and
 * right for the usual one event loop per server; with many pollers each
 * wakes for the others' events too, and each wake costs a look at each
 * of its descriptors (a targeted wake needs a socket -> poller map).
 *
 * POLLOUT and the heap.  sp_sock_ready reports a TCP socket writable by
 * lwIP's own low-water marks, but tcp_write can still fail for want of
 * heap when many connections hold unacknowledged data: a non-blocking
 * write then gets EAGAIN while POLLOUT says go, and an event loop would
 * spin.  So a write that got EAGAIN remembers the event count it saw
 * before it tried (event_gen, counted by poll_hook), and poll() holds
 * that socket's POLLOUT back until some socket event has happened since
 * (an acknowledgement is what frees heap).
 *
 * Not done: MSG_PEEK and MSG_OOB (EOPNOTSUPP); SO_KEEPALIVE is recorded
 * but not given to lwIP (sock.c has no setter), TCP_NODELAY 0 is
 * recorded but Nagle stays off; bind() only records a TCP address, so
 * EADDRINUSE comes from listen(), and a bound client's connect() ignores
 * the address; close() during a blocking connect() waits for the
 * connection attempt to end (sp_dial takes no deadline from outside);
 * a blocking send() that SO_SNDTIMEO cuts short fails with EAGAIN even
 * if part of the data was queued (sp_write returns no partial count);
 * shutdown() of a listener fails with ENOTCONN.
 *
 * Locks.  fd_lock is a leaf: nothing is taken under it.  pollers_lock
 * is taken under stack_lock (poll_hook) and takes nothing itself.  The G
 * mutexes park, so no spinlock is held when one is taken; a call takes
 * rmu or wmu before mu, never the other way round.
 *
 * errno is the calling G's (newlib's per-G _reent).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "bsd.h"
#include "netimpl.h"
#include "polldesc.h"
#include "sched.h"
#include "spinlock.h"

#define NFD         1024        /* descriptors, the console's included */
#define FD_FIRST    3           /* the first socket descriptor */
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
    int type;                   /* SOCK_STREAM or SOCK_DGRAM */
    int refs;                   /* under fd_lock: the table's, and calls' */
    bool closed;                /* out of the table; atomic */
    bool rshut, wshut;          /* shutdown() of a direction; atomic */
    bool nonblock;              /* O_NONBLOCK; atomic */
    bool wblocked;              /* a non-blocking write got EAGAIN when */
    unsigned wblock_gen;        /* event_gen was this; both atomic */
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

static struct spinlock fd_lock = SPINLOCK_INIT("bsd fds");
static struct bsock *fdtab[NFD];

/* ---- Little helpers ------------------------------------------------ */

static int fail(int e)
{
    errno = e;
    return -1;
}

#define LOAD(x)     __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

static bool nonblocking(struct bsock *b, int flags)
{
    return (flags & MSG_DONTWAIT) || LOAD(b->nonblock);
}

/* Takes a direction's mutex (rmu or wmu); a non-blocking call does not
   wait for it: false if another G holds it. */
static bool lock_dir(sp_mutex *m, bool nbio)
{
    if (nbio)
        return sp_mutex_trylock(m);
    sp_mutex_lock(m);
    return true;
}

/* "a.b.c.d:port" of an IPv4 socket address; the any address as ":port"
   (sock.c's "any local address"). */
static void sin_format(const struct sockaddr_in *a, char *buf)
{
    uint32_t ip = ntohl(a->sin_addr.s_addr);

    if (ip == INADDR_ANY)
        snprintf(buf, ADDRLEN, ":%u", ntohs(a->sin_port));
    else
        snprintf(buf, ADDRLEN, "%u.%u.%u.%u:%u", ip >> 24, (ip >> 16) & 255,
                 (ip >> 8) & 255, ip & 255, ntohs(a->sin_port));
}

/* The reverse, of what sock.c formats ("a.b.c.d:port"). */
static bool sin_parse(const char *s, struct sockaddr_in *a)
{
    char host[INET_ADDRSTRLEN];
    const char *colon = strrchr(s, ':');
    char *end;
    unsigned long port;

    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    if (!colon || colon - s >= (long)sizeof host)
        return false;
    port = strtoul(colon + 1, &end, 10);
    if (*end || port > 65535)
        return false;
    memcpy(host, s, colon - s);
    host[colon - s] = 0;
    a->sin_port = htons((uint16_t)port);
    return !host[0] || inet_pton(AF_INET, host, &a->sin_addr) == 1;
}

/* An address argument: 0, or EAFNOSUPPORT / EINVAL. */
static int sin_arg(const struct sockaddr *addr, socklen_t len,
                   struct sockaddr_in *a)
{
    if (!addr || len < sizeof(sa_family_t))
        return EINVAL;
    if (addr->sa_family != AF_INET)
        return EAFNOSUPPORT;
    if (len < sizeof *a)
        return EINVAL;
    memcpy(a, addr, sizeof *a);
    return 0;
}

/* Copies an address out, cut to *len as the kernel's; *len becomes the
   full size. */
static void sin_out(const struct sockaddr_in *a, struct sockaddr *addr,
                    socklen_t *len)
{
    if (!addr || !len)
        return;
    memcpy(addr, a, *len < sizeof *a ? *len : sizeof *a);
    *len = sizeof *a;
}

/* connect's and sendto's destination: Linux takes the any address for
   this machine. */
static void dest_format(const struct sockaddr_in *to, char *buf)
{
    struct sockaddr_in a = *to;

    if (a.sin_addr.s_addr == htonl(INADDR_ANY))
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sin_format(&a, buf);
}

/* ---- The descriptor table ------------------------------------------ */

static struct bsock *bsock_new(int type)
{
    struct bsock *b = calloc(1, sizeof *b);

    if (!b)
        return NULL;
    b->type = type;
    b->refs = 1;                /* the table's */
    b->state = ST_NEW;
    b->nodelay = true;          /* sock.c turns Nagle off */
    return b;
}

/* The socket behind fd with a reference for the caller, or NULL and
   *e (EBADF; ENOTSOCK for the console's). */
static struct bsock *fd_get(int fd, int *e)
{
    struct bsock *b = NULL;
    unsigned long f;

    if (fd >= FD_FIRST && fd < NFD) {
        f = spin_lock(&fd_lock);
        if ((b = fdtab[fd]))
            b->refs++;
        spin_unlock(&fd_lock, f);
    }
    if (!b)
        *e = fd >= 0 && fd < FD_FIRST ? ENOTSOCK : EBADF;
    return b;
}

/* Drops a reference; the last one closes the socket and frees b. */
static void fd_put(struct bsock *b)
{
    unsigned long f = spin_lock(&fd_lock);
    bool last = --b->refs == 0;

    spin_unlock(&fd_lock, f);
    if (!last)
        return;
    if (b->s)
        sp_close(b->s);
    free(b);
}

/* The lowest free descriptor, now b's; -1 if the table is full. */
static int fd_alloc(struct bsock *b)
{
    unsigned long f = spin_lock(&fd_lock);
    int fd = -1;

    for (int i = FD_FIRST; i < NFD; i++)
        if (!fdtab[i]) {
            fdtab[i] = b;
            fd = i;
            break;
        }
    spin_unlock(&fd_lock, f);
    return fd;
}

bool bsd_is_socket(int fd)
{
    unsigned long f;
    bool yes;

    if (fd < FD_FIRST || fd >= NFD)
        return false;
    f = spin_lock(&fd_lock);
    yes = fdtab[fd] != NULL;
    spin_unlock(&fd_lock, f);
    return yes;
}

/* True once b's direction mode ('r' or 'w') is closed or shut. */
static bool dead(struct bsock *b, int mode)
{
    return LOAD(b->closed) || (mode == 'r' ? LOAD(b->rshut) : LOAD(b->wshut));
}

/* Sets s's deadline in direction mode for a call (see "Deadlines"). */
static void set_deadline(struct bsock *b, struct sp_sock *s, int mode,
                         int64_t ns)
{
    if (mode == 'r')
        sp_set_read_deadline(s, ns);
    else
        sp_set_write_deadline(s, ns);
    if (ns != -1 && dead(b, mode))
        set_deadline(b, s, mode, -1);
}

/* Makes s b's socket, state st; under b->mu.  If b was closed meanwhile,
   s's waiters are told as close() would have. */
static void attach(struct bsock *b, struct sp_sock *s, int st)
{
    STORE(b->s, s);
    STORE(b->state, st);
    if (LOAD(b->closed))
        sp_set_deadline(s, -1);
}

/* ---- Waking poll() -------------------------------------------------- */

struct poller {
    struct polldesc pd;         /* 'r': woken; its deadline: the timeout */
    struct poller *next, *prev;
};

static struct spinlock pollers_lock = SPINLOCK_INIT("bsd pollers");
static struct poller *pollers;  /* under pollers_lock */
static int npollers;            /* list length; written under the lock */
static unsigned event_gen;      /* socket events so far; atomic */

/* sock.c's hook: a socket's readiness changed.  Under stack_lock. */
static void poll_hook(struct sp_sock *s)
{
    unsigned long f;

    __atomic_add_fetch(&event_gen, 1, __ATOMIC_RELAXED);
    /* Relaxed: a poller that matters registered before it looked at s
       under stack_lock, which this callback holds after it. */
    if (!__atomic_load_n(&npollers, __ATOMIC_RELAXED))
        return;
    f = spin_lock(&pollers_lock);
    for (struct poller *p = pollers; p; p = p->next)
        net_ready(pd_ready(&p->pd, 'r'));
    spin_unlock(&pollers_lock, f);
}

/* The same for a change made here (connect's outcome, close, shutdown),
   after it was stored: a poller that registered later looks after. */
static void wake_pollers(void)
{
    struct g *list = NULL;
    unsigned long f = spin_lock(&pollers_lock);

    for (struct poller *p = pollers; p; p = p->next)
        list = pd_ready_push(&p->pd, 'r', list);
    spin_unlock(&pollers_lock, f);
    while (list) {
        struct g *gp = list;

        list = gp->schedlink;
        goready(gp);
    }
}

static void install_hook(void)
{
    __atomic_store_n(&sock_event_hook, poll_hook, __ATOMIC_RELEASE);
}

/* ---- socket, bind, listen ------------------------------------------ */

int socket(int domain, int type, int protocol)
{
    int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    struct bsock *b;
    int fd;

    if (domain != AF_INET)
        return fail(EAFNOSUPPORT);
    if (kind != SOCK_STREAM && kind != SOCK_DGRAM)
        return fail(EPROTONOSUPPORT);
    if (protocol != 0 &&
        protocol != (kind == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP))
        return fail(EPROTONOSUPPORT);
    install_hook();
    if (!(b = bsock_new(kind)))
        return fail(ENOMEM);
    b->nonblock = (type & SOCK_NONBLOCK) != 0;
    if ((fd = fd_alloc(b)) < 0) {
        free(b);
        return fail(EMFILE);
    }
    return fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
    struct sockaddr_in a;
    char str[ADDRLEN];
    struct sp_sock *s;
    struct bsock *b;
    int e, err;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    if ((e = sin_arg(addr, len, &a)))
        goto out;
    sp_mutex_lock(&b->mu);
    if (b->state != ST_NEW) {
        e = EINVAL;             /* bound already (or connected) */
    } else if (b->type == SOCK_STREAM) {
        b->local = a;           /* listen() makes the listener */
        STORE(b->state, ST_BOUND);
    } else {
        sin_format(&a, str);
        if ((s = sp_listen_udp(str, &err)))
            attach(b, s, ST_UDP);
        else
            e = -err;
    }
    sp_mutex_unlock(&b->mu);
out:
    fd_put(b);
    return e ? fail(e) : 0;
}

int listen(int fd, int backlog)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    char str[ADDRLEN];
    struct sp_sock *s;
    struct bsock *b;
    int e = 0, err;

    (void)backlog;              /* sock.c's is 64 */
    if (!(b = fd_get(fd, &e)))
        return fail(e);
    sp_mutex_lock(&b->mu);
    if (b->type != SOCK_STREAM) {
        e = EOPNOTSUPP;
    } else if (b->state == ST_NEW || b->state == ST_BOUND) {
        if (b->state == ST_BOUND)
            a = b->local;       /* else any address, a port of lwIP's */
        sin_format(&a, str);
        if ((s = sp_listen(str, &err)))
            attach(b, s, ST_LISTEN);
        else
            e = -err;
    } else if (b->state != ST_LISTEN) {
        e = EINVAL;             /* connected, or connecting */
    }
    sp_mutex_unlock(&b->mu);
    fd_put(b);
    return e ? fail(e) : 0;
}

/* ---- accept ---------------------------------------------------------- */

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    struct sockaddr_in peer;
    char str[ADDRLEN];
    struct bsock *b, *ab;
    struct sp_sock *l, *c = NULL;
    uint64_t timeo = 0;
    int e = 0, err = 0, nfd;
    bool nbio;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) {
        e = EINVAL;
        goto out;
    }
    if (LOAD(b->state) != ST_LISTEN) {
        e = EINVAL;
        goto out;
    }
    l = LOAD(b->s);
    nbio = nonblocking(b, 0);
    if (!lock_dir(&b->rmu, nbio)) {
        e = EAGAIN;
        goto out;
    }
    if (nbio && !(sp_sock_ready(l, NULL) & SP_SOCK_IN)) {
        err = -EAGAIN;
    } else {
        if (!nbio && (timeo = LOAD(b->rcvtimeo)))
            set_deadline(b, l, 'r', (int64_t)(sp_nanotime() + timeo));
        c = sp_accept(l, &err);
        if (timeo)
            set_deadline(b, l, 'r', 0);
    }
    sp_mutex_unlock(&b->rmu);
    if (!c) {
        e = LOAD(b->closed) ? EBADF :
            err == -ETIMEDOUT && timeo ? EAGAIN :
            err == -EPIPE ? EINVAL : -err;
        goto out;
    }
    if (!(ab = bsock_new(SOCK_STREAM))) {
        sp_close(c);
        e = ENOMEM;
        goto out;
    }
    ab->s = c;
    ab->state = ST_CONNECTED;
    ab->nonblock = (flags & SOCK_NONBLOCK) != 0;
    /* The address before the descriptor exists: once it does, another G
       may close it. */
    if (addr && len) {
        if (sp_remote_addr(c, str, sizeof str) < 0 || !sin_parse(str, &peer)) {
            memset(&peer, 0, sizeof peer);      /* reset already */
            peer.sin_family = AF_INET;
        }
        sin_out(&peer, addr, len);
    }
    if ((nfd = fd_alloc(ab)) < 0) {
        fd_put(ab);
        e = EMFILE;
        goto out;
    }
    fd_put(b);
    return nfd;
out:
    fd_put(b);
    return fail(e);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    return accept4(fd, addr, len, 0);
}

/* ---- connect --------------------------------------------------------- */

/*
 * Dials b->peer (ST_CONNECTING) and records the outcome: ST_CONNECTED,
 * or ST_FAILED with SO_ERROR set if `keep` (a non-blocking connect's,
 * for the caller to fetch).  Returns 0 or the error.
 */
static int dial(struct bsock *b, bool keep)
{
    char str[ADDRLEN];
    struct sp_sock *c;
    int err = 0;

    dest_format(&b->peer, str);
    c = sp_dial(str, LOAD(b->sndtimeo), &err);
    sp_mutex_lock(&b->mu);
    if (c) {
        attach(b, c, ST_CONNECTED);
    } else {
        b->soerror = keep ? -err : 0;
        STORE(b->state, ST_FAILED);
    }
    sp_mutex_unlock(&b->mu);
    wake_pollers();
    if (LOAD(b->closed))
        return EBADF;
    return c ? 0 : -err;
}

static void dial_g(void *arg)
{
    struct bsock *b = arg;

    dial(b, true);
    fd_put(b);                  /* connect's reference */
}

static int udp_connect(struct bsock *b, const struct sockaddr *addr,
                       socklen_t len);

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    struct sockaddr_in a;
    struct bsock *b;
    int e;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    if (b->type == SOCK_DGRAM) {
        e = udp_connect(b, addr, len);
        goto out;
    }
    if ((e = sin_arg(addr, len, &a)))
        goto out;
    if (a.sin_port == 0) {
        e = ECONNREFUSED;
        goto out;
    }
    sp_mutex_lock(&b->mu);
    switch (b->state) {
    case ST_NEW:
    case ST_BOUND:
    case ST_FAILED:
        b->peer = a;
        b->soerror = 0;
        STORE(b->state, ST_CONNECTING);
        break;
    case ST_CONNECTING:
        e = EALREADY;
        break;
    case ST_CONNECTED:
        e = EISCONN;
        break;
    default:
        e = EINVAL;             /* listening */
    }
    sp_mutex_unlock(&b->mu);
    if (e)
        goto out;
    if (nonblocking(b, 0)) {
        unsigned long f = spin_lock(&fd_lock);

        b->refs++;              /* dial_g's */
        spin_unlock(&fd_lock, f);
        sp_go(dial_g, b);
        e = EINPROGRESS;
        goto out;
    }
    /* SO_SNDTIMEO bounds the attempt: ETIMEDOUT then (Linux returns
       EINPROGRESS and goes on trying; sp_dial gives up). */
    e = dial(b, false);
out:
    fd_put(b);
    return e ? fail(e) : 0;
}

/* ---- TCP data -------------------------------------------------------- */

static ssize_t tcp_recv(struct bsock *b, void *buf, size_t len, int flags)
{
    bool nbio = nonblocking(b, flags);
    uint64_t timeo = 0;
    struct sp_sock *s;
    size_t got = 0;
    long n = 0;

    switch (LOAD(b->state)) {
    case ST_CONNECTED:
        break;
    case ST_CONNECTING:
        return fail(nbio ? EAGAIN : ENOTCONN);
    default:
        return fail(ENOTCONN);
    }
    s = LOAD(b->s);
    if (LOAD(b->rshut) || len == 0)
        return 0;
    if (!lock_dir(&b->rmu, nbio))
        return fail(EAGAIN);
    if (!nbio && (timeo = LOAD(b->rcvtimeo)))
        set_deadline(b, s, 'r', (int64_t)(sp_nanotime() + timeo));
    for (;;) {
        if (nbio && !(sp_sock_ready(s, NULL) & SP_SOCK_IN)) {
            n = -EAGAIN;
            break;
        }
        if ((n = sp_read(s, (char *)buf + got, len - got)) <= 0)
            break;
        got += (size_t)n;
        if (!(flags & MSG_WAITALL) || got == len)
            break;
    }
    if (timeo)
        set_deadline(b, s, 'r', 0);
    sp_mutex_unlock(&b->rmu);
    if (got)
        return (ssize_t)got;
    if (n == 0)
        return 0;
    if (LOAD(b->closed))
        return fail(EBADF);
    if (LOAD(b->rshut))
        return 0;
    if (n == -ETIMEDOUT && timeo)
        return fail(EAGAIN);
    return fail((int)-n);
}

static ssize_t tcp_send(struct bsock *b, const void *buf, size_t len,
                        int flags)
{
    bool nbio = nonblocking(b, flags);
    uint64_t timeo = 0;
    struct sp_sock *s;
    unsigned gen;
    long n;

    switch (LOAD(b->state)) {
    case ST_CONNECTED:
        break;
    case ST_CONNECTING:
        return fail(nbio ? EAGAIN : ENOTCONN);
    default:
        return fail(ENOTCONN);
    }
    s = LOAD(b->s);
    if (LOAD(b->wshut))
        return fail(EPIPE);
    if (len == 0)
        return 0;
    if (!lock_dir(&b->wmu, nbio))
        return fail(EAGAIN);
    if (nbio) {
        gen = __atomic_load_n(&event_gen, __ATOMIC_RELAXED);
        n = sp_write_nowait(s, buf, len);
        if (n == -EAGAIN)
            STORE(b->wblock_gen, gen);
        STORE(b->wblocked, n == -EAGAIN);
    } else {
        if ((timeo = LOAD(b->sndtimeo)))
            set_deadline(b, s, 'w', (int64_t)(sp_nanotime() + timeo));
        n = sp_write(s, buf, len);
        if (timeo)
            set_deadline(b, s, 'w', 0);
    }
    sp_mutex_unlock(&b->wmu);
    if (n >= 0)
        return n;
    if (LOAD(b->closed))
        return fail(EBADF);
    if (LOAD(b->wshut))
        return fail(EPIPE);
    if (n == -ETIMEDOUT && timeo)
        return fail(EAGAIN);
    return fail((int)-n);
}

/* ---- UDP ------------------------------------------------------------- */

/* b's UDP socket, bound to ":0" first if it was not bound yet (as Linux
   binds on the first sendto); NULL and *e if that fails. */
static struct sp_sock *udp_sock(struct bsock *b, int *e)
{
    struct sp_sock *s = LOAD(b->s);
    int err = 0;

    if (s)
        return s;
    sp_mutex_lock(&b->mu);
    if (!(s = b->s)) {
        if ((s = sp_listen_udp(":0", &err)))
            attach(b, s, ST_UDP);
        else
            *e = -err;
    }
    sp_mutex_unlock(&b->mu);
    return s;
}

static int udp_connect(struct bsock *b, const struct sockaddr *addr,
                       socklen_t len)
{
    struct sockaddr_in a;
    int e = 0;

    if (addr && len >= sizeof(sa_family_t) && addr->sa_family == AF_UNSPEC) {
        sp_mutex_lock(&b->mu);
        b->has_peer = false;    /* dissolves the association */
        sp_mutex_unlock(&b->mu);
        return 0;
    }
    if ((e = sin_arg(addr, len, &a)))
        return e;
    if (!udp_sock(b, &e))
        return e;
    sp_mutex_lock(&b->mu);
    b->peer = a;
    b->has_peer = true;
    sp_mutex_unlock(&b->mu);
    return 0;
}

static ssize_t udp_recv(struct bsock *b, void *buf, size_t len, int flags,
                        struct sockaddr *from, socklen_t *fromlen)
{
    bool nbio = nonblocking(b, flags), filter;
    struct sockaddr_in src, peer;
    uint64_t timeo = 0;
    char str[ADDRLEN];
    struct sp_sock *s;
    int e = 0;
    long n;

    if (!(s = udp_sock(b, &e)))
        return fail(e);
    if (LOAD(b->rshut))
        return 0;
    if (!lock_dir(&b->rmu, nbio))
        return fail(EAGAIN);
    sp_mutex_lock(&b->mu);
    filter = b->has_peer;
    peer = b->peer;
    sp_mutex_unlock(&b->mu);
    if (!nbio && (timeo = LOAD(b->rcvtimeo)))
        set_deadline(b, s, 'r', (int64_t)(sp_nanotime() + timeo));
    for (;;) {
        if (nbio && !(sp_sock_ready(s, NULL) & SP_SOCK_IN)) {
            n = -EAGAIN;
            break;
        }
        if ((n = sp_recvfrom(s, buf, len, str, sizeof str)) < 0)
            break;
        if (!sin_parse(str, &src))
            continue;
        /* A connected socket takes datagrams from its peer only. */
        if (!filter || (src.sin_addr.s_addr == peer.sin_addr.s_addr &&
                        src.sin_port == peer.sin_port))
            break;
    }
    if (timeo)
        set_deadline(b, s, 'r', 0);
    sp_mutex_unlock(&b->rmu);
    if (n >= 0) {
        sin_out(&src, from, fromlen);
        return n;
    }
    if (LOAD(b->closed))
        return fail(EBADF);
    if (LOAD(b->rshut))
        return 0;
    if (n == -ETIMEDOUT && timeo)
        return fail(EAGAIN);
    return fail((int)-n);
}

static ssize_t udp_send(struct bsock *b, const void *buf, size_t len,
                        const struct sockaddr *to, socklen_t tolen)
{
    struct sockaddr_in dst;
    char str[ADDRLEN];
    struct sp_sock *s;
    int e = 0;
    long n;

    if (to) {
        if ((e = sin_arg(to, tolen, &dst)))
            return fail(e);
    } else {
        sp_mutex_lock(&b->mu);
        dst = b->peer;
        e = b->has_peer ? 0 : EDESTADDRREQ;
        sp_mutex_unlock(&b->mu);
        if (e)
            return fail(e);
    }
    if (LOAD(b->wshut))
        return fail(EPIPE);
    if (!(s = udp_sock(b, &e)))
        return fail(e);
    dest_format(&dst, str);
    if ((n = sp_sendto(s, buf, len, str)) < 0)
        return fail(LOAD(b->closed) ? EBADF : (int)-n);
    return n;
}

/* ---- The data calls ---------------------------------------------------- */

/* Flags every call accepts; MSG_NOSIGNAL: there are no signals. */
#define SEND_FLAGS  (MSG_DONTWAIT | MSG_NOSIGNAL)
#define RECV_FLAGS  (MSG_DONTWAIT | MSG_WAITALL | MSG_NOSIGNAL)

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
                 struct sockaddr *from, socklen_t *fromlen)
{
    struct bsock *b;
    ssize_t n;
    int e;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    if (flags & ~RECV_FLAGS)
        n = fail(EOPNOTSUPP);
    else if (b->type == SOCK_STREAM)
        n = tcp_recv(b, buf, len, flags);
    else
        n = udp_recv(b, buf, len, flags, from, fromlen);
    fd_put(b);
    return n;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    return recvfrom(fd, buf, len, flags, NULL, NULL);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
               const struct sockaddr *to, socklen_t tolen)
{
    struct bsock *b;
    ssize_t n;
    int e;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    if (flags & ~SEND_FLAGS)
        n = fail(EOPNOTSUPP);
    else if (b->type == SOCK_STREAM)
        n = tcp_send(b, buf, len, flags);   /* `to` ignored, as Linux */
    else
        n = udp_send(b, buf, len, to, tolen);
    fd_put(b);
    return n;
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    return sendto(fd, buf, len, flags, NULL, 0);
}

long bsd_read(int fd, void *buf, size_t len)
{
    return recvfrom(fd, buf, len, 0, NULL, NULL);
}

long bsd_write(int fd, const void *buf, size_t len)
{
    return sendto(fd, buf, len, 0, NULL, 0);
}

/* ---- shutdown, close ---------------------------------------------------- */

int shutdown(int fd, int how)
{
    struct sp_sock *s;
    struct bsock *b;
    int e = 0;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
        e = EINVAL;
        goto out;
    }
    sp_mutex_lock(&b->mu);
    s = b->s;
    if (b->type == SOCK_STREAM ? b->state != ST_CONNECTED : !b->has_peer)
        e = ENOTCONN;
    sp_mutex_unlock(&b->mu);
    if (e)
        goto out;
    if (how != SHUT_WR) {
        STORE(b->rshut, true);
        sp_set_read_deadline(s, -1);    /* wakes a reader: it reads 0 */
    }
    if (how != SHUT_RD && !__atomic_exchange_n(&b->wshut, true,
                                               __ATOMIC_SEQ_CST)) {
        sp_set_write_deadline(s, -1);   /* a writer fails with EPIPE */
        if (b->type == SOCK_STREAM && sp_close_write(s) < 0)
            e = ENOTCONN;
    }
    wake_pollers();
out:
    fd_put(b);
    return e ? fail(e) : 0;
}

int bsd_close(int fd)
{
    struct bsock *b = NULL;
    struct sp_sock *s;
    unsigned long f;

    if (fd >= FD_FIRST && fd < NFD) {
        f = spin_lock(&fd_lock);
        if ((b = fdtab[fd])) {
            fdtab[fd] = NULL;
            STORE(b->closed, true);
        }
        spin_unlock(&fd_lock, f);
    }
    if (!b)
        return fail(EBADF);
    /* Under mu: a connect or bind attaching s now either sees `closed`
       (attach) or has attached before we look. */
    sp_mutex_lock(&b->mu);
    s = b->s;
    sp_mutex_unlock(&b->mu);
    if (s)
        sp_set_deadline(s, -1);         /* wakes whoever waits on it */
    wake_pollers();                     /* POLLNVAL for them */
    fd_put(b);                          /* the table's reference */
    return 0;
}

/* ---- Options ------------------------------------------------------------- */

static int opt_int(const void *val, socklen_t len, int *v)
{
    if (!val || len < sizeof(int))
        return EINVAL;
    memcpy(v, val, sizeof *v);
    return 0;
}

static int opt_timeo(const void *val, socklen_t len, uint64_t *ns)
{
    struct timeval tv;

    if (!val || len < sizeof tv)
        return EINVAL;
    memcpy(&tv, val, sizeof tv);
    if (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
        return EDOM;
    *ns = (uint64_t)tv.tv_sec * 1000000000 + (uint64_t)tv.tv_usec * 1000;
    return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
    struct bsock *b;
    uint64_t ns = 0;
    int e, v = 0;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    e = ENOPROTOOPT;
    if (level == SOL_SOCKET) {
        switch (name) {
        case SO_REUSEADDR:      /* sp_listen reuses addresses anyway */
            if (!(e = opt_int(val, len, &v)))
                STORE(b->reuseaddr, v != 0);
            break;
        case SO_KEEPALIVE:      /* recorded, not given to lwIP */
            if (!(e = opt_int(val, len, &v)))
                STORE(b->keepalive, v != 0);
            break;
        case SO_RCVTIMEO:
            if (!(e = opt_timeo(val, len, &ns)))
                STORE(b->rcvtimeo, ns);
            break;
        case SO_SNDTIMEO:
            if (!(e = opt_timeo(val, len, &ns)))
                STORE(b->sndtimeo, ns);
            break;
        }
    } else if (level == IPPROTO_TCP && b->type == SOCK_STREAM) {
        if (name == TCP_NODELAY && !(e = opt_int(val, len, &v)))
            STORE(b->nodelay, v != 0);  /* Nagle stays off either way */
    }
    fd_put(b);
    return e ? fail(e) : 0;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
    struct timeval tv;
    struct bsock *b;
    uint64_t ns = 0;
    int e, v = 0, err = 0;
    bool is_tv = false;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    e = 0;
    if (!val || !len) {
        e = EFAULT;
    } else if (level == SOL_SOCKET) {
        switch (name) {
        case SO_REUSEADDR:  v = LOAD(b->reuseaddr); break;
        case SO_KEEPALIVE:  v = LOAD(b->keepalive); break;
        case SO_TYPE:       v = b->type; break;
        case SO_ACCEPTCONN: v = LOAD(b->state) == ST_LISTEN; break;
        case SO_RCVTIMEO:   ns = LOAD(b->rcvtimeo); is_tv = true; break;
        case SO_SNDTIMEO:   ns = LOAD(b->sndtimeo); is_tv = true; break;
        case SO_ERROR:
            /* A failed non-blocking connect's error, once; else the
               connection's sticky one. */
            sp_mutex_lock(&b->mu);
            v = b->soerror;
            b->soerror = 0;
            sp_mutex_unlock(&b->mu);
            if (!v && LOAD(b->state) == ST_CONNECTED) {
                sp_sock_ready(LOAD(b->s), &err);
                v = -err;
            }
            break;
        default:
            e = ENOPROTOOPT;
        }
    } else if (level == IPPROTO_TCP && b->type == SOCK_STREAM &&
               name == TCP_NODELAY) {
        v = LOAD(b->nodelay);
    } else {
        e = ENOPROTOOPT;
    }
    if (!e && is_tv) {
        tv.tv_sec = (time_t)(ns / 1000000000);
        tv.tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
        memcpy(val, &tv, *len < sizeof tv ? *len : sizeof tv);
        *len = sizeof tv;
    } else if (!e) {
        memcpy(val, &v, *len < sizeof v ? *len : sizeof v);
        *len = sizeof v;
    }
    fd_put(b);
    return e ? fail(e) : 0;
}

/* ---- Addresses ------------------------------------------------------------ */

static int end_name(int fd, bool local, struct sockaddr *addr,
                    socklen_t *len)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    char str[ADDRLEN];
    struct sp_sock *s;
    struct bsock *b;
    int e, st;

    if (!(b = fd_get(fd, &e)))
        return fail(e);
    e = 0;
    sp_mutex_lock(&b->mu);
    st = b->state;
    s = b->s;
    if (local && st == ST_BOUND)
        a = b->local;
    if (!local && b->type == SOCK_DGRAM) {
        if (b->has_peer)
            a = b->peer;
        else
            e = ENOTCONN;
    }
    sp_mutex_unlock(&b->mu);
    if (!local && b->type == SOCK_STREAM && st != ST_CONNECTED)
        e = ENOTCONN;
    if (!e && s && (local || b->type == SOCK_STREAM)) {
        if ((local ? sp_local_addr(s, str, sizeof str)
                   : sp_remote_addr(s, str, sizeof str)) < 0 ||
            !sin_parse(str, &a))
            e = local ? EINVAL : ENOTCONN;
    }
    if (!e) {
        if (!addr || !len)
            e = EFAULT;
        else
            sin_out(&a, addr, len);
    }
    fd_put(b);
    return e ? fail(e) : 0;
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
    return end_name(fd, true, addr, len);
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
    return end_name(fd, false, addr, len);
}

/* ---- poll ------------------------------------------------------------------ */

/* What fd is ready for now: POLL* bits before masking with events. */
static short fd_revents(int fd)
{
    struct bsock *b;
    struct sp_sock *s;
    short r = 0;
    int e, m, st;

    if (fd >= 0 && fd < FD_FIRST)
        return fd == 0 ? POLLIN | POLLRDNORM : POLLOUT | POLLWRNORM;
    if (!(b = fd_get(fd, &e)))
        return POLLNVAL;
    st = LOAD(b->state);
    s = LOAD(b->s);             /* after the state: attach stores it first */
    switch (st) {
    case ST_NEW:
    case ST_BOUND:
        /* Linux: an unconnected TCP socket is "hung up" and writable. */
        r = b->type == SOCK_STREAM ? POLLOUT | POLLWRNORM | POLLHUP
                                   : POLLOUT | POLLWRNORM;
        break;
    case ST_CONNECTING:
        break;
    case ST_FAILED:
        r = POLLOUT | POLLWRNORM | POLLHUP;
        sp_mutex_lock(&b->mu);
        if (b->soerror)
            r |= POLLERR;
        sp_mutex_unlock(&b->mu);
        break;
    default:                    /* a listener, connection or UDP socket */
        m = sp_sock_ready(s, NULL);
        if (m & SP_SOCK_IN)
            r |= POLLIN | POLLRDNORM;
        if ((m & SP_SOCK_OUT) &&
            !(LOAD(b->wblocked) && LOAD(b->wblock_gen) ==
              __atomic_load_n(&event_gen, __ATOMIC_RELAXED)))
            r |= POLLOUT | POLLWRNORM;
        if (m & SP_SOCK_ERR)
            r |= POLLERR;
        if (m & SP_SOCK_HUP)
            r |= POLLHUP;
        if (m & SP_SOCK_RDHUP)
            r |= POLLRDHUP;
        if (LOAD(b->rshut))
            r |= POLLIN | POLLRDNORM | POLLRDHUP;
        if (LOAD(b->wshut))
            r |= POLLOUT | POLLWRNORM;
    }
    fd_put(b);
    return r;
}

/* Looks at every descriptor; the number with something to report. */
static int poll_scan(struct pollfd *fds, nfds_t nfds)
{
    int n = 0;

    for (nfds_t i = 0; i < nfds; i++) {
        short r = 0;

        if (fds[i].fd >= 0)
            r = fd_revents(fds[i].fd) &
                (fds[i].events | POLLERR | POLLHUP | POLLNVAL);
        fds[i].revents = r;
        n += r != 0;
    }
    return n;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    struct poller p;
    unsigned long f;
    int n;

    if (nfds > NFD)
        return fail(EINVAL);
    if ((n = poll_scan(fds, nfds)) || timeout == 0)
        return n;
    pd_init(&p.pd);
    if (timeout > 0)
        pd_set_deadline(&p.pd, (int64_t)(sp_nanotime() + SP_MS(timeout)),
                        'r');
    f = spin_lock(&pollers_lock);
    p.prev = NULL;
    p.next = pollers;
    if (pollers)
        pollers->prev = &p;
    pollers = &p;
    __atomic_store_n(&npollers, npollers + 1, __ATOMIC_RELAXED);
    spin_unlock(&pollers_lock, f);
    /* Registered: from here on every event readies p.pd, and the wait
       below finds it.  PD_ETIMEOUT: the timeout passed. */
    if (pd_prepare(&p.pd, 'r') == PD_OK)
        while (!(n = poll_scan(fds, nfds)) && pd_wait(&p.pd, 'r') == PD_OK)
            ;
    if (!n)
        n = poll_scan(fds, nfds);
    f = spin_lock(&pollers_lock);
    if (p.prev)
        p.prev->next = p.next;
    else
        pollers = p.next;
    if (p.next)
        p.next->prev = p.prev;
    __atomic_store_n(&npollers, npollers - 1, __ATOMIC_RELAXED);
    spin_unlock(&pollers_lock, f);
    pd_fini(&p.pd);
    return n;
}

/* ---- fcntl (newlib's own fails with ENOSYS) ---------------------------- */

int fcntl(int fd, int cmd, ...)
{
    struct bsock *b;
    va_list ap;
    int arg = 0, e, r = 0;

    if (cmd == F_SETFL || cmd == F_SETFD) {
        va_start(ap, cmd);
        arg = va_arg(ap, int);
        va_end(ap);
    }
    if (fd >= 0 && fd < FD_FIRST) {
        switch (cmd) {
        case F_GETFL:   return O_RDWR;
        case F_SETFL:
        case F_GETFD:
        case F_SETFD:   return 0;
        default:        return fail(EINVAL);
        }
    }
    if (!(b = fd_get(fd, &e)))
        return fail(EBADF);
    switch (cmd) {
    case F_GETFL:
        r = O_RDWR | (LOAD(b->nonblock) ? O_NONBLOCK : 0);
        break;
    case F_SETFL:
        STORE(b->nonblock, (arg & O_NONBLOCK) != 0);
        break;
    case F_GETFD:               /* no exec: FD_CLOEXEC means nothing */
    case F_SETFD:
        break;
    default:
        r = fail(EINVAL);
    }
    fd_put(b);
    return r;
}
