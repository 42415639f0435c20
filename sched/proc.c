/*
 * proc.c - the scheduler: Go's G/M/P design on bare metal.
 *
 * The model.  Go multiplexes Gs (goroutines) onto Ms (OS threads) through
 * Ps (the right to run Go code, with a run queue each).  Here there is no
 * OS: every core is one M, and it owns one P for the life of the machine,
 * so GOMAXPROCS is the core count and no M ever blocks in a system call.
 * What remains of Go's design is what makes it fast: a lock-free run queue
 * per P with a runnext slot (runq.c), a global queue for fairness and
 * overflow (globrunq.c), stealing by idle Ps (steal.c), and the spinning
 * protocol that keeps enough cores looking for work without burning all
 * of them (idle.c).
 *
 * Rejected: one global locked run queue (every spawn and wakeup contends on
 * one line), and per-core queues without stealing (one busy spawner leaves
 * the other cores idle).  Go's own history made the same choice (the 2012
 * "Scalable Go Scheduler" design).
 *
 * Contexts.  A G runs on its own stack with interrupts enabled.  Each M
 * also has a scheduler context ("g0"), running schedule_loop on the core's
 * boot stack with interrupts disabled.  A G that blocks, yields or exits
 * calls mcall(), which saves the G and resumes g0; g0 finishes the G's
 * transition (park_m, gosched_m, goexit_m) on its own stack, then picks
 * the next G.  Finishing after the switch is what makes parking
 * race-free: the lock that guards a wait queue is released only once the
 * G is no longer running (see sched.h).  Parks and yields usually skip
 * g0 (not in Go): when the G findrunnable would pick is plain to see
 * (runnext, or the ring's head for a yield), the G switches straight to
 * it, and that G finishes the park or yield when it resumes
 * (handoff_next).
 *
 * Order of findrunnable: this P's due timers, the Gs they readied (the
 * wake queue, wakeq.c: not in Go), the other Ps' overdue timers and
 * woken Gs (look_after_others: not in Go, where sysmon does it),
 * runnext, every 61st tick one G of the global queue, the local ring, a
 * batch of the global queue, the network, stealing, then halt.  Go looks
 * at the global queue before runnext; see findrunnable for why Spindle
 * does not.
 *
 * Spinning, idling and waking cores (Go's proc.go "Worker thread
 * parking/unparking"): idle.c, whose steps 1 to 5 findrunnable and
 * goready follow.
 *
 * The network (netpoll.c) is polled after the global queue and before
 * stealing, by an idle core before it halts, and by the timer interrupt
 * when nobody polled for 10 ms.
 *
 * Locks used here, in order: sched.lock (global queue, idle list), then
 * gfree.lock and allg.lock (gfree.c).  Run queues are lock-free.
 *
 * This file: the schedule loop and findrunnable, switching (mcall, the
 * direct hand-off, park, yield, exit), and spawning.
 */
#include <stdlib.h>
#include "arch/arch.h"
#include "kernel/console_in.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "sched/exectrace.h"
#include "sched/gdump.h"
#include "sched/netpoll.h"
#include "sched/profile.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

struct sched sched = { .lock = SPINLOCK_INIT(LOCK_SCHED) };
#if defined(__SANITIZE_THREAD__)
int sched_fence_word;               /* seq_fence under TSan */
#endif

static bool main_started;

static inline struct m *thism(void)
{
    return this_cpu()->m;
}

struct g *running_g(void)
{
    struct m *m = thism();

    return m ? m->curg : NULL;
}

uint32_t fastrand(void)
{
    unsigned long f = arch_irq_save();
    struct p *p = thism()->p;
    uint64_t x = p->rand;

    /* xorshift64* (Vigna); each P has its own state, so no atomics. */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p->rand = x;
    arch_irq_restore(f);
    return (x * 0x2545F4914F6CDD1DULL) >> 32;
}

uint32_t fastrandn(uint32_t n)
{
    /* Lemire's multiply-shift: unbiased enough and no division. */
    return ((uint64_t)fastrand() * n) >> 32;
}

/* ---- Finding work ----------------------------------------------------- */

/* Puts gp at the tail of p's ring; on overflow half the ring goes
   global. */
SP_UNSPLIT void runqput_ring(struct p *p, struct g *gp)
{
    struct g *batch[RUNQ_SIZE / 2 + 1];
    uint32_t n;
    unsigned long f;

    if (runq_push(&p->runq, gp, false, batch, &n))
        return;
    f = spin_lock(&sched.lock);
    globrunqputbatch(batch, n);
    spin_unlock(&sched.lock, f);
}

/*
 * A batch of the global queue for p (globrunqget; max 0: Go's size), or
 * NULL if it is empty: the first G to run, the rest put on p's ring.
 * Interrupts off.
 */
static struct g *take_global(struct p *p, uint32_t max)
{
    struct g *batch[RUNQ_SIZE / 2];
    unsigned long f;
    uint32_t n;

    if (!__atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED))
        return NULL;
    f = spin_lock(&sched.lock);
    n = globrunqget(p, max, batch);
    spin_unlock(&sched.lock, f);
    if (!n)
        return NULL;
    /* p's queue is empty here, or n is 1 (the 1-in-61 look): no
       overflow. */
    for (uint32_t i = 1; i < n; i++)
        runqput(p, batch[i], false);
    /* Not in Go: the rest of the batch went into our ring, where a core
       that went idle a moment ago cannot have seen it (its last look at
       the rings came before); without a wakeup those Gs would wait for
       our G's whole slice. */
    if (n > 1 && __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED))
        wakep();
    return batch[0];
}


/*
 * Not in Go, where sysmon does it: a core passing through the scheduler
 * runs the other Ps' timers that are overdue by WATCH_GRACE_US, and takes
 * from their wake queues before its own run queue.  Their own core should
 * have done both, but it may be running one long G, or not running at
 * all: under QEMU's TCG a core is a host thread, which the host can
 * deschedule for milliseconds, and its timer interrupts come from QEMU's
 * main-loop thread, which waits as long for a host CPU when the vCPU
 * threads keep them busy (preempt.c).  A core running short Gs passes
 * here every few microseconds, so a timer is then at most about the
 * grace late, whatever happens to its own core.  The grace leaves the
 * owner's interrupt, normally on time, to run its timers.  A lock held
 * by a stalled core is passed by (the hint may be stale: the lock is
 * then only waited for).  `now` is 0 if the caller did not read the
 * clock: it is read only when some P has timers.
 */
#define WATCH_GRACE_US 100

static uint64_t watch_grace;    /* WATCH_GRACE_US in cycles */

static struct g *look_after_others(struct p *p, uint64_t now)
{
    struct p *woken = NULL;
    bool ran = false;

    for (int i = 0; i < ncpu; i++) {
        struct p *q = sched.allp[i];
        uint64_t t = timers_next(q);

        if (q == p)
            continue;
        if (t) {
            if (!now)
                now = arch_cycles();
            if (t + watch_grace <= now && !spin_is_locked(&q->timerlock)) {
                timers_run(q, now);
                ran = true;
            }
        }
        if (!woken && !wakeq_empty(q))
            woken = q;
    }
    /* What those timers readied is in this P's wake queue (the caller
       found it empty just before). */
    if (ran && !wakeq_empty(p))
        return wakeq_get(p);
    if (woken && !spin_is_locked(&woken->wakelock))
        return wakeq_steal(p, woken);
    return NULL;
}

/*
 * Not in Go: the wake queue's Gs run before the run queues' (wakeq.c),
 * but once they have kept Gs of the run queues waiting for a quantum
 * those get a turn.  A G a timer readies over and over, one that sleeps
 * a nanosecond in a loop, would otherwise keep them waiting for ever; a
 * napper beside a CPU hog, whose wakes the hog's turns separate, and a
 * burst of woken sleepers are never held back.
 */
static inline void wakeq_turn_over(struct p *p)
{
    if (p->wakefirst)
        p->wakefirst = 0;
}

static bool wakeq_yields(struct p *p)
{
    uint64_t now;

    if (runq_owner_empty(&p->runq) &&
        !__atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED)) {
        wakeq_turn_over(p);     /* nobody waits: no turn is owed */
        return false;
    }
    now = arch_cycles();
    if (!p->wakefirst) {
        p->wakefirst = now;     /* the run queues start waiting */
        return false;
    }
    if (now - p->wakefirst < quantum)
        return false;
    p->wakefirst = 0;
    return true;
}

/* Go's findRunnable. */
static struct g *findrunnable(struct m *m, bool *inherit)
{
    struct p *p = m->p;
    struct g *gp;
    uint64_t spin_end = 0;
    bool fair;

    for (;;) {
        uint64_t now = 0;

        smp_poll_calls();
        gdump_poll();
        if (timers_next(p))
            timers_run(p, now = arch_cycles());
        *inherit = false;
        fair = false;
        if (!wakeq_empty(p) && !(fair = wakeq_yields(p)) &&
            (gp = wakeq_get(p)))
            return gp;
        if (ncpu > 1 && (gp = look_after_others(p, now)))
            return gp;
        /*
         * runnext first: a G just readied (by a channel partner or a
         * timer) runs next.  Go checks the global queue first every 61st
         * tick, which can put a preempted CPU hog ahead of a woken
         * sleeper for a whole extra slice.  Starting with runnext cannot
         * starve the global queue: runnext Gs share their readier's slice
         * and are preempted into the global queue when it ends.
         */
        if (__atomic_load_n(&p->runq.runnext, __ATOMIC_RELAXED) &&
            (gp = runq_get(&p->runq, inherit))) {
            wakeq_turn_over(p);
            return gp;
        }
        /* Every 61st tick the global queue goes first, so a steady
           stream of local work cannot starve it; so it does after the
           wake queue yielded. */
        if ((fair || p->schedtick % 61 == 0) && (gp = take_global(p, 1))) {
            wakeq_turn_over(p);
            return gp;
        }
        if ((gp = runq_get(&p->runq, inherit))) {
            wakeq_turn_over(p);
            return gp;
        }
        if (fair && (gp = wakeq_get(p)))
            return gp;
        if ((gp = take_global(p, 0))) {
            wakeq_turn_over(p);
            return gp;
        }
        if ((gp = netpoll()))
            return run_polled(gp);
        if (__atomic_load_n(&m->spinning, __ATOMIC_RELAXED) ||
            2 * __atomic_load_n(&sched.nmspinning, __ATOMIC_SEQ_CST) <
                ncpu - __atomic_load_n(&sched.npidle, __ATOMIC_SEQ_CST)) {
            if (!__atomic_load_n(&m->spinning, __ATOMIC_RELAXED)) {
                __atomic_store_n(&m->spinning, true, __ATOMIC_RELAXED);
                __atomic_add_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
            }
            if ((gp = stealwork(m)))
                return gp;
            if (spin_more(&spin_end))
                continue;
        }
        /* Idle: give back the pages of exited Gs' big stacks. */
        if (vm_bigstacks_dead() && vm_bigstack_reap())
            continue;
        if (release_step(m))
            continue;
        if ((gp = stop_and_halt(m)))
            return gp;
        spin_end = 0;           /* woken: a new window */
    }
}

/* ---- Switching -------------------------------------------------------- */

/* gp becomes m's running G at cycle count now: execute without the
   switch.  Inline in both callers: it is on the path of every schedule. */
static inline __attribute__((always_inline)) void
setcurg(struct m *m, struct g *gp, bool inherit, uint64_t now)
{
    /* Only a runnable G may start: a G made runnable twice (queued in two
       places) would otherwise run on two cores at once. */
    int st = __atomic_load_n(&gp->status, __ATOMIC_RELAXED);

    if (__builtin_expect(st != G_RUNNABLE, 0))
        panic("execute: goroutine %lu has status %d, not runnable",
              (unsigned long)gp->goid, st);
    /* curg, schedtick, goid: relaxed atomics, as sched_detail (trace.c)
       reads them from any core. */
    __atomic_store_n(&m->curg, gp, __ATOMIC_RELAXED);
    m->woken = false;
    __atomic_store_n(&gp->status, G_RUNNING, __ATOMIC_RELAXED);
    gp->lastm = m;
    /* Its thread pointer, if it or the G before it has TLS: plain Gs
       after plain Gs pay this test only. */
    if (__builtin_expect(gp->tp | m->tp, 0))
        gattr_switch_tp(m, gp);
    /* A G from runnext shares the slice of the G that readied it (Go's
       inheritTime), so two Gs handing work back and forth cannot keep
       the others waiting forever.  After the core idled there is no
       slice to share (slice_end is 0): start one. */
    m->runstart = now;                  /* cputime_stop charges from here */
    if (!inherit || !m->slice_end) {
        __atomic_store_n(&m->p->schedtick, m->p->schedtick + 1,
                         __ATOMIC_RELAXED);
        m->slice_end = now + quantum;
    }
    core_timer_arm(m, earliest(earliest(m->slice_end, timers_next(m->p)),
                               netpoll_deadline()));
    /* Atomic: a thief's steal_pause reads it to see that we switched. */
    __atomic_store_n(&m->p->nsched, m->p->nsched + 1, __ATOMIC_RELAXED);
}

static void park_m(struct g *gp);
static void goyield_m(struct g *gp);
static void goexit_m(struct g *gp);

/*
 * The tracer's events of a switch (exectrace.h), recorded in two places
 * whatever the way of switching, out of line, so that the switch path
 * carries only the flag's test: g0 records the stop of a G that switched
 * to it before it runs the G's mcall_fn (schedule_loop: trace_stopped),
 * and a G that resumes records the stop of the G that handed off to it,
 * if one did, then its own start (finish_handoff: trace_resumed).  Both
 * come before the stopped G is published (mcall_fn, park_m or requeue_m
 * put it where other cores see it), as exectrace.h requires.  Each returns
 * its first argument, so that the caller keeps nothing live across the
 * call.  Interrupts off.
 */

/* Why gp stopped: m->mcall_fn, which gp set on this core, says a park
   (with gp's wait reason), a yield, an exit, or gosched_m for both
   gosched and a preemption, which the timer interrupt's frame tells
   apart. */
static void trace_stop(struct m *m, struct g *gp, uint64_t now)
{
    void (*fn)(struct g *) = m->mcall_fn;

    trace_put(now, fn == park_m ? TEV_STOP_PARK :
              fn == goyield_m ? TEV_STOP_YIELD :
              fn == goexit_m ? TEV_STOP_EXIT :
              gp->preempt_tf ? TEV_STOP_PREEMPT : TEV_STOP_GOSCHED,
              gp->goid, fn == park_m ? gp->waitreason : 0);
}

static __attribute__((cold, noinline)) struct g *
trace_stopped(struct m *m, struct g *gp)
{
    trace_stop(m, gp, arch_cycles());
    return gp;
}

/* m->curg resumes; m->handoff, if not NULL, handed off to it.  One
   cycle count for both: the stop stays before the start. */
static __attribute__((cold, noinline)) struct m *trace_resumed(struct m *m)
{
    uint64_t now = arch_cycles();

    if (m->handoff)
        trace_stop(m, m->handoff, now);
    trace_put(now, TEV_START, m->curg->goid, 0);
    return m;
}

static void execute(struct m *m, struct g *gp, bool inherit)
{
    setcurg(m, gp, inherit, arch_cycles());
    arch_switch(&m->g0sp, gp->sp);
}

static __attribute__((noreturn)) void schedule_loop(struct m *m)
{
    for (;;) {
        bool inherit;
        struct g *gp;

        schedtrace_tick();
        gp = findrunnable(m, &inherit);

        if (__atomic_load_n(&m->spinning, __ATOMIC_RELAXED))
            resetspinning(m);
        execute(m, gp, inherit);
        /* Back on g0: the G called mcall(), or the timer preempted it.
           The scheduler runs with the core's thread pointer. */
        if (__builtin_expect(m->tp != 0, 0))
            gattr_switch_tp(m, NULL);
        gp = m->curg;
        cputime_stop(m, gp, arch_cycles());
        __atomic_store_n(&m->curg, NULL, __ATOMIC_RELAXED);
        if (tracing())
            gp = trace_stopped(m, gp);
        m->mcall_fn(gp);
    }
}

/*
 * The direct hand-off (not in Go).  A G that parks has usually just
 * readied its partner into runnext (a channel or semaphore hand-off), and
 * a G that yields has the head of its P's ring behind it; findrunnable
 * would pick that G next.  Going through g0 to learn it costs a second
 * context switch and a turn of the scheduler loop, so the G switches
 * straight to it instead, and the second half of the park or yield (the
 * status, then unlockf or the requeue) runs as soon as the new G resumes
 * (finish_handoff), as Linux's finish_task_switch runs for the task
 * switched to.  Every place a G resumes calls finish_handoff: mcall, the
 * timer interrupt that preempted it (through preempted_resume), and
 * gentry for a G that never ran.
 *
 * The choice stays findrunnable's: cross-core calls, due timers and the
 * wake queue come first there, and any of them sends the G the long way;
 * so does the 1-in-61 tick that looks at the global queue.  A park takes
 * only runnext (its ring head may be a G that findrunnable's global look
 * would put behind); a yield takes runnext or else the ring's head, and
 * goes the long way when both are empty, where goyield_m may fetch work.
 * Interrupts off.
 */
static inline __attribute__((always_inline)) struct g *
handoff_next(struct m *m, bool yield, bool *inherit)
{
    struct p *p = m->p;
    uint64_t t = timers_next(p);
    struct g *next;

    schedtrace_tick();
    if (smp_calls_pending() || (t && t <= arch_cycles()) || !wakeq_empty(p))
        return NULL;
    *inherit = true;
    if ((next = runq_get_next(&p->runq)) || !yield)
        return next;
    if (p->schedtick % 61 == 0)
        return NULL;
    *inherit = false;
    return runq_get_ring(&p->runq);
}

/* The second half of a yield that handed off: as goyield_m, minus the
   look for work (the ring was not empty). */
static void requeue_m(struct g *gp)
{
    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    runqput(thism()->p, gp, false);
}

/* A G that resumes: records the switch for the tracer (trace_resumed),
   and finishes the park or yield of the G that switched straight to it,
   if one did (prev's mcall_fn says which: park_m, or goyield_m for a
   yield).  Inline in mcall and gentry. */
static inline __attribute__((always_inline)) void finish_handoff(void)
{
    struct m *m = thism();
    struct g *prev;

    if (tracing())
        m = trace_resumed(m);
    prev = m->handoff;
    if (prev) {
        m->handoff = NULL;
        if (m->mcall_fn == park_m)
            park_m(prev);
        else
            requeue_m(prev);
    }
}

void preempted_resume(void)
{
    finish_handoff();
}

/* mcall's switch for a park or a yield: to the next G directly, or to
   g0.  Out of line once for each (park_switch, yield_switch), so that
   mcall stays short where it is inlined. */
static inline __attribute__((always_inline)) void
switch_next(struct m *m, struct g *gp, bool yield)
{
    bool inherit;
    struct g *next = handoff_next(m, yield, &inherit);

    if (next) {
        uint64_t now = arch_cycles();   /* gp's end is next's start */

        m->handoff = gp;
        cputime_stop(m, gp, now);
        setcurg(m, next, inherit, now);
        arch_switch(&gp->sp, next->sp);
    } else {
        arch_switch(&gp->sp, m->g0sp);
    }
}

SP_UNSPLIT static __attribute__((noinline)) void
park_switch(struct m *m, struct g *gp)
{
    switch_next(m, gp, false);
}

SP_UNSPLIT static __attribute__((noinline)) void
yield_switch(struct m *m, struct g *gp)
{
    switch_next(m, gp, true);
}

/*
 * Switches from the running G to g0, which calls fn(gp); a park or a
 * yield may go straight to the next G instead (handoff_next).  Returns
 * when the G runs again, possibly on another core, with its interrupt
 * state back.
 */
static inline __attribute__((always_inline)) void
mcall(void (*fn)(struct g *), bool (*unlockf)(struct g *, void *), void *arg)
{
    unsigned long f = arch_irq_save();
    struct m *m = thism();
    struct g *gp = m->curg;

    if (!gp)
        panic("mcall: called on the scheduler stack of cpu %d", m->cpu->id);
    m->mcall_fn = fn;
    m->park_unlock = unlockf;
    m->park_arg = arg;
    if (fn == park_m)
        park_switch(m, gp);
    else if (fn == goyield_m)
        yield_switch(m, gp);
    else
        arch_switch(&gp->sp, m->g0sp);
    finish_handoff();
    arch_irq_restore(f);
}

SP_PARK_BLOCK static void park_m(struct g *gp)
{
    struct m *m = thism();

    __atomic_store_n(&gp->parkepoch,
                     __atomic_load_n(&release_epoch, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&gp->status, G_WAITING, __ATOMIC_RELEASE);
    if (m->park_unlock && !m->park_unlock(gp, m->park_arg)) {
        __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
        TRACE(TEV_READY, gp->goid, gp->goid);   /* it readied itself */
        runqput(m->p, gp, true);
    }
}

SP_PARK_BLOCK void gopark(bool (*unlockf)(struct g *gp, void *arg), void *arg,
            enum waitreason reason)
{
    struct g *gp = getg();

    if (!gp)
        panic("gopark: called off any goroutine on cpu %d", cpu_id());
    gp->waitreason = reason;
    gp->param = NULL;
    mcall(park_m, unlockf, arg);
}

SP_PARK_BLOCK static bool unlock_spinlock(struct g *gp, void *l)
{
    spin_release(l);            /* interrupts stay off, as g0 runs */
    return true;
}

SP_PARK_BLOCK void gopark_unlock(struct spinlock *l,
                                 enum waitreason reason)
{
    if (spin_depth() != 1 || !spin_holding(l))
        panic("gopark_unlock: goroutine %lu parks holding %d spinlocks",
              (unsigned long)getg()->goid, spin_depth());
    gopark(unlock_spinlock, l, reason);
}

/* The tracer's event of goready, out of line (the ready path carries
   only the flag's test): by a timer function, or by this core's G.
   Returns gp, so that the caller keeps nothing live across the call.
   Interrupts off. */
static __attribute__((cold, noinline)) struct g *trace_ready(struct g *gp)
{
    struct m *m = thism();

    if (m->running)
        trace_put(arch_cycles(), TEV_READY_TIMER, gp->goid, 0);
    else
        trace_put(arch_cycles(), TEV_READY, gp->goid, TRACE_GOID(m->curg));
    return gp;
}

/*
 * Asks the caches for what resuming gp reads first: the rest of its
 * struct g (goready has its first line) and the six lines above its
 * saved stack pointer, where the switch's saved registers and the frames
 * of its park lie.  A readied G runs a few hundred nanoseconds later, and
 * with thousands of live Gs its lines are long out of cache: each would
 * otherwise be a miss on the switch's critical path (threadring at 100k
 * Gs: 324 -> 110 ns a pass, docs/benchmarks.md).  A hint that never
 * faults, on a stack that may even have been given back (release.c).
 */
static inline __attribute__((always_inline)) void
prefetch_resume(struct g *gp)
{
    char *g = (char *)gp, *sp = gp->sp;

    /* Written out and always inline: gcc 12 drops prefetches from a loop,
       and a call to a function that only prefetches, which it deems to
       have no effect. */
    _Static_assert(sizeof(struct g) <= 3 * CACHE_LINE, "prefetch_resume: "
                   "struct g is over three lines");
    __builtin_prefetch(sp);
    __builtin_prefetch(sp + CACHE_LINE);
    __builtin_prefetch(sp + 2 * CACHE_LINE);
    __builtin_prefetch(sp + 3 * CACHE_LINE);
    __builtin_prefetch(sp + 4 * CACHE_LINE);
    __builtin_prefetch(sp + 5 * CACHE_LINE);
    __builtin_prefetch(g + CACHE_LINE);
    __builtin_prefetch(g + 2 * CACHE_LINE);
}

SP_UNSPLIT void goready(struct g *gp)
{
    unsigned long f = arch_irq_save();
    int st = __atomic_load_n(&gp->status, __ATOMIC_ACQUIRE);

    if (st != G_WAITING)
        panic("goready: goroutine %lu has status %d, not waiting",
              (unsigned long)gp->goid, st);
    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    prefetch_resume(gp);
    if (tracing())
        gp = trace_ready(gp);
    if (__atomic_load_n(&thism()->running, __ATOMIC_RELAXED)) {
        wakeq_put(thism()->p, gp);      /* its timer fired: run it first */
        wakep();
    } else if (runqput(thism()->p, gp, true)) {
        wakep();                /* it displaced a G to the ring */
    } else {
        wakep_after_rmw();
    }
    arch_irq_restore(f);
}

void gosched_m(struct g *gp)
{
    unsigned long f = spin_lock(&sched.lock);

    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    globrunqput(gp);
    spin_unlock(&sched.lock, f);
    wakep();        /* an idle core can take it (Go's goschedImpl) */
}

void gosched(void)
{
    mcall(gosched_m, NULL, NULL);
}

/*
 * Go's goyield: the G goes to the tail of its own P's queue, not the
 * global one.  What sp_yield and a semaphore handoff do: the other Gs of
 * this P run first, no lock is taken, and no other core is woken (the
 * G was running, so there is no more work than before).  Gs waiting in
 * the global queue still get their turn from the 1-in-61 check, and
 * idle cores steal.  Go's Gosched goes through the global queue instead
 * (gosched above, kept for preemption), which on every yield makes all
 * cores take one lock.
 *
 * Not in Go: a G that yields with nothing else on its P first fetches
 * work from the global queue or another P (steal_once), on every
 * YIELD_LOOK-th schedule of its P.  Otherwise a G polling in a yield loop
 * (waiting for a count, say) keeps its core busy with itself forever -
 * that core is never idle, so it never steals - while other cores'
 * queues hold hundreds of Gs.  Not on every yield: when there is nothing
 * to take, the look costs more than the yield itself.
 */
#define YIELD_LOOK 16

static void goyield_m(struct g *gp)
{
    struct p *p = thism()->p;
    struct g *other;

    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    if (p->schedtick % YIELD_LOOK == 0 && runq_owner_empty(&p->runq) &&
        wakeq_empty(p) &&
        ((other = take_global(p, 0)) || (other = steal_once(p))))
        runqput(p, other, false);
    runqput(p, gp, false);
}

SP_UNSPLIT void goyield(void)
{
    mcall(goyield_m, NULL, NULL);
}

static void goexit_m(struct g *gp)
{
    struct p *p = thism()->p;

    __atomic_store_n(&gp->parkepoch,
                     __atomic_load_n(&release_epoch, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    /* Release: release.c reads reent after seeing G_DEAD. */
    __atomic_store_n(&gp->status, G_DEAD, __ATOMIC_RELEASE);
    __atomic_store_n(&p->nexited, p->nexited + 1, __ATOMIC_RELAXED);
    if (gp->attrs)
        gattr_exit(gp);
    gfput(p, gp);
}

void goexit(void)
{
    mcall(goexit_m, NULL, NULL);
    panic("goexit: a dead goroutine ran again");
}

/* First code of every G. */
SP_UNSPLIT static void gentry(void *arg)
{
    struct g *gp = arg;

    finish_handoff();
    arch_irq_enable();
    gp->fn(gp->arg);
    goexit();
}

/*
 * A fresh G id.  Each P takes them from the global counter GOID_BATCH at
 * a time (Go's goidcache), so spawning cores do not all bump one word.
 * Ids stay unique, not ordered across Ps.  Interrupts off.
 */
#define GOID_BATCH 16

static uint64_t newgoid(struct p *p)
{
    if (p->goidnext == p->goidend) {
        p->goidend = __atomic_add_fetch(&sched.goidgen, GOID_BATCH,
                                        __ATOMIC_RELAXED) + 1;
        p->goidnext = p->goidend - GOID_BATCH;
    }
    return p->goidnext++;
}

/* The tracer's event of newproc, out of line as trace_ready's. */
static __attribute__((cold, noinline)) struct g *trace_create(struct g *gp)
{
    trace_put(arch_cycles(), TEV_CREATE, gp->goid, TRACE_GOID(thism()->curg));
    return gp;
}

static inline __attribute__((always_inline)) uint64_t
newproc_with(void (*fn)(void *), void *arg, size_t stack, bool tls)
{
    unsigned long f = arch_irq_save();
    struct p *p = thism()->p;
    struct g *gp = gfget(p);
    uint64_t goid;

    if (!gp)
        panic("newproc: out of memory for a new goroutine");
    if ((stack || tls) && !gattr_setup(gp, stack, tls)) {
        gfput(p, gp);
        arch_irq_restore(f);
        return 0;
    }
    gp->fn = fn;
    gp->arg = arg;
    goid = newgoid(p);
    __atomic_store_n(&gp->goid, goid, __ATOMIC_RELAXED);  /* sched_detail */
    if (gp->reent)
        gp->reent->_errno = 0;
    gp->npreempt = 0;
    gp->cputime = 0;
    arch_context_init(&gp->sp, gp->stack_hi, gentry, gp);
    __atomic_store_n(&p->ncreated, p->ncreated + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    if (tracing())
        gp = trace_create(gp);
    runqput(p, gp, true);
    if (main_started)
        wakep();
    arch_irq_restore(f);
    return goid;
}

SP_UNSPLIT uint64_t newproc(void (*fn)(void *), void *arg)
{
    return newproc_with(fn, arg, 0, false);
}

uint64_t newproc_attr(void (*fn)(void *), void *arg, size_t stack, bool tls)
{
    return newproc_with(fn, arg, stack, tls);
}

/*
 * newproc for a G (sp_go), with back-pressure.  Not in Go: a Go spawner
 * that fills its P's ring moves half of it to the global queue and goes
 * on, so a loop of `go` takes sched.lock every 128 Gs, and every core
 * refilling from the global queue takes it too (spawn_par spent most of
 * its time there).  Here a G that fills its P's ring yields instead: the
 * Gs it made run, or are stolen by idle cores, before it makes more.
 * Spawning then never takes a lock, and a spawner that outruns the
 * machine holds at most a ring's worth of runnable Gs.  A spawner on an
 * otherwise idle machine loses nothing: its Gs are its core's next work.
 */
static inline __attribute__((always_inline)) uint64_t
go_with(void (*fn)(void *), void *arg, size_t stack, bool tls)
{
    uint64_t goid = stack || tls ? newproc_attr(fn, arg, stack, tls)
                                 : newproc(fn, arg);
    unsigned long f = arch_irq_save();
    bool full = runq_len(&thism()->p->runq) >= RUNQ_SIZE - 1;

    arch_irq_restore(f);
    if (full && getg())
        goyield();
    return goid;
}

SP_UNSPLIT uint64_t go(void (*fn)(void *), void *arg)
{
    return go_with(fn, arg, 0, false);
}

uint64_t go_attr(void (*fn)(void *), void *arg, size_t stack, bool tls)
{
    return go_with(fn, arg, stack, tls);
}

/* ---- Start ------------------------------------------------------------ */

static int nstarted;

/* main()'s stack, as a C program's main has on Linux (ulimit -s): C
   programs keep big arrays there.  Demand-paged, with TLS, whose block
   takes the top few hundred bytes. */
#define MAIN_STACK (8UL << 20)

void *zalloc_lines(size_t size)
{
    uintptr_t v = (uintptr_t)calloc(1, size + 2 * CACHE_LINE);

    return v ? (void *)((v + CACHE_LINE) & ~(uintptr_t)(CACHE_LINE - 1))
             : NULL;
}

/* Boot core, before any core enters the scheduler. */
static void sched_init(void)
{
    for (int i = 0; i < ncpu; i++) {
        struct m *m = zalloc_lines(sizeof *m);
        struct p *p = zalloc_lines(sizeof *p);

        if (!m || !p)
            panic("sched_init: out of memory");
        p->id = i;
        p->rand = 0x9E3779B97F4A7C15ULL * (i + 1);
        runq_init(&p->runq);
        p->timerlock = (struct spinlock)SPINLOCK_INIT(LOCK_TIMERS);
        p->wakelock = (struct spinlock)SPINLOCK_INIT(LOCK_WAKEQ);
        p->runq.pause = steal_pause;
        m->cpu = cpus[i];
        m->p = p;
        m->core_tp = gattr_core_tp();
        sched.allp[i] = p;
        sched.allm[i] = m;
    }
    globrunq_init();
    steal_init(ncpu);
    schedtrace_init();
    preempt_init();
    idlespin_init();
    release_init();
    wakeq_init();
    tracer_init();
    prof_init();
    console_on_quit(gdump_request);     /* Ctrl-\: every G's stack */
    watch_grace = us_cycles(WATCH_GRACE_US);
    time_init();
}

SP_UNSPLIT void sched_start(void (*main_fn)(void *))
{
    struct cpu *c = this_cpu();

    if (main_fn) {
        sched_init();
        /* Release: the other cores read allm/allp after seeing it. */
        __atomic_store_n(&sched.ready, true, __ATOMIC_RELEASE);
        arch_send_ipi_others();
    } else {
        while (!__atomic_load_n(&sched.ready, __ATOMIC_ACQUIRE)) {
            smp_poll_calls();
            arch_halt();
        }
    }
    arch_irq_save();
    c->m = sched.allm[c->id];
    prof_core_start(c->m);
    if (ARCH_TLS_VARIANT)
        arch_tp_set(c->m->core_tp);
    __atomic_add_fetch(&nstarted, 1, __ATOMIC_RELEASE);
    if (main_fn) {
        /* Main is G 1; it starts where the others can see it. */
        while (__atomic_load_n(&nstarted, __ATOMIC_ACQUIRE) < ncpu)
            arch_cpu_relax();
        if (!newproc_attr(main_fn, NULL, MAIN_STACK, ARCH_TLS_VARIANT != 0))
            panic("sched_start: no memory for main's stack");
        main_started = true;
    }
    schedule_loop(c->m);
}
