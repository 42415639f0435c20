/*
 * bsd_poll.c - an IPv4 socket's readiness (bsd_revents, its file's poll)
 * and how its watchers (poll(), epoll: fd.h) learn that it changed:
 * sock.c's lwIP callbacks call sock_event after every change of a
 * socket's readiness, and our hook (under the stack's lock) tells the
 * watchers of the socket's file (sp_sock_set_owner).  Changes made by
 * the BSD calls rather than by lwIP (a connect's outcome, shutdown) tell
 * them directly (bsd_wake).
 *
 * POLLOUT and the heap.  sp_sock_ready reports a TCP socket writable by
 * lwIP's own low-water marks, but tcp_write can still fail for want of
 * heap when many connections hold unacknowledged data: a non-blocking
 * write then gets EAGAIN while POLLOUT says go, and an event loop would
 * spin.  So a write that got EAGAIN remembers the event count it saw
 * before it tried (bsd_event_gen, counted by the hook), and the socket's
 * POLLOUT is held back until some socket event has happened since (an
 * acknowledgement is what frees heap).
 */
#include <poll.h>
#include <spindle/net.h>
#include <spindle/sync.h>
#include "net/bsd.h"
#include "posix/bsdimpl.h"

unsigned bsd_event_gen;         /* socket events so far; atomic */

/* sock.c's hook: the readiness of the socket owned by b changed.  Under
   a stack's lock. */
static struct g *sock_hook(void *owner, struct g *list)
{
    __atomic_add_fetch(&bsd_event_gen, 1, __ATOMIC_RELAXED);
    return file_notify(&((struct bsock *)owner)->f, list);
}

void bsd_install_hook(void)
{
    __atomic_store_n(&sock_event_hook, sock_hook, __ATOMIC_RELEASE);
}

unsigned bsd_revents(struct bsock *b)
{
    struct sp_sock *s;
    unsigned r = 0;
    int m, st;

    if (file_closed(&b->f))
        return POLLNVAL;
    st = LOAD(b->state);
    s = LOAD(b->s);             /* after the state: bsd_attach stores it
                                   first */
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
              __atomic_load_n(&bsd_event_gen, __ATOMIC_RELAXED)))
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
    return r;
}
