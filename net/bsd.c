/*
 * bsd.c - the BSD socket calls (include/bsd/: sys/socket.h, netinet/in.h,
 * arpa/inet.h, poll.h) on the socket layer of spindle/net.h, for C code
 * ported to Spindle: socket, bind, listen, accept, connect, send, recv,
 * sendto, recvfrom, shutdown, [gs]etsockopt, getsockname, getpeername,
 * poll, fcntl, and read/write/close through newlib (posix/newlib.c).
 * Bare metal only: ARCH=hosted links glibc's.
 *
 * This file is the layer's design and its descriptor table: the
 * descriptors, the references to the sockets behind them, a call's
 * deadlines, and close.  The calls are in
 *   bsd_conn.c   socket, bind, listen, accept, connect, shutdown
 *   bsd_data.c   send, recv, sendto, recvfrom; newlib's read and write
 *   bsd_poll.c   poll, and the wake-ups of the Gs parked in it
 *   bsd_opt.c    setsockopt, getsockopt, fcntl
 *   bsd_addr.c   getsockname, getpeername, and the conversions between
 *                a struct sockaddr_in and sock.c's "a.b.c.d:port"
 *   inet.c       arpa/inet.h's address conversions
 * and bsdimpl.h is what they share.
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
 * poll(), how its Gs are woken, and why it may hold a socket's POLLOUT
 * back, are at the top of bsd_poll.c.
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
 * (bsd_poll.c) is taken under a stack's lock (poll_hook) and takes nothing
 * itself.  The G mutexes park, so no spinlock is held when one is
 * taken; a call takes rmu or wmu before mu, never the other way round.
 *
 * errno is the calling G's (newlib's per-G _reent).
 */
#include <errno.h>
#include <stdlib.h>
#include <spindle/net.h>
#include "net/bsd.h"
#include "kernel/spinlock.h"
#include "net/bsdimpl.h"

static struct spinlock fd_lock = SPINLOCK_INIT(LOCK_BSD_FDS);
static struct bsock *fdtab[NFD];

/* ---- The descriptor table ------------------------------------------- */

struct bsock *bsock_new(int type)
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
struct bsock *bsd_fd_get(int fd, int *e)
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

/* Another reference to b, for a G of its own; the caller holds one. */
void bsd_fd_hold(struct bsock *b)
{
    unsigned long f = spin_lock(&fd_lock);

    b->refs++;
    spin_unlock(&fd_lock, f);
}

/* Drops a reference; the last one closes the socket and frees b. */
void bsd_fd_put(struct bsock *b)
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
int bsd_fd_alloc(struct bsock *b)
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
   s's waiters are told as close() would have. */
void bsd_attach(struct bsock *b, struct sp_sock *s, int st)
{
    STORE(b->s, s);
    STORE(b->state, st);
    if (LOAD(b->closed))
        sp_set_deadline(s, -1);
}

/* ---- close ---------------------------------------------------------- */

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
       (bsd_attach) or has attached before we look. */
    sp_mutex_lock(&b->mu);
    s = b->s;
    sp_mutex_unlock(&b->mu);
    if (s)
        sp_set_deadline(s, -1);         /* wakes whoever waits on it */
    bsd_wake_pollers();                 /* POLLNVAL for them */
    bsd_fd_put(b);                      /* the table's reference */
    return 0;
}
