/*
 * ticker - a ticker keeps its phase over 1,000 periods, and a ticker
 * stopped just after a tick never ticks again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "tests/lib/timeutil.h"

/* ---- a ticker keeps its phase ----------------------------------------- */

/*
 * Go's ticker keeps the phase it was started with: a tick that fires late
 * does not move the later ones (runtime/time.go: when += period * (1 +
 * -delta/period)), and a late or slow tick is dropped, not queued.
 *
 * So the k-th tick received comes no sooner than start + k periods.  The
 * period itself shows in the median gap between two ticks received, a gap
 * over dropped ticks counted per period: a tick the host delays stretches
 * one gap and shortens the next, and under TCG a correct ticker was seen
 * losing 20 ms worth of ticks in one boot in five at smp 3 and 4 on an
 * idle host, 550 ms worth on a loaded one, and a third of its ticks on a
 * slow one.
 * A ticker with a wrong period moves every gap, and so does one that
 * re-arms at "now + period": each gap then grows by the tick's lateness
 * (over 150 boots under TCG a keeping ticker's median gap was 998-1004 us
 * for 1 ms, a re-arming one's 1124-1149 us).  Drift shows in the
 * phase: after a late tick, a ticker that keeps its phase comes back to
 * start + k periods (plus its usual lateness); one that re-arms at
 * "now + period" stays shifted by the late tick's lateness, for good.
 * Halfway through, the test holds one tick back 1.5 periods, by keeping
 * the ticker's core from taking interrupts for 2.5 periods (unless
 * another core runs it on time).
 *
 * The phase of a run of ticks is where most of them bunch up (grid_phase),
 * not their median: lateness is one-sided, and under TCG many of the
 * first hundred ticks of a boot can come up to 0.7 ms late while code is
 * still being translated.  That moved the median by half a period in 3
 * boots of 150, while the on-time ticks kept to one narrow arc.
 */
#define TICKS 1000
#define PERIOD SP_MS(1)
#define DELAY_AT 500
#define DELAY (5 * PERIOD / 2)
#define PHASE_SAMPLE 100
#define PHASE_BIN (PERIOD / 20)     /* grid_phase's histogram: 50 us */

static struct spinlock tick_lock = SPINLOCK_INIT(LOCK_TEST);

static uint64_t median(uint64_t *v, int n)
{
    return percentile(v, n, 50);
}

/*
 * Where in the period ticks when[0..n) bunch up: the start of the arc of
 * two histogram bins, measured from t0 around the circle of one period,
 * that holds the most of them.
 */
static uint64_t grid_phase(const uint64_t *when, int n, uint64_t t0)
{
    enum { NBIN = PERIOD / PHASE_BIN };
    int count[NBIN] = { 0 }, best = 0;

    for (int i = 0; i < n; i++)
        count[(when[i] - t0) % PERIOD / PHASE_BIN]++;
    for (int b = 1; b < NBIN; b++)
        if (count[b] + count[(b + 1) % NBIN] >
            count[best] + count[(best + 1) % NBIN])
            best = b;
    return best * PHASE_BIN;
}

/* Distance between two phases on the circle of one period. */
static uint64_t phase_dist(uint64_t a, uint64_t b)
{
    uint64_t d = a > b ? a - b : b - a;

    return d < PERIOD - d ? d : PERIOD - d;
}

TEST(ticker_no_drift)
{
    static uint64_t when[TICKS + 1];
    static uint64_t gap[TICKS];
    uint64_t start = sp_nanotime(), t0;
    uint64_t first, last, held = 0, median_gap;
    sp_ticker *k = sp_ticker_new(PERIOD);
    int cpu = sp_cpu_id();

    CHECK(k);
    /* The ticker started between start and now: its grid's origin is
       known to within a few microseconds. */
    t0 = start + (sp_nanotime() - start) / 2;
    for (long i = 1; i <= TICKS; i++) {
        CHECK(sp_chan_recv(sp_timer_chan(k), &when[i]));
        CHECKF(when[i] >= start + i * PERIOD, "tick %ld at %llu us, before "
               "%ld periods", i,
               (unsigned long long)(when[i] - start) / 1000, i);
        CHECKF(when[i] > when[i - 1], "tick %ld not after tick %ld", i,
               i - 1);
        if (i == DELAY_AT && sp_cpu_id() == cpu) {
            unsigned long f = spin_lock(&tick_lock);
            uint64_t t = sp_nanotime();

            spin_until(t + DELAY);      /* interrupts off */
            spin_unlock(&tick_lock, f);
            held = DELAY;
        }
    }
    sp_timer_free(k);
    first = grid_phase(&when[1], PHASE_SAMPLE, t0);
    last = grid_phase(&when[TICKS - PHASE_SAMPLE + 1], PHASE_SAMPLE, t0);
    /* A gap over ticks the channel dropped counts as that many periods:
       a slow host drops a third of them at times, and whole-period gaps
       would pull the median up. */
    for (int i = 1; i < TICKS; i++) {
        uint64_t g = when[i + 1] - when[i];
        uint64_t n = (g + PERIOD / 2) / PERIOD;

        gap[i - 1] = g / (n ? n : 1);
    }
    median_gap = median(gap, TICKS - 1);
    printf("# ticker, %d ticks of %llu us: phase %llu us at the "
           "start, %llu us at the end; tick %d came %llu us after start + "
           "%d periods%s; median gap %llu us\n", TICKS,
           (unsigned long long)PERIOD / 1000,
           (unsigned long long)first / 1000, (unsigned long long)last / 1000,
           TICKS, (unsigned long long)(when[TICKS] - start - TICKS * PERIOD)
           / 1000, TICKS, held ? " (its core held 2.5 periods)" : "",
           (unsigned long long)median_gap / 1000);
    CHECKF(phase_dist(first, last) <= PERIOD / 4, "the ticks' phase moved "
           "from %llu us to %llu us of the %llu us period: a late tick "
           "shifted every later one", (unsigned long long)first / 1000,
           (unsigned long long)last / 1000,
           (unsigned long long)PERIOD / 1000);
    CHECKF(median_gap >= PERIOD - PERIOD / 40 &&
               median_gap <= PERIOD + PERIOD / 40,
           "the median gap between ticks was %llu us, for a period of "
           "%llu us: each tick re-armed from when it ran drifts by its "
           "lateness", (unsigned long long)median_gap / 1000,
           (unsigned long long)PERIOD / 1000);
}

/*
 * Stopping a ticker just after taking a tick: its function may still be
 * running on another core (it readied this G before returning).  The
 * ticker was pending and will not fire again, so stop says true (Go's
 * deltimer waits out a running timer and then deletes it), and no tick
 * comes after.
 */
#define NTICKSTOP 100

TEST(ticker_stop)
{
    long falses = 0, after = 0;

    for (int i = 0; i < NTICKSTOP; i++) {
        sp_ticker *k = sp_ticker_new(PERIOD);
        uint64_t when;

        CHECK(k);
        CHECK(sp_chan_recv(sp_timer_chan(k), &when));
        falses += !sp_timer_stop(k);
        /* A tick sent before the stop may wait in the channel. */
        sp_chan_tryrecv(sp_timer_chan(k), &when, NULL);
        sp_sleep(3 * PERIOD);
        after += sp_chan_len(sp_timer_chan(k)) != 0;
        sp_timer_free(k);
    }
    CHECKF(after == 0, "%ld of %d stopped tickers ticked after the stop",
           after, NTICKSTOP);
    CHECKF(falses == 0, "%ld of %d stops of a live ticker right after a "
           "tick returned false", falses, NTICKSTOP);
}

TEST(all_freed)
{
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
