/*
 * bsd_data.c - the BSD calls that move data on a descriptor's socket:
 * recv, recvfrom, send and sendto (on any socket descriptor: socketpair's
 * go to their file's read and write), and the read and write of an IPv4
 * socket's file (bsd.c); the layer's design is at the top of bsd.c.  TCP
 * reads and writes a connection's byte stream; UDP sends and receives
 * datagrams, from the connected peer alone once connect() has named one.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spindle/net.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include <sys/stat.h>
#include "net/bsd.h"
#include "posix/bsdimpl.h"

/* ---- TCP data ------------------------------------------------------- */

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
    if (!dir_lock(&b->rmu, nbio))
        return fail(EAGAIN);
    if (!nbio && (timeo = LOAD(b->rcvtimeo)))
        bsd_set_deadline(b, s, 'r', (int64_t)(sp_nanotime() + timeo));
    for (;;) {
        if (nbio && !(sp_sock_ready(s, NULL) & SP_SOCK_IN)) {
            n = -EAGAIN;
            break;
        }
        if (flags & MSG_PEEK) {
            if ((n = sp_peek(s, buf, len)) > 0)
                got = (size_t)n;
            break;
        }
        if ((n = sp_read(s, (char *)buf + got, len - got)) <= 0)
            break;
        got += (size_t)n;
        if (!(flags & MSG_WAITALL) || got == len)
            break;
    }
    if (timeo)
        bsd_set_deadline(b, s, 'r', 0);
    sp_mutex_unlock(&b->rmu);
    if (got)
        return (ssize_t)got;
    if (n == 0)
        return 0;
    if (file_closed(&b->f))
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
    if (!dir_lock(&b->wmu, nbio))
        return fail(EAGAIN);
    if (nbio) {
        gen = __atomic_load_n(&bsd_event_gen, __ATOMIC_RELAXED);
        n = sp_write_nowait(s, buf, len);
        if (n == -EAGAIN)
            STORE(b->wblock_gen, gen);
        STORE(b->wblocked, n == -EAGAIN);
    } else {
        if ((timeo = LOAD(b->sndtimeo)))
            bsd_set_deadline(b, s, 'w', (int64_t)(sp_nanotime() + timeo));
        n = sp_write(s, buf, len);
        if (timeo)
            bsd_set_deadline(b, s, 'w', 0);
    }
    sp_mutex_unlock(&b->wmu);
    if (n >= 0)
        return n;
    if (file_closed(&b->f))
        return fail(EBADF);
    if (LOAD(b->wshut))
        return fail(EPIPE);
    if (n == -ETIMEDOUT && timeo)
        return fail(EAGAIN);
    return fail((int)-n);
}

/* ---- UDP data ------------------------------------------------------- */

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

    if (!(s = bsd_udp_sock(b, &e)))
        return fail(e);
    if (LOAD(b->rshut))
        return 0;
    if (!dir_lock(&b->rmu, nbio))
        return fail(EAGAIN);
    sp_mutex_lock(&b->mu);
    filter = b->has_peer;
    peer = b->peer;
    sp_mutex_unlock(&b->mu);
    if (!nbio && (timeo = LOAD(b->rcvtimeo)))
        bsd_set_deadline(b, s, 'r', (int64_t)(sp_nanotime() + timeo));
    for (;;) {
        if (nbio && !(sp_sock_ready(s, NULL) & SP_SOCK_IN)) {
            n = -EAGAIN;
            break;
        }
        if ((n = sp_recvfrom(s, buf, len, str, sizeof str)) < 0)
            break;
        if (!bsd_sin_parse(str, &src))
            continue;
        /* A connected socket takes datagrams from its peer only. */
        if (!filter || (src.sin_addr.s_addr == peer.sin_addr.s_addr &&
                        src.sin_port == peer.sin_port))
            break;
    }
    if (timeo)
        bsd_set_deadline(b, s, 'r', 0);
    sp_mutex_unlock(&b->rmu);
    if (n >= 0) {
        bsd_sin_out(&src, from, fromlen);
        return n;
    }
    if (file_closed(&b->f))
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
        if ((e = bsd_sin_arg(to, tolen, &dst)))
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
    if (!(s = bsd_udp_sock(b, &e)))
        return fail(e);
    bsd_dest_format(&dst, str);
    if ((n = sp_sendto(s, buf, len, str)) < 0)
        return fail(file_closed(&b->f) ? EBADF : (int)-n);
    return n;
}

/* ---- The data calls ------------------------------------------------- */

/* Flags every call accepts; MSG_NOSIGNAL: there are no signals. */
#define SEND_FLAGS  (MSG_DONTWAIT | MSG_NOSIGNAL)
#define RECV_FLAGS  (MSG_DONTWAIT | MSG_WAITALL | MSG_NOSIGNAL | MSG_PEEK)

ssize_t bsd_recvfrom(struct bsock *b, void *buf, size_t len, int flags,
                     struct sockaddr *from, socklen_t *fromlen)
{
    if (flags & ~RECV_FLAGS)
        return fail(EOPNOTSUPP);
    if (b->type == SOCK_STREAM)
        return tcp_recv(b, buf, len, flags);
    if (flags & MSG_PEEK)
        return fail(EOPNOTSUPP);        /* not for datagrams yet */
    return udp_recv(b, buf, len, flags, from, fromlen);
}

ssize_t bsd_sendto(struct bsock *b, const void *buf, size_t len, int flags,
                   const struct sockaddr *to, socklen_t tolen)
{
    if (flags & ~SEND_FLAGS)
        return fail(EOPNOTSUPP);
    if (b->type == SOCK_STREAM)
        return tcp_send(b, buf, len, flags);    /* `to` ignored, as Linux */
    return udp_send(b, buf, len, to, tolen);
}

/* A descriptor that is a socket but not an IPv4 one (socketpair's): its
   file's read or write, with the flags a stream takes.  -1 and errno. */
static ssize_t file_io(struct file *f, void *rbuf, const void *wbuf,
                       size_t len, int flags)
{
    bool nb = file_nonblock(f, flags & MSG_DONTWAIT);
    long n;

    if (f->ops->type != S_IFSOCK)
        return fail(ENOTSOCK);
    if (flags & ~(rbuf ? RECV_FLAGS : SEND_FLAGS))
        return fail(EOPNOTSUPP);
    if (rbuf && (flags & MSG_PEEK))
        n = f->ops->peek ? f->ops->peek(f, rbuf, len, nb) : -EOPNOTSUPP;
    else if (rbuf)
        n = f->ops->read(f, rbuf, len, nb);
    else
        n = f->ops->write(f, wbuf, len, nb);
    return n < 0 ? fail((int)-n) : n;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
                 struct sockaddr *from, socklen_t *fromlen)
{
    struct bsock *b;
    struct file *f;
    ssize_t n;
    int e;

    if (!(b = bsd_fd_get(fd, &e))) {
        if (e != ENOTSOCK || !(f = fd_get(fd)))
            return fail(e);
        if (fromlen)
            *fromlen = 0;
        n = file_io(f, buf, NULL, len, flags & ~MSG_WAITALL);
        file_put(f);
        return n;
    }
    n = bsd_recvfrom(b, buf, len, flags, from, fromlen);
    bsd_fd_put(b);
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
    struct file *f;
    ssize_t n;
    int e;

    if (!(b = bsd_fd_get(fd, &e))) {
        if (e != ENOTSOCK || !(f = fd_get(fd)))
            return fail(e);
        n = file_io(f, NULL, buf, len, flags);
        file_put(f);
        return n;
    }
    n = bsd_sendto(b, buf, len, flags, to, tolen);
    bsd_fd_put(b);
    return n;
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    return sendto(fd, buf, len, flags, NULL, 0);
}
