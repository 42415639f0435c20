/*
 * spindle/cpu.h - the cores, as an app sees them.
 */
#ifndef SPINDLE_CPU_H
#define SPINDLE_CPU_H

#include <stdint.h>

/* Number of cores Spindle runs on (Go's GOMAXPROCS). */
int sp_ncpu(void);

/* The core the caller is running on right now, 0 .. sp_ncpu() - 1. */
int sp_cpu_id(void);

/* Runs fn(arg) once on every core, the caller's included, and waits. */
void sp_on_each_cpu(void (*fn)(void *), void *arg);

/* Monotonic nanoseconds since boot (also in spindle/time.h). */
uint64_t sp_nanotime(void);

#endif
