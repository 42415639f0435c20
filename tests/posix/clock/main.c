/*
 * clock - the POSIX time calls of posix/time.c and posix/itimer.c:
 * clock_gettime's clocks (monotonic across every core, realtime beside
 * gettimeofday, CPU time of a G and of the process), the sleeps (never
 * short, and their EINVAL cases), and the interval timer and alarm
 * delivering SIGALRM to its handler.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static uint64_t now_ns(clockid_t id)
{
    struct timespec ts;

    if (clock_gettime(id, &ts) < 0)
        return 0;
    return ts_ns(&ts);
}

/* ---- Monotonic across cores ------------------------------------------ */

static uint64_t mono_last;      /* the latest reading any core published */
static long mono_back, mono_reads;
static uint64_t mono_cores;     /* bit per core that took part */

/* On every core at once: each reading, taken after loading the latest
   published one, must not be smaller than it. */
static void mono_worker(void *arg)
{
    uint64_t end = sp_nanotime() + SP_MS(30);
    long reads = 0;

    __atomic_or_fetch(&mono_cores, 1ULL << (sp_cpu_id() % 64),
                      __ATOMIC_RELAXED);
    while (sp_nanotime() < end) {
        /* Acquire: pairs with the release of the CAS that published it. */
        uint64_t prev = __atomic_load_n(&mono_last, __ATOMIC_ACQUIRE);
        uint64_t t = now_ns(CLOCK_MONOTONIC);

        if (t < prev)
            __atomic_add_fetch(&mono_back, 1, __ATOMIC_RELAXED);
        while (t > prev &&
               !__atomic_compare_exchange_n(&mono_last, &prev, t, false,
                                            __ATOMIC_RELEASE,
                                            __ATOMIC_ACQUIRE))
            ;
        reads++;
    }
    __atomic_add_fetch(&mono_reads, reads, __ATOMIC_RELAXED);
}

TEST(monotonic_never_goes_back_across_cores)
{
    int n = sp_ncpu();

    sp_on_each_cpu(mono_worker, NULL);
    CHECKF(mono_back == 0, "%ld of %ld readings went back", mono_back,
           mono_reads);
    CHECK(mono_reads > 100);
    CHECK(mono_cores == (n >= 64 ? ~0ULL : (1ULL << n) - 1));
}

/* ---- The clocks ------------------------------------------------------ */

TEST(realtime_agrees_with_gettimeofday)
{
    struct timespec a, b;
    struct timeval tv;
    time_t t;

    CHECK(clock_gettime(CLOCK_REALTIME, &a) == 0);
    CHECK(gettimeofday(&tv, NULL) == 0);
    CHECK(clock_gettime(CLOCK_REALTIME, &b) == 0);
    t = time(NULL);
    uint64_t g = (uint64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000ULL;
    /* gettimeofday truncates to the microsecond. */
    CHECKF(g + 1000 >= ts_ns(&a) && g <= ts_ns(&b),
           "gettimeofday %llu outside [%llu, %llu]", (unsigned long long)g,
           (unsigned long long)ts_ns(&a), (unsigned long long)ts_ns(&b));
    CHECK(a.tv_sec > 1767225600);      /* after 2026-01-01 */
    CHECK(t >= a.tv_sec && t <= b.tv_sec + 1);
    CHECK(now_ns(CLOCK_REALTIME_COARSE) >= ts_ns(&b));
}

TEST(gettimeofday_says_utc)
{
    struct timezone tz = { 123, 4 };
    struct timeval tv;

    CHECK(gettimeofday(&tv, &tz) == 0);
    CHECK(tz.tz_minuteswest == 0 && tz.tz_dsttime == 0);
    CHECK(tv.tv_sec > 1767225600);
}

TEST(monotonic_aliases_agree)
{
    uint64_t a = now_ns(CLOCK_MONOTONIC);
    uint64_t r = now_ns(CLOCK_MONOTONIC_RAW);
    uint64_t c = now_ns(CLOCK_MONOTONIC_COARSE);
    uint64_t bt = now_ns(CLOCK_BOOTTIME);
    uint64_t b = now_ns(CLOCK_MONOTONIC);

    CHECK(a > 0);
    CHECK(a <= r && r <= c && c <= bt && bt <= b);
    CHECK(b - a < SP_MS(100));
}

TEST(getres_and_bad_clocks)
{
    static const clockid_t ids[] = {
        CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
        CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
    };
    struct timespec ts;

    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        ts.tv_sec = ts.tv_nsec = -1;
        CHECK(clock_getres(ids[i], &ts) == 0);
        CHECKF(ts.tv_sec == 0 && ts.tv_nsec >= 1 && ts.tv_nsec <= 1000,
               "clock %d: resolution %ld.%09ld", (int)ids[i],
               (long)ts.tv_sec, ts.tv_nsec);
    }
    CHECK(clock_getres(CLOCK_MONOTONIC, NULL) == 0);
    errno = 0;
    CHECK(clock_getres((clockid_t)99, &ts) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(clock_gettime((clockid_t)99, &ts) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(clock_gettime((clockid_t)-5, &ts) == -1 && errno == EINVAL);
    errno = 0;
    {
        /* Through a volatile: glibc's header forbids a literal NULL. */
        struct timespec *volatile none = NULL;

        CHECK(clock_gettime(CLOCK_MONOTONIC, none) == -1 && errno == EFAULT);
    }
    errno = 0;
    CHECK(clock_settime(CLOCK_REALTIME, &ts) == -1 && errno == EPERM);
}

/* ---- Sleeping -------------------------------------------------------- */

TEST(sleeps_last_at_least_as_asked)
{
    struct timespec req = { 0, 5000000 }, rem = { 9, 9 };
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), t1, t2, t3, t4;

    CHECK(nanosleep(&req, &rem) == 0);
    t1 = now_ns(CLOCK_MONOTONIC);
    CHECKF(t1 - t0 >= SP_MS(5), "nanosleep(5 ms) took %llu ns",
           (unsigned long long)(t1 - t0));
    CHECK(rem.tv_sec == 0 && rem.tv_nsec == 0);
    CHECK(usleep(3000) == 0);
    t2 = now_ns(CLOCK_MONOTONIC);
    CHECKF(t2 - t1 >= SP_MS(3), "usleep(3000) took %llu ns",
           (unsigned long long)(t2 - t1));
    CHECK(sleep(1) == 0);
    t3 = now_ns(CLOCK_MONOTONIC);
    CHECK(t3 - t2 >= SP_S(1));
    req.tv_nsec = 0;
    CHECK(nanosleep(&req, NULL) == 0);      /* zero: at once */
    t4 = now_ns(CLOCK_MONOTONIC);
    CHECK(t4 - t3 < SP_MS(500));
}

TEST(clock_nanosleep_relative_and_absolute)
{
    struct timespec req = { 0, 4000000 }, abs;
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), t1, t2, w;

    CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL) == 0);
    t1 = now_ns(CLOCK_MONOTONIC);
    CHECK(t1 - t0 >= SP_MS(4));
    /* An absolute deadline 6 ms ahead on the monotonic clock. */
    abs.tv_sec = (t1 + SP_MS(6)) / 1000000000;
    abs.tv_nsec = (t1 + SP_MS(6)) % 1000000000;
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL) == 0);
    t2 = now_ns(CLOCK_MONOTONIC);
    CHECKF(t2 >= t1 + SP_MS(6), "woke %lld ns before the deadline",
           (long long)(t1 + SP_MS(6) - t2));
    /* And on the realtime clock. */
    w = now_ns(CLOCK_REALTIME) + SP_MS(7);
    abs.tv_sec = w / 1000000000;
    abs.tv_nsec = w % 1000000000;
    CHECK(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &abs, NULL) == 0);
    CHECK(now_ns(CLOCK_REALTIME) >= w);
    /* A deadline in the past returns at once. */
    abs.tv_sec = 1;
    abs.tv_nsec = 0;
    t1 = now_ns(CLOCK_MONOTONIC);
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL) == 0);
    CHECK(now_ns(CLOCK_MONOTONIC) - t1 < SP_MS(500));
}

TEST(sleep_einval_cases)
{
    struct timespec bad[] = { { 0, 1000000000 }, { 0, -1 }, { -1, 0 } };
    struct timespec ok = { 0, 1000 };

    for (int i = 0; i < 3; i++) {
        errno = 0;
        CHECKF(nanosleep(&bad[i], NULL) == -1 && errno == EINVAL,
               "nanosleep {%ld, %ld}: errno %d", (long)bad[i].tv_sec,
               bad[i].tv_nsec, errno);
        CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad[i], NULL) == EINVAL);
        CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &bad[i],
                              NULL) == EINVAL);
    }
    errno = 0;
    CHECK(nanosleep(NULL, NULL) == -1 && errno == EFAULT);
    CHECK(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ok, NULL) == EINVAL);
    CHECK(clock_nanosleep((clockid_t)99, 0, &ok, NULL) == EINVAL);
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0x100, &ok, NULL) == EINVAL);
}

/* ---- CPU time -------------------------------------------------------- */

TEST(thread_cputime_grows_spinning_not_sleeping)
{
    uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), c1, c2, p0, p1, t0;
    struct rusage ru;
    volatile uint64_t sink = 0;

    p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    t0 = sp_nanotime();
    while (sp_nanotime() - t0 < SP_MS(40))
        sink++;
    c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    p1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    /* Alone on its core it ran nearly all of the 40 ms; half is a
       margin for a host that descheduled the vCPU. */
    CHECKF(c1 - c0 >= SP_MS(20), "40 ms of spinning counted %llu ns",
           (unsigned long long)(c1 - c0));
    CHECK(c1 - c0 <= sp_nanotime() - t0 + SP_MS(1));
    CHECK(p1 >= p0 + (c1 - c0) / 2);
    sp_sleep(SP_MS(50));
    c2 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    /* Asleep it runs only to wake (20 ms of margin for a host that
       descheduled the vCPU then). */
    CHECKF(c2 - c1 < SP_MS(20), "50 ms asleep counted %llu ns",
           (unsigned long long)(c2 - c1));
    CHECK(getrusage(RUSAGE_THREAD, &ru) == 0);
    uint64_t r = ru.ru_utime.tv_sec * 1000000000ULL + ru.ru_utime.tv_usec * 1000ULL;
    CHECK(r + SP_MS(1) >= c2 && r <= now_ns(CLOCK_THREAD_CPUTIME_ID));
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    CHECK(ru.ru_utime.tv_sec * 1000000ULL + ru.ru_utime.tv_usec >= r / 1000 / 2);
    errno = 0;
    CHECK(getrusage(42, &ru) == -1 && errno == EINVAL);
}

/* A G of its own starts at 0, not at its creator's time: the creator
   has run over 100 ms, the new G a few microseconds (50 ms of margin for
   a host that descheduled the vCPU while it ran). */
static uint64_t child_cpu;
static void child(void *arg)
{
    __atomic_store_n(&child_cpu, now_ns(CLOCK_THREAD_CPUTIME_ID) + 1,
                     __ATOMIC_RELEASE);
}

TEST(new_g_cputime_starts_at_zero)
{
    uint64_t t0 = sp_nanotime(), mine;

    while (now_ns(CLOCK_THREAD_CPUTIME_ID) < SP_MS(100) &&
           sp_nanotime() - t0 < SP_S(5))
        ;
    mine = now_ns(CLOCK_THREAD_CPUTIME_ID);
    CHECK(mine >= SP_MS(100));
    sp_go(child, NULL);
    while (!__atomic_load_n(&child_cpu, __ATOMIC_ACQUIRE))
        sp_sleep(SP_MS(1));
    CHECKF(child_cpu - 1 < SP_MS(50), "a new G's CPU time %llu ns",
           (unsigned long long)(child_cpu - 1));
}

TEST(times_and_clock_advance)
{
    struct tms t;
    clock_t a = times(&t), b, c0 = clock();
    uint64_t t0 = sp_nanotime();

    while (sp_nanotime() - t0 < SP_MS(30))
        ;
    b = times(&t);
    CHECK(a != (clock_t)-1);
    CHECKF(b - a >= CLOCKS_PER_SEC * 3 / 100 - 1, "times() moved %ld ticks",
           (long)(b - a));
    CHECK(clock() > c0);
    CHECK(t.tms_utime > 0 && t.tms_cutime == 0);
}

/* ---- SIGALRM --------------------------------------------------------- */

static int alrm_sig;
static long alrm_count;
static uint64_t alrm_g;

static void on_alarm(int sig)
{
    __atomic_store_n(&alrm_sig, sig, __ATOMIC_RELAXED);
    __atomic_store_n(&alrm_g, sp_goid(), __ATOMIC_RELAXED);
    __atomic_add_fetch(&alrm_count, 1, __ATOMIC_RELEASE);
}

static long alarms(void)
{
    return __atomic_load_n(&alrm_count, __ATOMIC_ACQUIRE);
}

TEST(alarm_runs_the_handler)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    uint64_t t0;

    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    alrm_count = 0;
    t0 = sp_nanotime();
    CHECK(alarm(1) == 0);
    while (!alarms() && sp_nanotime() - t0 < SP_S(5))
        sp_sleep(SP_MS(5));
    CHECK(alarms() == 1);
    CHECK(sp_nanotime() - t0 >= SP_S(1));
    CHECK(alrm_sig == SIGALRM);
    CHECK(alrm_g != sp_goid());         /* in a G of its own */
    /* A pending alarm is cancelled and reports what was left. */
    CHECK(alarm(5) == 0);
    unsigned left = alarm(0);
    CHECKF(left == 5 || left == 4, "alarm(0) said %u s were left", left);
    sp_sleep(SP_MS(20));
    CHECK(alarms() == 1);
}

static int alrm_code;

static void on_alarm_info(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    __atomic_store_n(&alrm_code, info->si_code, __ATOMIC_RELAXED);
    on_alarm(sig);
}

/* What Redis's watchdog does: an SA_SIGINFO handler, a one-shot timer. */
TEST(setitimer_siginfo_handler)
{
    struct itimerval v = { { 0, 0 }, { 0, 20000 } };
    struct sigaction sa;
    uint64_t t0 = sp_nanotime();

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_alarm_info;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    alrm_count = 0;
    CHECK(setitimer(ITIMER_REAL, &v, NULL) == 0);
    while (!alarms() && sp_nanotime() - t0 < SP_S(5))
        sp_sleep(SP_MS(2));
    CHECK(alarms() == 1 && alrm_sig == SIGALRM);
    CHECK(alrm_code == SI_TIMER);
}

TEST(setitimer_periodic_then_stopped)
{
    struct itimerval v = { { 0, 10000 }, { 0, 10000 } }, g, old;
    struct sigaction sa = { .sa_handler = on_alarm };
    uint64_t t0 = sp_nanotime();
    long n;

    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    alrm_count = 0;
    CHECK(setitimer(ITIMER_REAL, &v, NULL) == 0);
    CHECK(getitimer(ITIMER_REAL, &g) == 0);
    CHECK(g.it_interval.tv_sec == 0 && g.it_interval.tv_usec == 10000);
    CHECK(g.it_value.tv_sec == 0 && g.it_value.tv_usec > 0 &&
          g.it_value.tv_usec <= 10000);
    while (alarms() < 5 && sp_nanotime() - t0 < SP_S(5))
        sp_sleep(SP_MS(2));
    CHECKF(alarms() >= 5, "%ld expirations", alarms());
    /* Five 10 ms periods take at least 50 ms. */
    CHECK(sp_nanotime() - t0 >= SP_MS(50));
    memset(&v, 0, sizeof v);
    CHECK(setitimer(ITIMER_REAL, &v, &old) == 0);
    CHECK(old.it_interval.tv_usec == 10000);
    CHECK(getitimer(ITIMER_REAL, &g) == 0);
    CHECK(g.it_value.tv_sec == 0 && g.it_value.tv_usec == 0);
    sp_sleep(SP_MS(5));         /* a firing already running may finish */
    n = alarms();
    sp_sleep(SP_MS(40));
    CHECK(alarms() == n);
    CHECK(alrm_sig == SIGALRM);
    v.it_value.tv_usec = 1000000;
    errno = 0;
    CHECK(setitimer(ITIMER_REAL, &v, NULL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(setitimer(ITIMER_VIRTUAL, &v, NULL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(getitimer(ITIMER_PROF, &g) == -1 && errno == EINVAL);
}

TEST(blocked_alarm_waits_for_unblock)
{
    struct itimerval v = { { 0, 0 }, { 0, 2000 } };
    sigset_t s;

    alrm_count = 0;
    sigemptyset(&s);
    sigaddset(&s, SIGALRM);
    CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
    CHECK(setitimer(ITIMER_REAL, &v, NULL) == 0);
    sp_sleep(SP_MS(30));
    CHECK(alarms() == 0);
    CHECK(sigpending(&s) == 0 && sigismember(&s, SIGALRM));
    CHECK(sigprocmask(SIG_UNBLOCK, &s, NULL) == 0);
    CHECK(alarms() == 1);               /* delivered before it returned */
    CHECK(sigpending(&s) == 0 && !sigismember(&s, SIGALRM));
}

int main(void)
{
    return sp_test_main();
}
