/*
 * chan.c - channels and select (Go's runtime/chan.go and select.go).
 *
 * A channel is one malloc'd block: the header below and, after it, a ring
 * buffer of cap slots.  Everything in it changes under c->lock.  A G that
 * cannot complete an operation waits on one of two queues (recvq, sendq)
 * as a sudog: a record on the waiting G's own stack naming the G, the
 * buffer its value comes from or goes to, and, once it is woken, whether
 * a value moved (success) or the channel was closed.
 *
 * The protocol (sched.h's parking rule):
 *   waiter: lock c; nothing to do at once -> enqueue its sudog;
 *           gopark_unlock(&c->lock).  The lock is dropped only once the G
 *           is off its stack, so the sudog stays valid and no waker can
 *           ready the G before it has stopped running.
 *   waker:  lock c; dequeue a sudog; move the value straight between the
 *           two Gs' buffers (no trip through the ring); set success;
 *           unlock; goready(sg->g).  After goready the sudog's stack frame
 *           may be gone: nothing touches it again.
 * A value therefore never waits in the buffer while a receiver waits, and
 * a blocked sender's value enters the ring only when a receiver frees a
 * slot, which keeps the ring FIFO across blocked senders.  gopark returns
 * with interrupts as they were when it was called (off: the lock was
 * held), so every park is followed by arch_irq_restore(flags) with the
 * state spin_lock saved.
 *
 * select puts one sudog per case on every channel's queue at once; all of
 * them point at one `done` word in the select's frame.  A waker that
 * dequeues such a sudog must first CAS done from NULL to that sudog; if
 * another case already won, it drops the sudog and looks at the next one
 * (Go's selectDone).  When the selecting G runs again it locks all its
 * channels, reads done to learn which case ran, and unlinks the others.
 *
 * Lock order (kernel/spinlock.h keeps the kernel's list):
 *   1. channel locks; the channels of one select in address order, so two
 *      selects over the same channels cannot deadlock (Go's sellock)
 *   2. scheduler locks (goready may take them; here it is called only
 *      after the channel locks are dropped, as sched.h asks)
 * No newlib lock is taken under a channel lock: a big select allocates
 * its records before locking.  A channel lock is held with interrupts
 * off, so a G is never preempted while holding one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "panic.h"
#include "sched.h"
#include "spinlock.h"
#include "spindle/chan.h"

struct sudog {
    struct g *g;
    void *elem;                 /* value to send / where to receive (NULL:
                                   discard); owned by g, used by the waker
                                   under the channel lock */
    struct sudog *next, *prev;  /* the channel's wait queue; under its lock */
    struct sudog **done;        /* select only, else NULL: the select's
                                   winner, CAS NULL -> sudog by a waker */
    struct sudog *readylink;    /* close's list of Gs to ready */
    bool success;               /* written by the waker under the lock
                                   before goready; read by g afterwards */
};

struct waitq {
    struct sudog *first, *last;
};

struct sp_chan {
    struct spinlock lock;
    /* Under lock. */
    size_t qcount;              /* values in the ring; also read without
                                   the lock by sp_chan_len (relaxed) */
    size_t sendx, recvx;        /* next slot to fill / to empty */
    bool closed;
    struct waitq recvq, sendq;
    /* Fixed by sp_chan_make. */
    size_t elemsize, cap;
    unsigned char *buf;
};

/* ---- wait queues (caller holds the channel lock) -------------------- */

static void waitq_enqueue(struct waitq *q, struct sudog *sg)
{
    sg->next = NULL;
    sg->prev = q->last;
    if (q->last)
        q->last->next = sg;
    else
        q->first = sg;
    q->last = sg;
}

/*
 * Takes the first sudog that may still be woken.  A select's sudog whose
 * select another case already won is unlinked and skipped: its G will
 * find it gone when it unlinks its losing cases.
 */
static struct sudog *waitq_dequeue(struct waitq *q)
{
    struct sudog *sg;

    while ((sg = q->first)) {
        struct sudog *none = NULL;

        q->first = sg->next;
        if (q->first)
            q->first->prev = NULL;
        else
            q->last = NULL;
        sg->next = NULL;
        /* acq_rel: pairs with the CAS of a waker on another channel of
           the same select, and with the load of done in selwait. */
        if (sg->done && !__atomic_compare_exchange_n(sg->done, &none, sg,
                false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        return sg;
    }
    return NULL;
}

/* Unlinks sg if it is still queued on q (a losing case of a select). */
static void waitq_remove(struct waitq *q, struct sudog *sg)
{
    if (sg->prev)
        sg->prev->next = sg->next;
    else if (q->first == sg)
        q->first = sg->next;
    else
        return;                 /* a waker dequeued it already */
    if (sg->next)
        sg->next->prev = sg->prev;
    else
        q->last = sg->prev;
    sg->next = sg->prev = NULL;
}

static void sudog_init(struct sudog *sg, void *elem, struct sudog **done)
{
    sg->g = getg();
    if (!sg->g)
        panic("chan: blocking outside a G");
    sg->elem = elem;
    sg->next = sg->prev = sg->readylink = NULL;
    sg->done = done;
    sg->success = false;
}

/* ---- moving values (caller holds the channel lock) ------------------ */

static void *slot(sp_chan *c, size_t i)
{
    return c->buf + i * c->elemsize;
}

/* A NULL source sends the zero value; a NULL destination discards. */
static void copyelem(sp_chan *c, void *dst, const void *src)
{
    if (!dst || !c->elemsize)
        return;
    if (!src) {
        memset(dst, 0, c->elemsize);
        return;
    }
    /* Word-sized elements (most channels carry ints and pointers) are
       one move; newlib's memcpy spends ~20 instructions on 8 bytes. */
    switch (c->elemsize) {
    case 4:
        __builtin_memcpy(dst, src, 4);
        break;
    case 8:
        __builtin_memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, c->elemsize);
    }
}

static void buf_put(sp_chan *c, const void *elem)
{
    copyelem(c, slot(c, c->sendx), elem);
    if (++c->sendx == c->cap)
        c->sendx = 0;
    __atomic_store_n(&c->qcount, c->qcount + 1, __ATOMIC_RELAXED);
}

static void buf_take(sp_chan *c, void *elem)
{
    copyelem(c, elem, slot(c, c->recvx));
    if (++c->recvx == c->cap)
        c->recvx = 0;
    __atomic_store_n(&c->qcount, c->qcount - 1, __ATOMIC_RELAXED);
}

/* Hands elem to a waiting receiver; returns its G to ready after unlock. */
static struct g *send_direct(sp_chan *c, struct sudog *sg, const void *elem)
{
    copyelem(c, sg->elem, elem);
    sg->success = true;
    sg->g->param = sg;
    return sg->g;
}

/*
 * Takes a waiting sender's value.  If the channel is buffered, the ring is
 * full (or the sender would not wait): the receiver takes the oldest value
 * and the sender's goes into the slot that frees, the new tail.
 */
static struct g *recv_direct(sp_chan *c, struct sudog *sg, void *elem)
{
    if (c->cap == 0) {
        copyelem(c, elem, sg->elem);
    } else {
        copyelem(c, elem, slot(c, c->recvx));
        copyelem(c, slot(c, c->recvx), sg->elem);
        if (++c->recvx == c->cap)
            c->recvx = 0;
        c->sendx = c->recvx;
    }
    sg->success = true;
    sg->g->param = sg;
    return sg->g;
}

/*
 * A send that needs no waiting, on an open channel.  Returns false if it
 * would block; *wake is a G to ready once the lock is dropped, or NULL.
 */
static bool send_now(sp_chan *c, const void *elem, struct g **wake)
{
    struct sudog *sg = waitq_dequeue(&c->recvq);

    *wake = NULL;
    if (sg) {
        *wake = send_direct(c, sg, elem);
        return true;
    }
    if (c->qcount < c->cap) {
        buf_put(c, elem);
        return true;
    }
    return false;
}

/*
 * A receive that needs no waiting: a waiting sender, a buffered value, or
 * the close (*ok false, elem zeroed) once the buffer is drained.
 */
static bool recv_now(sp_chan *c, void *elem, bool *ok, struct g **wake)
{
    struct sudog *sg = waitq_dequeue(&c->sendq);

    *wake = NULL;
    *ok = true;
    if (sg) {
        *wake = recv_direct(c, sg, elem);
        return true;
    }
    if (c->qcount > 0) {
        buf_take(c, elem);
        return true;
    }
    if (c->closed) {
        copyelem(c, elem, NULL);
        *ok = false;
        return true;
    }
    return false;
}

/* ---- send, receive, close -------------------------------------------- */

/* Unlocks l and readies wake (if any) before interrupts come back on:
   one enable instead of two (spin_release). */
static void unlock_ready(struct spinlock *l, unsigned long flags,
                         struct g *wake)
{
    spin_release(l);
    if (wake)
        goready(wake);
    arch_irq_restore(flags);
}

static bool commit_nothing(struct g *gp, void *arg)
{
    return true;
}

/* A nil channel, or a select with nothing to wait for: park for good. */
static __attribute__((noreturn)) void park_forever(enum waitreason why)
{
    gopark(commit_nothing, NULL, why);
    panic("chan: a G parked forever was woken (%s)", waitreason_string(why));
}

static bool chan_send(sp_chan *c, const void *elem, bool block)
{
    unsigned long flags;
    struct sudog me;
    struct g *wake;

    if (!c) {
        if (!block)
            return false;
        park_forever(WAIT_CHAN_SEND_NIL);
    }
    flags = spin_lock(&c->lock);
    if (c->closed) {
        spin_unlock(&c->lock, flags);
        panic("send on closed channel");
    }
    if (send_now(c, elem, &wake)) {
        unlock_ready(&c->lock, flags, wake);
        return true;
    }
    if (!block) {
        spin_unlock(&c->lock, flags);
        return false;
    }
    sudog_init(&me, (void *)elem, NULL);
    waitq_enqueue(&c->sendq, &me);
    gopark_unlock(&c->lock, WAIT_CHAN_SEND);
    arch_irq_restore(flags);    /* whatever state gopark returned in */
    if (!me.success)
        panic("send on closed channel");    /* woken by close */
    return true;
}

/* Returns whether it received; *ok is Go's ok for what it received. */
static bool chan_recv(sp_chan *c, void *elem, bool block, bool *ok)
{
    unsigned long flags;
    struct sudog me;
    struct g *wake;

    if (!c) {
        if (!block)
            return false;
        park_forever(WAIT_CHAN_RECV_NIL);
    }
    flags = spin_lock(&c->lock);
    if (recv_now(c, elem, ok, &wake)) {
        unlock_ready(&c->lock, flags, wake);
        return true;
    }
    if (!block) {
        spin_unlock(&c->lock, flags);
        return false;
    }
    sudog_init(&me, elem, NULL);
    waitq_enqueue(&c->recvq, &me);
    gopark_unlock(&c->lock, WAIT_CHAN_RECV);
    arch_irq_restore(flags);
    *ok = me.success;           /* false: woken by close, elem zeroed */
    return true;
}

void sp_chan_send(sp_chan *c, const void *elem)
{
    chan_send(c, elem, true);
}

bool sp_chan_trysend(sp_chan *c, const void *elem)
{
    return chan_send(c, elem, false);
}

bool sp_chan_recv(sp_chan *c, void *elem)
{
    bool ok;

    chan_recv(c, elem, true, &ok);
    return ok;
}

int sp_chan_tryrecv(sp_chan *c, void *elem, bool *ok)
{
    bool got_ok;

    if (!chan_recv(c, elem, false, &got_ok))
        return 0;
    if (ok)
        *ok = got_ok;
    return 1;
}

/*
 * Moves every sudog of q, marked unsuccessful, to the tail of a list of
 * Gs to ready; receivers get the zero value.
 */
static void wake_all(sp_chan *c, struct waitq *q, bool zero,
                     struct sudog ***tail)
{
    struct sudog *sg;

    while ((sg = waitq_dequeue(q))) {
        if (zero)
            copyelem(c, sg->elem, NULL);
        sg->success = false;
        sg->g->param = sg;
        sg->readylink = NULL;
        **tail = sg;
        *tail = &sg->readylink;
    }
}

void sp_chan_close(sp_chan *c)
{
    struct sudog *list = NULL, **tail = &list;
    unsigned long flags;

    if (!c)
        panic("close of nil channel");
    flags = spin_lock(&c->lock);
    if (c->closed) {
        spin_unlock(&c->lock, flags);
        panic("close of closed channel");
    }
    c->closed = true;
    wake_all(c, &c->recvq, true, &tail);    /* they return ok == false */
    wake_all(c, &c->sendq, false, &tail);   /* they panic */
    spin_unlock(&c->lock, flags);
    while (list) {
        struct sudog *sg = list;
        struct g *gp = sg->g;

        /* Read everything first: once readied, sg's frame can vanish. */
        list = sg->readylink;
        goready(gp);
    }
}

/* ---- making and inspecting ------------------------------------------ */

sp_chan *sp_chan_make(size_t elemsize, size_t cap)
{
    sp_chan *c;

    if (elemsize && cap > (SIZE_MAX - sizeof *c) / elemsize)
        return NULL;
    c = malloc(sizeof *c + elemsize * cap);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->lock = (struct spinlock)SPINLOCK_INIT("chan");
    c->elemsize = elemsize;
    c->cap = cap;
    c->buf = (unsigned char *)(c + 1);
    return c;
}

void sp_chan_free(sp_chan *c)
{
    unsigned long flags;
    bool waiters;

    if (!c)
        return;
    flags = spin_lock(&c->lock);
    waiters = c->recvq.first || c->sendq.first;
    spin_unlock(&c->lock, flags);
    if (waiters)
        panic("sp_chan_free: Gs are still waiting on the channel");
    free(c);
}

size_t sp_chan_len(sp_chan *c)
{
    /* A snapshot, as Go's len(c): relaxed pairs with the stores in
       buf_put and buf_take, which happen under the lock. */
    return c ? __atomic_load_n(&c->qcount, __ATOMIC_RELAXED) : 0;
}

size_t sp_chan_cap(sp_chan *c)
{
    return c ? c->cap : 0;
}

/* ---- select ----------------------------------------------------------- */

/* Cases up to this many need no allocation. */
#define SELECT_STACK_CASES 8

struct selstate {
    struct sp_case *cases;
    int n;
    int *poll;                  /* non-NULL cases in a random order */
    int npoll;
    sp_chan **locks;            /* their channels, by address, no repeats */
    int nlocks;
    struct sudog *sgs;          /* one per case while waiting */
    struct sudog *done;         /* the winner; see waitq_dequeue */
    unsigned long flags;        /* interrupt state before the first lock */
};

static int chan_addr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(sp_chan *const *)a;
    uintptr_t y = (uintptr_t)*(sp_chan *const *)b;

    return x < y ? -1 : x > y;
}

/*
 * Builds the poll order (a uniformly random permutation of the live
 * cases, so that no ready case is favoured: Go's pollorder) and the lock
 * order (their channels by address: Go's lockorder).
 */
static void selorder(struct selstate *s)
{
    int np = 0, nl = 0;

    for (int i = 0; i < s->n; i++) {
        struct sp_case *k = &s->cases[i];
        int j;

        if (k->dir != SP_SEND && k->dir != SP_RECV)
            panic("sp_select: case %d has bad direction %d", i, k->dir);
        if (!k->ch)
            continue;           /* a nil channel never fires */
        /* Inside-out Fisher-Yates shuffle. */
        j = fastrandn(np + 1);
        s->poll[np] = s->poll[j];
        s->poll[j] = i;
        s->locks[np++] = k->ch;
    }
    qsort(s->locks, np, sizeof *s->locks, chan_addr_cmp);
    for (int i = 0; i < np; i++)
        if (i == 0 || s->locks[i] != s->locks[i - 1])
            s->locks[nl++] = s->locks[i];
    s->npoll = np;
    s->nlocks = nl;
}

static void sellock(struct selstate *s)
{
    s->flags = spin_lock(&s->locks[0]->lock);
    for (int i = 1; i < s->nlocks; i++)
        spin_lock(&s->locks[i]->lock);
}

/*
 * Drops every lock of the select, in reverse order, and leaves interrupts
 * off: the caller restores spin_lock's flags (s->flags, or the ones a
 * park hands back) when it is done (spin_release).  Reads s->locks[i]
 * before releasing it: once the last lock is dropped after a park, the
 * selecting G may run and its frame may change.
 */
static void selrelease(struct selstate *s)
{
    for (int i = s->nlocks - 1; i >= 0; i--)
        spin_release(&s->locks[i]->lock);
}

static void selunlock(struct selstate *s, unsigned long flags)
{
    selrelease(s);
    arch_irq_restore(flags);
}

/* Pass 1: runs the first ready case in poll order and unlocks; or -1. */
static int selpoll(struct selstate *s)
{
    for (int i = 0; i < s->npoll; i++) {
        int casi = s->poll[i];
        struct sp_case *k = &s->cases[casi];
        struct g *wake;
        bool ok = true;

        if (k->dir == SP_RECV) {
            if (!recv_now(k->ch, k->elem, &ok, &wake))
                continue;
        } else {
            if (k->ch->closed) {
                selunlock(s, s->flags);
                panic("send on closed channel");
            }
            if (!send_now(k->ch, k->elem, &wake))
                continue;
        }
        k->ok = ok;
        selrelease(s);
        if (wake)
            goready(wake);
        arch_irq_restore(s->flags);
        return casi;
    }
    return -1;
}

/* Runs on g0 once the selecting G is off its stack. */
static bool selparkcommit(struct g *gp, void *arg)
{
    struct selstate *s = arg;

    selrelease(s);              /* interrupts stay off on g0 */
    return true;
}

static struct waitq *case_queue(struct sp_case *k)
{
    return k->dir == SP_SEND ? &k->ch->sendq : &k->ch->recvq;
}

/*
 * Passes 2 and 3, with every lock held: queue a sudog on each case, park
 * until a waker completes one, then relock, unlink the rest and report
 * the winner.  Returns unlocked.
 */
static int selwait(struct selstate *s)
{
    struct sudog *win;
    struct sp_case *k;
    int casi;

    s->done = NULL;
    for (int i = 0; i < s->npoll; i++) {
        k = &s->cases[s->poll[i]];
        sudog_init(&s->sgs[s->poll[i]], k->elem, &s->done);
        waitq_enqueue(case_queue(k), &s->sgs[s->poll[i]]);
    }
    gopark(selparkcommit, s, WAIT_SELECT);
    arch_irq_restore(s->flags);
    sellock(s);
    /* Pairs with the winning CAS in waitq_dequeue. */
    win = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
    for (int i = 0; i < s->npoll; i++)
        if (&s->sgs[s->poll[i]] != win)
            waitq_remove(case_queue(&s->cases[s->poll[i]]),
                         &s->sgs[s->poll[i]]);
    selunlock(s, s->flags);
    if (!win)
        panic("sp_select: woken with no case done");
    casi = win - s->sgs;
    k = &s->cases[casi];
    if (k->dir == SP_SEND && !win->success)
        panic("send on closed channel");
    k->ok = win->success;
    return casi;
}

int sp_select(struct sp_case *cases, int n, bool block)
{
    struct sudog sgs[SELECT_STACK_CASES];
    sp_chan *locks[SELECT_STACK_CASES];
    int poll[SELECT_STACK_CASES];
    struct selstate s = { cases, n, poll, 0, locks, 0, sgs, NULL, 0 };
    void *mem = NULL;
    int casi;

    if (n < 0)
        panic("sp_select: %d cases", n);
    if (n > SELECT_STACK_CASES) {
        mem = malloc(n * (sizeof *sgs + sizeof *locks + sizeof *poll));
        if (!mem)
            panic("sp_select: out of memory for %d cases", n);
        s.sgs = mem;
        s.locks = (sp_chan **)(s.sgs + n);
        s.poll = (int *)(s.locks + n);
    }
    selorder(&s);
    if (s.npoll == 0) {
        free(mem);
        if (!block)
            return -1;
        park_forever(n ? WAIT_SELECT : WAIT_SELECT_NO_CASES);
    }
    sellock(&s);
    casi = selpoll(&s);
    if (casi < 0 && block)
        casi = selwait(&s);
    else if (casi < 0)
        selunlock(&s, s.flags);
    free(mem);
    return casi;
}
