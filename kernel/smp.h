/*
 * smp.h - bring-up of all cores (kernel_main calls smp_init once).
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdbool.h>
#include "kernel/cpu.h"

/* Discovers, limits (smp=) and starts the cores; returns how many run. */
int smp_init(void);

/* Checks that the cores' cycle counters agree, and says so. */
void smp_check_cycles(void);

/*
 * For arch_start_cpus, the same on every arch.  A started core calls
 * smp_ap_arrive(i) (i: its index in cpus[]) before anything else; false
 * means the boot core already gave up on it, and it must stop itself.
 * The boot core, once it has started them all, calls smp_ap_wait: it
 * waits up to SMP_AP_TIMEOUT_MS in all for each core to come online,
 * abandons and reports those that did not, and returns.  A core that
 * arrived but then never came online is a panic.
 */
#define SMP_AP_TIMEOUT_MS 1000

bool smp_ap_arrive(int i);
bool smp_ap_arrived(int i);         /* a hint, for re-sending a start */
void smp_ap_wait(struct cpu **cpus, int n);

/*
 * For the scheduler, which runs other cores' smp_call_all requests
 * between Gs.  smp_run_call runs c's pending request; called with
 * interrupts off by a core between Gs (the scheduler's idle path) or
 * before the scheduler starts, it runs the function with interrupts on,
 * as it would run in a G.  The checks are inline: every schedule makes
 * one.
 */
void smp_run_call(struct cpu *c);

/* True if a smp_call_all request waits for this core. */
static inline bool smp_calls_pending(void)
{
    struct cpu *c = this_cpu();

    return __atomic_load_n(&c->call_seq, __ATOMIC_RELAXED) != c->call_done;
}

/* Runs this core's pending request, if any. */
static inline void smp_poll_calls(void)
{
    struct cpu *c = this_cpu();

    /* Pairs with the store-release of call_seq in smp_call_all. */
    if (__atomic_load_n(&c->call_seq, __ATOMIC_ACQUIRE) != c->call_done)
        smp_run_call(c);
}

#endif
