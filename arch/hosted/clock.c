/*
 * clock.c (hosted) - the TSC as the cycle counter, and its rate.
 *
 * arch_cycles() reads the TSC directly (arch_impl.h says why).  The rate
 * is measured once at start-up against CLOCK_MONOTONIC over CALIBRATE_NS;
 * the same pair of readings converts a timer deadline in cycles to the
 * CLOCK_MONOTONIC time the core's POSIX timer is armed with.  A small
 * error in the rate only makes a timer fire a little early or late in TSC
 * terms; one that fires early finds nothing due, and the scheduler arms
 * it again (sched/preempt.c), so no sleep ends early.
 */
#include <sys/syscall.h>
#include <time.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

#define CALIBRATE_NS 20000000ULL

static uint64_t tsc0, mono0, tsc_hz;

uint64_t hosted_mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A (TSC, CLOCK_MONOTONIC) pair read as close together as the host lets. */
static void pair(uint64_t *tsc, uint64_t *mono)
{
    uint64_t best = ~0ULL;

    for (int i = 0; i < 5; i++) {
        uint64_t a = arch_cycles(), m = hosted_mono_now(),
                 b = arch_cycles();

        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *mono = m;
        }
    }
}

void clock_init(void)
{
    uint64_t t1, m1;

    pair(&tsc0, &mono0);
    do
        pair(&t1, &m1);
    while (m1 - mono0 < CALIBRATE_NS);
    tsc_hz = (__uint128_t)(t1 - tsc0) * 1000000000 / (m1 - mono0);
    if (!tsc_hz)
        panic("clock_init: the TSC does not advance");
}

uint64_t arch_cycles_hz(void)
{
    return tsc_hz;
}

bool arch_cycles_invariant(void)
{
    return true;                /* measured against the host's clock */
}

/* The thread's CPU time in cycles, by the system call itself: glibc's
   clock_gettime is a sanitizer interceptor, and the profiler reads this
   inside signals that may have stopped a sanitizer's runtime. */
__attribute__((no_sanitize_address, no_sanitize_thread))
uint64_t arch_run_clock(void)
{
    struct timespec ts;
    long rc;

    __asm__ volatile("syscall"
                     : "=a"(rc)
                     : "0"((long)SYS_clock_gettime),
                       "D"((long)CLOCK_THREAD_CPUTIME_ID), "S"(&ts)
                     : "rcx", "r11", "memory");
    if (rc)
        return arch_cycles();
    return (__uint128_t)((uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec) *
           tsc_hz / 1000000000;
}

uint64_t hosted_cycles_to_mono(uint64_t cycles)
{
    if (cycles <= tsc0)
        return mono0;
    return mono0 + (__uint128_t)(cycles - tsc0) * 1000000000 / tsc_hz;
}
