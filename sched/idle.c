/*
 * idle.c - idle Ps, spinning Ms and waking cores: how the scheduler keeps
 * enough cores looking for work without burning them all.
 *
 * Spinning (Go's proc.go "Worker thread parking/unparking"), numbered as
 * the order of operations matters:
 *   1. A core that runs out of local and global work becomes a spinner
 *      (m->spinning, nmspinning++) only while 2*nmspinning < ncpu-npidle,
 *      and tries to steal.
 *      Not in Go: a spinner that finds nothing keeps looking, a pass
 *      every few microseconds, for `idlespin` (100 us unless the command
 *      line says otherwise) before it goes on to step 4 (spin_more).
 *   2. A spinner that finds work stops spinning, and if it was the last
 *      spinner it calls wakep(): there may be more work, so parallelism
 *      ramps up one core at a time.
 *   3. Readying a G (goready, newproc) calls wakep(): if some P is idle and
 *      nobody spins, take an idle P off the list, mark its M spinning
 *      (nmspinning 0 -> 1 by CAS, so only one waker does it) and IPI it.
 *   4. A core that finds nothing puts its P on the idle list (under
 *      sched.lock, after a last look at the global queue), then stops
 *      spinning: nmspinning-- (a full barrier, seq-cst) BEFORE it
 *      re-checks every P's run queue.  A G readied concurrently is either
 *      seen by that re-check, or its readier saw the decremented count /
 *      the idle P and woke somebody in step 3.  Re-checking before the
 *      decrement could miss a G whose readier still saw a spinner.
 *   5. Only then does the core halt, with its P on the idle list; an IPI
 *      from step 3 (which took its P off the list) or a device interrupt
 *      wakes it.  arch_halt enables interrupts and halts atomically, so an
 *      IPI sent after the last check still wakes it.
 *
 * Who writes m->spinning, and why the count stays right (the invariant:
 * nmspinning is the number of Ms whose spinning is true, once every core
 * is between steps).  The M itself writes it, except in one case: a
 * waker (step 3) sets it for the M whose P it takes off the idle list.
 * That P is on the list only while its M is inside stop_and_halt, after
 * pidleput and before the M leaves, so that is the only window where the
 * two can race, and:
 *   - stop_and_halt reads its own flag (was_spinning) and, if it was set,
 *     clears it under sched.lock before pidleput, when no waker can pick
 *     the P yet; a waker sets it under the same lock after taking the P
 *     off the list, so the waker's true always comes last - counted by
 *     the waker's CAS, while the M uncounts only its own spin;
 *   - the M's decrement comes after the unlock: until then its own count
 *     stands in for a flag it already cleared, which only delays wakers
 *     (nmspinning > 0), as a spinner about to stop does;
 *   - the M reads a waker's true after sched.lock (the re-check, unidle)
 *     or after p->idle's load-acquire that sees pidleremove's release,
 *     both ordered after the waker's store.
 * So an M leaves stop_and_halt spinning exactly when somebody counted it,
 * and resetspinning or the next stop_and_halt uncounts it.  (Clearing the
 * flag after the unlock, as Go does, is not enough here: a waker that won
 * its CAS before this M started spinning, then stalled, can store true
 * first, and the M's false then erases a count nobody gives back - every
 * later wakep sees a spinner that does not exist.  Go escapes it because
 * its waker takes an idle M from a list the M joins only after clearing
 * its flag.  sched_stall_set opens that window for the tests.)
 *
 * Locks: sched.lock guards the idle list (pidle and npidle's writes).
 */
#include "arch/arch.h"
#include "kernel/panic.h"
#include "sched/exectrace.h"
#include "sched/gdump.h"
#include "sched/netpoll.h"
#include "sched/profile.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

/* Caller holds sched.lock.  p's run queue is empty. */
static void pidleput(struct p *p)
{
    assert(spin_holding(&sched.lock));
    p->idlelink = sched.pidle;
    sched.pidle = p;
    __atomic_store_n(&p->idle, true, __ATOMIC_RELAXED);
    __atomic_add_fetch(&sched.npidle, 1, __ATOMIC_SEQ_CST);
}

/* Caller holds sched.lock.  Takes p (which is idle) off the list. */
static void pidleremove(struct p *p)
{
    struct p **pp = &sched.pidle;

    assert(spin_holding(&sched.lock));
    while (*pp != p)
        pp = &(*pp)->idlelink;
    *pp = p->idlelink;
    __atomic_sub_fetch(&sched.npidle, 1, __ATOMIC_SEQ_CST);
    /* Pairs with the load-acquire in the idle loop of findrunnable. */
    __atomic_store_n(&p->idle, false, __ATOMIC_RELEASE);
}

/*
 * Fault injection for the spinning protocol (sched_stall_set): a waker
 * stalls between its CAS and sched.lock, and a spinner giving up its P
 * stalls before its decrement - the windows a host that deschedules a
 * core's thread, or an SMI, opens at random.  Off (0) except in tests.
 */
static uint64_t stall_cycles;
static int stalled_wakers;      /* wakers inside their stall; atomic */
static long stall_hits;         /* spinners that halted meanwhile; atomic */

void sched_stall_set(uint32_t us)
{
    __atomic_store_n(&stall_cycles, us_cycles(us), __ATOMIC_RELAXED);
}

long sched_stall_hits(void)
{
    return __atomic_load_n(&stall_hits, __ATOMIC_RELAXED);
}

/* A waker that has won nmspinning's 0 -> 1; off, one load. */
static inline void waker_stall(void)
{
    uint64_t c = __atomic_load_n(&stall_cycles, __ATOMIC_RELAXED);

    if (__builtin_expect(c != 0, 0)) {
        __atomic_add_fetch(&stalled_wakers, 1, __ATOMIC_SEQ_CST);
        relax_for(c);
        __atomic_sub_fetch(&stalled_wakers, 1, __ATOMIC_SEQ_CST);
    }
}

/* A spinner whose P is on the idle list, before it uncounts itself. */
static inline void spinner_stall(void)
{
    uint64_t c = __atomic_load_n(&stall_cycles, __ATOMIC_RELAXED);

    if (__builtin_expect(c != 0, 0)) {
        if (__atomic_load_n(&stalled_wakers, __ATOMIC_SEQ_CST))
            __atomic_add_fetch(&stall_hits, 1, __ATOMIC_RELAXED);
        relax_for(2 * c);
    }
}

/*
 * Step 3's slow half (wakep and wakep_after_rmw, schedimpl.h, saw an idle
 * P and nobody spinning): wins nmspinning's 0 -> 1, takes an idle P off
 * the list, marks its M spinning and IPIs its core.
 */
void wake_idle_core(void)
{
    int zero = 0;
    struct p *p;
    unsigned long f;

    /* Only one waker at a time turns an idle core into the spinner. */
    if (!__atomic_compare_exchange_n(&sched.nmspinning, &zero, 1, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    waker_stall();
    f = spin_lock(&sched.lock);
    p = sched.pidle;
    if (p) {
        /* m->spinning: relaxed atomics, as wakers set it for an idle M
           while the M may still be on its way to halt; the order comes
           from the seq-cst nmspinning and sched.lock (see "Who writes
           m->spinning" above). */
        __atomic_store_n(&sched.allm[p->id]->spinning, true,
                         __ATOMIC_RELAXED);  /* seen after idle = false */
        pidleremove(p);
    }
    spin_unlock(&sched.lock, f);
    if (!p) {
        __atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
        return;
    }
    arch_send_ipi(sched.allm[p->id]->cpu);
}

/* Step 2: a spinner found work. */
void resetspinning(struct m *m)
{
    __atomic_store_n(&m->spinning, false, __ATOMIC_RELAXED);
    if (__atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST) == 0)
        wakep();
}

static bool any_runq_nonempty(void)
{
    for (int i = 0; i < ncpu; i++)
        if (!runq_empty(&sched.allp[i]->runq) || !wakeq_empty(sched.allp[i]))
            return true;
    return false;
}

/* True if p has work of its own: queued Gs or a timer that is due. */
static bool p_has_work(struct p *p)
{
    uint64_t t = timers_next(p);

    return !runq_empty(&p->runq) || !wakeq_empty(p) ||
           (t && t <= arch_cycles());
}

/*
 * An idle core looks after every P's timers, not only its own: a busy
 * core whose G runs with interrupts off (or never lets a thief in) would
 * otherwise leave its timers late (Go's idle M sleeps until the earliest
 * timer of any P).  Runs the due ones - what they ready lands on this
 * core's P - and returns the earliest deadline left, 0 if none.
 */
static uint64_t run_due_timers(void)
{
    uint64_t now = arch_cycles(), earliest = 0;

    for (int i = 0; i < ncpu; i++) {
        struct p *q = sched.allp[i];
        uint64_t t = timers_next(q);

        if (t && t <= now)
            t = timers_run(q, now);
        if (t && (!earliest || t < earliest))
            earliest = t;
    }
    return earliest;
}

/* True if some P has a timer due before `when` (0: any timer at all). */
static bool timers_next_any_before(uint64_t when)
{
    for (int i = 0; i < ncpu; i++) {
        uint64_t t = timers_next(sched.allp[i]);

        if (t && (!when || t < when))
            return true;
    }
    return false;
}

/* Takes p off the idle list if it is still there. */
static void unidle(struct p *p)
{
    unsigned long f = spin_lock(&sched.lock);

    if (p->idle)
        pidleremove(p);
    spin_unlock(&sched.lock, f);
}

/*
 * Gs the network readied, for this core to run the first: the rest stay
 * on this P (netpoll_ready), where a thief takes them only if this core
 * does not get to them soon (Go's findRunnable after a netpoll, whose
 * injectglist keeps Gs on the P when no P idles).  Returns the first,
 * runnable.  This core holds its P.
 */
struct g *run_polled(struct g *list)
{
    if (list->schedlink)
        netpoll_ready(this_cpu()->m->p, list->schedlink);
    __atomic_store_n(&list->status, G_RUNNABLE, __ATOMIC_RELAXED);
    TRACE(TEV_READY_NET, list->goid, 0);
    return list;
}

/* What this core's device interrupt readied while it idled, or NULL.
   Interrupts are off: the interrupt cannot add to it meanwhile. */
static struct g *take_polled(struct m *m)
{
    struct g *list = m->polled;

    m->polled = NULL;
    return list;
}

/*
 * Steps 4 and 5: give up the P and halt until an IPI hands it back, this
 * P's own timer (armed for its earliest timer) brings work, or the
 * network readies Gs.  Returns one of those Gs for this core to run, or
 * NULL: look for work again.
 */
struct g *stop_and_halt(struct m *m)
{
    struct p *p = m->p;
    bool was_spinning = __atomic_load_n(&m->spinning, __ATOMIC_RELAXED);
    unsigned long f = spin_lock(&sched.lock);
    struct g *list;

    /* Before pidleput: from then on a waker may set it (see "Who writes
       m->spinning"). */
    if (was_spinning)
        __atomic_store_n(&m->spinning, false, __ATOMIC_RELAXED);
    pidleput(p);
    if (sched.npidle == ncpu && !sched.runqsize)
        checkdead();
    spin_unlock(&sched.lock, f);
    if (was_spinning) {
        spinner_stall();
        __atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
    }
    /* Step 4's re-check comes after the decrement and the idle P's
       publication (the unlock's release store): full fence, paired with
       the one in wakep. */
    seq_fence();
    if (any_runq_nonempty() ||
        __atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED)) {
        f = spin_lock(&sched.lock);
        if (p->idle) {
            pidleremove(p);
            if (was_spinning) {
                __atomic_store_n(&m->spinning, true, __ATOMIC_RELAXED);
                __atomic_add_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
            }
        }
        spin_unlock(&sched.lock, f);
        return NULL;
    }
    m->slice_end = 0;
    while (__atomic_load_n(&p->idle, __ATOMIC_ACQUIRE)) {
        uint64_t wake = run_due_timers();

        if ((list = take_polled(m))) {
            unidle(p);
            return run_polled(list);
        }
        if (p_has_work(p) || gdump_pending()) {
            unidle(p);
            return NULL;
        }
        if ((list = netpoll())) {
            unidle(p);          /* first, or wakep would pick this P */
            return run_polled(list);
        }
        smp_poll_calls();
        core_timer_set(m, earliest(wake, netpoll_deadline()));
        /* Seq-cst, paired with timer_start's scan and gomoveto's look:
           either they see this core halted, or this core sees their
           timer or G below. */
        __atomic_store_n(&m->halted, true, __ATOMIC_SEQ_CST);
        seq_fence();  /* store, then loads */
        /* idle again, last, with interrupts off until the halt: a cross-
           core call above (smp_poll_calls) runs with them on, and may
           have taken the IPI of a waker that gave this P work since the
           loop's first look; without this look the core would halt with
           nobody left to wake it (the waker's nmspinning = 1 stops every
           later one). */
        if (!timers_next_any_before(m->armed) && !m->polled &&
            wakeq_empty(p) && __atomic_load_n(&p->idle, __ATOMIC_ACQUIRE)) {
            TRACE(TEV_IDLE, 0, 0);
            arch_halt();
            prof_halt_done(m);
            TRACE(TEV_WAKE, 0, 0);
        }
        __atomic_store_n(&m->halted, false, __ATOMIC_RELAXED);
    }
    /* A waker took the P; what the interrupt polled meanwhile is ours. */
    return (list = take_polled(m)) ? run_polled(list) : NULL;
}

/*
 * Not in Go: how long a spinner that found nothing keeps looking before
 * it gives up its P (step 1).  A halt and the IPI that ends it cost the
 * waker microseconds (under QEMU's TCG, ~4 us of the waker's own time per
 * IPI), and most of the wakeups two Gs handing work back and forth cause
 * find nothing: the readied G is in runnext, which its readier runs
 * before a thief may take it.  A spinner still counted in nmspinning
 * turns each of those wakeups into two loads.  Linux's guest halt-polling
 * makes the same trade.  idlespin=0 restores Go's behaviour.
 */
#define IDLESPIN_DEFAULT_US 100
#define IDLESPIN_MAX_US 10000
#define IDLESPIN_PASS_US 2      /* pause between two passes */

static long idlespin_us;

void idlespin_init(void)
{
    idlespin_us = sched_setting("idlespin", 0, IDLESPIN_MAX_US,
                                IDLESPIN_DEFAULT_US, "us");
}

long sched_idlespin_us(void)
{
    return idlespin_us;
}

/*
 * A spinner found nothing.  True if its idlespin window (which starts at
 * the first call, *end 0) is still open: it has paused before the next
 * pass.
 */
bool spin_more(uint64_t *end)
{
    uint64_t now = arch_cycles();

    if (!idlespin_us)
        return false;
    if (!*end)
        *end = now + us_cycles(idlespin_us);
    if (now >= *end)
        return false;
    relax_for(us_cycles(IDLESPIN_PASS_US));
    return true;
}
