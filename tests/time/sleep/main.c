/*
 * sleep - sp_sleep and the timeouts built on timers: no sleep wakes
 * early, a sleeper beside CPU hogs on every core still wakes within a
 * slice, and select / recv with a timeout time out no sooner than asked
 * and still take a value sent in time.
 *
 * The lateness of the 10,000 sleeps is printed as "# " lines, not
 * asserted: it is a benchmark, and under TCG it measures the host as much
 * as the kernel.
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

/*
 * The wall clock comes from the RTC (CMOS on x86_64, the PL031 on
 * aarch64); QEMU's keeps host time.  It must read as a date after this
 * code was written and before 2100, and advance with the monotonic clock
 * (sp_walltime is the RTC's reading at boot plus sp_nanotime).
 */
TEST(walltime_from_rtc)
{
    const uint64_t y2026 = 1767225600ULL * 1000000000;  /* 2026-01-01 */
    const uint64_t y2100 = 4102444800ULL * 1000000000;  /* 2100-01-01 */
    uint64_t a0 = sp_nanotime(), w0 = sp_walltime(), b0 = sp_nanotime();
    uint64_t a1, w1, b1;

    CHECKF(w0 > y2026 && w0 < y2100, "sp_walltime() is %llu s since 1970",
           (unsigned long long)(w0 / 1000000000));
    sp_sleep(SP_MS(20));
    a1 = sp_nanotime();
    w1 = sp_walltime();
    b1 = sp_nanotime();
    /* Each wall-clock reading is bracketed by two monotonic ones (a vCPU
       the host deschedules between two reads widens the bracket, not
       the error): the wall clock's interval must lie between the
       shortest and the longest monotonic interval the brackets allow,
       give or take 100 us. */
    CHECKF(w1 - w0 + SP_US(100) >= a1 - b0 && w1 - w0 <= b1 - a0 + SP_US(100),
           "wall clock moved %llu ns while the monotonic one moved %llu "
           "to %llu", (unsigned long long)(w1 - w0),
           (unsigned long long)(a1 - b0), (unsigned long long)(b1 - a0));
}

/* ---- 10,000 random sleeps, none early -------------------------------- */

#define NSLEEPS 10000
#define NSLEEPERS 100
#define MAX_SLEEP SP_MS(2)

static uint64_t *late;          /* lateness of each sleep, ns */
static long nearly, nslept;
static uint64_t early_by;       /* how early the first early one was */
static sp_waitgroup sleepers_wg;

static void sleeper(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    uint64_t seed = 0x9E3779B97F4A7C15ULL * (id + 1);

    for (long i = id; i < NSLEEPS; i += NSLEEPERS) {
        uint64_t ns = rnd(&seed) % (MAX_SLEEP + 1);
        uint64_t t0 = sp_nanotime(), dt;

        sp_sleep(ns);
        dt = sp_nanotime() - t0;
        if (dt < ns) {
            if (!__atomic_fetch_add(&nearly, 1, __ATOMIC_RELAXED))
                early_by = ns - dt;
            late[i] = 0;
        } else {
            late[i] = dt - ns;
        }
        __atomic_add_fetch(&nslept, 1, __ATOMIC_RELAXED);
    }
    sp_waitgroup_done(&sleepers_wg);
}

TEST(sleep_lateness)
{
    uint64_t t0 = sp_nanotime(), p99, max;

    late = calloc(NSLEEPS, sizeof *late);
    CHECK(late);
    nearly = nslept = 0;
    sp_waitgroup_add(&sleepers_wg, NSLEEPERS);
    for (uintptr_t i = 0; i < NSLEEPERS; i++)
        sp_go(sleeper, (void *)i);
    sp_waitgroup_wait(&sleepers_wg);
    CHECKF(nslept == NSLEEPS, "%ld of %d sleeps done", nslept, NSLEEPS);
    p99 = percentile(late, NSLEEPS, 99);
    max = late[NSLEEPS - 1];
    printf("# sleep lateness over %d sleeps of 0-2 ms in %d Gs on %d cores:"
           " p50 %llu us, p99 %llu us, max %llu us (%llu ms in all)\n",
           NSLEEPS, NSLEEPERS, sp_ncpu(),
           (unsigned long long)late[NSLEEPS / 2] / 1000,
           (unsigned long long)p99 / 1000, (unsigned long long)max / 1000,
           (unsigned long long)(sp_nanotime() - t0) / 1000000);
    free(late);
    CHECKF(nearly == 0, "%ld sleeps woke early (the first by %llu ns)",
           nearly, (unsigned long long)early_by);
}

/* ---- a sleeper beside a CPU hog on every core ------------------------ */

#define HOG_TIME SP_S(2)
#define SLEEP_MARGIN SP_MS(5)

static long hogs_done;
static bool hogged[MAXCPU];     /* a hog has run on this core */

/* Spins, never yielding, until the given time. */
static void spinning_hog(void *arg)
{
    uint64_t end = (uint64_t)(uintptr_t)arg;

    while (sp_nanotime() < end)
        __atomic_store_n(&hogged[sp_cpu_id()], true, __ATOMIC_RELAXED);
    __atomic_add_fetch(&hogs_done, 1, __ATOMIC_RELEASE);
}

/*
 * Keeps its core until the given time as a spinner does, never calling
 * the scheduler, but halts between interrupts.  To the scheduler it is a
 * hog; to the host it costs nothing, so the sleeper's vCPU is not kept
 * off a host CPU by the other hogs' vCPUs (8 TCG vCPUs share 2 host cores
 * on the development machines).
 */
static void halting_hog(void *arg)
{
    uint64_t end = (uint64_t)(uintptr_t)arg;

    while (sp_nanotime() < end) {
        __atomic_store_n(&hogged[sp_cpu_id()], true, __ATOMIC_RELAXED);
        arch_halt();            /* returns with interrupts off */
        arch_irq_enable();
    }
    __atomic_add_fetch(&hogs_done, 1, __ATOMIC_RELEASE);
}

struct wakes {
    uint64_t bound;             /* lateness allowed all but 1% of wakeups */
    uint64_t cap;               /* lateness allowed every wakeup */
    long n, nearly, nlate;
    uint64_t max;
    long max_at;                /* which wakeup was the latest */
    sp_waitgroup wg;
};

static void beside_hogs(void *arg)
{
    struct wakes *w = arg;

    while (__atomic_load_n(&hogs_done, __ATOMIC_ACQUIRE) < sp_ncpu()) {
        uint64_t want = sp_nanotime() + SP_MS(1), now, l;

        sp_sleep(SP_MS(1));
        now = sp_nanotime();
        l = now > want ? now - want : 0;
        if (now < want)
            w->nearly++;
        if (l > w->bound)
            w->nlate++;
        if (l > w->max) {
            w->max = l;
            w->max_at = w->n;
        }
        w->n++;
    }
    sp_waitgroup_done(&w->wg);
}

/*
 * One hog per core keeps every core busy for 2 s; the sleeper's wakeup
 * readies it on a hogged core, so it waits at most for that hog's slice
 * to end (the quantum) before running.
 *
 * One wakeup in a hundred may miss the bound, never the cap: the host
 * (two cores shared by every vCPU of every QEMU running) now and then
 * holds a vCPU or its timer interrupt back for 5-80 ms, whatever the
 * kernel does.  A sleeper that waits for more than a slice misses the
 * bound every time; one that waits for the hogs to end misses the cap.
 */
static void beside_hogs_case(void (*hog)(void *), const char *kind,
                             uint64_t bound, uint64_t cap)
{
    struct wakes w = { .bound = bound, .cap = cap };
    uint64_t end = sp_nanotime() + HOG_TIME;

    hogs_done = 0;
    memset(hogged, 0, sizeof hogged);
    for (int i = 0; i < sp_ncpu(); i++)
        sp_go(hog, (void *)(uintptr_t)end);
    /* Start the sleeper once every core runs a hog (stealing spreads
       them), so that it cannot simply wake on an idle core. */
    for (int i = 0; i < sp_ncpu(); i++)
        while (!__atomic_load_n(&hogged[i], __ATOMIC_RELAXED) &&
               sp_nanotime() < end)
            sp_sleep(SP_US(200));
    for (int i = 0; i < sp_ncpu(); i++)
        CHECKF(__atomic_load_n(&hogged[i], __ATOMIC_RELAXED), "no hog ran on core %d in the hogs' 2 s: they "
               "never spread to every core", i);
    CHECKF(sp_nanotime() < end - HOG_TIME / 2, "the %d hogs took over a "
           "second to reach every core", sp_ncpu());
    sp_waitgroup_add(&w.wg, 1);
    sp_go(beside_hogs, &w);
    sp_waitgroup_wait(&w.wg);
    printf("# sleep 1 ms beside %d %s hogs: %ld wakeups, %ld over %llu us, "
           "max lateness %llu us (quantum %llu us)\n", sp_ncpu(), kind, w.n,
           w.nlate, (unsigned long long)bound / 1000,
           (unsigned long long)w.max / 1000,
           (unsigned long long)quantum_ns() / 1000);
    CHECKF(w.n >= 10, "the sleeper woke only %ld times in 2 s", w.n);
    CHECKF(w.nearly == 0, "%ld of %ld wakeups were early", w.nearly, w.n);
    CHECKF(w.nlate <= w.n / 100, "%ld of %ld wakeups were more than %llu us"
           " late (worst %llu us)", w.nlate, w.n,
           (unsigned long long)bound / 1000, (unsigned long long)w.max / 1000);
    CHECKF(w.max <= cap, "wakeup %ld of %ld was %llu us late (cap %llu us)",
           w.max_at, w.n, (unsigned long long)w.max / 1000,
           (unsigned long long)cap / 1000);
}

/*
 * Spinning hogs: at smp 1, wakeups within quantum + 5 ms.  With more
 * cores the hogs' vCPUs compete for the host's cores (8 vCPUs on 2 host
 * cores each run about a quarter of the time, and were measured kept off
 * for up to 28 ms at smp 3; wakeups 434 ms late were seen at smp 8), so
 * a sleeper's vCPU waits for the host whatever the kernel does.  There
 * only half of the hogs' run is asserted: the sleeper runs, repeatedly,
 * while they still spin.  The halting case below holds every core count
 * to the strict bound.
 */
TEST(sleep_beside_spinning_hogs)
{
    uint64_t q = quantum_ns();

    if (sp_ncpu() == 1)
        beside_hogs_case(spinning_hog, "spinning", q + SLEEP_MARGIN,
                         HOG_TIME / 4);
    else
        beside_hogs_case(spinning_hog, "spinning", HOG_TIME / 2,
                         HOG_TIME / 2);
}

TEST(sleep_beside_halting_hogs)
{
    uint64_t q = quantum_ns();

    beside_hogs_case(halting_hog, "halting", q + SLEEP_MARGIN,
                     HOG_TIME / 4);
}

/* ---- select and recv with a timeout ---------------------------------- */

#define TIMEOUT SP_MS(20)

TEST(select_timeout)
{
    sp_chan *never = sp_chan_make(sizeof(int), 0);
    int v = 0;

    CHECK(never);
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = sp_nanotime(), fired = 0, dt;
        sp_timer *t = sp_timer_new(TIMEOUT);
        struct sp_case cs[] = {
            { .ch = never, .dir = SP_RECV, .elem = &v },
            { .ch = sp_timer_chan(t), .dir = SP_RECV, .elem = &fired },
        };
        int k = sp_select(cs, 2, true);

        dt = sp_nanotime() - t0;
        sp_timer_free(t);
        CHECKF(k == 1, "select chose case %d, not the timer", k);
        CHECK(cs[1].ok);
        CHECKF(dt >= TIMEOUT, "select returned after %llu us, before the "
               "%llu us timeout", (unsigned long long)dt / 1000,
               (unsigned long long)TIMEOUT / 1000);
        CHECKF(fired >= t0 + TIMEOUT, "the timer's value is %lld us before "
               "its deadline", (long long)(t0 + TIMEOUT - fired) / 1000);
    }
    sp_chan_free(never);
}

struct delayed {
    sp_chan *c;
    uint64_t delay;
    int v;
};

static void send_later(void *arg)
{
    struct delayed *d = arg;

    sp_sleep(d->delay);
    sp_chan_send(d->c, &d->v);
}

TEST(recv_timeout)
{
    sp_chan *c = sp_chan_make(sizeof(int), 0);
    struct delayed d = { .c = c, .delay = SP_MS(5), .v = 42 };
    uint64_t t0, dt;
    bool ok = false;
    int v = 0, r;

    CHECK(c);
    /* Nothing sent: times out, no sooner than asked. */
    for (int i = 0; i < 5; i++) {
        t0 = sp_nanotime();
        r = sp_chan_recv_timeout(c, &v, TIMEOUT, &ok);
        dt = sp_nanotime() - t0;
        CHECKF(r == 0, "recv_timeout returned %d with nothing sent", r);
        CHECKF(dt >= TIMEOUT, "recv_timeout gave up after %llu us, before "
               "the %llu us timeout", (unsigned long long)dt / 1000,
               (unsigned long long)TIMEOUT / 1000);
    }
    /* Sent in time: the value, without waiting out the timeout. */
    for (int i = 0; i < 5; i++) {
        v = 0;
        ok = false;
        sp_go(send_later, &d);
        t0 = sp_nanotime();
        r = sp_chan_recv_timeout(c, &v, SP_S(2), &ok);
        dt = sp_nanotime() - t0;
        CHECKF(r == 1, "recv_timeout timed out with a value sent after "
               "5 ms of its 2 s");
        CHECK(ok && v == 42);
        CHECKF(dt < SP_S(1), "took %llu ms for a value sent after 5 ms",
               (unsigned long long)dt / 1000000);
    }
    /* A buffered value is taken at once; a closed channel gives !ok. */
    sp_chan_free(c);
    c = sp_chan_make(sizeof(int), 1);
    CHECK(c);
    v = 7;
    sp_chan_send(c, &v);
    v = 0;
    CHECK(sp_chan_recv_timeout(c, &v, TIMEOUT, &ok) == 1 && ok && v == 7);
    sp_chan_close(c);
    v = 9;
    CHECK(sp_chan_recv_timeout(c, &v, TIMEOUT, &ok) == 1 && !ok && v == 0);
    sp_chan_free(c);
}

TEST(all_freed)
{
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
