/*
 * bsd.c - the BSD socket calls (include/bsd/: sys/socket.h, netinet/in.h,
 * arpa/inet.h, poll.h) on the socket layer of spindle/net.h, for C code
 * ported to Spindle: socket, bind, listen, accept, connect, send, recv,
 * sendto, recvfrom, shutdown, [gs]etsockopt, getsockname, getpeername,
 * poll, fcntl, and read/write/close through newlib (posix/newlib.c).
 * Bare metal only: ARCH=hosted links glibc's.
 *
 * This file is the layer's design, a socket as a file of fd.h's table
 * (its fileops), a call's deadlines, and close.  The calls are in
 *   bsd_conn.c   socket, bind, listen, accept, connect, shutdown
 *   bsd_data.c   send, recv, sendto, recvfrom; newlib's read and write
 *   bsd_poll.c   a socket's readiness, and sock.c's event hook
 *   bsd_opt.c    setsockopt, getsockopt, fcntl
 *   bsd_addr.c   getsockname, getpeername, and the conversions between
 *                a struct sockaddr_in and sock.c's "a.b.c.d:port"
 *   inet.c       arpa/inet.h's address conversions
 * and bsdimpl.h is what they share.
 *
 * Descriptors.  A struct bsock is a struct file (fd.h), reference-counted
 * by the table: its descriptors hold one, every call in progress
 * another.  When its last descriptor closes, fd.c marks the file closed
 * and sock_close wakes the Gs blocked on its socket by setting the
 * socket's deadlines into the past; they see file_closed and fail with
 * EBADF.  Whoever drops the last reference (sock_free) sp_close's the
 * socket and frees the bsock, so no call ever uses a freed socket, and
 * sp_close never runs under a G that is still inside sp_read.  (sp_close
 * alone would wake them too, but a call between its table look-up and
 * its first step inside sock.c would then touch freed memory.)
 *
 * Deadlines.  SO_RCVTIMEO and SO_SNDTIMEO become the socket's read or
 * write deadline for one call (set before, cleared after; -ETIMEDOUT
 * becomes EAGAIN).  close() and shutdown() also use them, to wake
 * waiters, so every deadline a call sets is followed by a look at
 * file_closed (and the shut flags): if the direction is dead the call
 * puts the deadline back in the past itself.  close() marks before it sets,
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
 * How poll() and epoll learn of a socket's events, and why a socket's
 * POLLOUT may be held back, are at the top of bsd_poll.c.
 *
 * Not done: MSG_OOB, and MSG_PEEK on UDP (EOPNOTSUPP; TCP peeks); SO_KEEPALIVE is recorded
 * but not given to lwIP (sock.c has no setter), TCP_NODELAY 0 is
 * recorded but Nagle stays off; bind() only records a TCP address, so
 * EADDRINUSE comes from listen(), and a bound client's connect() ignores
 * the address; close() during a blocking connect() waits for the
 * connection attempt to end (sp_dial takes no deadline from outside);
 * a blocking send() that SO_SNDTIMEO cuts short fails with EAGAIN even
 * if part of the data was queued (sp_write returns no partial count);
 * shutdown() of a listener fails with ENOTCONN.
 *
 * Locks.  fd.h's order; sock.c's event hook (bsd_poll.c) takes a file's
 * watch lock under a stack's.  The G mutexes park, so no spinlock is held
 * when one is taken; a call takes rmu or wmu before mu, never the other
 * way round.
 *
 * errno is the calling G's (newlib's per-G _reent).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <spindle/net.h>
#include "net/bsd.h"
#include "posix/bsdimpl.h"

/* ---- A socket as a file --------------------------------------------- */

static long sock_read(struct file *f, void *buf, size_t len, bool nb)
{
    ssize_t n = bsd_recvfrom((struct bsock *)f, buf, len,
                             nb ? MSG_DONTWAIT : 0, NULL, NULL);

    return n < 0 ? -errno : n;
}

static long sock_write(struct file *f, const void *buf, size_t len,
                       bool nb)
{
    ssize_t n = bsd_sendto((struct bsock *)f, buf, len,
                           nb ? MSG_DONTWAIT : 0, NULL, 0);

    return n < 0 ? -errno : n;
}

static unsigned sock_poll(struct file *f)
{
    return bsd_revents((struct bsock *)f);
}

/* The last descriptor went.  Under mu: a connect or bind attaching s now
   either sees the file closed (bsd_attach) or has attached before we look. */
static void sock_close(struct file *f)
{
    struct bsock *b = (struct bsock *)f;
    struct sp_sock *s;

    sp_mutex_lock(&b->mu);
    s = b->s;
    sp_mutex_unlock(&b->mu);
    if (s)
        sp_set_deadline(s, -1);         /* wakes whoever waits on it */
}

static void sock_free(struct file *f)
{
    struct bsock *b = (struct bsock *)f;

    if (b->s) {
        sp_sock_set_owner(b->s, NULL);  /* waits out sock.c's callbacks */
        sp_close(b->s);
    }
    free(b);
}

static const struct fileops sock_ops = {
    .type = S_IFSOCK, .read = sock_read, .write = sock_write,
    .poll = sock_poll, .close = sock_close, .free = sock_free,
};

struct bsock *bsock_new(int type)
{
    struct bsock *b = calloc(1, sizeof *b);

    if (!b)
        return NULL;
    file_init(&b->f, &sock_ops);
    b->type = type;
    b->state = ST_NEW;
    b->nodelay = true;          /* sock.c turns Nagle off */
    return b;
}

struct bsock *bsd_fd_get(int fd, int *e)
{
    struct file *f = fd_get(fd);

    if (f && f->ops == &sock_ops)
        return (struct bsock *)f;
    if (f)
        file_put(f);
    *e = f ? ENOTSOCK : EBADF;
    return NULL;
}

int bsd_fd_alloc(struct bsock *b, bool cloexec)
{
    int fd = fd_install(&b->f, 0, cloexec);

    return fd < 0 ? -1 : fd;
}

/* True once b's direction mode ('r' or 'w') is closed or shut. */
static bool dead(struct bsock *b, int mode)
{
    return file_closed(&b->f) ||
           (mode == 'r' ? LOAD(b->rshut) : LOAD(b->wshut));
}

/* Sets s's deadline in direction mode for a call (see "Deadlines"). */
void bsd_set_deadline(struct bsock *b, struct sp_sock *s, int mode,
                      int64_t ns)
{
    if (mode == 'r')
        sp_set_read_deadline(s, ns);
    else
        sp_set_write_deadline(s, ns);
    if (ns != -1 && dead(b, mode))
        bsd_set_deadline(b, s, mode, -1);
}

/* Makes s b's socket, state st; under b->mu.  If b was closed meanwhile,
   s's waiters are told as close() would have.  sock.c's events for s
   now reach b's watchers. */
void bsd_attach(struct bsock *b, struct sp_sock *s, int st)
{
    sp_sock_set_owner(s, b);
    STORE(b->s, s);
    STORE(b->state, st);
    if (file_closed(&b->f))
        sp_set_deadline(s, -1);
}
