/*
 * faultinject.h - fault injection, switched on by fault= on the command line
 * (faultinject_cfg.h has its forms).  Faults take effect when the app's main()
 * starts, so that booting is never what they break, and cost one load of
 * fault_armed where they are checked while off.
 *
 * What each does, and what the kernel promises under it:
 *   alloc   mem_alloc_pages fails at the rate given.  Its callers carry
 *           on or say what failed: malloc and the channel and timer
 *           constructors return NULL; a spawn that needs a new G slot,
 *           the global run queue and a timer heap that must grow panic,
 *           naming what ran out.  Demand paging of G stacks is exempt:
 *           a fault has no caller to tell.
 *   ipi     a core that takes a scheduler IPI stops answering (spins
 *           with interrupts masked) for the time given, as one whose
 *           vCPU the host descheduled or that entered firmware: the Gs
 *           it was woken for wait, or are run by the core that readied
 *           them; nothing is lost.
 *   timer   a core timer interrupt is put off by the time given (the
 *           core re-arms for then and does nothing else); a delayed one
 *           may be delayed again, so timers and preemption run late by
 *           a multiple of it, and nothing is lost.
 *   stall   the spinning protocol's stall windows (sched_stall_set).
 */
#ifndef KERNEL_FAULTINJECT_H
#define KERNEL_FAULTINJECT_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/faultinject_cfg.h"

extern bool fault_armed;        /* set once, before main() */
extern struct faultcfg fault_cfg;

/* kernel_main: reads fault= and says what will be injected. */
void fault_init(void);
/* Before main(): the faults take effect. */
void fault_arm(void);

bool fault_alloc_roll(void);
void fault_ipi_roll(void);
uint64_t fault_timer_roll(void);

/* True if this page allocation is to fail. */
static inline bool fault_alloc_fails(void)
{
    return __builtin_expect(fault_armed, 0) && fault_cfg.alloc_permille &&
           fault_alloc_roll();
}

/* In the IPI handler: maybe stops answering for a while. */
static inline void fault_ipi(void)
{
    if (__builtin_expect(fault_armed, 0) && fault_cfg.ipi_pct)
        fault_ipi_roll();
}

/* In the timer interrupt: cycles to put it off by, or 0. */
static inline uint64_t fault_timer_delay(void)
{
    if (__builtin_expect(fault_armed, 0) && fault_cfg.timer_pct)
        return fault_timer_roll();
    return 0;
}

/* No injected allocation failure on this core between the two (page
   faults, interrupts off). */
void fault_hold(void);
void fault_release(void);

/* How often each fault was injected since fault_arm. */
struct fault_counts {
    uint64_t allocs_failed;
    uint64_t ipis_deaf;
    uint64_t timers_delayed;
};
void fault_counts(struct fault_counts *c);

#endif
