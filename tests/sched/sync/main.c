/*
 * sync - mutex, rwmutex, once, wait group and semaphore
 * (include/spindle/sync.h) under contention from all cores, ending with a
 * check that every G started here has finished.
 */
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include "sched/export_test.h"

#define WAIT_NS 20000000000ULL      /* a waiting loop gives up after 20 s */

/* Yields until *v >= want; false if that took longer than WAIT_NS. */
static bool wait_for(int *v, int want)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
        if (sp_nanotime() > end)
            return false;
        sp_yield();
    }
    return true;
}

static void yield_n(int n)
{
    for (int i = 0; i < n; i++)
        sp_yield();
}

static void busy_ns(uint64_t ns)
{
    uint64_t end = sp_nanotime() + ns;

    while (sp_nanotime() < end)
        ;
}

/* ---- mutex: exclusion from all cores --------------------------------- */

/* Lock operations in all, whatever the core count: under a second with
   multi-threaded TCG on a 2-core host, so a slow host stays in seconds. */
#define MUTEX_TOTAL 1000000

static sp_mutex mu = SP_MUTEX_INIT;
static volatile long counter;
static int inside, mutex_bad, finished;

static void mutex_worker(void *arg)
{
    long n = (long)arg;

    for (long i = 0; i < n; i++) {
        sp_mutex_lock(&mu);
        if (__atomic_add_fetch(&inside, 1, __ATOMIC_RELAXED) != 1)
            mutex_bad = 1;
        counter = counter + 1;          /* a non-atomic read-modify-write */
        __atomic_sub_fetch(&inside, 1, __ATOMIC_RELAXED);
        sp_mutex_unlock(&mu);
        if (i % 97 == 0)
            sp_yield();                 /* mix the Gs up across cores */
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(mutex_exclusion)
{
    int ng = 4 * sp_ncpu();
    long n = MUTEX_TOTAL / ng;

    counter = 0;
    finished = 0;
    mutex_bad = 0;
    for (int i = 0; i < ng; i++)
        sp_go(mutex_worker, (void *)n);
    CHECKF(wait_for(&finished, ng), "%d of %d Gs finished", finished, ng);
    CHECK(!mutex_bad);
    CHECKF(counter == n * ng, "counter %ld, expected %ld", counter, n * ng);
    CHECK(mu.state == 0);
}

/* ---- mutex: trylock, unlock by another G ------------------------------ */

static void unlocker(void *arg)
{
    sp_mutex_unlock(arg);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(mutex_trylock)
{
    sp_mutex m = SP_MUTEX_INIT;

    CHECK(sp_mutex_trylock(&m));
    CHECK(!sp_mutex_trylock(&m));
    sp_mutex_unlock(&m);
    CHECK(sp_mutex_trylock(&m));
    /* As in Go, a mutex is not owned by a G: another may unlock it. */
    finished = 0;
    sp_go(unlocker, &m);
    CHECK(wait_for(&finished, 1));
    sp_mutex_lock(&m);
    sp_mutex_unlock(&m);
    CHECK(m.state == 0);
}

/* ---- mutex: a waiter is not starved by hogs --------------------------- */

static int hog_stop;
static uint64_t waited_ns;
static sp_sema starve_done;

static void hog(void *arg)
{
    uint64_t end = sp_nanotime() + 5 * 1000000000ULL;

    for (int i = 0; !__atomic_load_n(&hog_stop, __ATOMIC_ACQUIRE); i++) {
        sp_mutex_lock(&mu);
        busy_ns(50000);
        sp_mutex_unlock(&mu);
        /* One core must run the others in between; with more, a hog
           lets go of its core only when it waits for the mutex. */
        if (sp_ncpu() == 1 && i % 64 == 0)
            sp_yield();
        if (sp_nanotime() > end)
            break;
    }
    sp_sema_release(&starve_done);
}

static void starving_waiter(void *arg)
{
    uint64_t t0;

    yield_n(3);
    t0 = sp_nanotime();
    sp_mutex_lock(&mu);
    waited_ns = sp_nanotime() - t0;
    __atomic_store_n(&hog_stop, 1, __ATOMIC_RELEASE);
    sp_mutex_unlock(&mu);
    sp_sema_release(&starve_done);
}

/*
 * Starvation mode: a waiter kept out for over 1 ms makes unlock hand the
 * mutex over directly.  Without it, hogs that hold the mutex nearly all
 * the time and relock at once would win nearly every race against the
 * woken waiter.  One hog per core plus one keeps every core busy; main
 * parks meanwhile instead of polling, so it holds no core.
 */
TEST(mutex_starvation)
{
    int nhogs = sp_ncpu() + 1;      /* every core busy */

    hog_stop = 0;
    waited_ns = ~0ULL;
    for (int i = 0; i < nhogs; i++)
        sp_go(hog, NULL);
    sp_go(starving_waiter, NULL);
    for (int i = 0; i <= nhogs; i++)
        sp_sema_acquire(&starve_done);
    CHECKF(hog_stop, "the waiter never got the mutex in 5 s");
    CHECKF(waited_ns < 2000000000ULL, "the waiter waited %lu ms",
           (unsigned long)(waited_ns / 1000000));
    CHECK(mu.state == 0);
}

/* ---- rwmutex: readers share ------------------------------------------- */

static sp_rwmutex rw = SP_RWMUTEX_INIT;
static int readers_in, readers_saw_all;

static void sharing_reader(void *arg)
{
    int want = (int)(long)arg;

    sp_rwmutex_rlock(&rw);
    __atomic_add_fetch(&readers_in, 1, __ATOMIC_ACQ_REL);
    /* Every reader waits inside until all are inside at once. */
    if (wait_for(&readers_in, want))
        __atomic_add_fetch(&readers_saw_all, 1, __ATOMIC_RELAXED);
    sp_rwmutex_runlock(&rw);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(rwmutex_readers_share)
{
    int nr = 2 * sp_ncpu() + 2;

    readers_in = readers_saw_all = finished = 0;
    for (int i = 0; i < nr; i++)
        sp_go(sharing_reader, (void *)(long)nr);
    CHECK(wait_for(&finished, nr));
    CHECKF(readers_saw_all == nr, "%d of %d readers saw all inside",
           readers_saw_all, nr);
}

/* ---- rwmutex: a writer excludes readers and writers -------------------- */

#define RW_TOTAL 400000

static int rw_readers, rw_writers, rw_bad;
static long rw_a, rw_b, rw_writes;

static void rw_worker(void *arg)
{
    long n = (long)arg;

    for (long i = 0; i < n; i++) {
        if (i % 8 == 0) {
            sp_rwmutex_lock(&rw);
            if (__atomic_add_fetch(&rw_writers, 1, __ATOMIC_RELAXED) != 1 ||
                __atomic_load_n(&rw_readers, __ATOMIC_RELAXED) != 0)
                rw_bad = 1;
            rw_a++;
            rw_writes++;
            rw_b++;
            __atomic_sub_fetch(&rw_writers, 1, __ATOMIC_RELAXED);
            sp_rwmutex_unlock(&rw);
        } else {
            sp_rwmutex_rlock(&rw);
            __atomic_add_fetch(&rw_readers, 1, __ATOMIC_RELAXED);
            if (__atomic_load_n(&rw_writers, __ATOMIC_RELAXED) != 0 ||
                *(volatile long *)&rw_a != *(volatile long *)&rw_b)
                rw_bad = 2;
            __atomic_sub_fetch(&rw_readers, 1, __ATOMIC_RELAXED);
            sp_rwmutex_runlock(&rw);
        }
        if (i % 61 == 0)
            sp_yield();
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(rwmutex_writer_excludes)
{
    int ng = 2 * sp_ncpu();
    long n = RW_TOTAL / ng, writes = ng * ((n + 7) / 8);

    finished = rw_bad = 0;
    rw_a = rw_b = rw_writes = 0;
    for (int i = 0; i < ng; i++)
        sp_go(rw_worker, (void *)n);
    CHECKF(wait_for(&finished, ng), "%d of %d Gs finished", finished, ng);
    CHECKF(!rw_bad, "%s", rw_bad == 1 ? "a writer had company"
                                      : "a reader ran beside a writer");
    CHECKF(rw_writes == writes && rw_a == writes && rw_b == writes,
           "%ld writes, expected %ld", rw_writes, writes);
}

/* ---- rwmutex: a waiting writer holds off new readers ------------------- */

static int stage;                   /* 1 writer in, 2 late reader in */
static int late_reader_saw;

static void pending_writer(void *arg)
{
    sp_rwmutex_lock(&rw);
    __atomic_store_n(&stage, 1, __ATOMIC_RELEASE);
    yield_n(5);
    sp_rwmutex_unlock(&rw);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

static void late_reader(void *arg)
{
    sp_rwmutex_rlock(&rw);
    late_reader_saw = __atomic_load_n(&stage, __ATOMIC_ACQUIRE);
    __atomic_store_n(&stage, 2, __ATOMIC_RELEASE);
    sp_rwmutex_runlock(&rw);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(rwmutex_writer_preference)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    finished = stage = 0;
    late_reader_saw = -1;
    sp_rwmutex_rlock(&rw);
    sp_go(pending_writer, NULL);
    /* The writer has announced itself once readercount goes negative. */
    while (__atomic_load_n(&rw.readercount, __ATOMIC_ACQUIRE) >= 0) {
        CHECK(sp_nanotime() < end);
        sp_yield();
    }
    sp_go(late_reader, NULL);
    yield_n(20);
    CHECKF(stage == 0, "stage %d while a reader still holds rw", stage);
    sp_rwmutex_runlock(&rw);            /* the writer, then the reader */
    CHECK(wait_for(&finished, 2));
    CHECKF(late_reader_saw == 1, "the late reader got in before the "
           "waiting writer (saw stage %d)", late_reader_saw);
}

/* ---- once: exactly one call, and everybody waits for it ---------------- */

#define ONCE_CALLERS 100

static sp_once once = SP_ONCE_INIT;
static int once_calls, once_done, once_early;

static void once_fn(void *arg)
{
    __atomic_add_fetch(&once_calls, 1, __ATOMIC_RELAXED);
    yield_n(20);                        /* the other callers pile up */
    __atomic_store_n(&once_done, 1, __ATOMIC_RELEASE);
}

static void once_caller(void *arg)
{
    sp_once_do(&once, once_fn, NULL);
    if (!__atomic_load_n(&once_done, __ATOMIC_ACQUIRE))
        __atomic_add_fetch(&once_early, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(once_exactly_once)
{
    finished = 0;
    for (int i = 0; i < ONCE_CALLERS; i++)
        sp_go(once_caller, NULL);
    CHECK(wait_for(&finished, ONCE_CALLERS));
    CHECKF(once_calls == 1, "fn ran %d times", once_calls);
    CHECKF(once_early == 0, "%d callers returned before fn did", once_early);
    sp_once_do(&once, once_fn, NULL);
    CHECK(once_calls == 1);
}

/* ---- wait group: 1,000 Gs ---------------------------------------------- */

#define WG_GS 1000

static sp_waitgroup wg = SP_WAITGROUP_INIT;
static int wg_ran;

static void wg_worker(void *arg)
{
    if ((long)arg % 3 == 0)
        sp_yield();
    __atomic_add_fetch(&wg_ran, 1, __ATOMIC_RELAXED);
    sp_waitgroup_done(&wg);
}

static void wg_waiter(void *arg)
{
    sp_waitgroup_wait(&wg);
    if (__atomic_load_n(&wg_ran, __ATOMIC_RELAXED) != WG_GS)
        __atomic_store_n(&mutex_bad, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(waitgroup_1000)
{
    sp_waitgroup_wait(&wg);             /* zero: returns at once */
    for (int round = 0; round < 2; round++) {
        wg_ran = finished = mutex_bad = 0;
        sp_waitgroup_add(&wg, WG_GS);
        for (int i = 0; i < 3; i++)
            sp_go(wg_waiter, NULL);     /* more waiters than main */
        for (long i = 0; i < WG_GS; i++)
            sp_go(wg_worker, (void *)i);
        sp_waitgroup_wait(&wg);
        CHECKF(wg_ran == WG_GS, "round %d: wait returned after %d of %d",
               round, wg_ran, WG_GS);
        CHECK(wait_for(&finished, 3));
        CHECK(!mutex_bad);
        CHECK(wg.state == 0);
    }
}

/* ---- semaphore: at most n inside --------------------------------------- */

#define SEMA_UNITS 3
#define SEMA_ROUNDS 3000

static sp_sema sem = SP_SEMA_INIT(SEMA_UNITS);
static int sem_in, sem_max;

static void sema_worker(void *arg)
{
    for (int i = 0; i < SEMA_ROUNDS; i++) {
        int in;

        sp_sema_acquire(&sem);
        in = __atomic_add_fetch(&sem_in, 1, __ATOMIC_RELAXED);
        for (int m = __atomic_load_n(&sem_max, __ATOMIC_RELAXED); in > m;)
            if (__atomic_compare_exchange_n(&sem_max, &m, in, false,
                                            __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
                break;
        if (i % 4 == 0)
            sp_yield();
        __atomic_sub_fetch(&sem_in, 1, __ATOMIC_RELAXED);
        sp_sema_release(&sem);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

TEST(sema_counts)
{
    int ng = 4 * sp_ncpu();

    finished = sem_max = 0;
    for (int i = 0; i < ng; i++)
        sp_go(sema_worker, NULL);
    CHECK(wait_for(&finished, ng));
    CHECKF(sem_max <= SEMA_UNITS, "%d Gs inside at once", sem_max);
    for (int i = 0; i < SEMA_UNITS; i++)
        CHECK(sp_sema_tryacquire(&sem));
    CHECK(!sp_sema_tryacquire(&sem));
    for (int i = 0; i < SEMA_UNITS; i++)
        sp_sema_release(&sem);
    sp_sema_init(&sem, 0);
    CHECK(!sp_sema_tryacquire(&sem));
}

/* ---- zero-initialized objects work --------------------------------------- */

static sp_mutex zm = { 0 };
static sp_rwmutex zrw = { 0 };
static sp_once zo = { 0 };
static sp_waitgroup zwg = { 0 };
static sp_sema zs = { 0 };

static void count_call(void *arg)
{
    (*(int *)arg)++;
}

TEST(zero_values)
{
    int calls = 0;

    sp_mutex_lock(&zm);
    sp_mutex_unlock(&zm);
    sp_rwmutex_rlock(&zrw);
    sp_rwmutex_rlock(&zrw);
    sp_rwmutex_runlock(&zrw);
    sp_rwmutex_runlock(&zrw);
    sp_rwmutex_lock(&zrw);
    sp_rwmutex_unlock(&zrw);
    sp_once_do(&zo, count_call, &calls);
    sp_once_do(&zo, count_call, &calls);
    CHECK(calls == 1);
    sp_waitgroup_add(&zwg, 1);
    sp_waitgroup_done(&zwg);
    sp_waitgroup_wait(&zwg);
    CHECK(!sp_sema_tryacquire(&zs));
    sp_sema_release(&zs);
    sp_sema_acquire(&zs);
}

/* ---- every G started by this app has finished ------------------------- */

TEST(leak_check)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    while (sched_live_gs() > 1 && sp_nanotime() < end)
        sp_yield();
    CHECKF(sched_live_gs() == 1, "%ld Gs alive, expected only main",
           sched_live_gs());
}

int main(void)
{
    return sp_test_main();
}
