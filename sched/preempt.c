/*
 * preempt.c - the core timer's interrupt: timers and preemption.
 *
 * Go's sysmon notices a G that has run for more than 10 ms and sends its
 * thread SIGURG; the signal handler then switches to another G.  Here
 * each core's own one-shot timer plays both parts.  The scheduler arms it
 * for min(end of the running G's slice, this P's earliest timer); when it
 * fires, timer_interrupt runs the P's due timers and, if the slice is
 * over and the G is at a safe point, preempts it.
 *
 * Safe point: the interrupt arrived, so interrupts were on, so the G held
 * no spinlock (spin_lock turns them off) and was not in the scheduler
 * (g0 runs with them off); and the G has not asked to be left alone
 * (preemptoff).  The G's whole state - general registers and SSE
 * (fxsave), the "full save" Go's async preemption does - is the trap frame
 * the interrupt pushed on the G's own stack.  So preempting is a plain
 * arch_switch from inside the handler: when the G is chosen again, the
 * switch returns into this handler, which returns from the interrupt
 * straight back into the G's code.  Voluntary switches save only the
 * callee-saved registers (arch_switch).
 *
 * The interrupt also does sysmon's other job: it polls the network when
 * nobody did for 10 ms (netpoll.c), so Gs waiting for packets are not
 * starved by CPU-bound ones.
 *
 * A preempted G goes to the global queue, as in Go, so that it runs after
 * the Gs that waited behind it.
 *
 * Late interrupts are counted (sp_timer_irqs_late).  Under QEMU's TCG
 * the core timers are QEMU timers that its main-loop thread fires, and
 * when the vCPU threads keep every host CPU busy, that thread can wait
 * milliseconds for one (tools/bench/wakeup-jitter.c measures such waits).  A
 * core that runs one long G then runs its timers as late, whatever the
 * scheduler does; the count tells a reader of the timers benchmark how
 * much of the lateness was the host's.
 *
 * Interrupt moderation (not in Go, which has no per-core timer): a core
 * that runs Gs takes at most one timer interrupt per `timergap` (250 us
 * unless the command line says otherwise; 0 turns it off), as a network
 * card moderates its interrupts.  Such a core passes through the
 * scheduler, which runs due timers, every few microseconds in most
 * workloads; the interrupt is there for the G that does not, and one
 * that comes for every deadline of a dense heap is mostly wasted.  Under
 * QEMU's TCG a timer interrupt is expensive well beyond the guest: QEMU's
 * main-loop thread fires it, is woken by an eventfd every time a vCPU
 * moves its deadline earlier, and takes the lock that the vCPU threads
 * need to take the interrupt and to EOI it (docs/benchmarks.md, "Timers
 * under TCG", has what the gap is worth).  A timer on a core whose G
 * runs on is at most timergap late, and only when its heap is dense: the
 * first interrupt after a quiet spell comes at the deadline.  A core
 * about to halt sets its timer exactly (core_timer_set): nothing else
 * would run its timers.
 *
 * Wakeup preemption (not in Go): when a G readied by a timer waits in
 * this P's wake queue (wakeq.c) and the running G has had at least a
 * tenth of its quantum, the running G is preempted at once instead of at
 * the end of its slice.  A sleeper beside a CPU hog then wakes within
 * about a millisecond instead of up to a whole quantum late, and no G
 * loses more than a tenth of a slice per wakeup.  The test is the wake
 * queue, not "the run queue went from empty to not", which never holds
 * on a P whose queue is full of spawned Gs.
 */
#include <spindle/time.h>
#include "arch/arch.h"
#include "kernel/cmdline.h"
#include "kernel/faultinject.h"
#include "kernel/printk.h"
#include "sched/netpoll.h"
#include "sched/profile.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

#define QUANTUM_DEFAULT_MS 10
#define QUANTUM_MAX_MS 1000
#define LATE_IRQ_MS 1
#define TIMER_GAP_DEFAULT_US 250
#define TIMER_GAP_MAX_US 10000

uint64_t quantum;               /* cycles; set by preempt_init */
uint64_t timer_gap;             /* cycles; set by preempt_init */
static uint64_t late_irq;       /* LATE_IRQ_MS in cycles */

long sched_setting(const char *key, long min, long max, long def,
                   const char *unit)
{
    long v = def;

    switch (cmdline_long(key, min, max, &v)) {
    case CMDLINE_ABSENT:
    case CMDLINE_OK:
        break;
    case CMDLINE_RANGE:
        printk("sched: %s= is in %s, %ld..%ld; using %ld\n", key, unit, min,
               max, v);
        break;
    default:
        v = def;
        printk("sched: %s= is not a number of %s; using %ld\n", key, unit,
               v);
    }
    return v;
}

void preempt_init(void)
{
    long ms = sched_setting("quantum", 1, QUANTUM_MAX_MS, QUANTUM_DEFAULT_MS,
                            "ms");

    quantum = arch_cycles_hz() / 1000 * ms;
    late_irq = arch_cycles_hz() / 1000 * LATE_IRQ_MS;
    timer_gap = arch_cycles_hz() / 1000000 *
                sched_setting("timergap", 0, TIMER_GAP_MAX_US,
                              TIMER_GAP_DEFAULT_US, "us");
}

uint64_t sp_timer_irqs_late(void)
{
    uint64_t n = 0;

    for (int i = 0; i < ncpu; i++)
        n += __atomic_load_n(&sched.allm[i]->nlateirq, __ATOMIC_RELAXED);
    return n;
}

/* When the running G's slice ends, and when it has had a tenth of it. */
static uint64_t min_run_end(struct m *m)
{
    return m->slice_end - quantum + quantum / 10;
}

void timer_interrupt(struct trapframe *tf)
{
    struct m *m = this_cpu()->m, *pm;
    struct g *gp;
    uint64_t now = arch_cycles(), next, deadline;

    if (!m)
        return;                 /* before the scheduler started */
    /* The profiler's sample of what was interrupted, before the handler
       counts as an interrupt of its own. */
    prof_timer_tick(m, tf);
    pm = prof_irq_enter();
    if ((deadline = fault_timer_delay())) {
        /* Injected lateness: as if the interrupt came that much later. */
        __atomic_store_n(&m->armed, now + deadline, __ATOMIC_RELAXED);
        arch_timer_arm(now + deadline);
        prof_irq_exit(pm, (uintptr_t)timer_interrupt);
        return;
    }
    if (m->armed && now > m->armed + late_irq)
        __atomic_store_n(&m->nlateirq, m->nlateirq + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&m->armed, 0, __ATOMIC_RELAXED);
    m->irq_at = now;
    /* Atomic: tests read the count from other cores. */
    __atomic_store_n(&m->nirq, m->nirq + 1, __ATOMIC_RELAXED);
    next = timers_run(m->p, now);
    gp = m->curg;
    if (!gp) {
        prof_irq_exit(pm, (uintptr_t)timer_interrupt);
        /* g0: a halted core is not woken for the profiler (profile.c) */
        if (__atomic_load_n(&m->halted, __ATOMIC_RELAXED))
            core_timer_gap(m, next);
        else
            core_timer_arm(m, next);
        return;
    }
    if (!wakeq_empty(m->p))
        m->woken = true;        /* a timer readied a G, and it waits */
    if (netpoll_check(now))
        m->woken = true;        /* so did the network (sysmon's poll) */
    prof_irq_exit(pm, (uintptr_t)timer_interrupt);
    if ((now >= m->slice_end || (m->woken && now >= min_run_end(m))) &&
        !gp->preemptoff && !spin_depth()) {
        /* Atomic: tests read the count from other cores. */
        __atomic_store_n(&m->npreempt, m->npreempt + 1, __ATOMIC_RELAXED);
        gp->npreempt++;
        m->slice_end = 0;       /* nobody inherits a slice that is over */
        m->mcall_fn = gosched_m;     /* as a yield: global queue */
        /* The next G's execute() arms the timer for its own slice.  g0
           traces the stop as a preemption, not a gosched, by preempt_tf
           (trace_stop in proc.c). */
        gp->preempt_tf = tf;
        arch_switch(&gp->sp, m->g0sp);
        gp->preempt_tf = NULL;
        preempted_resume();     /* maybe on another core */
        return;
    }
    deadline = m->woken ? min_run_end(m) : m->slice_end;
    /* A preemption deferred (spinlock, preemptoff) is retried a little
       later; re-arming for "now" would storm the core with interrupts. */
    if (deadline <= now)
        deadline = now + quantum / 20;
    core_timer_arm(m, earliest(earliest(deadline, next),
                               netpoll_deadline()));
}
