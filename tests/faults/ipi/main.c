/*
 * faults/ipi - booted with fault=ipi:50:5 (half the scheduler IPIs make
 * their core stop answering for 5 ms): Gs spread over the cores by
 * wakeups still all finish with the right result, while cores went deaf.
 */
#include <stdint.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"

#define ROUNDS 20

static sp_waitgroup wg;
static uint64_t sums[64];

/* Works a little, sleeps a little: every wakeup may need an IPI. */
static void worker(void *arg)
{
    uintptr_t i = (uintptr_t)arg;
    uint64_t s = 0;

    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < 20000; k++)
            s += (uint64_t)k * (i + 1);
        sp_sleep(500000);
    }
    sums[i] = s;
    sp_waitgroup_done(&wg);
}

TEST(work_finishes_while_cores_go_deaf)
{
    int n = 4 * sp_ncpu() > 64 ? 64 : 4 * sp_ncpu();
    uint64_t t0 = sp_nanotime(), ms;
    struct fault_counts c;

    sp_waitgroup_add(&wg, n);
    for (int i = 0; i < n; i++)
        sp_go(worker, (void *)(uintptr_t)i);
    sp_waitgroup_wait(&wg);
    ms = (sp_nanotime() - t0) / 1000000;
    for (int i = 0; i < n; i++) {
        uint64_t want = 0;

        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < 20000; k++)
                want += (uint64_t)k * (i + 1);
        CHECKF(sums[i] == want, "worker %d summed %lu, want %lu", i,
               (unsigned long)sums[i], (unsigned long)want);
    }
    fault_counts(&c);
    CHECKF(c.ipis_deaf > 0, "no core went deaf in %lu ms", (unsigned long)ms);
    CHECKF(ms < 30000, "%d workers took %lu ms", n, (unsigned long)ms);
}

int main(void)
{
    return sp_test_main();
}
