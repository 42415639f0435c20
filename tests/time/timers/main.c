/*
 * timers - one-shot timers and after-funcs: stop and reset keep Go's
 * contract; 1,000 races of stop (or reset) against the firing from
 * another core end in exactly one of "stopped, never fired" and "fired
 * once, stop said false" (for a reset, "ran once, reset said true" and
 * "ran twice, reset said false"); and 100,000 timers started from every
 * core each fire exactly once.  Tickers are in tests/time/ticker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "tests/lib/testutil.h"
#include "tests/lib/timeutil.h"

static void count_fire(void *arg)
{
    __atomic_add_fetch((long *)arg, 1, __ATOMIC_RELEASE);
}

/* Counts after-func runs; static, so that a run after a failed case
   returned cannot write into a dead stack frame. */
static long nf;
static uint64_t ran_at;

/* An after-func that notes when it ran, and counts in nf. */
static void note_time(void *arg)
{
    *(uint64_t *)arg = sp_nanotime();
    __atomic_add_fetch(&nf, 1, __ATOMIC_RELEASE);
}

/* ---- 100,000 timers (20,000 under TSan), each fires once --------------- */

#define NTIMERS (SP_TSAN ? 20000 : 100000)
#define MAX_DEADLINE_US 50000

static unsigned char *fired;
static long nfired;
static sp_timer **timers;
static sp_waitgroup starters_wg;
static long started_on[MAXCPU];

static void mark(void *arg)
{
    __atomic_add_fetch(&fired[(uintptr_t)arg], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&nfired, 1, __ATOMIC_RELEASE);
}

/* Starts timers [lo, hi) on whichever core runs this G. */
static void start_many(void *arg)
{
    uintptr_t part = (uintptr_t)arg, n = sp_ncpu();
    uintptr_t lo = NTIMERS * part / n, hi = NTIMERS * (part + 1) / n;
    uint64_t seed = 0x51ED2701ULL + part;

    for (uintptr_t i = lo; i < hi; i++) {
        timers[i] = sp_after_func(SP_US(1 + rnd(&seed) % MAX_DEADLINE_US),
                                  mark, (void *)i);
        __atomic_add_fetch(&started_on[sp_cpu_id()], 1, __ATOMIC_RELAXED);
    }
    sp_waitgroup_done(&starters_wg);
}

TEST(many_timers)
{
    uint64_t t0 = sp_nanotime(), t1;
    long twice = 0, never = 0, first = -1;
    int ncores = 0;

    fired = calloc(NTIMERS, 1);
    timers = calloc(NTIMERS, sizeof *timers);
    CHECK(fired && timers);
    nfired = 0;
    memset(started_on, 0, sizeof started_on);
    sp_waitgroup_add(&starters_wg, sp_ncpu());
    for (uintptr_t i = 0; i < (uintptr_t)sp_ncpu(); i++)
        sp_go(start_many, (void *)i);
    sp_waitgroup_wait(&starters_wg);
    t1 = sp_nanotime();
    for (long i = 0; i < NTIMERS; i++)
        CHECKF(timers[i], "sp_after_func %ld returned NULL", i);
    CHECKF(wait_count(&nfired, NTIMERS, SP_S(30)), "%ld of %d timers fired "
           "within 30 s", nfired, NTIMERS);
    /* Any timer that would fire twice does so right after its first. */
    sp_sleep(SP_MS(20));
    for (long i = 0; i < NTIMERS; i++) {
        if (fired[i] != 1 && first < 0)
            first = i;
        twice += fired[i] > 1;
        never += fired[i] == 0;
    }
    for (int c = 0; c < sp_ncpu(); c++)
        ncores += started_on[c] > 0;
    printf("# %d timers: started on %d cores in %llu ms, all fired %llu ms "
           "after the first start\n", NTIMERS, ncores,
           (unsigned long long)(t1 - t0) / 1000000,
           (unsigned long long)(sp_nanotime() - t0) / 1000000);
    CHECKF(ncores >= (sp_ncpu() > 1 ? 2 : 1), "all %d timers were started "
           "on one core", NTIMERS);
    CHECKF(!twice && !never, "%ld timers fired more than once, %ld never "
           "(timer %ld: %d times)", twice, never, first,
           first < 0 ? 0 : fired[first]);
    for (long i = 0; i < NTIMERS; i++) {
        CHECKF(!sp_timer_stop(timers[i]), "stop of fired timer %ld returned "
               "true", i);
        sp_timer_free(timers[i]);
    }
    free(timers);
    free(fired);
}

/* ---- stop ------------------------------------------------------------- */

#define NSTOP 50

/* Stopped while pending: stop says true, and it never fires. */
TEST(stop_pending)
{
    sp_timer *ct[NSTOP], *ft[NSTOP];
    uint64_t t0 = sp_nanotime();

    nf = 0;
    /* Due in 200 ms and more, so that no host stall makes one fire
       before it is stopped. */
    for (int i = 0; i < NSTOP; i++) {
        ct[i] = sp_timer_new(SP_MS(200) + SP_US(100) * i);
        ft[i] = sp_after_func(SP_MS(200) + SP_US(100) * i, count_fire, &nf);
        CHECK(ct[i] && ft[i]);
    }
    for (int i = 0; i < NSTOP; i++) {
        CHECKF(sp_timer_stop(ct[i]), "stop of pending timer %d returned "
               "false", i);
        CHECKF(sp_timer_stop(ft[i]), "stop of pending after-func %d "
               "returned false", i);
    }
    sleep_until(t0 + SP_MS(250));   /* well past every deadline */
    for (int i = 0; i < NSTOP; i++) {
        CHECKF(sp_chan_len(sp_timer_chan(ct[i])) == 0, "stopped timer %d "
               "fired", i);
        CHECKF(!sp_timer_stop(ct[i]), "second stop of timer %d returned "
               "true", i);
        CHECKF(!sp_timer_stop(ft[i]), "second stop of after-func %d "
               "returned true", i);
        sp_timer_free(ct[i]);
        sp_timer_free(ft[i]);
    }
    CHECKF(nf == 0, "%ld stopped after-funcs ran", nf);
}

/* Stopped after firing: stop says false. */
TEST(stop_fired)
{
    for (int i = 0; i < 10; i++) {
        uint64_t t0 = sp_nanotime(), when = 0;
        sp_timer *t = sp_timer_new(SP_MS(1));
        sp_timer *f;

        nf = 0;
        CHECK(t);
        CHECK(sp_chan_recv(sp_timer_chan(t), &when));
        CHECKF(when >= t0 + SP_MS(1), "timer fired %llu ns early",
               (unsigned long long)(t0 + SP_MS(1) - when));
        CHECKF(!sp_timer_stop(t), "stop of a fired timer returned true");
        sp_timer_free(t);

        f = sp_after_func(SP_MS(1), count_fire, &nf);
        CHECK(f);
        CHECKF(wait_count(&nf, 1, SP_S(5)), "after-func never ran");
        CHECKF(!sp_timer_stop(f), "stop of a fired after-func returned "
               "true");
        sp_sleep(SP_MS(2));
        CHECKF(nf == 1, "after-func ran %ld times", nf);
        sp_timer_free(f);
    }
}

/* ---- reset -------------------------------------------------------------- */

TEST(reset_moves)
{
    uint64_t t0, t1, when = 0;
    sp_timer *t;

    nf = 0;
    /* Later: not at the old deadline, at the new one.  A timer fires
       once, and its value says when: at or after the new deadline. */
    t = sp_timer_new(SP_MS(50));
    CHECK(t);
    t1 = sp_nanotime();
    CHECKF(sp_timer_reset(t, SP_MS(150)), "reset of a pending timer "
           "returned false");
    CHECK(sp_chan_recv(sp_timer_chan(t), &when));
    CHECKF(when >= t1 + SP_MS(150), "a timer reset from 50 to 150 ms fired "
           "after %llu us", (unsigned long long)(when - t1) / 1000);
    sp_sleep(SP_MS(5));
    CHECKF(sp_chan_len(sp_timer_chan(t)) == 0, "a timer reset once fired "
           "twice");

    /* A fired timer: reset says false and it fires again.  (Its function
       may still be finishing on another core just after the receive;
       reset_after_fire covers that.) */
    sp_sleep(SP_MS(2));
    t1 = sp_nanotime();
    CHECKF(!sp_timer_reset(t, SP_MS(5)), "reset of a fired timer returned "
           "true");
    CHECK(sp_chan_recv(sp_timer_chan(t), &when));
    CHECK(when >= t1 + SP_MS(5));

    /* A stopped timer: reset says false and it fires. */
    sp_timer_free(t);
    t = sp_timer_new(SP_MS(200));
    CHECK(t && sp_timer_stop(t));
    t1 = sp_nanotime();
    CHECKF(!sp_timer_reset(t, SP_MS(5)), "reset of a stopped timer "
           "returned true");
    CHECK(sp_chan_recv(sp_timer_chan(t), &when));
    CHECK(when >= t1 + SP_MS(5));
    sp_timer_free(t);

    /* Earlier: fires at the new deadline, long before the old one. */
    t0 = sp_nanotime();
    t = sp_timer_new(SP_S(2));
    CHECK(t);
    t1 = sp_nanotime();
    CHECK(sp_timer_reset(t, SP_MS(10)));
    CHECK(sp_chan_recv(sp_timer_chan(t), &when));
    CHECKF(when >= t1 + SP_MS(10) && when < t0 + SP_S(1), "a 2 s timer "
           "reset to 10 ms fired after %llu us",
           (unsigned long long)(when - t1) / 1000);
    sp_timer_free(t);

    /* An after-func, moved later: it runs once, after the new deadline. */
    ran_at = 0;
    t = sp_after_func(SP_MS(50), note_time, &ran_at);
    CHECK(t);
    t1 = sp_nanotime();
    CHECK(sp_timer_reset(t, SP_MS(150)));
    CHECKF(wait_count(&nf, 1, SP_S(5)), "an after-func reset to 150 ms "
           "never ran");
    CHECKF(ran_at >= t1 + SP_MS(150), "an after-func reset from 50 to "
           "150 ms ran after %llu us",
           (unsigned long long)(ran_at - t1) / 1000);
    sp_sleep(SP_MS(5));
    CHECKF(nf == 1, "after-func ran %ld times", nf);
    sp_timer_free(t);
}

/*
 * A timer moved earlier while its core stays busy: the reset reaches a
 * core timer (this core's, or a halted core's) as a new timer does, and
 * does not wait for the running G's slice to end, about a quantum away.
 * The G spins past the new deadline (9 ms into its slice in all); the
 * timer's value says when it fired.  Half the trials stop first (Go's
 * idiom: stop, then reset); ballast timers in the heap keep the stopped
 * one there (no sweep), so that both kinds take reset's in-place path,
 * not a fresh start.  Only a quarter of the trials must be on
 * time: a host that starves QEMU's timer thread delays the interrupt by
 * milliseconds, while a reset that does not reach the core timer leaves
 * all but one or two trials to fire when the G parks, 7 ms late (at smp
 * 1; with more cores an idle one may catch it).
 */
#define NEARLIER 16

TEST(reset_earlier_busy)
{
    uint64_t late[NEARLIER];
    sp_timer *ballast[8];
    int nlate = 0;

    for (int i = 0; i < 8; i++)
        CHECK(ballast[i] = sp_timer_new(SP_S(20)));
    for (int i = 0; i < NEARLIER; i++) {
        sp_timer *t = sp_timer_new(SP_S(10));
        uint64_t due, when = 0;

        CHECK(t);
        /* A fresh slice, and time for the other cores to halt. */
        sp_sleep(SP_US(100));
        spin_until(sp_nanotime() + SP_MS(1));
        if (i % 2)
            CHECK(sp_timer_stop(t));
        due = sp_nanotime() + SP_MS(1);
        CHECKF(sp_timer_reset(t, SP_MS(1)) == !(i % 2), "reset %d "
               "returned the wrong value", i);
        spin_until(due + SP_MS(7));
        CHECK(sp_chan_recv(sp_timer_chan(t), &when));
        late[i] = when - due;
        sp_timer_free(t);
    }
    for (int i = 0; i < 8; i++)
        sp_timer_free(ballast[i]);
    qsort(late, NEARLIER, sizeof *late, cmp_u64);
    printf("# a timer reset from 10 s to 1 ms beside a spinning G: lateness "
           "min %llu us, median %llu us, max %llu us (quantum %llu us)\n",
           (unsigned long long)late[0] / 1000,
           (unsigned long long)late[NEARLIER / 2] / 1000,
           (unsigned long long)late[NEARLIER - 1] / 1000,
           (unsigned long long)quantum_ns() / 1000);
    for (int i = 0; i < NEARLIER; i++)
        nlate += late[i] >= SP_MS(3);
    CHECKF(late[NEARLIER / 4] < SP_MS(3), "a timer moved earlier fired "
           "3 ms late or more in %d of %d trials while its core was busy: "
           "it waited for the G to park", nlate, NEARLIER);
}

/* ---- churn: starts, stops, resets and frees in one heap --------------- */

/*
 * 3,000 after-funcs on this core, then a random mix of stops, resets (to
 * earlier and later), stops with a free, and resets of stopped ones: the
 * heap's sifts, removals and sweeps (a quarter of it deleted) all run.
 * Each timer that ends armed runs at least once no earlier than its last
 * deadline (a reset of one that fired arms it again); each that ends
 * stopped never runs.
 */
#define NCHURN 3000
#define CHURN_MAX_US 40000

static long churn_runs[NCHURN];
static uint64_t churn_at[NCHURN];

/* A timer reset after it ran can run again while the first run's G is
   still going: keep the later time, atomically. */
static void churn_fire(void *arg)
{
    uintptr_t i = (uintptr_t)arg;
    uint64_t now = sp_nanotime();
    uint64_t old = __atomic_load_n(&churn_at[i], __ATOMIC_RELAXED);

    while (old < now &&
           !__atomic_compare_exchange_n(&churn_at[i], &old, now, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    __atomic_add_fetch(&churn_runs[i], 1, __ATOMIC_RELEASE);
}

TEST(heap_churn)
{
    static sp_timer *t[NCHURN];
    static uint64_t due[NCHURN];        /* 0: stopped, must not run */
    uint64_t seed = 0xC4A27ULL;
    long bad = 0;

    memset(churn_runs, 0, sizeof churn_runs);
    memset(churn_at, 0, sizeof churn_at);
    for (uintptr_t i = 0; i < NCHURN; i++) {
        uint64_t d = SP_US(1000 + rnd(&seed) % CHURN_MAX_US);

        /* The clock is read before the call: the timer's deadline is at
           least this late. */
        due[i] = sp_nanotime() + d;
        t[i] = sp_after_func(d, churn_fire, (void *)i);
        CHECK(t[i]);
    }
    for (int i = 0; i < NCHURN; i++) {
        uint64_t d = SP_US(1000 + rnd(&seed) % CHURN_MAX_US);
        uint64_t now = sp_nanotime();

        switch (rnd(&seed) % 5) {
        case 0:
            if (sp_timer_stop(t[i]))
                due[i] = 0;
            break;
        case 1:
        case 2:
            /* A reset re-arms a timer that already fired, too, whether
               or not that run's G has run yet. */
            sp_timer_reset(t[i], d);
            due[i] = now + d;
            break;
        case 3:
            if (sp_timer_stop(t[i])) {
                due[i] = 0;
                sp_timer_free(t[i]);
                t[i] = NULL;
            }
            break;
        }
    }
    /* Stopped ones brought back: their handles are reused. */
    for (int i = 0; i < NCHURN; i += 7)
        if (t[i] && !due[i]) {
            uint64_t d = SP_US(1000 + rnd(&seed) % CHURN_MAX_US);
            uint64_t now = sp_nanotime();

            CHECK(!sp_timer_reset(t[i], d));
            due[i] = now + d;
        }
    /* Wait for every armed one's run at its last deadline (an
       after-func runs in a G of its own, which may queue behind this G
       when both come due in one batch), then a little longer for any
       stopped one that would run. */
    for (uint64_t end = sp_nanotime() + SP_S(10); sp_nanotime() < end; ) {
        int left = 0;

        for (int i = 0; i < NCHURN; i++)
            left += due[i] &&
                    __atomic_load_n(&churn_at[i], __ATOMIC_RELAXED) < due[i];
        if (!left)
            break;
        sp_sleep(SP_MS(5));
    }
    sp_sleep(SP_MS(20));
    for (int i = 0; i < NCHURN; i++) {
        long runs = __atomic_load_n(&churn_runs[i], __ATOMIC_ACQUIRE);
        uint64_t at = __atomic_load_n(&churn_at[i], __ATOMIC_RELAXED);

        /* A timer that ran before its stop or reset counts that run. */
        if (due[i] == 0 && runs != 0 && bad++ < 5)
            printf("# churn: stopped timer %d ran %ld times\n", i, runs);
        if (due[i] && (runs < 1 || at < due[i]) && bad++ < 5)
            printf("# churn: timer %d ran %ld times, %lld us from its "
                   "deadline\n", i, runs, (long long)(at - due[i]) / 1000);
        if (t[i])
            sp_timer_free(t[i]);
    }
    CHECKF(bad == 0, "%ld timers broke the contract", bad);
}

/* ---- stop racing the firing, from another core ------------------------ */

/*
 * K racers, one per core, run in rounds.  In each round racer i starts
 * BATCH timers on its own core, due 1 ms from now and then every 300 us;
 * after a barrier it stops the timers racer i+1 started, each at a random
 * moment within 150 us of its deadline, while it may be firing on racer
 * i+1's core.  Even timers of a batch are after-funcs (a counter tells
 * how often one ran), odd ones channel timers (the channel holds the
 * value if it fired), except the second, a ticker with its period: a
 * live ticker's stop returns true however it meets the firing, and no tick
 * comes after it.  Half the after-funcs, at random, are reset instead
 * of stopped: due again RACE_REARM later, they run once in all if the
 * reset came first (it returns true), twice if the firing did.  The
 * fourth, a channel timer, is freed instead: the firing must not touch
 * it after (a use after free, which the ASan build reports).
 */
#define NRACES 1000
#define BATCH 8
#define RACE_DUE SP_MS(1)
#define RACE_STEP SP_US(300)
#define RACE_JITTER_US 150
#define RACE_REARM SP_US(500)
#define RACE_TICKER 1           /* which of a batch is the ticker */
#define RACE_NS(b) (RACE_DUE + (b) * RACE_STEP)     /* b's delay, period */

struct race {
    sp_timer *t;
    uint64_t due;
    long nfired;                /* after-func runs */
    bool chan;                  /* a channel timer, not an after-func */
    bool ticker;                /* a ticker (a channel timer too) */
    bool reset;                 /* reset from the other core, not stopped */
    bool freed;                 /* freed from the other core, not stopped */
    int cpu;                    /* core that started it */
    int stop_cpu;               /* core that stopped it */
    bool stopped;               /* what stop (or reset) returned */
};

/* How often x's after-func runs in all, given how its race ended. */
static long race_runs(const struct race *x)
{
    if (x->reset)
        return x->stopped ? 1 : 2;
    return !x->stopped;
}

static struct race *races;
static int nracers, nrounds;
static struct barrier race_bar;
static long race_bad, nstopped, nreset, ncross;
static char race_why[160];
static sp_waitgroup racers_wg;

/* Every racer waits here; yields, since two racers may share a core. */
static void race_barrier(void)
{
    int gen = __atomic_load_n(&race_bar.gen, __ATOMIC_ACQUIRE);

    if (__atomic_add_fetch(&race_bar.count, 1, __ATOMIC_ACQ_REL) ==
        nracers) {
        __atomic_store_n(&race_bar.count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&race_bar.gen, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&race_bar.gen, __ATOMIC_ACQUIRE) == gen)
        sp_yield();
}

static void race_fail(struct race *x, const char *what)
{
    if (!__atomic_fetch_add(&race_bad, 1, __ATOMIC_RELAXED))
        snprintf(race_why, sizeof race_why, "race %ld (%s, started on core "
                 "%d, stopped from %d): %s", (long)(x - races),
                 x->ticker ? "ticker" : x->chan ? "channel timer" :
                 "after-func", x->cpu,
                 x->stop_cpu, what);
}

/* Did the race end in one of the two allowed ways?  Waits for its fn. */
static void race_check(struct race *x)
{
    uint64_t end = x->due + SP_S(5);

    if (x->freed)
        return;
    if (x->ticker) {
        uint64_t when;

        if (!x->stopped)
            race_fail(x, "stop of a live ticker returned false");
        /* A tick sent before the stop may wait in the channel. */
        sp_chan_tryrecv(sp_timer_chan(x->t), &when, NULL);
        sp_sleep(RACE_NS(RACE_TICKER) + SP_US(300));
        if (sp_chan_len(sp_timer_chan(x->t)))
            race_fail(x, "the ticker ticked after its stop returned");
        return;
    }
    if (x->chan) {
        size_t n;

        /* A firing that stop saw begin may still be sending. */
        while (!x->stopped && !sp_chan_len(sp_timer_chan(x->t)) &&
               sp_nanotime() < end)
            sp_sleep(SP_US(100));
        n = sp_chan_len(sp_timer_chan(x->t));
        if (x->stopped && n)
            race_fail(x, "stop returned true, and the timer fired");
        if (!x->stopped && !n)
            race_fail(x, "stop returned false, and the timer never fired");
        return;
    }
    /* The after-func's G may not have run yet (a reset one, not
       twice); it must, as often as the race's outcome says. */
    while (__atomic_load_n(&x->nfired, __ATOMIC_ACQUIRE) < race_runs(x) &&
           sp_nanotime() < end)
        sp_sleep(SP_US(100));
    if (x->reset) {
        if (x->stopped && x->nfired != 1)
            race_fail(x, "reset returned true, and the after-func did not "
                      "run exactly once");
        if (!x->stopped && x->nfired != 2)
            race_fail(x, "reset returned false, and the after-func did "
                      "not run exactly twice");
        return;
    }
    if (x->stopped && x->nfired)
        race_fail(x, "stop returned true, and the after-func ran");
    if (!x->stopped && !x->nfired)
        race_fail(x, "stop returned false, and the after-func never ran");
    if (x->nfired > 1)
        race_fail(x, "the after-func ran twice");
}

static void racer(void *arg)
{
    int me = (int)(uintptr_t)arg;
    int next = (me + 1) % nracers;
    uint64_t seed = 0xACE1ULL * (me + 1);

    for (int round = 0; round < nrounds; round++) {
        struct race *mine = &races[((long)round * nracers + me) * BATCH];
        struct race *theirs = &races[((long)round * nracers + next) * BATCH];
        uint64_t now = sp_nanotime();

        for (int b = 0; b < BATCH; b++) {
            struct race *x = &mine[b];
            uint64_t ns = RACE_NS(b);

            x->chan = b % 2;
            x->ticker = b == RACE_TICKER;
            x->due = now + ns;
            x->t = x->ticker ? sp_ticker_new(ns) :
                   x->chan ? sp_timer_new(ns) :
                   sp_after_func(ns, count_fire, &x->nfired);
            x->cpu = sp_cpu_id();
        }
        race_barrier();
        for (int b = 0; b < BATCH; b++) {
            struct race *x = &theirs[b];
            int64_t jitter = (int64_t)(rnd(&seed) %
                                       (2 * RACE_JITTER_US + 1)) -
                             RACE_JITTER_US;

            x->reset = !x->chan && rnd(&seed) % 2;
            x->freed = b == 3;
            spin_until(x->due + jitter * 1000);
            if (x->freed) {
                sp_timer_free(x->t);
                x->t = NULL;
                continue;
            }
            x->stopped = x->reset ? sp_timer_reset(x->t, RACE_REARM) :
                         sp_timer_stop(x->t);
            x->stop_cpu = sp_cpu_id();
            if (x->reset)
                __atomic_add_fetch(&nreset, 1, __ATOMIC_RELAXED);
            if (x->stopped)
                __atomic_add_fetch(&nstopped, 1, __ATOMIC_RELAXED);
            if (x->stop_cpu != x->cpu)
                __atomic_add_fetch(&ncross, 1, __ATOMIC_RELAXED);
        }
        /* Past the last deadline by more than a firing takes. */
        sleep_until(theirs[BATCH - 1].due + RACE_REARM + SP_MS(2));
        for (int b = 0; b < BATCH; b++)
            race_check(&theirs[b]);
        race_barrier();
        for (int b = 0; b < BATCH; b++)
            sp_timer_free(mine[b].t);
    }
    sp_waitgroup_done(&racers_wg);
}

TEST(stop_races)
{
    long n, late = 0, nfreed = 0;

    nracers = sp_ncpu();
    nrounds = (NRACES + nracers * BATCH - 1) / (nracers * BATCH);
    n = (long)nrounds * nracers * BATCH;
    races = calloc(n, sizeof *races);
    CHECK(races);
    race_bad = nstopped = nreset = ncross = 0;
    memset(&race_bar, 0, sizeof race_bar);
    sp_waitgroup_add(&racers_wg, nracers);
    for (uintptr_t i = 0; i < (uintptr_t)nracers; i++)
        sp_go(racer, (void *)i);
    sp_waitgroup_wait(&racers_wg);
    /* A stopped after-func must not run later either. */
    sp_sleep(SP_MS(20));
    for (long r = 0; r < n; r++) {
        late += !races[r].chan && races[r].nfired != race_runs(&races[r]);
        nfreed += races[r].freed;
    }
    printf("# %ld stop, reset and free races on %d cores (%ld resets, %ld "
           "frees): %ld stopped or reset in time, %ld fired first; %ld from "
           "another core\n", n, nracers, nreset, nfreed, nstopped,
           n - nfreed - nstopped, ncross);
    free(races);
    CHECKF(race_bad == 0, "%ld of %ld races went wrong; first: %s",
           race_bad, n, race_why);
    CHECKF(late == 0, "%ld after-funcs ran more often than their stop or "
           "reset allows", late);
    CHECKF(nstopped > 0 && nstopped < n, "every race ended the same way "
           "(%ld of %ld stopped): the races missed the firing", nstopped, n);
}

/*
 * Reset straight after taking the value: the timer's function readied
 * this G from inside the channel send and may still be running on
 * another core.  As in Go (modtimer waits out timerRunning), that is a
 * plain reset of a fired timer: false, and it fires again.
 */
#define NRESETS 200

TEST(reset_after_fire)
{
    sp_timer *t = sp_timer_new(SP_US(500));
    uint64_t when, t1;

    CHECK(t);
    for (int i = 0; i < NRESETS; i++) {
        CHECK(sp_chan_recv(sp_timer_chan(t), &when));
        t1 = sp_nanotime();
        CHECKF(!sp_timer_reset(t, SP_US(500)), "reset %d of a fired timer "
               "returned true", i);
        CHECK(sp_chan_recv(sp_timer_chan(t), &when));
        CHECKF(when >= t1 + SP_US(500), "reset %d: fired %llu ns early", i,
               (unsigned long long)(t1 + SP_US(500) - when));
        CHECK(!sp_timer_reset(t, SP_US(500)));
    }
    CHECK(sp_chan_recv(sp_timer_chan(t), &when));
    sp_timer_free(t);
}

/*
 * Interrupt moderation (sched/preempt.c): a core whose G runs on takes at
 * most one timer interrupt per timergap, however dense its heap.  400
 * timers 10 us apart go on this core, which then spins through them with
 * preemption off: every timer runs, none early, and the core takes no
 * more timer interrupts than the window has gaps.  Without moderation it
 * takes one for every deadline its interrupts come fast enough to see.
 */
#define NDENSE 400

static long dense_ran;
static uint64_t dense_due[NDENSE], dense_at[NDENSE];

static void dense_fire(void *arg)
{
    long i = (long)(uintptr_t)arg;

    dense_at[i] = arch_cycles();
    __atomic_add_fetch(&dense_ran, 1, __ATOMIC_RELEASE);
}

TEST(dense_heap_moderated)
{
    static struct timer t[NDENSE];  /* static: may fire after a failure */
    uint64_t hz = arch_cycles_hz(), t0, end, irq0, nirq, allowed, worst = 0;
    unsigned long f;
    int me, early = 0;

    CHECKF(timer_gap > 0, "booted with timergap=0: nothing to test");
    dense_ran = 0;
    getg()->preemptoff++;           /* this core, and its G stays curg */
    me = sp_cpu_id();
    f = arch_irq_save();
    t0 = arch_cycles();
    for (long i = 0; i < NDENSE; i++) {
        dense_due[i] = t0 + hz / 1000 + i * (hz / 100000);
        timer_init(&t[i], dense_fire, (void *)(uintptr_t)i);
        timer_start(&t[i], dense_due[i], 0);
    }
    irq0 = __atomic_load_n(&cpus[me]->m->nirq, __ATOMIC_RELAXED);
    arch_irq_restore(f);
    end = dense_due[NDENSE - 1] + hz / 1000;
    while (arch_cycles() < end)
        arch_cpu_relax();
    nirq = __atomic_load_n(&cpus[me]->m->nirq, __ATOMIC_RELAXED) - irq0;
    getg()->preemptoff--;
    CHECKF(wait_count(&dense_ran, NDENSE, SP_S(5)), "%ld of %d timers ran",
           dense_ran, NDENSE);
    for (int i = 0; i < NDENSE; i++) {
        early += dense_at[i] < dense_due[i];
        if (dense_at[i] > dense_due[i] && dense_at[i] - dense_due[i] > worst)
            worst = dense_at[i] - dense_due[i];
    }
    /* Interrupts at least timer_gap apart, the first maybe at once. */
    allowed = (end - t0) / timer_gap + 1;
    printf("# %d timers 10 us apart on a busy core: %llu timer interrupts "
           "in %llu us (timergap %llu us allows %llu); worst lateness %llu "
           "us\n", NDENSE, (unsigned long long)nirq,
           (unsigned long long)((end - t0) * 1000000 / hz),
           (unsigned long long)((timer_gap * 1000000 + hz / 2) / hz),
           (unsigned long long)allowed,
           (unsigned long long)(worst * 1000000 / hz));
    CHECKF(early == 0, "%d timers ran before their deadline", early);
    CHECKF(nirq <= allowed, "the core took %llu timer interrupts in %llu "
           "us with timergap %llu us: at most %llu",
           (unsigned long long)nirq,
           (unsigned long long)((end - t0) * 1000000 / hz),
           (unsigned long long)((timer_gap * 1000000 + hz / 2) / hz),
           (unsigned long long)allowed);
}

TEST(all_freed)
{
    CHECK_ALL_FREED();
}

/* The cases that have been seen to panic the kernel come last. */

/* ---- durations at their extremes --------------------------------------- */

static int long_woke;     /* long_sleeper Gs that woke; atomic */

/*
 * The duration whose deadline in cycles is 2^64 plus 1 ms: where
 * arch_cycles() + ns in cycles wraps round to 1 ms from now (about 225
 * years at a 2.6 GHz counter).  A counter slower than 2 GHz wraps only
 * past INT64_MAX ns, the longest Go duration: then that.
 */
static uint64_t wrap_point(void)
{
    __uint128_t ns = ((__uint128_t)1 << 64) * 1000000000 / arch_cycles_hz() +
                     SP_MS(1);

    return ns < INT64_MAX ? (uint64_t)ns : (uint64_t)INT64_MAX;
}

static void never(void *arg)
{
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

static void long_sleeper(void *arg)
{
    sp_sleep(*(uint64_t *)arg);
    __atomic_add_fetch(&long_woke, 1, __ATOMIC_RELEASE);
}

/*
 * Durations up to INT64_MAX are Go's valid ones: a timer, a function
 * timer, a ticker, a sleep and a timeout that long do not end during the
 * test (at wrap_point they once wrapped round the cycle counter and
 * ended 1 ms later).
 */
TEST(long_durations_never_end)
{
    uint64_t lens[] = { wrap_point(), (uint64_t)INT64_MAX };
    uint64_t v;

    for (int i = 0; i < 2; i++) {
        sp_timer *t = sp_timer_new(lens[i]);
        sp_ticker *k = sp_ticker_new(lens[i]);
        sp_chan *c = sp_chan_make(sizeof v, 0);
        int fired = 0;
        sp_timer *f = sp_after_func(lens[i], never, &fired);

        CHECK(t && k && c && f);
        sp_go(long_sleeper, &lens[i]);
        CHECK(!sp_chan_recv_timeout(c, &v, lens[i] / 4 > SP_MS(50) ?
                                    SP_MS(50) : lens[i], NULL));
        sp_sleep(SP_MS(20));
        CHECKF(!sp_chan_tryrecv(sp_timer_chan(t), &v, NULL),
               "a timer of %llu ns fired", (unsigned long long)lens[i]);
        CHECKF(!sp_chan_tryrecv(sp_timer_chan(k), &v, NULL),
               "a ticker of %llu ns ticked", (unsigned long long)lens[i]);
        CHECKF(!__atomic_load_n(&fired, __ATOMIC_ACQUIRE),
               "a function timer of %llu ns ran", (unsigned long long)lens[i]);
        CHECKF(!__atomic_load_n(&long_woke, __ATOMIC_ACQUIRE),
               "a sleep of %llu ns ended", (unsigned long long)lens[i]);
        sp_timer_free(t);
        sp_timer_free(k);
        sp_timer_free(f);
        sp_chan_free(c);
    }
}

/*
 * A duration above INT64_MAX is a negative one passed as unsigned: over
 * already, as Go's negative durations are.  The sleep returns and the
 * timer fires at once, not centuries later.
 */
TEST(negative_durations_are_over)
{
    uint64_t t0 = sp_nanotime(), v;
    sp_timer *t;

    sp_sleep((uint64_t)-SP_S(1));
    CHECK(sp_nanotime() - t0 < SP_S(1));
    t = sp_timer_new((uint64_t)-1);
    CHECK(t);
    CHECK(sp_chan_recv_timeout(sp_timer_chan(t), &v, SP_S(2), NULL));
    sp_timer_free(t);
}

int main(void)
{
    return sp_test_main();
}
