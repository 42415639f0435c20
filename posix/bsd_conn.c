/*
 * bsd_conn.c - the BSD calls that make, bind, connect and shut down a
 * descriptor's socket: socket, bind, listen, accept, connect and
 * shutdown (the layer's design is at the top of bsd.c).  TCP: a listener
 * (bind, listen), a connection (accept, or connect's dial, in a G of its
 * own when non-blocking).  UDP: bound by bind or at its first use, and
 * connect's association with one peer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "net/bsd.h"
#include "posix/bsdimpl.h"

/* ---- socket, bind, listen ------------------------------------------- */

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
    bsd_install_hook();
    if (!(b = bsock_new(kind)))
        return fail(ENOMEM);
    b->f.flags = type & SOCK_NONBLOCK ? O_NONBLOCK : 0;
    if ((fd = bsd_fd_alloc(b, type & SOCK_CLOEXEC)) < 0) {
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

    if (!(b = bsd_fd_get(fd, &e)))
        return fail(e);
    if ((e = bsd_sin_arg(addr, len, &a)))
        goto out;
    sp_mutex_lock(&b->mu);
    if (b->state != ST_NEW) {
        e = EINVAL;             /* bound already (or connected) */
    } else if (b->type == SOCK_STREAM) {
        b->local = a;           /* listen() makes the listener */
        STORE(b->state, ST_BOUND);
    } else {
        bsd_sin_format(&a, str);
        if ((s = sp_listen_udp(str, &err)))
            bsd_attach(b, s, ST_UDP);
        else
            e = -err;
    }
    sp_mutex_unlock(&b->mu);
out:
    bsd_fd_put(b);
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
    if (!(b = bsd_fd_get(fd, &e)))
        return fail(e);
    sp_mutex_lock(&b->mu);
    if (b->type != SOCK_STREAM) {
        e = EOPNOTSUPP;
    } else if (b->state == ST_NEW || b->state == ST_BOUND) {
        if (b->state == ST_BOUND)
            a = b->local;       /* else any address, a port of lwIP's */
        bsd_sin_format(&a, str);
        if ((s = sp_listen(str, &err)))
            bsd_attach(b, s, ST_LISTEN);
        else
            e = -err;
    } else if (b->state != ST_LISTEN) {
        e = EINVAL;             /* connected, or connecting */
    }
    sp_mutex_unlock(&b->mu);
    bsd_fd_put(b);
    return e ? fail(e) : 0;
}

/* ---- UDP: the implicit bind, connect -------------------------------- */

/* b's UDP socket, bound to ":0" first if it was not bound yet (as Linux
   binds on the first sendto); NULL and *e if that fails. */
struct sp_sock *bsd_udp_sock(struct bsock *b, int *e)
{
    struct sp_sock *s = LOAD(b->s);
    int err = 0;

    if (s)
        return s;
    sp_mutex_lock(&b->mu);
    if (!(s = b->s)) {
        if ((s = sp_listen_udp(":0", &err)))
            bsd_attach(b, s, ST_UDP);
        else
            *e = -err;
    }
    sp_mutex_unlock(&b->mu);
    return s;
}

/* connect() of a UDP socket: b takes datagrams from, and sends by
   default to, addr alone (AF_UNSPEC ends that).  0 or an errno. */
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
    if ((e = bsd_sin_arg(addr, len, &a)))
        return e;
    if (!bsd_udp_sock(b, &e))
        return e;
    sp_mutex_lock(&b->mu);
    b->peer = a;
    b->has_peer = true;
    sp_mutex_unlock(&b->mu);
    return 0;
}

/* ---- accept --------------------------------------------------------- */

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    struct sockaddr_in peer;
    char str[ADDRLEN];
    struct bsock *b, *ab;
    struct sp_sock *l, *c = NULL;
    uint64_t timeo = 0;
    int e = 0, err = 0, nfd;
    bool nbio;

    if (!(b = bsd_fd_get(fd, &e)))
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
    if (!dir_lock(&b->rmu, nbio)) {
        e = EAGAIN;
        goto out;
    }
    if (nbio && !(sp_sock_ready(l, NULL) & SP_SOCK_IN)) {
        err = -EAGAIN;
    } else {
        if (!nbio && (timeo = LOAD(b->rcvtimeo)))
            bsd_set_deadline(b, l, 'r', (int64_t)(sp_nanotime() + timeo));
        c = sp_accept(l, &err);
        if (timeo)
            bsd_set_deadline(b, l, 'r', 0);
    }
    sp_mutex_unlock(&b->rmu);
    if (!c) {
        e = file_closed(&b->f) ? EBADF :
            err == -ETIMEDOUT && timeo ? EAGAIN :
            err == -EPIPE ? EINVAL : -err;
        goto out;
    }
    if (!(ab = bsock_new(SOCK_STREAM))) {
        sp_close(c);
        e = ENOMEM;
        goto out;
    }
    bsd_attach(ab, c, ST_CONNECTED);
    ab->f.flags = flags & SOCK_NONBLOCK ? O_NONBLOCK : 0;
    /* The address before the descriptor exists: once it does, another G
       may close it. */
    if (addr && len) {
        if (sp_remote_addr(c, str, sizeof str) < 0 ||
            !bsd_sin_parse(str, &peer)) {
            memset(&peer, 0, sizeof peer);      /* reset already */
            peer.sin_family = AF_INET;
        }
        bsd_sin_out(&peer, addr, len);
    }
    if ((nfd = bsd_fd_alloc(ab, flags & SOCK_CLOEXEC)) < 0) {
        bsd_fd_put(ab);
        e = EMFILE;
        goto out;
    }
    bsd_fd_put(b);
    return nfd;
out:
    bsd_fd_put(b);
    return fail(e);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    return accept4(fd, addr, len, 0);
}

/* ---- connect -------------------------------------------------------- */

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

    bsd_dest_format(&b->peer, str);
    c = sp_dial(str, LOAD(b->sndtimeo), &err);
    sp_mutex_lock(&b->mu);
    if (c) {
        bsd_attach(b, c, ST_CONNECTED);
    } else {
        b->soerror = keep ? -err : 0;
        STORE(b->state, ST_FAILED);
    }
    sp_mutex_unlock(&b->mu);
    bsd_wake(b);
    if (file_closed(&b->f))
        return EBADF;
    return c ? 0 : -err;
}

static void dial_g(void *arg)
{
    struct bsock *b = arg;

    dial(b, true);
    bsd_fd_put(b);              /* connect's reference */
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    struct sockaddr_in a;
    struct bsock *b;
    int e;

    if (!(b = bsd_fd_get(fd, &e)))
        return fail(e);
    if (b->type == SOCK_DGRAM) {
        e = udp_connect(b, addr, len);
        goto out;
    }
    if ((e = bsd_sin_arg(addr, len, &a)))
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
        bsd_fd_hold(b);         /* dial_g's */
        sp_go(dial_g, b);
        e = EINPROGRESS;
        goto out;
    }
    /* SO_SNDTIMEO bounds the attempt: ETIMEDOUT then (Linux returns
       EINPROGRESS and goes on trying; sp_dial gives up). */
    e = dial(b, false);
out:
    bsd_fd_put(b);
    return e ? fail(e) : 0;
}

/* ---- shutdown ------------------------------------------------------- */

int shutdown(int fd, int how)
{
    struct sp_sock *s;
    struct bsock *b;
    int e = 0;

    if (!(b = bsd_fd_get(fd, &e)))
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
    bsd_wake(b);
out:
    bsd_fd_put(b);
    return e ? fail(e) : 0;
}
