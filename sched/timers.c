/*
 * timers.c - per-P 4-ary timer heaps.  See timers.h for the contract.
 *
 * Why 4-ary: a sift-down compares four children per level but the tree is
 * half as deep as a binary heap; Go measured it faster for timer workloads.
 *
 * Each slot holds a copy of its timer's `when` beside the pointer (Go 1.23's
 * timerWhen): the four children of a node are one 64-byte line, and a
 * sift compares them without touching the timers, which live all over
 * memory (a sleeping G's timer is on its own stack, one page per G).
 * The copy is written wherever a timer's when changes while in a heap.
 *
 * Nor does a sift write to the timers it moves.  A timer in a heap holds
 * a handle, h, and two arrays beside the slots map slots to handles and
 * handles to slots (h_slot[h] is where the timer is), so a move writes
 * only the P's own dense arrays (writing the slot index into each moved
 * timer instead costs a soft-TLB miss per level under QEMU's TCG).
 * slot_h is a permutation of the handles 0..cap-1: the first ntimers are
 * in use, the one at index ntimers is the next free one, so handles need
 * no list.
 *
 * Locks: p->timerlock, after sched.lock and channel locks, before newlib's
 * (the heap array grows with realloc).  A timer function runs with no
 * timer lock held, so it may start or stop timers itself.
 */
#include <stdlib.h>
#include "kernel/panic.h"
#include "sched/exectrace.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

/* Timers that will still do something: T_WAITING ones everywhere and
   those whose function runs now.  One counter, so that no transition
   between the two (a firing, a ticker's re-arm) shows the deadlock check
   a moment with neither; atomic. */
static long nlive;

/*
 * If this core goes on to run with interrupts off, only an idle core can
 * run the timer on time, and a halted core knows only the timers that
 * existed when it armed its own.  So unless some halted core already
 * wakes by `when`, wake one to re-arm (Go's wakeNetPoller in addtimer).
 */
static void wake_idle_for(uint64_t when)
{
    struct m *idle = NULL;

    /* The new timer0 was published by a release store; the loads below
       must not be satisfied before it is visible (a store-load pair, as
       in wakep), or this and a core about to halt can each miss the
       other.  Pairs with the fence after m->halted's store. */
    seq_fence();
    if (!__atomic_load_n(&sched.npidle, __ATOMIC_RELAXED))
        return;
    for (int i = 0; i < ncpu; i++) {
        struct m *m = sched.allm[i];
        uint64_t armed;

        if (!__atomic_load_n(&m->halted, __ATOMIC_SEQ_CST))
            continue;
        armed = __atomic_load_n(&m->armed, __ATOMIC_RELAXED);
        if (armed && armed <= when)
            return;
        idle = m;
    }
    if (idle)
        arch_send_ipi(idle->cpu);
}

void timer_init(struct timer *t, void (*f)(void *), void *arg)
{
    *t = (struct timer){ .f = f, .arg = arg, .h = -1 };
}

/* Puts slot s, whose handle is h, at index i. */
static void set(struct p *p, int i, struct timerslot s, uint32_t h)
{
    p->timers[i] = s;
    p->slot_h[i] = h;
    p->h_slot[h] = i;
}

static void siftup(struct p *p, int i)
{
    struct timerslot s = p->timers[i];
    uint32_t h = p->slot_h[i];

    while (i > 0) {
        int parent = (i - 1) / 4;

        if (p->timers[parent].when <= s.when)
            break;
        set(p, i, p->timers[parent], p->slot_h[parent]);
        i = parent;
    }
    set(p, i, s, h);
}

static void siftdown(struct p *p, int i)
{
    struct timerslot s = p->timers[i];
    uint32_t h = p->slot_h[i];
    int n = p->ntimers;

    for (;;) {
        int c = 4 * i + 1, best = -1;
        uint64_t w = s.when;

        for (int k = c; k < c + 4 && k < n; k++)
            if (p->timers[k].when < w) {
                w = p->timers[k].when;
                best = k;
            }
        if (best < 0)
            break;
        set(p, i, p->timers[best], p->slot_h[best]);
        i = best;
    }
    set(p, i, s, h);
}

/* Publishes the heap's earliest deadline for lock-free readers. */
static void update_timer0(struct p *p)
{
    uint64_t w = p->ntimers ? p->timers[0].when : 0;

    __atomic_store_n(&p->timer0, w, __ATOMIC_RELEASE);
}

static void *grow(void *a, int cap, size_t size, struct p *p)
{
    void *n = realloc(a, cap * size);

    if (!n)
        panic("timer_start: out of memory for the timer heap of P %d",
              p->id);
    return n;
}

static void heap_push(struct p *p, struct timer *t)
{
    int i = p->ntimers;

    if (i == p->timercap) {
        int cap = p->timercap ? 2 * p->timercap : 64;

        p->timers = grow(p->timers, cap, sizeof *p->timers, p);
        p->slot_h = grow(p->slot_h, cap, sizeof *p->slot_h, p);
        p->h_slot = grow(p->h_slot, cap, sizeof *p->h_slot, p);
        for (int k = p->timercap; k < cap; k++)
            p->slot_h[k] = k;           /* new free handles */
        p->timercap = cap;
    }
    __atomic_store_n(&t->pp, p, __ATOMIC_RELEASE);
    t->h = p->slot_h[i];                /* the free handle at i */
    set(p, i, (struct timerslot){ t->when, t }, t->h);
    p->ntimers++;
    siftup(p, i);
}

/*
 * A timer out of its heap becomes idle: the status first, then pp.
 * lock_owner reads pp without the lock (acquire), and one that finds NULL
 * goes on as if t were idle - timer_reset starts it on its own P at once.
 * In the other order a reset from another core, racing the firing, could
 * find pp NULL and the status still T_WAITING.
 */
static void set_idle(struct timer *t)
{
    __atomic_store_n(&t->status, T_IDLE, __ATOMIC_RELAXED);
    __atomic_store_n(&t->pp, NULL, __ATOMIC_RELEASE);
}

/* Removes the timer at index i; it stays this P's (pp) until the caller
   sets it idle (or, a ticker about to run, keeps it). */
static void heap_remove(struct p *p, int i)
{
    struct timer *t = p->timers[i].t;
    uint32_t h = p->slot_h[i], lh;
    int last = --p->ntimers;

    t->h = -1;
    if (i == last)
        return;                         /* h stays at last, free */
    lh = p->slot_h[last];
    set(p, i, p->timers[last], lh);
    p->slot_h[last] = h;                /* h is free again */
    siftup(p, i);
    siftdown(p, p->h_slot[lh]);
}

/* Exchanges the slots (and handles) at i and j. */
static void swap(struct p *p, int i, int j)
{
    struct timerslot s = p->timers[i];
    uint32_t h = p->slot_h[i];

    set(p, i, p->timers[j], p->slot_h[j]);
    set(p, j, s, h);
}

/* Drops every deleted timer at once (Go's adjusttimers), O(n).  The
   kept ones are swapped down, so the handles stay a permutation. */
static void sweep(struct p *p)
{
    int j = 0;

    for (int i = 0; i < p->ntimers; i++) {
        struct timer *t = p->timers[i].t;

        if (t->status == T_DELETED) {
            /* h first: once set_idle publishes pp NULL, timer_destroy
               may return and the timer's memory be freed. */
            t->h = -1;
            set_idle(t);
        } else {
            if (i != j)
                swap(p, i, j);
            j++;
        }
    }
    p->ntimers = j;
    p->ndeleted = 0;
    for (int i = (j - 2) / 4; i >= 0; i--)
        siftdown(p, i);
}

/*
 * Unlocks p's heap, whose lock was taken with flags f, after a timer in
 * it became due at `when`: an earlier deadline must reach a core timer
 * now, or it would wait for the running G's slice to end.  This core's,
 * if the heap is its own; else a halted core's, which runs every P's due
 * timers (wake_idle_for).
 */
static void unlock_arm(struct p *p, unsigned long f, uint64_t when)
{
    struct m *m = this_cpu()->m;

    spin_release(&p->timerlock);
    if (p == m->p)
        core_timer_arm(m, when);
    arch_irq_restore(f);
    wake_idle_for(when);
}

void timer_start(struct timer *t, uint64_t when, uint64_t period)
{
    unsigned long f = arch_irq_save();
    struct p *p = this_cpu()->m->p;

    spin_lock(&p->timerlock);
    if (t->status != T_IDLE)
        panic("timer_start: timer already started (status %d)", t->status);
    t->when = when;
    t->period = period;
    t->status = T_WAITING;
    t->stop_while_running = false;
    heap_push(p, t);
    __atomic_add_fetch(&nlive, 1, __ATOMIC_RELAXED);
    update_timer0(p);
    unlock_arm(p, f, when);
}

/* Locks the heap t is in; returns it, or NULL (t in no heap, unlocked).
   A timer can move between heaps only while it is idle, so re-check. */
static struct p *lock_owner(struct timer *t, unsigned long *f)
{
    for (;;) {
        struct p *p = __atomic_load_n(&t->pp, __ATOMIC_ACQUIRE);

        if (!p)
            return NULL;
        *f = spin_lock(&p->timerlock);
        if (t->pp == p)
            return p;
        spin_unlock(&p->timerlock, *f);
    }
}

/* Per core, not per P: an idle core and the P's own can run two of one
   P's timers at once. */
void timer_wait(struct timer *t)
{
    for (int i = 0; i < ncpu; i++)
        while (__atomic_load_n(&sched.allm[i]->running, __ATOMIC_ACQUIRE) ==
               t)
            arch_cpu_relax();
}

bool timer_stop(struct timer *t)
{
    unsigned long f;
    struct p *p = lock_owner(t, &f);
    bool was = false, running = false;

    if (!p)
        return false;           /* idle, or a one-shot that already fired */
    if (t->status == T_RUNNING) {
        /* A ticker whose function runs now: it will not fire again
           (unless this stop is its second during the run). */
        was = !t->stop_while_running;
        running = true;
        t->stop_while_running = true;
        t->reset_while_running = false;
    } else if (t->status == T_WAITING) {
        t->status = T_DELETED;
        p->ndeleted++;
        __atomic_sub_fetch(&nlive, 1, __ATOMIC_RELAXED);
        was = true;
        if (p->ndeleted > p->ntimers / 4)
            sweep(p);
        update_timer0(p);
    }
    spin_unlock(&p->timerlock, f);
    /* Nothing from t may arrive after stop returns (Go's deltimer waits
       out a running timer too): a tick sent by the run in progress would
       land after the caller drained the channel.  Not from a timer
       function (they run with interrupts off), which may stop its own
       timer and would wait for itself. */
    if (running && arch_irqs_enabled())
        timer_wait(t);
    return was;
}

bool timer_reset(struct timer *t, uint64_t when, uint64_t period)
{
    unsigned long f;
    struct p *p = lock_owner(t, &f);
    bool was;

    if (!p) {
        timer_start(t, when, period);
        return false;
    }
    if (t->status == T_RUNNING) {
        /* A ticker mid-run: timers_run re-arms it at `when` afterwards. */
        was = !t->stop_while_running;
        t->stop_while_running = false;
        t->reset_while_running = true;
        t->when = when;
        t->period = period;
        spin_unlock(&p->timerlock, f);
        return was;
    }
    was = t->status == T_WAITING;
    if (!was) {
        p->ndeleted--;      /* un-delete: it stays in this heap */
        __atomic_add_fetch(&nlive, 1, __ATOMIC_RELAXED);
    }
    t->status = T_WAITING;
    t->when = when;
    t->period = period;
    p->timers[p->h_slot[t->h]].when = when;
    siftup(p, p->h_slot[t->h]);
    siftdown(p, p->h_slot[t->h]);   /* wherever siftup left it */
    update_timer0(p);
    unlock_arm(p, f, when);         /* it may have moved earlier */
    return was;
}

void timer_destroy(struct timer *t)
{
    unsigned long f;
    struct p *p;

    timer_stop(t);
    /* Wait out a run in progress on another core (never call this from
       t's own function). */
    timer_wait(t);
    if (!(p = lock_owner(t, &f)))
        return;
    if (t->h < 0) {             /* stopped while running: leaving now */
        spin_unlock(&p->timerlock, f);
        return;
    }
    if (t->status == T_DELETED)
        p->ndeleted--;
    else        /* reset again since the stop above, from another G */
        __atomic_sub_fetch(&nlive, 1, __ATOMIC_RELAXED);
    heap_remove(p, p->h_slot[t->h]);
    set_idle(t);
    update_timer0(p);
    spin_unlock(&p->timerlock, f);
}

/*
 * A one-shot timer is idle before its function runs, and is not touched
 * after: the function may ready a G whose stack holds the timer (sleep),
 * and that G may run and return on another core at once.  While it runs,
 * m->running names it, so that timer_destroy can wait it out, and nlive
 * still counts it, so that the deadlock check sees a wakeup on its way.
 * A periodic timer (a ticker, never on a stack) stays T_RUNNING and is
 * re-armed afterwards.
 */
uint64_t timers_run(struct p *p, uint64_t now)
{
    struct m *m = this_cpu()->m;    /* interrupts are off: no migration */
    unsigned long f;
    uint64_t next;

    if (!timers_next(p) || timers_next(p) > now)
        return timers_next(p);
    f = spin_lock(&p->timerlock);
    while (p->ntimers && p->timers[0].when <= now) {
        struct timer *t = p->timers[0].t;
        void (*fn)(void *) = t->f;
        void *arg = t->arg;
        bool periodic = t->period;

        heap_remove(p, 0);
        if (t->status == T_DELETED) {
            set_idle(t);
            p->ndeleted--;
            continue;
        }
        /* m->running before the timer can look idle: a timer_destroy that
           finds pp NULL must find this core running it, and wait, or it
           frees what fn is about to read. */
        __atomic_store_n(&m->running, t, __ATOMIC_RELEASE);
        if (periodic) {
            /* Still this P's while it runs (pp stays), so stop and reset
               take p->timerlock and cannot miss the re-arm below. */
            t->stop_while_running = t->reset_while_running = false;
            __atomic_store_n(&t->status, T_RUNNING, __ATOMIC_RELEASE);
        } else {
            set_idle(t);
        }
        update_timer0(p);
        spin_unlock(&p->timerlock, f);
        /* What fn readies goes to the wake queue (wakeq.c): goready
           sees m->running set. */
        TRACE(TEV_TIMER, 0, p->id);
        fn(arg);
        f = spin_lock(&p->timerlock);
        __atomic_store_n(&m->running, NULL, __ATOMIC_RELEASE);
        if (periodic && !t->stop_while_running) {
            /* Tickers keep their phase: when += period, not now + period,
               so ticks do not drift with the lateness of each one. */
            if (!t->reset_while_running) {
                t->when += t->period;
                if (t->when <= now)     /* missed ticks skipped, in phase */
                    t->when += ((now - t->when) / t->period + 1) * t->period;
            }
            t->status = T_WAITING;
            heap_push(p, t);            /* still counted in nlive */
        } else {
            if (periodic)
                set_idle(t);
            __atomic_sub_fetch(&nlive, 1, __ATOMIC_SEQ_CST);
        }
    }
    update_timer0(p);
    next = p->ntimers ? p->timers[0].when : 0;
    spin_unlock(&p->timerlock, f);
    return next;
}

long timers_pending(void)
{
    return __atomic_load_n(&nlive, __ATOMIC_SEQ_CST);
}

size_t timers_heap_bytes(void)
{
    size_t n = 0;

    for (int i = 0; i < ncpu; i++)
        n += (size_t)__atomic_load_n(&sched.allp[i]->timercap,
                                     __ATOMIC_RELAXED) *
             (sizeof(struct timerslot) + 2 * sizeof(uint32_t));
    return n;
}
