/*
 * pthread_sync - the pthread sync objects (posix/pthread_sync.c,
 * pthread_rwlock.c): mutex kinds and their errors, trylock and timedlock,
 * condition variables across cores with counted round trips, broadcast,
 * timed waits on both clocks never early, rwlock sharing and exclusion,
 * barriers and spinlocks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define WAIT_NS SP_S(20)        /* a waiting loop gives up after 20 s */

static bool wait_for(long *v, long want)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
        if (sp_nanotime() > end)
            return false;
        sp_yield();
    }
    return true;
}

/* ns from now on clock, as an abstime. */
static struct timespec abs_after(clockid_t clock, uint64_t ns)
{
    uint64_t t = (clock == CLOCK_MONOTONIC ? sp_nanotime() : sp_walltime())
                 + ns;

    return (struct timespec){ .tv_sec = t / 1000000000,
                              .tv_nsec = t % 1000000000 };
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* ---- mutex kinds ------------------------------------------------------ */

static pthread_mutex_t counted = PTHREAD_MUTEX_INITIALIZER;
static long counter;

#define ADDS 2000

static void *adder(void *arg)
{
    for (int i = 0; i < ADDS; i++) {
        pthread_mutex_lock(&counted);
        long v = counter;
        if ((i & 63) == 0)
            sp_yield();         /* hold it across a switch now and then */
        counter = v + 1;
        pthread_mutex_unlock(&counted);
    }
    return NULL;
}

TEST(mutex_exclusion)
{
    int n = 4 * sp_ncpu();
    pthread_t t[32];

    counter = 0;
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, adder, NULL) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECKF(counter == (long)n * ADDS, "counter %ld, want %ld", counter,
           (long)n * ADDS);
}

static void *try_other(void *m)
{
    int r = pthread_mutex_trylock(m);

    if (r == 0)
        pthread_mutex_unlock(m);
    return (void *)(intptr_t)r;
}

static void *unlock_other(void *m)
{
    return (void *)(intptr_t)pthread_mutex_unlock(m);
}

static int from_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    void *ret;

    if (pthread_create(&t, NULL, fn, arg) || pthread_join(t, &ret))
        return -1;
    return (int)(intptr_t)ret;
}

TEST(mutex_errorcheck)
{
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    static pthread_mutex_t sm = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    int type;

    CHECK(pthread_mutexattr_init(&a) == 0);
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK) == 0);
    CHECK(pthread_mutexattr_gettype(&a, &type) == 0 &&
          type == PTHREAD_MUTEX_ERRORCHECK);
    CHECK(pthread_mutexattr_settype(&a, 17) == EINVAL);
    CHECK(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_mutex_init(&m, &a) == 0);
    pthread_mutexattr_destroy(&a);
    CHECK(pthread_mutex_unlock(&m) == EPERM);       /* not locked */
    CHECK(pthread_mutex_lock(&m) == 0);
    CHECK(pthread_mutex_lock(&m) == EDEADLK);
    CHECK(pthread_mutex_trylock(&m) == EBUSY);
    CHECK(pthread_mutex_destroy(&m) == EBUSY);
    CHECK(from_thread(try_other, &m) == EBUSY);
    CHECK(from_thread(unlock_other, &m) == EPERM);  /* not the owner */
    CHECK(pthread_mutex_unlock(&m) == 0);
    CHECK(pthread_mutex_unlock(&m) == EPERM);
    CHECK(from_thread(try_other, &m) == 0);
    CHECK(pthread_mutex_destroy(&m) == 0);
    /* The static initializer makes the same kind. */
    CHECK(pthread_mutex_lock(&sm) == 0);
    CHECK(pthread_mutex_lock(&sm) == EDEADLK);
    CHECK(pthread_mutex_unlock(&sm) == 0);
}

TEST(mutex_recursive)
{
    static pthread_mutex_t sm = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    pthread_mutexattr_t a;
    pthread_mutex_t m;

    CHECK(pthread_mutexattr_init(&a) == 0);
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE) == 0);
    CHECK(pthread_mutex_init(&m, &a) == 0);
    for (int i = 0; i < 100; i++)
        CHECK(pthread_mutex_lock(&m) == 0);
    CHECK(pthread_mutex_trylock(&m) == 0);          /* depth 101 */
    CHECK(from_thread(try_other, &m) == EBUSY);
    CHECK(from_thread(unlock_other, &m) == EPERM);
    for (int i = 0; i < 100; i++)
        CHECK(pthread_mutex_unlock(&m) == 0);
    CHECK(from_thread(try_other, &m) == EBUSY);     /* still held once */
    CHECK(pthread_mutex_unlock(&m) == 0);
    CHECK(pthread_mutex_unlock(&m) == EPERM);
    CHECK(from_thread(try_other, &m) == 0);
    CHECK(pthread_mutex_lock(&sm) == 0 && pthread_mutex_lock(&sm) == 0);
    CHECK(pthread_mutex_unlock(&sm) == 0 && pthread_mutex_unlock(&sm) == 0);
    CHECK(pthread_mutex_unlock(&sm) == EPERM);
}

TEST(mutex_trylock_normal)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

    CHECK(pthread_mutex_trylock(&m) == 0);
    CHECK(pthread_mutex_trylock(&m) == EBUSY);
    CHECK(from_thread(try_other, &m) == EBUSY);
    CHECK(pthread_mutex_unlock(&m) == 0);
    CHECK(from_thread(try_other, &m) == 0);
}

/* timedlock: ETIMEDOUT no earlier than asked; then taken once freed. */
static pthread_mutex_t tm = PTHREAD_MUTEX_INITIALIZER;

static void *timed_locker(void *arg)
{
    struct timespec ts = abs_after(CLOCK_REALTIME, SP_MS(200));
    int r = pthread_mutex_timedlock(&tm, &ts);

    if (r == 0)
        pthread_mutex_unlock(&tm);
    return (void *)(intptr_t)r;
}

TEST(mutex_timedlock)
{
    struct timespec ts;
    pthread_t t;
    void *ret;
    uint64_t t0, took;

    CHECK(pthread_mutex_lock(&tm) == 0);
    ts = abs_after(CLOCK_REALTIME, SP_MS(20));
    t0 = sp_nanotime();
    CHECK(pthread_mutex_timedlock(&tm, &ts) == ETIMEDOUT);
    took = sp_nanotime() - t0;
    CHECKF(sp_walltime() >= ts_ns(&ts), "returned before its abstime");
    CHECKF(took >= SP_MS(20) - SP_US(10) && took < SP_S(2),
           "timed out after %lu us", (unsigned long)(took / 1000));
    ts.tv_nsec = 1000000000;
    CHECK(pthread_mutex_timedlock(&tm, &ts) == EINVAL);
    /* Another thread waits with a deadline; an unlock lets it in well
       before its deadline. */
    CHECK(pthread_create(&t, NULL, timed_locker, NULL) == 0);
    sp_sleep(SP_MS(10));
    t0 = sp_nanotime();
    CHECK(pthread_mutex_unlock(&tm) == 0);
    CHECK(pthread_join(t, &ret) == 0);
    CHECKF(ret == 0, "timedlock returned %d", (int)(intptr_t)ret);
    CHECK(sp_nanotime() - t0 < SP_MS(150));
    /* Free: at once, even with a deadline past. */
    ts = abs_after(CLOCK_REALTIME, 0);
    CHECK(pthread_mutex_timedlock(&tm, &ts) == 0);
    CHECK(pthread_mutex_unlock(&tm) == 0);
}

/* ---- condition variables ------------------------------------------- */

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pc = PTHREAD_COND_INITIALIZER;
static long turn;              /* whose turn: even main, odd the other */
static long crossings;          /* turns on another core than the last */
static int last_core;

#define ROUNDS 2000

static void *ponger(void *arg)
{
    for (long i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&pm);
        while (!(turn & 1))
            pthread_cond_wait(&pc, &pm);
        crossings += sp_cpu_id() != last_core;
        last_core = sp_cpu_id();
        turn++;
        pthread_cond_signal(&pc);
        pthread_mutex_unlock(&pm);
    }
    return NULL;
}

/* A ball passed ROUNDS times each way: no wake-up lost (a lost one
   hangs here), each round trip counted.  Where the turns ran is only
   reported: a woken G joins its waker's core (runnext), so the two
   mostly share one. */
TEST(cond_ping_pong)
{
    long trips = 0;
    pthread_t t;

    turn = crossings = 0;
    last_core = sp_cpu_id();
    CHECK(pthread_create(&t, NULL, ponger, NULL) == 0);
    for (long i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&pm);
        crossings += sp_cpu_id() != last_core;
        last_core = sp_cpu_id();
        turn++;
        pthread_cond_signal(&pc);
        while (turn & 1)
            pthread_cond_wait(&pc, &pm);
        trips++;
        pthread_mutex_unlock(&pm);
    }
    CHECK(pthread_join(t, NULL) == 0);
    CHECKF(trips == ROUNDS && turn == 2 * ROUNDS, "trips %ld turn %ld",
           trips, turn);
    printf("cond_ping_pong: %ld of %d turns on another core than the "
           "last\n", crossings, 2 * ROUNDS);
}

static pthread_cond_t bc = PTHREAD_COND_INITIALIZER;
static long go_flag, bwaiting, bwoken;

static void *bwaiter(void *arg)
{
    pthread_mutex_lock(&pm);
    bwaiting++;
    while (!go_flag)
        pthread_cond_wait(&bc, &pm);
    bwoken++;
    pthread_mutex_unlock(&pm);
    return NULL;
}

TEST(cond_broadcast)
{
    enum { N = 64 };
    pthread_t t[N];

    go_flag = bwaiting = bwoken = 0;
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&t[i], NULL, bwaiter, NULL) == 0);
    CHECK(wait_for(&bwaiting, N));
    sp_sleep(SP_MS(2));
    pthread_mutex_lock(&pm);
    CHECK(bwoken == 0);
    CHECK(pthread_cond_destroy(&bc) == EBUSY);
    go_flag = 1;
    pthread_cond_broadcast(&bc);
    pthread_mutex_unlock(&pm);
    for (int i = 0; i < N; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(bwoken == N);
    CHECK(pthread_cond_destroy(&bc) == 0);
}

/* A signal wakes one waiter of several, not all. */
TEST(cond_signal_one)
{
    enum { N = 8 };
    pthread_t t[N];

    go_flag = bwaiting = bwoken = 0;
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&t[i], NULL, bwaiter, NULL) == 0);
    CHECK(wait_for(&bwaiting, N));
    sp_sleep(SP_MS(2));
    pthread_mutex_lock(&pm);
    go_flag = 1;
    pthread_cond_signal(&bc);
    pthread_mutex_unlock(&pm);
    CHECK(wait_for(&bwoken, 1));
    sp_sleep(SP_MS(5));
    CHECKF(bwoken == 1, "%ld woken by one signal", bwoken);
    pthread_cond_broadcast(&bc);
    for (int i = 0; i < N; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(bwoken == N);
}

/* timedwait on each clock: ETIMEDOUT, no earlier than asked. */
static int timedwait_on(clockid_t clock, uint64_t ns, uint64_t *took)
{
    pthread_condattr_t a;
    pthread_cond_t c;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct timespec ts;
    uint64_t t0;
    int r;

    pthread_condattr_init(&a);
    if (pthread_condattr_setclock(&a, clock))
        return -1;
    pthread_cond_init(&c, &a);
    pthread_mutex_lock(&m);
    ts = abs_after(clock, ns);
    t0 = sp_nanotime();
    r = pthread_cond_timedwait(&c, &m, &ts);
    *took = sp_nanotime() - t0;
    if (r == ETIMEDOUT &&
        (clock == CLOCK_MONOTONIC ? sp_nanotime() : sp_walltime()) <
            ts_ns(&ts))
        r = -2;                 /* early */
    pthread_mutex_unlock(&m);
    return r;
}

TEST(cond_timedwait_clocks)
{
    uint64_t took;
    int r;
    pthread_condattr_t a;
    clockid_t clock;

    CHECK(pthread_condattr_init(&a) == 0);
    CHECK(pthread_condattr_getclock(&a, &clock) == 0 &&
          clock == CLOCK_REALTIME);
    CHECK(pthread_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID) == EINVAL);
    for (int i = 0; i < 10; i++) {
        uint64_t ns = SP_MS(1) + i * SP_US(700);

        r = timedwait_on(CLOCK_MONOTONIC, ns, &took);
        CHECKF(r == ETIMEDOUT && took >= ns - SP_US(10),
               "monotonic %lu us: %d after %lu us",
               (unsigned long)(ns / 1000), r, (unsigned long)(took / 1000));
        r = timedwait_on(CLOCK_REALTIME, ns, &took);
        CHECKF(r == ETIMEDOUT && took >= ns - SP_US(10),
               "realtime %lu us: %d after %lu us",
               (unsigned long)(ns / 1000), r, (unsigned long)(took / 1000));
    }
    /* A deadline in the past: at once. */
    r = timedwait_on(CLOCK_MONOTONIC, 0, &took);
    CHECK(r == ETIMEDOUT && took < SP_MS(100));
}

/* A signal before the deadline wins; the deadline's timer must not eat
   a later signal meant for another waiter (timeouts racing signals). */
static pthread_cond_t rc = PTHREAD_COND_INITIALIZER;
static long tokens, consumed, rwait_done;

static void *token_taker(void *arg)
{
    long mine = 0;

    pthread_mutex_lock(&pm);
    while (mine < (long)(intptr_t)arg) {
        struct timespec ts = abs_after(CLOCK_REALTIME, SP_US(300));

        while (!tokens)
            if (pthread_cond_timedwait(&rc, &pm, &ts) == ETIMEDOUT)
                ts = abs_after(CLOCK_REALTIME, SP_US(300));
        tokens--;
        mine++;
        consumed++;
    }
    pthread_mutex_unlock(&pm);
    __atomic_add_fetch(&rwait_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

TEST(cond_timeouts_race_signals)
{
    enum { N = 4, EACH = 300 };
    pthread_t t[N];

    tokens = consumed = rwait_done = 0;
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&t[i], NULL, token_taker,
                             (void *)(intptr_t)EACH) == 0);
    for (int i = 0; i < N * EACH; i++) {
        pthread_mutex_lock(&pm);
        tokens++;
        pthread_cond_signal(&rc);
        pthread_mutex_unlock(&pm);
        if (i % 7 == 0)
            sp_sleep(SP_US(100 + i % 400));
    }
    CHECK(wait_for(&rwait_done, N));
    for (int i = 0; i < N; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(consumed == N * EACH && tokens == 0);
}

/* cond_wait on a recursive mutex held twice releases it whole. */
static pthread_mutex_t rm = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_cond_t rcv = PTHREAD_COND_INITIALIZER;
static long rflag;

static void *rsetter(void *arg)
{
    pthread_mutex_lock(&rm);
    rflag = 1;
    pthread_cond_signal(&rcv);
    pthread_mutex_unlock(&rm);
    return NULL;
}

TEST(cond_recursive_mutex)
{
    pthread_t t;

    rflag = 0;
    CHECK(pthread_mutex_lock(&rm) == 0 && pthread_mutex_lock(&rm) == 0);
    CHECK(pthread_create(&t, NULL, rsetter, NULL) == 0);
    while (!rflag)
        CHECK(pthread_cond_wait(&rcv, &rm) == 0);
    CHECK(pthread_mutex_unlock(&rm) == 0 && pthread_mutex_unlock(&rm) == 0);
    CHECK(pthread_mutex_unlock(&rm) == EPERM);
    CHECK(pthread_join(t, NULL) == 0);
}

/* ---- rwlock ----------------------------------------------------------- */

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long readers_in, max_readers, writers_in, rw_bad, rw_value;

static void *reader(void *arg)
{
    for (int i = 0; i < 50; i++) {
        pthread_rwlock_rdlock(&rw);
        long n = __atomic_add_fetch(&readers_in, 1, __ATOMIC_ACQ_REL);
        long m = __atomic_load_n(&max_readers, __ATOMIC_RELAXED);

        while (n > m && !__atomic_compare_exchange_n(&max_readers, &m, n,
                           false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        if (__atomic_load_n(&writers_in, __ATOMIC_ACQUIRE))
            __atomic_add_fetch(&rw_bad, 1, __ATOMIC_RELAXED);
        sp_sleep(SP_US(50));    /* readers overlap */
        __atomic_sub_fetch(&readers_in, 1, __ATOMIC_ACQ_REL);
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}

static void *writer(void *arg)
{
    for (int i = 0; i < 50; i++) {
        pthread_rwlock_wrlock(&rw);
        if (__atomic_add_fetch(&writers_in, 1, __ATOMIC_ACQ_REL) != 1 ||
            __atomic_load_n(&readers_in, __ATOMIC_ACQUIRE))
            __atomic_add_fetch(&rw_bad, 1, __ATOMIC_RELAXED);
        rw_value++;
        sp_yield();
        __atomic_sub_fetch(&writers_in, 1, __ATOMIC_ACQ_REL);
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}

TEST(rwlock_share_and_exclude)
{
    enum { R = 8, W = 3 };
    pthread_t t[R + W];

    readers_in = max_readers = writers_in = rw_bad = rw_value = 0;
    for (int i = 0; i < R + W; i++)
        CHECK(pthread_create(&t[i], NULL, i < R ? reader : writer,
                             NULL) == 0);
    for (int i = 0; i < R + W; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECKF(rw_bad == 0, "%ld overlaps with a writer", rw_bad);
    CHECK(rw_value == W * 50);
    CHECKF(max_readers >= 2, "readers never shared the lock (max %ld)",
           max_readers);
}

static void *try_rd(void *arg)
{
    return (void *)(intptr_t)pthread_rwlock_tryrdlock(arg);
}

static void *try_wr(void *arg)
{
    return (void *)(intptr_t)pthread_rwlock_trywrlock(arg);
}

static void *timed_wr(void *arg)
{
    struct timespec ts = abs_after(CLOCK_REALTIME, SP_MS(10));
    int r = pthread_rwlock_timedwrlock(arg, &ts);

    if (r == ETIMEDOUT && sp_walltime() < ts_ns(&ts))
        return (void *)-2;
    return (void *)(intptr_t)r;
}

static void *timed_rd(void *arg)
{
    struct timespec ts = abs_after(CLOCK_REALTIME, SP_MS(10));
    int r = pthread_rwlock_timedrdlock(arg, &ts);

    if (r == ETIMEDOUT && sp_walltime() < ts_ns(&ts))
        return (void *)-2;
    if (r == 0)
        pthread_rwlock_unlock(arg);
    return (void *)(intptr_t)r;
}

TEST(rwlock_try_timed_errors)
{
    pthread_rwlock_t l;

    CHECK(pthread_rwlock_init(&l, NULL) == 0);
    CHECK(pthread_rwlock_unlock(&l) == EPERM);
    CHECK(pthread_rwlock_rdlock(&l) == 0);
    CHECK(pthread_rwlock_tryrdlock(&l) == 0);
    CHECK(from_thread(try_rd, &l) == 0);    /* readers share */
    CHECK(pthread_rwlock_unlock(&l) == 0);  /* that thread's read lock */
    CHECK(from_thread(try_wr, &l) == EBUSY);
    CHECK(from_thread(timed_wr, &l) == ETIMEDOUT);
    CHECK(pthread_rwlock_destroy(&l) == EBUSY);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(pthread_rwlock_wrlock(&l) == 0);
    CHECK(pthread_rwlock_wrlock(&l) == EDEADLK);
    CHECK(pthread_rwlock_rdlock(&l) == EDEADLK);
    CHECK(from_thread(try_rd, &l) == EBUSY);
    CHECK(from_thread(timed_rd, &l) == ETIMEDOUT);
    CHECK(from_thread(try_wr, &l) == EBUSY);
    CHECK(pthread_rwlock_unlock(&l) == 0);
    CHECK(from_thread(timed_rd, &l) == 0);
    CHECK(pthread_rwlock_destroy(&l) == 0);
}

/* ---- barrier ---------------------------------------------------------- */

static pthread_barrier_t bar;
static long phase_count[8], serials, bar_bad;

#define PHASES 8
#define BAR_N 6

static void *bar_thread(void *arg)
{
    for (int p = 0; p < PHASES; p++) {
        __atomic_add_fetch(&phase_count[p], 1, __ATOMIC_ACQ_REL);
        int r = pthread_barrier_wait(&bar);

        if (r == PTHREAD_BARRIER_SERIAL_THREAD)
            __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
        else if (r != 0)
            __atomic_add_fetch(&bar_bad, 1, __ATOMIC_RELAXED);
        /* Past the barrier: all of this phase arrived. */
        if (__atomic_load_n(&phase_count[p], __ATOMIC_ACQUIRE) != BAR_N)
            __atomic_add_fetch(&bar_bad, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

TEST(barrier)
{
    pthread_t t[BAR_N];
    pthread_barrier_t b0;

    CHECK(pthread_barrier_init(&b0, NULL, 0) == EINVAL);
    CHECK(pthread_barrier_init(&bar, NULL, BAR_N) == 0);
    for (int i = 0; i < BAR_N; i++)
        CHECK(pthread_create(&t[i], NULL, bar_thread, NULL) == 0);
    for (int i = 0; i < BAR_N; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECKF(bar_bad == 0, "%ld threads passed a barrier early", bar_bad);
    CHECKF(serials == PHASES, "%ld serial threads in %d phases", serials,
           PHASES);
    CHECK(pthread_barrier_destroy(&bar) == 0);
}

/* ---- spinlock --------------------------------------------------------- */

static pthread_spinlock_t spin;
static long spin_count;

static void *spinner(void *arg)
{
    for (int i = 0; i < 5000; i++) {
        pthread_spin_lock(&spin);
        spin_count++;
        pthread_spin_unlock(&spin);
    }
    return NULL;
}

TEST(spinlock)
{
    int n = 2 * sp_ncpu();
    pthread_t t[16];

    CHECK(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_spin_trylock(&spin) == 0);
    CHECK(pthread_spin_trylock(&spin) == EBUSY);
    CHECK(pthread_spin_destroy(&spin) == EBUSY);
    CHECK(pthread_spin_unlock(&spin) == 0);
    spin_count = 0;
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, spinner, NULL) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(spin_count == 5000L * n);
    CHECK(pthread_spin_destroy(&spin) == 0);
}

int main(void)
{
    return sp_test_main();
}
