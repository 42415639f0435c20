/*
 * leak.c - the pthread test's last case, apart from <pthread.h> (whose
 * <time.h> declares POSIX's timer_destroy, which sched/timers.h's, seen
 * through sched/export_test.h, clashes with): every thread's G has
 * ended, and the heap holds no more than the tables kept for good.
 */
#include <stdint.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "sched/export_test.h"
#include "tests/lib/testutil.h"

/* Kept for good: the self table's chunks (8 KiB each), the adopted
   records of Gs that ended without pthread_exit, the tsd of main's. */
#define KEPT_BYTES (64 * 1024)

static long baseline;

void leak_baseline(void)
{
    baseline = heap_in_use();
}

TEST(leak_check)
{
    uint64_t end = sp_nanotime() + SP_S(20);
    long heap;

    while (sched_live_gs() > 1 && sp_nanotime() < end)
        sp_sleep(SP_MS(1));
    CHECKF(sched_live_gs() == 1, "%ld Gs alive, expected only main",
           sched_live_gs());
    heap = heap_in_use();
    CHECKF(baseline > 0 && heap >= 0 && heap - baseline < KEPT_BYTES,
           "heap in use %ld bytes, %ld before the first case", heap,
           baseline);
}

int main(void)
{
    return sp_test_main();
}
