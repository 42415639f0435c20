/*
 * timer_sync - Go 1.23's synchronous timer channels under load on every
 * core: once sp_timer_stop or sp_timer_reset returns, no value of the
 * timer's earlier settings can be received (include/spindle/time.h).
 *
 * Makers start timers of 20-80 us and hand each to a stopper, which runs
 * on whichever core the scheduler gives it: the timer fires on its maker's
 * P, or on a core that finds it overdue, while the stopper spins a random
 * 0-100 us and then stops or resets it, so the call lands before, during
 * and after the firing.  No one receives from the channels, so every stop
 * and reset must report the timer stopped while pending (fired or not,
 * Go 1.23 takes an unreceived value back), and the channel must then be
 * empty: after a stop, for a while (a value arriving later is a stale
 * one); after a reset to an hour, at once.  Tickers likewise: after a
 * stop, no tick for three periods.
 */
#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define ROUNDS (SP_TSAN ? 40 : 300)     /* timers per maker */
#define HOUR (3600 * SP_S(1))

static sp_waitgroup wg;
static long bad_stop, bad_reset, stale, ticks_after_stop;    /* atomic */

static uint64_t rnd(uint64_t *s, uint64_t n)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (*s >> 33) % n;
}

static void spin_ns(uint64_t ns)
{
    uint64_t end = sp_nanotime() + ns;

    while (sp_nanotime() < end)
        ;
}

struct pair {
    sp_chan *handoff;           /* sp_timer * from maker to stopper */
    uint64_t seed;              /* the maker's */
    uint64_t stopseed;          /* the stopper's */
};

static void maker(void *arg)
{
    struct pair *pr = arg;

    for (int i = 0; i < ROUNDS; i++) {
        sp_timer *t = sp_timer_new(SP_US(20 + rnd(&pr->seed, 60)));

        CHECK(t);
        sp_chan_send(pr->handoff, &t);
    }
    sp_chan_close(pr->handoff);
    sp_waitgroup_done(&wg);
}

static void stopper(void *arg)
{
    struct pair *pr = arg;
    sp_timer *t;
    uint64_t seed = pr->stopseed, v;

    while (sp_chan_recv(pr->handoff, &t)) {
        bool reset = rnd(&seed, 2);

        spin_ns(SP_US(rnd(&seed, 100)));
        if (reset) {
            if (!sp_timer_reset(t, HOUR))
                __atomic_add_fetch(&bad_reset, 1, __ATOMIC_RELAXED);
            if (sp_chan_tryrecv(sp_timer_chan(t), &v, NULL))
                __atomic_add_fetch(&stale, 1, __ATOMIC_RELAXED);
        } else {
            if (!sp_timer_stop(t))
                __atomic_add_fetch(&bad_stop, 1, __ATOMIC_RELAXED);
            spin_ns(SP_US(100));        /* past any firing in flight */
            if (sp_chan_tryrecv(sp_timer_chan(t), &v, NULL))
                __atomic_add_fetch(&stale, 1, __ATOMIC_RELAXED);
        }
        sp_timer_free(t);
    }
    sp_waitgroup_done(&wg);
}

TEST(no_stale_value_after_stop_or_reset)
{
    int n = 2 * sp_ncpu();
    struct pair *prs = calloc(n, sizeof *prs);

    CHECK(prs);
    sp_waitgroup_add(&wg, 2 * n);
    for (int i = 0; i < n; i++) {
        prs[i].handoff = sp_chan_make(sizeof(sp_timer *), 0);
        prs[i].seed = 12345 + 777 * i;
        prs[i].stopseed = prs[i].seed ^ 0x9e3779b97f4a7c15ULL;
        CHECK(prs[i].handoff);
        sp_go(maker, &prs[i]);
        sp_go(stopper, &prs[i]);
    }
    sp_waitgroup_wait(&wg);
    CHECKF(!bad_stop, "%ld stops of an unreceived timer returned false",
           bad_stop);
    CHECKF(!bad_reset, "%ld resets of an unreceived timer returned false",
           bad_reset);
    CHECKF(!stale, "%ld stale values received after a stop or reset of %d",
           stale, n * ROUNDS);
    for (int i = 0; i < n; i++)
        sp_chan_free(prs[i].handoff);
    free(prs);
}

/* A ticker of 30 us stopped by another G at a random moment: no tick is
   received after the stop returns. */
static void ticker_stopper(void *arg)
{
    uint64_t seed = (uintptr_t)arg, v;

    for (int i = 0; i < ROUNDS / 4; i++) {
        sp_ticker *k = sp_ticker_new(SP_US(30));

        CHECK(k);
        spin_ns(SP_US(rnd(&seed, 200)));
        sp_timer_stop(k);
        spin_ns(SP_US(90));             /* three periods */
        if (sp_chan_tryrecv(sp_timer_chan(k), &v, NULL))
            __atomic_add_fetch(&ticks_after_stop, 1, __ATOMIC_RELAXED);
        sp_timer_free(k);
    }
    sp_waitgroup_done(&wg);
}

TEST(no_tick_after_stop)
{
    int n = 2 * sp_ncpu();

    sp_waitgroup_add(&wg, n);
    for (int i = 0; i < n; i++)
        sp_go(ticker_stopper, (void *)(uintptr_t)(99 + i));
    sp_waitgroup_wait(&wg);
    CHECKF(!ticks_after_stop, "%ld ticks received after the ticker's stop",
           ticks_after_stop);
}

int main(void)
{
    return sp_test_main();
}
