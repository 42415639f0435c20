/*
 * smp.h - bring-up of all cores (kernel_main calls smp_init once).
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

/* Discovers, limits (smp=) and starts the cores; returns how many run. */
int smp_init(void);

/* Checks that the cores' cycle counters agree, and says so. */
void smp_check_cycles(void);

#endif
