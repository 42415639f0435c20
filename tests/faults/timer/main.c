/*
 * faults/timer - booted with fault=timer:50:3000 (half the core timer
 * interrupts come 3 ms late): sleeps end late but all end, and a
 * sleeper beside CPU hogs on every core still gets its turns.
 */
#include <stdint.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"

TEST(sleeps_late_not_lost)
{
    uint64_t worst = 0;
    struct fault_counts c0, c1;

    fault_counts(&c0);
    for (int i = 0; i < 100; i++) {
        uint64_t t = sp_nanotime(), late;

        sp_sleep(1000000);
        late = sp_nanotime() - t - 1000000;
        if (late > worst)
            worst = late;
    }
    fault_counts(&c1);
    CHECKF(c1.timers_delayed > c0.timers_delayed, "no interrupt delayed");
    /* Late by a few delays at most: 3 ms each, each delay a coin flip
       (2^-30 for more than 30 in a row). */
    CHECKF(worst < 100000000, "a 1 ms sleep was %lu us late",
           (unsigned long)(worst / 1000));
}

static sp_waitgroup wg;
static int hogs_running;

static void hog(void *arg)
{
    uint64_t end = sp_nanotime() + 1000000000ULL;

    while (sp_nanotime() < end)
        ;
    __atomic_sub_fetch(&hogs_running, 1, __ATOMIC_RELEASE);
    sp_waitgroup_done(&wg);
}

TEST(sleeper_beside_hogs_runs)
{
    int n = sp_ncpu(), turns = 0;

    __atomic_store_n(&hogs_running, n, __ATOMIC_RELEASE);
    sp_waitgroup_add(&wg, n);
    for (int i = 0; i < n; i++)
        sp_go(hog, NULL);
    /* Every core is taken by a hog: only preemption gives main turns. */
    while (__atomic_load_n(&hogs_running, __ATOMIC_ACQUIRE) == n &&
           turns < 10) {
        sp_sleep(5000000);
        turns++;
    }
    CHECKF(turns == 10, "main got %d turns in the hogs' second", turns);
    sp_waitgroup_wait(&wg);
}

int main(void)
{
    return sp_test_main();
}
