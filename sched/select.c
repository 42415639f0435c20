/*
 * select.c - select over channels (Go's runtime/select.go).
 *
 * A select puts one sudog per case on every channel's queue at once; all of
 * them point at one `done` word in the select's frame.  A waker that
 * dequeues such a sudog must first CAS done from NULL to that sudog; if
 * another case already won, it drops the sudog and looks at the next one
 * (Go's selectDone).  When the selecting G runs again it locks all its
 * channels, reads done to learn which case ran, and unlinks the others.
 *
 * A buffered case's waker does not complete the case: it wakes the select
 * to try again (the notice of chan.c).  The select then runs that case
 * first, as Go's waker would have completed it; if it runs another, it
 * passes the notice on to the channel's next waiter (pass_notice).
 *
 * A select that does not block answers "nothing ready" for one instant,
 * as Go's does by holding every channel's lock: but a buffered channel's
 * sends and receives claim ring positions without its lock.  So it reads
 * every buffered channel's positions (enq, deq) before polling and again
 * after, and polls again if any moved (selsnap).  If none moved, no send
 * or receive was claimed on them meanwhile, and a case the poll found
 * not ready was not ready when the first reading was made either: a
 * value unpublished then is unpublished at its poll, and one published
 * or a cell freed since would have needed a claim first.  So at that
 * first reading every case was not ready at once.
 *
 * Lock order: the channels of one select are locked in address order, so
 * two selects over the same channels cannot deadlock (Go's sellock); see
 * chan.c for where channel locks stand among the others.  A big select
 * allocates its records before it locks, so no newlib lock is taken under
 * a channel lock.
 */
#include <stdint.h>
#include <stdlib.h>
#include "arch/arch.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "sched/chanimpl.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"
#include <spindle/chan.h>

/* The test window of sched_select_gap_set, in cycles; 0 when off. */
static uint64_t select_gap;
static long select_repolls;     /* atomic */

void sched_select_gap_set(uint32_t us)
{
    __atomic_store_n(&select_gap, us_cycles(us), __ATOMIC_RELAXED);
}

long sched_select_repolls(void)
{
    return __atomic_load_n(&select_repolls, __ATOMIC_RELAXED);
}

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
    struct sudog *done;         /* the winner; see chan.c's waitq_dequeue */
    int notice;                 /* the buffered case whose waker woke the
                                   select and that it has not run, or -1 */
    unsigned long flags;        /* interrupt state before the first lock */
    uint64_t *snap;             /* 2 a channel of locks: its enq, deq */
    int nbuf;                   /* buffered channels among locks */
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
    s->nbuf = 0;
    for (int i = 0; i < nl; i++)
        s->nbuf += s->locks[i]->cap != 0;
}

/*
 * Reads every buffered channel's ring positions into s->snap, or, with
 * `check`, compares them with what is there: true if any moved (see the
 * top of the file).  Locks held.  The fences order the readings against
 * the poll's reads of the rings between them.
 */
static bool selsnap(struct selstate *s, bool check)
{
    bool moved = false;

    if (check)
        seq_fence();
    for (int i = 0; i < s->nlocks; i++) {
        sp_chan *c = s->locks[i];
        uint64_t e, d;

        if (!c->cap)
            continue;
        e = __atomic_load_n(&c->enq, __ATOMIC_SEQ_CST);
        d = __atomic_load_n(&c->deq, __ATOMIC_SEQ_CST);
        if (check)
            moved |= s->snap[2 * i] != e || s->snap[2 * i + 1] != d;
        s->snap[2 * i] = e;
        s->snap[2 * i + 1] = d;
    }
    if (!check)
        seq_fence();
    return moved;
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

/*
 * Case k, with every lock held: runs it if it can run now.  *wake is a G
 * to ready after unlocking: the unbuffered partner, or a buffered
 * channel's waiter on the other side.
 */
static bool selcase_now(struct selstate *s, struct sp_case *k,
                        struct g **wake)
{
    sp_chan *c = k->ch;
    bool ok = true;
    enum ring r;

    if (!c->cap) {
        if (k->dir == SP_RECV) {
            if (!chan_recv_now(c, k->elem, &ok, wake))
                return false;
        } else {
            if (c->closed) {
                selunlock(s, s->flags);
                panic("send on closed channel");
            }
            if (!chan_send_now(c, k->elem, wake))
                return false;
        }
        k->ok = ok;
        return true;
    }
    r = chan_ring_op(c, k->elem, k->dir == SP_SEND, true, wake);
    if (r == RING_WAIT)
        return false;
    if (r == RING_CLOSED && k->dir == SP_SEND) {
        selunlock(s, s->flags);
        panic("send on closed channel");
    }
    k->ok = r == RING_OK;
    return true;
}

static struct waitq *case_queue(struct sp_case *k)
{
    return k->dir == SP_SEND ? &k->ch->sendq : &k->ch->recvq;
}

/*
 * The select was woken by a notice on case k's buffered channel, and runs
 * another case: the notice goes to the next waiter there if the ring can
 * still serve one (locks held).  Otherwise that waiter could stay parked
 * beside a value (or a free cell) that no later claim announces.
 */
static struct g *pass_notice(struct sp_case *k)
{
    if (!ring_claimable(k->ch, k->dir == SP_SEND))
        return NULL;
    return chan_notify(k->ch, case_queue(k));
}

/*
 * Pass 1: runs the first ready case and unlocks; or -1.  The order is
 * the random poll order, except that a case whose waker woke the select
 * (s->notice) goes first: in Go that waker would have completed it.
 */
static int selpoll(struct selstate *s)
{
    for (int i = -1; i < s->npoll; i++) {
        int casi = i < 0 ? s->notice : s->poll[i];
        struct g *wake, *passed = NULL;

        if (casi < 0 || (i >= 0 && casi == s->notice))
            continue;
        if (!selcase_now(s, &s->cases[casi], &wake)) {
            uint64_t gap = __atomic_load_n(&select_gap, __ATOMIC_RELAXED);

            if (__builtin_expect(gap != 0, 0))
                relax_for(gap);
            continue;
        }
        if (s->notice >= 0 && casi != s->notice)
            passed = pass_notice(&s->cases[s->notice]);
        s->notice = -1;
        selrelease(s);
        if (wake)
            goready(wake);
        if (passed)
            goready(passed);
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

/* Unlinks every case's sudog but win (locks held). */
static void selunlink(struct selstate *s, struct sudog *win)
{
    for (int i = 0; i < s->npoll; i++) {
        struct sp_case *k = &s->cases[s->poll[i]];

        if (&s->sgs[s->poll[i]] != win)
            waitq_remove(case_queue(k), &s->sgs[s->poll[i]]);
        chan_set_waiting(k->ch);
    }
}

/*
 * Passes 2 and 3, with every lock held: queue a sudog on each case, park
 * until a waker completes one, then relock, unlink the rest and report
 * the winner, unlocked.  Returns -1, locked, when a buffered case may be
 * ready: one was before the park (the waiter's half of the handshake,
 * see the top of the file), or its waker's notice woke the select.
 */
static int selwait(struct selstate *s)
{
    struct sudog *win;
    struct sp_case *k;
    bool buffered = false;
    int casi;

    s->done = NULL;
    for (int i = 0; i < s->npoll; i++) {
        k = &s->cases[s->poll[i]];
        sudog_init(&s->sgs[s->poll[i]], k->ch->cap ? NULL : k->elem,
                   &s->done);
        waitq_enqueue(case_queue(k), &s->sgs[s->poll[i]]);
        chan_set_waiting(k->ch);
        buffered |= k->ch->cap != 0;
    }
    if (buffered) {
        /* The waiter's half of the handshake: chan_set_waiting was seq-cst. */
        for (int i = 0; i < s->npoll; i++) {
            k = &s->cases[s->poll[i]];
            if (k->ch->cap && ring_claimable(k->ch, k->dir == SP_SEND)) {
                /* Poll again; but if a claim is not yet published (its
                   G may have been preempted here), let it run first. */
                selunlink(s, NULL);
                selunlock(s, s->flags);
                goyield();
                sellock(s);
                return -1;
            }
        }
    }
    /* Parking: no claim this select was told of is left to serve it. */
    s->notice = -1;
    gopark(selparkcommit, s, WAIT_SELECT);
    arch_irq_restore(s->flags);
    sellock(s);
    /* Pairs with the winning CAS in waitq_dequeue. */
    win = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
    selunlink(s, win);
    if (!win)
        panic("sp_select: woken with no case done");
    casi = win - s->sgs;
    k = &s->cases[casi];
    if (k->ch->cap) {
        s->notice = casi;       /* poll again, this case first */
        return -1;
    }
    selunlock(s, s->flags);
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
    uint64_t snap[2 * SELECT_STACK_CASES];
    struct selstate s = { cases, n, poll, 0, locks, 0, sgs, NULL, -1, 0,
                          snap, 0 };
    void *mem = NULL;
    int casi;

    if (n < 0)
        panic("sp_select: %d cases", n);
    if (n > SELECT_STACK_CASES) {
        mem = malloc(n * (sizeof *sgs + 2 * sizeof *snap + sizeof *locks +
                          sizeof *poll));
        if (!mem)
            panic("sp_select: out of memory for %d cases", n);
        s.sgs = mem;
        s.snap = (uint64_t *)(s.sgs + n);
        s.locks = (sp_chan **)(s.snap + 2 * n);
        s.poll = (int *)(s.locks + n);
    }
    selorder(&s);
    if (s.npoll == 0) {
        free(mem);
        if (!block)
            return -1;
        chan_park_forever(n ? WAIT_SELECT : WAIT_SELECT_NO_CASES);
    }
    sellock(&s);
    for (;;) {
        /* One buffered channel alone needs no snapshot: any one reading
           of it is an instant. */
        if (!block && s.nbuf > 1)
            selsnap(&s, false);
        casi = selpoll(&s);
        if (casi >= 0)
            break;
        if (!block) {
            if (s.nbuf > 1 && selsnap(&s, true)) {
                __atomic_add_fetch(&select_repolls, 1, __ATOMIC_RELAXED);
                continue;       /* a claim moved: poll again */
            }
            selunlock(&s, s.flags);
            break;
        }
        casi = selwait(&s);
        if (casi >= 0)
            break;
    }
    free(mem);
    return casi;
}
