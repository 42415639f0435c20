/*
 * polldesc.c - a socket's readiness, for Gs that wait on it (Go's
 * pollDesc).  The contract and the slot states are in polldesc.h.
 *
 * Why PD_WAIT.  A waiter cannot publish itself in the slot before it
 * parks: a G pointer in the slot is an invitation to goready that G, and
 * a G readied while it still runs on its own stack would be run twice.
 * It cannot publish itself only after parking either, unless something
 * covers the moment in between: readiness reported then would find the
 * slot empty, become sticky PD_READY, and the G would sleep on without
 * anyone left to wake it.  So the waiter first claims the slot with
 * PD_WAIT ("someone is about to sleep here"), and only gopark's unlock
 * callback, running once the G is off its stack, turns PD_WAIT into the G
 * with a compare-and-swap.  A reporter that comes in between finds
 * PD_WAIT and replaces it (PD_READY for readiness, PD_NIL for a timeout or
 * close) without waking anybody; the callback's CAS then fails, it
 * returns false, gopark makes the G runnable again at once, and the G
 * reads the slot to learn what happened.  Every report thus either wakes
 * a G that sleeps, cancels a sleep that has not begun, or stays in the
 * slot for the next waiter: none is lost, none wakes a running G.
 *
 * Why the waiter looks at closing and the deadlines after PD_WAIT.  Close
 * and deadlines do the mirror image: they publish their state (`info`)
 * and then look at the slot to wake whoever is there; a waiter sets
 * PD_WAIT and then looks at `info`.  With both sides' store-then-load
 * sequentially consistent, at least one sees the other: either the closer
 * finds PD_WAIT (or the G) and clears it, or the waiter sees closing and
 * does not park.  Were the waiter to check before setting PD_WAIT, a
 * close in between would find the slot empty and the waiter would sleep
 * forever.  Readiness needs no such pairing: reporter and waiter both
 * change the slot itself, with read-modify-writes, which are ordered.
 *
 * Memory ordering: every access to rg, wg and info says its partner.
 * Two rules carry the rest:
 *   P1. The store-load pairs above (info vs slot) are all seq-cst.
 *   P2. A slot change that hands something over is a release (a report:
 *       PD_READY, or the G taken out; the waiter's commit of itself), and
 *       whoever takes it acquires: the waiter consuming PD_READY or
 *       reading the slot after the park, the reporter taking the G (it
 *       goes on to goready it, which reads the status gopark stored).
 *
 * Stale timers.  Go's timer hands its function the sequence number it was
 * armed with, so a firing from before a deadline change can tell it is
 * old.  A Spindle timer's argument is fixed at timer_init, and rewriting
 * it while the timer may sit in a heap would race with timers_run, which
 * reads it under the heap's lock.  Each deadline instead counts its
 * timer's outstanding firings: `firings` goes up by one for each arming
 * and down by one when a stop or reset cancels an arming (they return
 * true) or when the function runs.  An arming that a stop or reset finds
 * no longer waiting (they return false) has been taken off its heap and
 * its function will run: that firing stays counted.  So when the function
 * runs, under pd->lock, and counts one outstanding firing - its own -
 * with `armed` still set, it is the firing of the deadline in force and
 * it acts; otherwise an older firing is still on its way, and this run
 * does nothing.  Should the current arming's function run before an
 * older one's, it is the one ignored, and the older run that follows acts
 * for it: by then the current deadline has passed too, so the outcome is
 * the same.
 * Nothing here compares clocks, whose cores may disagree by a few cycles.
 *
 * Go's "combo" timer (one timer when the two deadlines are equal) is left
 * out: each direction has its own.
 */
#include "sched/polldesc.h"
#include "arch/arch.h"
#include "kernel/panic.h"
#include "sched/netpoll.h"
#include "sched/sched.h"
#include <spindle/time.h>
#include "sched/timers.h"

/* Bits of pd->info. */
#define PDI_CLOSING  1u
#define PDI_RTIMEOUT 2u         /* rd.ns < 0 */
#define PDI_WTIMEOUT 4u         /* wd.ns < 0 */

static const char *dir_name(int mode)
{
    return mode == 'r' ? "read" : "write";
}

static uintptr_t *slot_of(struct polldesc *pd, int mode, const char *fn)
{
    if (mode == 'r')
        return &pd->rg;
    if (mode == 'w')
        return &pd->wg;
    panic("%s: mode %d is neither 'r' nor 'w'", fn, mode);
}

/* Go's netpollcheckerr, lock-free. */
static int check(struct polldesc *pd, int mode)
{
    /* P1: pairs with the seq-cst store in publish; in block() it comes
       after the seq-cst CAS that set PD_WAIT. */
    uint32_t info = __atomic_load_n(&pd->info, __ATOMIC_SEQ_CST);

    if (info & PDI_CLOSING)
        return PD_ECLOSED;
    if (info & (mode == 'r' ? PDI_RTIMEOUT : PDI_WTIMEOUT))
        return PD_ETIMEOUT;
    return PD_OK;
}

/* Under pd->lock: makes closing and the passed deadlines visible to
   check() before the caller looks at the slots (unblock). */
static void publish(struct polldesc *pd)
{
    uint32_t info = (pd->closing ? PDI_CLOSING : 0) |
                    (pd->rd.ns < 0 ? PDI_RTIMEOUT : 0) |
                    (pd->wd.ns < 0 ? PDI_WTIMEOUT : 0);

    /* P1: pairs with the seq-cst load in check() that follows a
       waiter's PD_WAIT; unblock's seq-cst slot accesses follow. */
    __atomic_store_n(&pd->info, info, __ATOMIC_SEQ_CST);
}

/*
 * Go's netpollunblock: readiness (ioready) or a timeout/close reaches
 * slot s.  Returns the G that slept there, for the caller to make
 * runnable, or NULL.  Readiness leaves PD_READY behind; a timeout or
 * close leaves PD_NIL, and does nothing to an empty slot (the waiter
 * checks info before it sleeps) or to PD_READY (the waiter takes it and
 * tries the operation, which is fine).
 */
static struct g *unblock(uintptr_t *s, bool ioready)
{
    uintptr_t want = ioready ? PD_READY : PD_NIL;
    /* P1: after publish's store for a close or timeout (the waiter's
       side is block's CAS to PD_WAIT, then check).  Also the first read
       of the CAS loop below, whose success is what matters for P2. */
    uintptr_t old = __atomic_load_n(s, __ATOMIC_SEQ_CST);

    for (;;) {
        if (old == PD_READY || (old == PD_NIL && !ioready))
            return NULL;
        /* P1 as above; P2: release hands PD_READY to the waiter's
           acquiring CAS or exchange in block, and acquire takes the G
           its commit released. */
        if (__atomic_compare_exchange_n(s, &old, want, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return old > PD_WAIT ? (struct g *)old : NULL;
    }
}

/* gopark's unlock callback: the G, off its stack now, takes the slot it
   claimed with PD_WAIT - unless a report got there first. */
static bool commit(struct g *gp, void *s)
{
    uintptr_t wait = PD_WAIT;

    /* P2: release pairs with the acquiring CAS in unblock that takes gp
       (the waker then reads gp->status, stored before this call).  A
       failure needs no ordering: block's exchange acquires next. */
    return __atomic_compare_exchange_n((uintptr_t *)s, &wait, (uintptr_t)gp,
                                       false, __ATOMIC_RELEASE,
                                       __ATOMIC_RELAXED);
}

/*
 * Go's netpollblock: true if readiness was taken, false if the G was
 * woken (or not parked) by a timeout or close.
 */
static bool block(struct polldesc *pd, int mode, uintptr_t *s)
{
    uintptr_t old;

    for (;;) {
        old = PD_READY;
        /* P2: acquire pairs with the release in unblock that left
           PD_READY. */
        if (__atomic_compare_exchange_n(s, &old, PD_NIL, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return true;
        old = PD_NIL;
        /* P1: seq-cst, then check()'s load; pairs with publish's store
           and then unblock's load/CAS on a closer's or deadline's side. */
        if (__atomic_compare_exchange_n(s, &old, PD_WAIT, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            break;
        if (old != PD_READY)
            panic("pd_wait: a goroutine waits to %s on a descriptor another "
                  "one waits on (double wait; slot %#lx)", dir_name(mode),
                  (unsigned long)old);
        /* readiness came between the two CASes: take it */
    }
    if (check(pd, mode) == PD_OK) {
        netpoll_wait_add(1);
        gopark(commit, s, WAIT_IO);
        netpoll_wait_add(-1);
    }
    /* Whatever woke us, or cancelled the park, or nothing (check failed):
       PD_READY must not be lost, so take the slot back in one step.
       P2: acquire pairs with unblock's release of PD_READY or PD_NIL. */
    old = __atomic_exchange_n(s, PD_NIL, __ATOMIC_ACQUIRE);
    if (old > PD_WAIT)
        panic("pd_wait: %s slot holds goroutine %lu after this one's wait "
              "(corrupt descriptor)", dir_name(mode),
              (unsigned long)((struct g *)old)->goid);
    return old == PD_READY;
}

int pd_wait(struct polldesc *pd, int mode)
{
    uintptr_t *s = slot_of(pd, mode, "pd_wait");
    unsigned long f = arch_irq_save();
    int depth = spin_depth(), err;

    arch_irq_restore(f);
    if (depth)
        panic("pd_wait: a goroutine would park holding %d spinlocks", depth);
    if ((err = check(pd, mode)))
        return err;
    while (!block(pd, mode, s)) {
        if ((err = check(pd, mode)))
            return err;
        /* A deadline woke us but was moved (or removed) before we ran:
           as if it never passed; wait again. */
    }
    return PD_OK;
}

int pd_prepare(struct polldesc *pd, int mode)
{
    uintptr_t *s = slot_of(pd, mode, "pd_prepare");
    /* Relaxed: only the slot's own modification order matters.  A report
       that comes after the caller's next try (ordered after this by the
       stack lock) is later in that order than the clearing below. */
    uintptr_t old = __atomic_load_n(s, __ATOMIC_RELAXED);
    int err;

    if ((err = check(pd, mode)))
        return err;
    while (old != PD_NIL) {
        if (old != PD_READY)
            panic("pd_prepare: a goroutine starts to %s on a descriptor "
                  "another one waits on (double wait; slot %#lx)",
                  dir_name(mode), (unsigned long)old);
        /* Relaxed, as the load above. */
        if (__atomic_compare_exchange_n(s, &old, PD_NIL, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            break;
    }
    return PD_OK;
}

struct g *pd_ready(struct polldesc *pd, int mode)
{
    return unblock(slot_of(pd, mode, "pd_ready"), true);
}

struct g *pd_ready_push(struct polldesc *pd, int mode, struct g *list)
{
    struct g *gp;

    if (mode != 'r' && mode != 'w' && mode != 'r' + 'w')
        panic("pd_ready_push: mode %d is not 'r', 'w' or 'r' + 'w'", mode);
    if (mode != 'w' && (gp = unblock(&pd->rg, true))) {
        gp->schedlink = list;
        list = gp;
    }
    if (mode != 'r' && (gp = unblock(&pd->wg, true))) {
        gp->schedlink = list;
        list = gp;
    }
    return list;
}

/* ---- Deadlines ---------------------------------------------------------- */

/* The first arch_cycles() at which sp_nanotime() reads ns or more. */
static uint64_t ns_to_cycles_up(int64_t ns)
{
    __uint128_t c = ((__uint128_t)ns * arch_cycles_hz() + 999999999) /
                    1000000000;

    /* Past ~100 years: park it far out rather than wrap. */
    return c > INT64_MAX ? INT64_MAX : (uint64_t)c;
}

/* Under pd->lock: cancels dl's arming, if it has one. */
static void deadline_disarm(struct pd_deadline *dl)
{
    if (!dl->armed)
        return;
    dl->armed = false;
    if (timer_stop(&dl->t))
        dl->firings--;  /* it will not fire; else its run is counted */
}

/* Under pd->lock: dl's deadline becomes ns (0, -1 or a time to come). */
static void deadline_set(struct pd_deadline *dl, int64_t ns)
{
    if (ns == dl->ns)
        return;         /* the timer, if any, is right already */
    dl->ns = ns;
    if (ns <= 0) {
        deadline_disarm(dl);
        return;
    }
    /* True: it was waiting and now waits for ns instead, one arming for
       another.  False: it was idle, or stopped, or its firing is on its
       way (then that firing stays counted): a new arming. */
    if (!timer_reset(&dl->t, ns_to_cycles_up(ns), 0))
        dl->firings++;
    dl->armed = true;
}

/* A deadline timer's function: interrupts off, no lock held. */
static void deadline_fire(struct polldesc *pd, struct pd_deadline *dl,
                          uintptr_t *s)
{
    unsigned long f = spin_lock(&pd->lock);
    struct g *gp = NULL;

    if (!dl->firings)
        panic("polldesc: a deadline timer ran that is not counted as armed");
    /* Act only if no other firing is still on its way and the deadline
       in force has its arming (see "Stale timers" above). */
    if (dl->firings-- == 1 && dl->armed) {
        dl->armed = false;
        dl->ns = -1;
        publish(pd);
        gp = unblock(s, false);
    }
    spin_unlock(&pd->lock, f);
    if (gp)
        goready(gp);    /* from a timer function: to the wake queue */
}

static void read_deadline_fire(void *arg)
{
    struct polldesc *pd = arg;

    deadline_fire(pd, &pd->rd, &pd->rg);
}

static void write_deadline_fire(void *arg)
{
    struct polldesc *pd = arg;

    deadline_fire(pd, &pd->wd, &pd->wg);
}

void pd_set_deadline(struct polldesc *pd, int64_t deadline_ns, int mode)
{
    struct g *rg = NULL, *wg = NULL;
    int64_t ns = deadline_ns;
    unsigned long f;

    if (mode != 'r' && mode != 'w' && mode != 'r' + 'w')
        panic("pd_set_deadline: mode %d is not 'r', 'w' or 'r' + 'w'", mode);
    if (ns != 0 && ns <= (int64_t)sp_nanotime())
        ns = -1;                /* passed already (negative ones too) */
    f = spin_lock(&pd->lock);
    if (pd->closing) {
        spin_unlock(&pd->lock, f);
        return;
    }
    if (mode != 'w')
        deadline_set(&pd->rd, ns);
    if (mode != 'r')
        deadline_set(&pd->wd, ns);
    publish(pd);
    /* A deadline in the past wakes whoever waits now (seq-cst after
       publish: P1). */
    if (pd->rd.ns < 0)
        rg = unblock(&pd->rg, false);
    if (pd->wd.ns < 0)
        wg = unblock(&pd->wg, false);
    spin_unlock(&pd->lock, f);
    if (rg)
        goready(rg);
    if (wg)
        goready(wg);
}

void pd_close(struct polldesc *pd)
{
    unsigned long f = spin_lock(&pd->lock);
    struct g *rg, *wg;

    if (pd->closing)
        panic("pd_close: descriptor %p closed twice", (void *)pd);
    pd->closing = true;
    publish(pd);
    /* Seq-cst after publish (P1): a waiter either sees closing or is
       found here. */
    rg = unblock(&pd->rg, false);
    wg = unblock(&pd->wg, false);
    deadline_disarm(&pd->rd);
    deadline_disarm(&pd->wd);
    spin_unlock(&pd->lock, f);
    if (rg)
        goready(rg);
    if (wg)
        goready(wg);
}

/* ---- Life ------------------------------------------------------------- */

void pd_init(struct polldesc *pd)
{
    *pd = (struct polldesc){ .lock = SPINLOCK_INIT(LOCK_POLLDESC) };
    timer_init(&pd->rd.t, read_deadline_fire, pd);
    timer_init(&pd->wd.t, write_deadline_fire, pd);
}

void pd_fini(struct polldesc *pd)
{
    /* Relaxed: a sanity check pairing with nothing; what tells the
       caller that nobody uses pd any more (the socket's reference count,
       under the stack lock) orders the rest. */
    uintptr_t r = __atomic_load_n(&pd->rg, __ATOMIC_RELAXED);
    uintptr_t w = __atomic_load_n(&pd->wg, __ATOMIC_RELAXED);

    if (r > PD_READY || w > PD_READY)
        panic("pd_fini: a goroutine still waits to %s on descriptor %p",
              r > PD_READY ? "read" : "write", (void *)pd);
    /* Not under pd->lock: a firing on another core may be waiting for it,
       and timer_destroy waits for that firing. */
    timer_destroy(&pd->rd.t);
    timer_destroy(&pd->wd.t);
}
