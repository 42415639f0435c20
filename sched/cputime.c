/*
 * cputime.c - CPU time of a G and of the machine, for clock_gettime's
 * CPU-time clocks, times() and getrusage() (posix/time.c).
 *
 * Each M charges the G it ran when the G switches out (cputime_stop in
 * sched.h, called by schedule_loop when the G came back to g0, and by
 * switch_next when it handed off straight to another G), from the
 * m->runstart that setcurg recorded when the G started.  The G's total
 * lives in its struct g (written only by the M running it, zeroed by
 * newproc); the M's in m->busy (one writer, atomic stores, read from any
 * core).  A running G's time adds the interval in progress.
 *
 * Not done: user and system time are not told apart (interrupts taken
 * while a G runs are charged to it), and another core's interval in
 * progress is not in the machine's total until its G switches out (at
 * most a scheduling quantum).
 */
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "sched/sched.h"

static uint64_t cycles_to_ns(uint64_t c)
{
    uint64_t hz = arch_cycles_hz();

    return c / hz * 1000000000 + c % hz * 1000000000 / hz;
}

uint64_t g_cputime_ns(void)
{
    unsigned long f = arch_irq_save();
    struct g *gp = getg();
    struct m *m = this_cpu()->m;
    uint64_t c = 0;

    /* Interrupts off: the G cannot move between reading its M's start
       and its own total. */
    if (gp && m->curg == gp)
        c = gp->cputime + (arch_cycles() - m->runstart);
    arch_irq_restore(f);
    return cycles_to_ns(c);
}

uint64_t sched_cputime_ns(void)
{
    unsigned long f = arch_irq_save();
    struct m *me = this_cpu()->m;
    uint64_t c = 0;

    for (int i = 0; i < ncpu; i++) {
        struct m *m = cpus[i]->m;

        if (m)
            c += __atomic_load_n(&m->busy, __ATOMIC_RELAXED);
    }
    if (me->curg)
        c += arch_cycles() - me->runstart;
    arch_irq_restore(f);
    return cycles_to_ns(c);
}
