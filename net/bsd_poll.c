/*
 * bsd_poll.c - poll() over the console's and the sockets' descriptors
 * (bsd.c's table), and the wake-ups of the Gs parked in it: sock.c's
 * event hook, and bsd_wake_pollers for the changes the BSD calls make
 * themselves.
 *
 * poll().  A G in poll() with nothing ready registers a struct poller (a
 * polldesc of its own, which also carries the timeout as its read
 * deadline) on a global list and parks in pd_wait.  sock.c's lwIP
 * callbacks call sock_event after every change of a socket's readiness;
 * our hook (poll_hook, under a stack's lock) makes every registered poller's
 * polldesc ready, and each woken poller looks at all its descriptors
 * again.  A poller registers, then looks, then waits, so an event either
 * comes after its look (and readies its polldesc, which pd_wait then
 * finds) or before (and the look sees it).  Changes made by the BSD
 * calls rather than by lwIP (a connect's outcome, close, shutdown) wake
 * the pollers directly (bsd_wake_pollers).  Every event wakes every
 * poller: simple and right for the usual one event loop per server; with
 * many pollers each wakes for the others' events too, and each wake costs
 * a look at each of its descriptors (a targeted wake needs a socket ->
 * poller map).
 *
 * POLLOUT and the heap.  sp_sock_ready reports a TCP socket writable by
 * lwIP's own low-water marks, but tcp_write can still fail for want of
 * heap when many connections hold unacknowledged data: a non-blocking
 * write then gets EAGAIN while POLLOUT says go, and an event loop would
 * spin.  So a write that got EAGAIN remembers the event count it saw
 * before it tried (bsd_event_gen, counted by poll_hook), and poll()
 * holds that socket's POLLOUT back until some socket event has happened
 * since (an acknowledgement is what frees heap).
 */
#include <errno.h>
#include <poll.h>
#include <spindle/net.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "kernel/spinlock.h"
#include "net/bsd.h"
#include "net/bsdimpl.h"
#include "net/netimpl.h"
#include "sched/polldesc.h"
#include "sched/sched.h"

/* ---- Waking poll() -------------------------------------------------- */

struct poller {
    struct polldesc pd;         /* 'r': woken; its deadline: the timeout */
    struct poller *next, *prev;
};

static struct spinlock pollers_lock = SPINLOCK_INIT(LOCK_POLLERS);
static struct poller *pollers;  /* under pollers_lock */
static int npollers;            /* list length; written under the lock */
unsigned bsd_event_gen;         /* socket events so far; atomic */

/* sock.c's hook: a socket's readiness changed.  Under st's lock. */
static void poll_hook(struct stack *st, struct sp_sock *s)
{
    unsigned long f;

    __atomic_add_fetch(&bsd_event_gen, 1, __ATOMIC_RELAXED);
    /* Relaxed: a poller that matters registered before it looked at s
       under the lock that sp_sock_ready takes, which the callback took
       after it (bsd.h). */
    if (!__atomic_load_n(&npollers, __ATOMIC_RELAXED))
        return;
    f = spin_lock(&pollers_lock);
    for (struct poller *p = pollers; p; p = p->next)
        net_ready(st, pd_ready(&p->pd, 'r'));
    spin_unlock(&pollers_lock, f);
}

/* The same for a change made here (connect's outcome, close, shutdown),
   after it was stored: a poller that registered later looks after. */
void bsd_wake_pollers(void)
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

void bsd_install_hook(void)
{
    __atomic_store_n(&sock_event_hook, poll_hook, __ATOMIC_RELEASE);
}
/* ---- poll ----------------------------------------------------------- */

/* What fd is ready for now: POLL* bits before masking with events. */
static short fd_revents(int fd)
{
    struct bsock *b;
    struct sp_sock *s;
    short r = 0;
    int e, m, st;

    if (fd >= 0 && fd < FD_FIRST)
        return fd == 0 ? POLLIN | POLLRDNORM : POLLOUT | POLLWRNORM;
    if (!(b = bsd_fd_get(fd, &e)))
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
    bsd_fd_put(b);
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
