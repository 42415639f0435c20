/*
 * timeutil.h - helpers shared by the in-image tests of tests/time/.
 */
#ifndef TESTS_LIB_TIMEUTIL_H
#define TESTS_LIB_TIMEUTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include "arch/export_test.h"
#include "sched/export_test.h"

/* Busy-waits without yielding until sp_nanotime() >= t. */
static inline void spin_until(uint64_t t)
{
    while (sp_nanotime() < t)
        arch_cpu_relax();
}

/* Sleeps until sp_nanotime() >= t (not at all if that is past). */
static inline void sleep_until(uint64_t t)
{
    uint64_t now = sp_nanotime();

    if (now < t)
        sp_sleep(t - now);
}

/*
 * Waits, sleeping 100 us at a time, until *count >= want or timeout_ns
 * has passed; returns whether the count was reached.
 */
static inline bool wait_count(long *count, long want, uint64_t timeout_ns)
{
    uint64_t end = sp_nanotime() + timeout_ns;

    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < want) {
        if (sp_nanotime() > end)
            return false;
        sp_sleep(SP_US(100));
    }
    return true;
}

/* The slice length the kernel runs with (quantum=, default 10 ms). */
static inline uint64_t quantum_ns(void)
{
    uint64_t hz = arch_cycles_hz();

    return ((__uint128_t)quantum * 1000000000 + hz / 2) / hz;
}

/* Preemptions so far on every M. */
static inline uint64_t npreempt_all(void)
{
    uint64_t n = 0;

    for (int i = 0; i < ncpu; i++)
        n += __atomic_load_n(&cpus[i]->m->npreempt, __ATOMIC_RELAXED);
    return n;
}

/* Preemptions so far on core c's M. */
static inline uint64_t npreempt_on(int c)
{
    return __atomic_load_n(&cpus[c]->m->npreempt, __ATOMIC_RELAXED);
}

static inline int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and returns its p-th percentile (p in 0..100). */
static inline uint64_t percentile(uint64_t *v, long n, int p)
{
    long i = (n * p + 99) / 100;

    qsort(v, n, sizeof *v, cmp_u64);
    return v[i ? i - 1 : 0];
}

/*
 * The leak check that ends each suite: every G but main is back on a
 * free list and no timer is left waiting in any heap.
 */
#define CHECK_ALL_FREED()                                                   \
    do {                                                                    \
        uint64_t end_ = sp_nanotime() + SP_S(5);                            \
                                                                            \
        while ((sched_live_gs() > 1 || timers_pending()) &&                 \
               sp_nanotime() < end_)                                        \
            sp_sleep(SP_MS(1));                                             \
        CHECKF(sched_live_gs() == 1, "%ld Gs alive, expected only main",    \
               sched_live_gs());                                            \
        CHECKF(timers_pending() == 0, "%ld timers still waiting",           \
               timers_pending());                                           \
        CHECKF(sched_free_gs() == sched_all_gs() - 1,                       \
               "%ld Gs made, %ld free", sched_all_gs(), sched_free_gs());   \
    } while (0)

#endif
