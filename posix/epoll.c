/*
 * epoll.c - epoll_create1, epoll_ctl and epoll_wait (sys/epoll.h) on the
 * files of fd.h, whose watch lists feed them directly.
 *
 * An epoll instance keeps its items (one per watched descriptor) and a
 * ready list, under its spinlock.  Each item is a watch on its file
 * (fd.h): when the file reports a change, the item goes on the ready
 * list (once) and the Gs parked in epoll_wait on this instance are
 * readied; nothing else wakes them.  A change carries no bits, so the
 * ready list holds candidates: epoll_wait asks each one's file what is
 * ready (ops->poll, outside every lock) and reports the item if that
 * meets its events.  Then:
 *   level-triggered   a reported item goes back on the list, so the
 *                     next epoll_wait asks again (Linux does the same);
 *   EPOLLET           it stays off until the file reports a change;
 *   EPOLLONESHOT      it is disarmed until EPOLL_CTL_MOD re-arms it.
 * An item found not ready leaves the list.  A change that comes while
 * an item is off the list puts it back: none is lost.  Since any change
 * of the file queues the item, an edge-triggered item may be reported
 * again for a change of a condition it did not ask for (as spurious
 * wake-ups: a program reads until EAGAIN anyway).
 *
 * Adding an item queues it at once, so that what is ready already is
 * reported (register, then look).  epoll_wait registers its G as a
 * waiter (a polldesc of its own, with the timeout as its deadline)
 * before it looks at the list a second time, so a change either comes
 * after that look and readies the waiter, or before it and is seen.
 *
 * Lifetimes.  An item holds no reference to its file: when the file's
 * last descriptor closes, fd.c calls the item's gone (under the file's
 * watch lock) and the item leaves its epoll, as on Linux.  An item is
 * freed when it is dead (deleted or gone) and neither on the ready list
 * nor being looked at by an epoll_wait (busy), whichever comes last.
 * An epoll_wait that takes an item off the list also takes a reference
 * to its file under the epoll's lock: while an item is not dead its
 * file still has its descriptors' reference (fd.c calls gone before it
 * drops that), so the file cannot go away during the look.
 *
 * Lock order (fd.h): a file's watch lock, then the epoll's lock, then
 * the table's.  An epoll may not watch another epoll (EINVAL), and
 * poll() on an epoll descriptor sees it readable when its ready list is
 * not empty but is not woken by it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "posix/fd.h"
#include "sched/polldesc.h"
#include "sched/sched.h"

struct epoll;

struct epitem {
    struct watch w;             /* on its file's watch list */
    struct epoll *ep;           /* fixed */
    struct file *f;             /* fixed; no reference (see above) */
    int fd;                     /* with f, the item's key; fixed */
    /* Under ep->lock: */
    uint32_t events;            /* asked for, with EPOLLET/ONESHOT */
    epoll_data_t data;
    bool armed;                 /* false once a one-shot reported */
    bool ready;                 /* on the ready list */
    bool dead;                  /* deleted, or its file closed */
    int busy;                   /* epoll_waits looking at it */
    struct epitem *next, *prev; /* the live items */
    struct epitem *rnext;       /* the ready list */
};

struct waiter {
    struct polldesc pd;         /* 'r': readied by a change */
    struct waiter *next, *prev; /* on ep->waiters; under ep->lock */
};

struct epoll {
    struct file f;              /* first: an epoll is a file */
    sp_mutex ctl;               /* one epoll_ctl at a time */
    struct spinlock lock;       /* guards what follows and the items */
    struct epitem *items;
    struct epitem *rhead, *rtail;
    struct waiter *waiters;
};

static const struct fileops epoll_ops;

#define ITEM(w) ((struct epitem *)((char *)(w) - offsetof(struct epitem, w)))

/* ---- The ready list and the waiters (under ep->lock) -------------------- */

static void ready_push(struct epoll *ep, struct epitem *it)
{
    it->ready = true;
    it->rnext = NULL;
    if (ep->rtail)
        ep->rtail->rnext = it;
    else
        ep->rhead = it;
    ep->rtail = it;
}

/* Readies every G in epoll_wait on ep; pushed onto list, returned. */
static struct g *wake_waiters(struct epoll *ep, struct g *list)
{
    for (struct waiter *w = ep->waiters; w; w = w->next)
        list = pd_ready_push(&w->pd, 'r', list);
    return list;
}

/* Frees it if nothing refers to it any more. */
static void item_release(struct epitem *it)
{
    if (it->dead && !it->busy && !it->ready)
        free(it);
}

/* Takes a live item out of ep's items, for good. */
static void item_kill(struct epoll *ep, struct epitem *it)
{
    if (it->prev)
        it->prev->next = it->next;
    else
        ep->items = it->next;
    if (it->next)
        it->next->prev = it->prev;
    it->dead = true;
    item_release(it);
}

/* ---- The item's watch --------------------------------------------------- */

/* Its file changed.  Under the file's watch lock (and maybe a stack's). */
static struct g *item_fn(struct watch *w, struct g *list)
{
    struct epitem *it = ITEM(w);
    struct epoll *ep = it->ep;
    unsigned long fl = spin_lock(&ep->lock);

    if (!it->dead && it->armed && !it->ready) {
        ready_push(ep, it);
        list = wake_waiters(ep, list);
    }
    spin_unlock(&ep->lock, fl);
    return list;
}

/* Its file's last descriptor closed.  Under the file's watch lock. */
static void item_gone(struct watch *w)
{
    struct epitem *it = ITEM(w);
    struct epoll *ep = it->ep;
    unsigned long fl = spin_lock(&ep->lock);

    if (!it->dead)
        item_kill(ep, it);
    spin_unlock(&ep->lock, fl);
}

/* ---- epoll_ctl ------------------------------------------------------------ */

/* The live item for (fd, f); under ep->lock. */
static struct epitem *item_find(struct epoll *ep, int fd, struct file *f)
{
    for (struct epitem *it = ep->items; it; it = it->next)
        if (it->fd == fd && it->f == f)
            return it;
    return NULL;
}

static int ctl_add(struct epoll *ep, int fd, struct file *f, uint32_t ev,
                   epoll_data_t data)
{
    struct epitem *it;
    unsigned long fl;
    struct g *list;

    fl = spin_lock(&ep->lock);
    it = item_find(ep, fd, f);
    spin_unlock(&ep->lock, fl);
    if (it)
        return -EEXIST;
    if (!(it = calloc(1, sizeof *it)))
        return -ENOMEM;
    it->ep = ep;
    it->f = f;
    it->fd = fd;
    it->events = ev;
    it->data = data;
    it->armed = true;
    it->w.fn = item_fn;
    it->w.gone = item_gone;
    fl = spin_lock(&ep->lock);
    it->next = ep->items;
    if (ep->items)
        ep->items->prev = it;
    ep->items = it;
    spin_unlock(&ep->lock, fl);
    if (!file_watch(f, &it->w)) {       /* closed meanwhile */
        fl = spin_lock(&ep->lock);
        item_kill(ep, it);
        spin_unlock(&ep->lock, fl);
        return -EBADF;
    }
    /* Registered: look once, through the ready list. */
    fl = spin_lock(&ep->lock);
    list = NULL;
    if (!it->dead && !it->ready) {
        ready_push(ep, it);
        list = wake_waiters(ep, NULL);
    }
    spin_unlock(&ep->lock, fl);
    file_ready_list(list);
    return 0;
}

static int ctl_mod(struct epoll *ep, int fd, struct file *f, uint32_t ev,
                   epoll_data_t data)
{
    unsigned long fl = spin_lock(&ep->lock);
    struct epitem *it = item_find(ep, fd, f);
    struct g *list = NULL;

    if (it) {
        it->events = ev;
        it->data = data;
        it->armed = true;
        if (!it->ready) {
            ready_push(ep, it);
            list = wake_waiters(ep, NULL);
        }
    }
    spin_unlock(&ep->lock, fl);
    file_ready_list(list);
    return it ? 0 : -ENOENT;
}

static int ctl_del(struct epoll *ep, int fd, struct file *f)
{
    unsigned long fl = spin_lock(&ep->lock);
    struct epitem *it = item_find(ep, fd, f);

    if (it)
        it->busy++;             /* kept while its watch comes off */
    spin_unlock(&ep->lock, fl);
    if (!it)
        return -ENOENT;
    file_unwatch(f, &it->w);    /* the caller holds f */
    fl = spin_lock(&ep->lock);
    it->busy--;
    if (!it->dead)
        item_kill(ep, it);
    else
        item_release(it);
    spin_unlock(&ep->lock, fl);
    return 0;
}

/* The epoll behind epfd with a reference, or NULL and *e. */
static struct epoll *epoll_get(int epfd, int *e)
{
    struct file *f = fd_get(epfd);

    if (f && f->ops == &epoll_ops)
        return (struct epoll *)f;
    if (f)
        file_put(f);
    *e = f ? EINVAL : EBADF;
    return NULL;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
    struct epoll *ep;
    struct file *f;
    int e, r;

    if (!(ep = epoll_get(epfd, &e))) {
        errno = e;
        return -1;
    }
    if (!(f = fd_get(fd))) {
        file_put(&ep->f);
        errno = EBADF;
        return -1;
    }
    sp_mutex_lock(&ep->ctl);
    if (f->ops == &epoll_ops)
        r = -EINVAL;            /* no epoll in an epoll */
    else if ((op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD) && !event)
        r = -EFAULT;
    else if (op == EPOLL_CTL_ADD)
        r = ctl_add(ep, fd, f, event->events | EPOLLERR | EPOLLHUP,
                    event->data);
    else if (op == EPOLL_CTL_MOD)
        r = ctl_mod(ep, fd, f, event->events | EPOLLERR | EPOLLHUP,
                    event->data);
    else if (op == EPOLL_CTL_DEL)
        r = ctl_del(ep, fd, f);
    else
        r = -EINVAL;
    sp_mutex_unlock(&ep->ctl);
    file_put(f);
    file_put(&ep->f);
    if (r < 0) {
        errno = -r;
        return -1;
    }
    return 0;
}

/* ---- epoll_wait ----------------------------------------------------------- */

#define HARVEST_MAX 128        /* events one epoll_wait reports at most */

/*
 * Reports up to max ready items into out (HARVEST_MAX at most); the
 * count.  Each item is taken off the list under the lock and asked
 * outside it (see the top); the level-triggered ones reported go back
 * on the list at the end, so that this call does not meet them again.
 */
static int harvest(struct epoll *ep, struct epoll_event *out, int max)
{
    struct epitem *again[HARVEST_MAX];
    int n = 0, nagain = 0;
    unsigned long fl;

    if (max > HARVEST_MAX)
        max = HARVEST_MAX;
    fl = spin_lock(&ep->lock);
    while (n < max && ep->rhead) {
        struct epitem *it = ep->rhead;
        struct file *f = it->f;
        uint32_t want = it->armed ? it->events : 0, got;

        if (!(ep->rhead = it->rnext))
            ep->rtail = NULL;
        it->ready = false;
        if (it->dead || !want) {
            item_release(it);
            continue;
        }
        it->busy++;
        file_hold(f);
        spin_unlock(&ep->lock, fl);
        got = f->ops->poll(f) & want;
        file_put(f);
        fl = spin_lock(&ep->lock);
        it->busy--;
        if (!got || it->dead) {
            item_release(it);
            continue;
        }
        out[n].events = got;
        out[n].data = it->data;
        n++;
        if (it->events & EPOLLONESHOT) {
            it->armed = false;
        } else if (!(it->events & EPOLLET)) {
            it->busy++;
            again[nagain++] = it;
        }
    }
    for (int i = 0; i < nagain; i++) {
        struct epitem *it = again[i];

        it->busy--;
        if (!it->dead && !it->ready && it->armed)
            ready_push(ep, it);
        else
            item_release(it);
    }
    spin_unlock(&ep->lock, fl);
    return n;
}

/* epoll_wait with a timeout in ms (-1: none): the count or -errno. */
static int wait_events(int epfd, struct epoll_event *events, int max,
                       int timeout)
{
    struct epoll *ep;
    struct waiter w;
    unsigned long fl;
    int n, e;

    if (max <= 0)
        return -EINVAL;
    if (!(ep = epoll_get(epfd, &e)))
        return -e;
    if ((n = harvest(ep, events, max)) || timeout == 0)
        goto out;
    pd_init(&w.pd);
    if (timeout > 0)
        pd_set_deadline(&w.pd, (int64_t)(sp_nanotime() + SP_MS(timeout)),
                        'r');
    fl = spin_lock(&ep->lock);
    w.prev = NULL;
    w.next = ep->waiters;
    if (ep->waiters)
        ep->waiters->prev = &w;
    ep->waiters = &w;
    spin_unlock(&ep->lock, fl);
    /* A waiter: from here on every item queued readies w.pd, and the
       wait below finds it.  PD_ETIMEOUT: the timeout passed. */
    if (pd_prepare(&w.pd, 'r') == PD_OK)
        while (!(n = harvest(ep, events, max)) &&
               !file_closed(&ep->f) &&
               pd_wait(&w.pd, 'r') == PD_OK)
            ;
    if (!n)
        n = harvest(ep, events, max);
    fl = spin_lock(&ep->lock);
    if (w.prev)
        w.prev->next = w.next;
    else
        ep->waiters = w.next;
    if (w.next)
        w.next->prev = w.prev;
    spin_unlock(&ep->lock, fl);
    pd_fini(&w.pd);
    if (!n && file_closed(&ep->f))
        n = -EBADF;
out:
    file_put(&ep->f);
    return n;
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
               int timeout)
{
    int n = wait_events(epfd, events, maxevents, timeout);

    if (n < 0) {
        errno = -n;
        return -1;
    }
    return n;
}

int epoll_pwait(int epfd, struct epoll_event *events, int maxevents,
                int timeout, const __sigset_t *sigmask)
{
    return epoll_wait(epfd, events, maxevents, timeout);
}

/* ---- The epoll as a file ---------------------------------------------------- */

static unsigned epoll_poll(struct file *f)
{
    struct epoll *ep = (struct epoll *)f;

    if (file_closed(&ep->f))
        return POLLNVAL;
    return __atomic_load_n(&ep->rhead, __ATOMIC_RELAXED) ? POLLIN | POLLRDNORM
                                                          : 0;
}

/* The last descriptor went: wake the waiters (EBADF), and take every
   item off its file. */
static void epoll_close(struct file *f)
{
    struct epoll *ep = (struct epoll *)f;
    unsigned long fl = spin_lock(&ep->lock);
    struct g *list;

    list = wake_waiters(ep, NULL);
    spin_unlock(&ep->lock, fl);
    file_ready_list(list);
    for (;;) {
        struct epitem *it;

        fl = spin_lock(&ep->lock);
        if (!(it = ep->items)) {
            spin_unlock(&ep->lock, fl);
            break;
        }
        it->busy++;
        file_hold(it->f);       /* alive: the item is not dead yet */
        item_kill(ep, it);
        spin_unlock(&ep->lock, fl);
        file_unwatch(it->f, &it->w);
        file_put(it->f);
        fl = spin_lock(&ep->lock);
        it->busy--;
        item_release(it);
        spin_unlock(&ep->lock, fl);
    }
}

/* The last reference: what is left is dead items on the ready list. */
static void epoll_free(struct file *f)
{
    struct epoll *ep = (struct epoll *)f;

    for (struct epitem *it = ep->rhead, *next; it; it = next) {
        next = it->rnext;
        free(it);
    }
    free(ep);
}

static const struct fileops epoll_ops = {
    .type = 0, .read = NULL, .write = NULL,
    .poll = epoll_poll, .close = epoll_close, .free = epoll_free,
};

int epoll_create1(int flags)
{
    struct epoll *ep;
    int fd;

    if (flags & ~EPOLL_CLOEXEC) {
        errno = EINVAL;
        return -1;
    }
    if (!(ep = calloc(1, sizeof *ep))) {
        errno = ENOMEM;
        return -1;
    }
    file_init(&ep->f, &epoll_ops);
    ep->lock = (struct spinlock)SPINLOCK_INIT(LOCK_EPOLL);
    if ((fd = fd_install(&ep->f, 0, flags & EPOLL_CLOEXEC)) < 0) {
        file_put(&ep->f);
        errno = -fd;
        return -1;
    }
    return fd;
}

int epoll_create(int size)
{
    if (size <= 0) {
        errno = EINVAL;
        return -1;
    }
    return epoll_create1(0);
}
