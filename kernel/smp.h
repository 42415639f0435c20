/*
 * smp.h - bring-up of all cores (kernel_main calls smp_init once).
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdbool.h>

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

struct cpu;
bool smp_ap_arrive(int i);
bool smp_ap_arrived(int i);         /* a hint, for re-sending a start */
void smp_ap_wait(struct cpu **cpus, int n);

#endif
