/*
 * idlespin - how long a core that found no work keeps looking before it
 * halts (idlespin=, one boot per `cmdline` of test.conf).  The value is the
 * one asked for, or the default for a bad one.  With a 10 ms window, a
 * core woken for a G it cannot take at once (one in its readier's
 * runnext) is still counted as spinning 1-8 ms later, where Go's rule
 * (idlespin=0) halts it within microseconds; 1-8 ms, not a narrower
 * range, because the host may stall the looking core's vCPU for
 * milliseconds.  And the spinning always ends: once the window is over,
 * no core spins.
 */
#include <stdio.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"

#define DEFAULT_US 100
#define MAX_US 10000
#define SETTLE_NS SP_MS(500)    /* past the window: a vCPU may be stalled */
#define LONG_US 9000            /* windows long enough to see a spinner */
#define MIN_LOOKS 100
#define MAX_TRIES 5

/* What idlespin= should have set: the value, clamped, or the default. */
static long want_us(void)
{
    long us = DEFAULT_US;

    switch (cmdline_long("idlespin", 0, MAX_US, &us)) {
    case CMDLINE_ABSENT:
    case CMDLINE_OK:
    case CMDLINE_RANGE:
        return us;
    default:
        return DEFAULT_US;
    }
}

TEST(value_taken)
{
    CHECKF(sched_idlespin_us() == want_us(), "idlespin is %ld us, want %ld",
           sched_idlespin_us(), want_us());
}

/* Polls without yielding (a yield could wake a core) until no core is
   counted as spinning; false if one still is after ns. */
static bool spinning_ends(uint64_t ns)
{
    uint64_t end = sp_nanotime() + ns;

    while (sched_nmspinning() != 0)
        if (sp_nanotime() > end)
            return false;
    return true;
}

static long ran;

static void noop(void *arg)
{
    __atomic_store_n(&ran, 1, __ATOMIC_RELEASE);
}

/*
 * Wakes a core for a G it cannot take at once, then counts, over 1-8 ms
 * after, the looks that found a core spinning.  Main watches with
 * preemption off: preempted, it would be work for the spinner, which
 * would then rightly stop spinning.
 */
static void watch(uint64_t window, long *samples, long *seen)
{
    uint64_t t0, now;

    *samples = *seen = 0;
    CHECKF(spinning_ends(window + SETTLE_NS),
           "a core still spins %llu ms after the window",
           (unsigned long long)(window + SETTLE_NS) / SP_MS(1));
    ran = 0;
    getg()->preemptoff++;
    /* The window starts at the wakeup, sp_go's last step, not before the
       G is made (which under TSan may take milliseconds). */
    sp_go(noop, NULL);          /* runnext: wakes a core it cannot feed */
    t0 = sp_nanotime();
    while ((now = sp_nanotime()) < t0 + SP_MS(8))
        if (now >= t0 + SP_MS(1)) {
            (*samples)++;
            *seen += sched_nmspinning() > 0;
        }
    getg()->preemptoff--;
    t0 = sp_nanotime();
    while (!__atomic_load_n(&ran, __ATOMIC_ACQUIRE) &&
           sp_nanotime() < t0 + SP_S(5))
        sp_yield();
    CHECK(__atomic_load_n(&ran, __ATOMIC_ACQUIRE));
}

TEST(spinner_keeps_looking)
{
    uint64_t window = SP_US(want_us());
    long samples, seen;
    int tries = 0;

    /* The host can stall main's own vCPU through the whole 7 ms: then
       it has not looked, and looks again. */
    do
        watch(window, &samples, &seen);
    while (samples < MIN_LOOKS && ++tries < MAX_TRIES);
    printf("# idlespin=%ld us, %d cores: a core spinning in %ld of %ld "
           "looks 1-8 ms after the wakeup\n", want_us(), sp_ncpu(), seen,
           samples);
    CHECKF(samples >= MIN_LOOKS, "main looked only %ld times in %d tries",
           samples, MAX_TRIES);
    if (sp_ncpu() >= 2 && want_us() >= LONG_US)
        CHECKF(seen > 0, "no core spinning 1-8 ms after a wakeup, with a "
               "%ld us window (%ld looks)", want_us(), samples);
    CHECKF(spinning_ends(window + SETTLE_NS),
           "a core still spins %llu ms after the wakeup",
           (unsigned long long)(window + SETTLE_NS) / SP_MS(1));
}

int main(void)
{
    return sp_test_main();
}
