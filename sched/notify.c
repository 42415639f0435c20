/*
 * notify.c - the notify list: condition variables (sp_cond, Go's
 * sync.Cond) and the timed waits of the POSIX layer, on gopark/goready.
 *
 * Design.  Go's notifyList (runtime/sema.go) hands out tickets, so that a
 * waiter can drop its mutex before it takes the list's lock and still
 * not miss a notify made in between: the notify advances a ticket
 * counter the late waiter checks.  Tickets cannot carry a timeout: a
 * waiter that timed out leaves its ticket behind, and the next signal,
 * spent on that ticket, wakes nobody while others wait.  So here a
 * waiter is queued before it drops its mutex (notifylist_add), as its
 * ticket would be taken, and a signal always takes a waiter that is on
 * the list: one that timed out has taken itself off.  The queued waiter
 * may not have parked yet when a notify takes it off; the notify then
 * only marks it, and the waiter, which checks under the same lock before
 * parking, does not park.  `parked` says which case it is.
 *
 * The object is two pointers, valid when zeroed (every sync object is);
 * its lock is one of NOTIFY_ROOTS spinlocks picked by hashing its
 * address, as the semaphore roots of sync.c.
 *
 * Who takes a waiter off its list (under the root lock) owns the wake-up:
 * a signal or broadcast (NW_WOKEN), the waiter's deadline timer
 * (NW_TIMEDOUT) or the waiter itself (notifylist_cancel, or a deadline
 * already past).  If the waiter had parked, that one readies it, after
 * dropping the lock (goready takes scheduler locks).  A waiter touches
 * nothing of another once it is off the list: w lives on the waiting
 * G's stack, which it leaves only after its timer is deleted
 * (timer_destroy waits out a timer function running on another core).
 *
 * Timed waits.  The deadline is in sp_nanotime() nanoseconds; its timer
 * is armed in cycles rounded up, so the timer never fires before
 * sp_nanotime() reads the deadline.
 *
 * Lock order: a root lock is taken with no other lock held, and nothing
 * is taken under it; it shares the semaphore roots' rank
 * (kernel/lockrank.h, LOCK_SEMAROOT), whose place it has.  The timer
 * lock is never held with it: the timer is armed before the root lock
 * is taken and deleted after it is dropped, and a timer function runs
 * with no timer lock held (timers.h).
 */
#include <stdint.h>
#include "arch/arch.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "sched/notify.h"
#include "sched/sched.h"
#include "sched/timers.h"
#include <spindle/sync.h>
#include <spindle/time.h>

#define NOTIFY_ROOTS 61             /* prime */

struct notifyroot {
    struct spinlock lock;
} __attribute__((aligned(64)));     /* one root per cache line */

static struct notifyroot roots[NOTIFY_ROOTS] = {
    [0 ... NOTIFY_ROOTS - 1] = { .lock = SPINLOCK_INIT(LOCK_SEMAROOT) },
};

static struct spinlock *rootlock(sp_cond *c)
{
    return &roots[((uintptr_t)c >> 4) % NOTIFY_ROOTS].lock;
}

/* ---- the list, under its root lock ---------------------------------- */

/* head is also read without the lock by the notify fast path; written
   atomically. */
static void enqueue(sp_cond *c, struct notifywaiter *w)
{
    struct notifywaiter *tail = c->tail;

    w->next = NULL;
    w->prev = tail;
    if (tail)
        tail->next = w;
    else
        __atomic_store_n(&c->head, w, __ATOMIC_RELAXED);
    c->tail = w;
}

static void dequeue(sp_cond *c, struct notifywaiter *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        __atomic_store_n(&c->head, w->next, __ATOMIC_RELAXED);
    if (w->next)
        w->next->prev = w->prev;
    else
        c->tail = w->prev;
    w->next = w->prev = NULL;
}

/* Takes w off with the given state; returns the G to ready, if any. */
static struct g *take(sp_cond *c, struct notifywaiter *w, int state)
{
    dequeue(c, w);
    w->state = state;
    return w->parked ? w->g : NULL;
}

/* ---- waiting ----------------------------------------------------------- */

void notifylist_add(sp_cond *c, struct notifywaiter *w)
{
    struct spinlock *l = rootlock(c);
    unsigned long flags;

    *w = (struct notifywaiter){ .g = getg(), .c = c, .state = NW_QUEUED };
    if (!w->g)
        panic("notifylist_add: waiting outside a G");
    flags = spin_lock(l);
    enqueue(c, w);
    spin_unlock(l, flags);
}

bool notifylist_cancel(sp_cond *c, struct notifywaiter *w)
{
    struct spinlock *l = rootlock(c);
    unsigned long flags = spin_lock(l);

    if (w->state == NW_QUEUED)
        take(c, w, NW_CANCELLED);
    spin_unlock(l, flags);
    return w->state == NW_WOKEN;
}

/* The timer function of a timed wait: off any G, interrupts off. */
static void notify_timeout(void *arg)
{
    struct notifywaiter *w = arg;
    struct spinlock *l = rootlock(w->c);
    unsigned long flags = spin_lock(l);
    struct g *gp = NULL;

    if (w->state == NW_QUEUED)
        gp = take(w->c, w, NW_TIMEDOUT);
    /* w may be gone once gp runs: nothing of it is read below. */
    spin_release(l);
    if (gp)
        goready(gp);
    arch_irq_restore(flags);
}

/* sp_nanotime() of cycle count c (time.c's formula, exactly). */
static uint64_t cycles_ns(uint64_t c, uint64_t hz)
{
    return c / hz * 1000000000 + c % hz * 1000000000 / hz;
}

/*
 * The arch_cycles() value at which sp_nanotime() has reached deadline:
 * the first cycle whose nanoseconds are not less (rounded up), at most
 * INT64_MAX (a deadline no timer reaches).
 */
static uint64_t deadline_cycles(uint64_t deadline)
{
    uint64_t hz = arch_cycles_hz(), now = arch_cycles();
    uint64_t ns = cycles_ns(now, hz);
    __uint128_t c;

    if (deadline <= ns)
        return now;
    c = ((__uint128_t)(deadline - ns) * hz + 999999999) / 1000000000;
    return c < (uint64_t)INT64_MAX - now ? now + (uint64_t)c
                                         : (uint64_t)INT64_MAX;
}

bool notifylist_wait(sp_cond *c, struct notifywaiter *w, uint64_t deadline)
{
    struct spinlock *l = rootlock(c);
    struct timer t;
    unsigned long flags;

    if (deadline && sp_nanotime() >= deadline) {
        notifylist_cancel(c, w);
        return w->state == NW_WOKEN;
    }
    if (deadline) {
        timer_init(&t, notify_timeout, w);
        timer_start(&t, deadline_cycles(deadline), 0);
    }
    flags = spin_lock(l);
    if (w->state == NW_QUEUED) {
        w->parked = true;
        gopark_unlock(l, WAIT_COND);
        arch_irq_restore(flags);
    } else {
        spin_unlock(l, flags);
    }
    /* Off the list now; whoever took w off has done with it, but for a
       timer function still returning on another core. */
    if (deadline)
        timer_destroy(&t);
    return w->state == NW_WOKEN;
}

/* ---- notifying ---------------------------------------------------------- */

void sp_cond_signal(sp_cond *c)
{
    struct spinlock *l = rootlock(c);
    struct notifywaiter *w;
    unsigned long flags;
    struct g *gp = NULL;

    /* A waiter the caller must wake was queued before it dropped the
       mutex the caller took since (or, for the timed mutex of posix/,
       before a full fence the caller's fence pairs with): seen here. */
    if (!__atomic_load_n(&c->head, __ATOMIC_RELAXED))
        return;
    flags = spin_lock(l);
    w = c->head;
    if (w)
        gp = take(c, w, NW_WOKEN);
    spin_release(l);
    if (gp)
        goready(gp);
    arch_irq_restore(flags);
}

void sp_cond_broadcast(sp_cond *c)
{
    struct spinlock *l = rootlock(c);
    struct notifywaiter *w, *next, *parked = NULL, **tailp = &parked;
    unsigned long flags;

    if (!__atomic_load_n(&c->head, __ATOMIC_RELAXED))
        return;
    /* Take every waiter off under the lock; chain the parked ones
       through their own next fields, in order (a parked waiter stays until it is
       readied; one not parked returns once we unlock, so it must not be
       on the chain) and ready them after. */
    flags = spin_lock(l);
    for (w = c->head; w; w = next) {
        next = w->next;
        if (take(c, w, NW_WOKEN)) {     /* leaves w->next NULL */
            *tailp = w;
            tailp = &w->next;
        }
    }
    spin_release(l);
    for (w = parked; w; w = next) {
        next = w->next;         /* before goready: then w may be gone */
        goready(w->g);
    }
    arch_irq_restore(flags);
}

/* ---- sp_cond ------------------------------------------------------------ */

void sp_cond_wait(sp_cond *c, sp_mutex *m)
{
    struct notifywaiter w;

    notifylist_add(c, &w);
    sp_mutex_unlock(m);
    notifylist_wait(c, &w, 0);
    sp_mutex_lock(m);
}

bool sp_cond_wait_until(sp_cond *c, sp_mutex *m, uint64_t deadline)
{
    struct notifywaiter w;
    bool woken;

    notifylist_add(c, &w);
    sp_mutex_unlock(m);
    woken = notifylist_wait(c, &w, deadline ? deadline : 1);
    sp_mutex_lock(m);
    return woken;
}
