/*
 * pthread - POSIX threads as Gs (posix/pthread*.c): create and join
 * storms across every core with each return value checked, detached
 * threads, pthread_exit from deep inside, cleanup handlers, keys and
 * their destructors, once under contention, self and equal, __thread
 * variables of each thread its own across cores and main's untouched, a
 * thread using 4 MiB of its stack, attributes, names and the calls
 * accepted without effect; then every G and record given back.
 */
#define _GNU_SOURCE             /* pthread_setname_np, getname_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define WAIT_NS SP_S(20)        /* a waiting loop gives up after 20 s */

/* leak.c: the heap in use before the first case. */
void leak_baseline(void);

/* Yields until *v >= want; false after WAIT_NS. */
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

/* ---- create and join ------------------------------------------------- */

TEST(baseline)
{
    leak_baseline();
}

static void *square(void *arg)
{
    uintptr_t x = (uintptr_t)arg;

    return (void *)(x * x);
}

TEST(create_join_one)
{
    pthread_t t;
    void *ret = NULL;

    CHECK(pthread_create(&t, NULL, square, (void *)7) == 0);
    CHECK(pthread_join(t, &ret) == 0);
    CHECK((uintptr_t)ret == 49);
}

#define STORM 1000
static long storm_cores;        /* bit per core a storm thread ran on */
static long storm_started, storm_wave_end;      /* atomic */

/* Stays until its whole wave has started (or a second passed), yielding,
   so that a wave is 100 live threads for idle cores to steal. */
static void *storm_thread(void *arg)
{
    uint64_t end = sp_nanotime() + SP_S(1);
    int i = 0;

    __atomic_add_fetch(&storm_started, 1, __ATOMIC_RELAXED);
    do {
        __atomic_or_fetch(&storm_cores, 1L << (sp_cpu_id() % 63),
                          __ATOMIC_RELAXED);
        sp_yield();
    } while (++i < 20 ||
             (__atomic_load_n(&storm_started, __ATOMIC_RELAXED) <
              __atomic_load_n(&storm_wave_end, __ATOMIC_RELAXED) &&
              sp_nanotime() < end));
    return square(arg);
}

/* 1000 threads made in waves of 100, each joined with its value. */
TEST(create_join_storm)
{
    static pthread_t t[STORM];
    int ncores = 0;

    for (int base = 0; base < STORM; base += 100) {
        __atomic_store_n(&storm_wave_end, base + 100, __ATOMIC_RELAXED);
        for (int i = base; i < base + 100; i++)
            CHECK(pthread_create(&t[i], NULL, storm_thread,
                                 (void *)(uintptr_t)i) == 0);
        for (int i = base; i < base + 100; i++) {
            void *ret;

            CHECK(pthread_join(t[i], &ret) == 0);
            CHECKF((uintptr_t)ret == (uintptr_t)i * i,
                   "thread %d returned %lu", i, (unsigned long)ret);
        }
    }
    for (long m = storm_cores; m; m &= m - 1)
        ncores++;
    /* Stealing spreads them: at least two cores once there are two. */
    CHECKF(ncores >= (sp_ncpu() > 1 ? 2 : 1), "ran on %d cores of %d",
           ncores, sp_ncpu());
}

/* Threads that make and join threads of their own, on every core. */
static void *spawner(void *arg)
{
    uintptr_t sum = 0;

    for (uintptr_t i = 0; i < 20; i++) {
        pthread_t t;
        void *ret;

        if (pthread_create(&t, NULL, square, (void *)i) ||
            pthread_join(t, &ret))
            return (void *)-1;
        sum += (uintptr_t)ret;
    }
    return (void *)sum;
}

TEST(nested_create_join)
{
    pthread_t t[16];

    for (int i = 0; i < 16; i++)
        CHECK(pthread_create(&t[i], NULL, spawner, NULL) == 0);
    for (int i = 0; i < 16; i++) {
        void *ret;

        CHECK(pthread_join(t[i], &ret) == 0);
        CHECKF((uintptr_t)ret == 2470, "sum %ld", (long)(uintptr_t)ret);
    }
}

/* A thread joined after it exited; join errors. */
TEST(join_after_exit_and_errors)
{
    pthread_t t;
    void *ret;

    CHECK(pthread_create(&t, NULL, square, (void *)3) == 0);
    sp_sleep(SP_MS(5));
    CHECK(pthread_join(t, &ret) == 0);
    CHECK((uintptr_t)ret == 9);
    CHECK(pthread_join(pthread_self(), NULL) == EDEADLK);
}

/* ---- detach ----------------------------------------------------------- */

static long detached_done;

static void *detached_thread(void *arg)
{
    sp_yield();
    __atomic_add_fetch(&detached_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

TEST(detach)
{
    pthread_attr_t a;
    pthread_t t;
    int st;

    detached_done = 0;
    /* Detached by attribute: join refuses it. */
    CHECK(pthread_attr_init(&a) == 0);
    CHECK(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0);
    CHECK(pthread_attr_getdetachstate(&a, &st) == 0 &&
          st == PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < 100; i++)
        CHECK(pthread_create(&t, &a, detached_thread, NULL) == 0);
    pthread_attr_destroy(&a);
    /* Detached while running, and after exiting. */
    for (int i = 0; i < 100; i++) {
        CHECK(pthread_create(&t, NULL, detached_thread, NULL) == 0);
        if (i & 1)
            sp_sleep(SP_US(200));
        CHECK(pthread_detach(t) == 0);
    }
    CHECK(wait_for(&detached_done, 200));
    CHECK(pthread_create(&t, NULL, square, NULL) == 0);
    CHECK(pthread_detach(t) == 0);
}

/* ---- exit from deep inside; cleanup handlers ----------------------- */

static int cleanups[4], ncleanups;

static void cleanup(void *arg)
{
    cleanups[ncleanups++] = (int)(uintptr_t)arg;
}

/* Pushes a handler at each level, then exits from the deepest. */
static void *dive(int depth)
{
    void *(*volatile next)(int) = dive;     /* a call GCC cannot follow */

    if (depth == 0)
        pthread_exit((void *)0xdead);
    pthread_cleanup_push(cleanup, (void *)(uintptr_t)depth);
    next(depth - 1);
    pthread_cleanup_pop(0);
    return NULL;                /* not reached */
}

static void *exit_thread(void *arg)
{
    pthread_cleanup_push(cleanup, (void *)99);
    pthread_cleanup_pop(1);     /* run now, and not again */
    return dive(3);
}

TEST(exit_from_depth)
{
    pthread_t t;
    void *ret;

    ncleanups = 0;
    CHECK(pthread_create(&t, NULL, exit_thread, NULL) == 0);
    CHECK(pthread_join(t, &ret) == 0);
    CHECK((uintptr_t)ret == 0xdead);
    /* innermost first */
    CHECKF(ncleanups == 4 && cleanups[0] == 99 && cleanups[1] == 1 &&
           cleanups[2] == 2 && cleanups[3] == 3, "%d cleanups: %d %d %d %d",
           ncleanups, cleanups[0], cleanups[1], cleanups[2], cleanups[3]);
}

/* ---- keys ------------------------------------------------------------- */

static pthread_key_t key_a, key_b;
static long destructed, destructed_sum, renewed;

static void destroy_a(void *v)
{
    __atomic_add_fetch(&destructed, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&destructed_sum, (long)(uintptr_t)v, __ATOMIC_RELAXED);
}

/* Sets its value again once: the next round destructs it again. */
static void destroy_b(void *v)
{
    if ((uintptr_t)v == 1) {
        __atomic_add_fetch(&renewed, 1, __ATOMIC_RELAXED);
        pthread_setspecific(key_b, (void *)2);
    } else {
        __atomic_add_fetch(&destructed, 1, __ATOMIC_RELAXED);
    }
}

static void *key_thread(void *arg)
{
    uintptr_t i = (uintptr_t)arg;

    if (pthread_getspecific(key_a) != NULL)
        return (void *)1;
    if (pthread_setspecific(key_a, (void *)i) ||
        pthread_setspecific(key_b, (void *)1))
        return (void *)2;
    for (int k = 0; k < 10; k++) {
        sp_yield();             /* and maybe move to another core */
        if (pthread_getspecific(key_a) != (void *)i)
            return (void *)3;
    }
    return NULL;
}

TEST(keys_and_destructors)
{
    pthread_t t[64];
    long want = 0;

    destructed = destructed_sum = renewed = 0;
    CHECK(pthread_key_create(&key_a, destroy_a) == 0);
    CHECK(pthread_key_create(&key_b, destroy_b) == 0);
    CHECK(key_a != key_b);
    for (uintptr_t i = 0; i < 64; i++) {
        CHECK(pthread_create(&t[i], NULL, key_thread, (void *)(i + 1)) == 0);
        want += i + 1;
    }
    for (int i = 0; i < 64; i++) {
        void *ret;

        CHECK(pthread_join(t[i], &ret) == 0);
        CHECKF(ret == NULL, "thread %d failed at step %ld", i, (long)ret);
    }
    /* 64 values of a, and 64 of b destructed in a second round. */
    CHECKF(destructed == 128 && renewed == 64 && destructed_sum == want,
           "destructed %ld renewed %ld sum %ld", destructed, renewed,
           destructed_sum);
    /* main's own value; a deleted key's value is gone, not destructed. */
    CHECK(pthread_setspecific(key_a, (void *)5) == 0);
    CHECK(pthread_getspecific(key_a) == (void *)5);
    CHECK(pthread_key_delete(key_a) == 0);
    CHECK(pthread_key_delete(key_a) == EINVAL);
    CHECK(pthread_setspecific(key_a, (void *)5) == EINVAL);
    CHECK(pthread_key_delete(key_b) == 0);
}

TEST(keys_max)
{
    static pthread_key_t k[PTHREAD_KEYS_MAX];
    pthread_key_t extra;
    int n;

    for (n = 0; n < PTHREAD_KEYS_MAX; n++)
        CHECKF(pthread_key_create(&k[n], NULL) == 0, "key %d", n);
    CHECK(pthread_key_create(&extra, NULL) == EAGAIN);
    for (n = 0; n < PTHREAD_KEYS_MAX; n++)
        CHECK(pthread_setspecific(k[n], (void *)(uintptr_t)(n + 1)) == 0);
    for (n = 0; n < PTHREAD_KEYS_MAX; n++)
        CHECK(pthread_getspecific(k[n]) == (void *)(uintptr_t)(n + 1));
    for (n = 0; n < PTHREAD_KEYS_MAX; n++)
        CHECK(pthread_key_delete(k[n]) == 0);
    /* A new life of an index does not see the old value. */
    CHECK(pthread_key_create(&extra, NULL) == 0);
    CHECK(pthread_getspecific(extra) == NULL);
    CHECK(pthread_key_delete(extra) == 0);
}

/* ---- once ------------------------------------------------------------- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static long once_calls, once_after;

static void once_init(void)
{
    sp_sleep(SP_MS(2));         /* the others must wait for it */
    __atomic_add_fetch(&once_calls, 1, __ATOMIC_RELAXED);
}

static void *once_thread(void *arg)
{
    pthread_once(&once, once_init);
    /* Every caller returns only after the one call returned. */
    if (__atomic_load_n(&once_calls, __ATOMIC_RELAXED) == 1)
        __atomic_add_fetch(&once_after, 1, __ATOMIC_RELAXED);
    return NULL;
}

TEST(once_contended)
{
    pthread_t t[32];

    for (int i = 0; i < 32; i++)
        CHECK(pthread_create(&t[i], NULL, once_thread, NULL) == 0);
    for (int i = 0; i < 32; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(once_calls == 1);
    CHECK(once_after == 32);
}

/* ---- self, equal, names ------------------------------------------ */

static void *self_thread(void *arg)
{
    pthread_t me = pthread_self();

    for (int i = 0; i < 10; i++) {
        sp_yield();
        if (!pthread_equal(pthread_self(), me))
            return (void *)1;
    }
    return me;
}

/* An sp_go G: adopted, same record every time. */
static long adopted_ok;

static void adopted_g(void *arg)
{
    pthread_t a = pthread_self(), b = pthread_self();

    if (a && pthread_equal(a, b) && !pthread_equal(a, *(pthread_t *)arg))
        __atomic_add_fetch(&adopted_ok, 1, __ATOMIC_RELEASE);
}

TEST(self_equal)
{
    pthread_t t[8], main_t = pthread_self();
    char name[16];

    CHECK(main_t != NULL);
    CHECK(pthread_equal(main_t, pthread_self()));
    for (int i = 0; i < 8; i++)
        CHECK(pthread_create(&t[i], NULL, self_thread, NULL) == 0);
    for (int i = 0; i < 8; i++) {
        void *ret;

        CHECK(pthread_join(t[i], &ret) == 0);
        CHECK(ret == (void *)t[i]);
        CHECK(!pthread_equal(t[i], main_t));
    }
    adopted_ok = 0;
    for (int i = 0; i < 20; i++)
        sp_go(adopted_g, &main_t);
    CHECK(wait_for(&adopted_ok, 20));
    /* Names, Linux's 16-byte rule. */
    CHECK(pthread_setname_np(main_t, "main-thread") == 0);
    CHECK(pthread_getname_np(main_t, name, sizeof name) == 0);
    CHECK(strcmp(name, "main-thread") == 0);
    CHECK(pthread_getname_np(main_t, name, 5) == ERANGE);
    CHECK(pthread_setname_np(main_t, "a-name-too-long!") == ERANGE);
}

/* ---- thread-local storage and stacks ------------------------------------ */

static __thread long tls_counter = 7;       /* .tdata */
static __thread char tls_zero[64];          /* .tbss */

#define TLS_THREADS 8
#define TLS_ROUNDS 200

/* Counts in its own copy, yielding and sleeping so that threads share
   and change cores; returns whether its copy stayed its own. */
static void *tls_thread(void *arg)
{
    long id = (long)(uintptr_t)arg;
    bool ok = tls_counter == 7 && tls_zero[0] == 0 && tls_zero[63] == 0;

    tls_counter = id * 1000;
    for (int i = 0; i < TLS_ROUNDS; i++) {
        tls_counter++;
        tls_zero[i % 64] = (char)id;
        if (i % 16 == 0)
            sp_sleep(SP_US(50));
        else
            sched_yield();
        ok = ok && tls_counter == id * 1000 + i + 1 &&
             tls_zero[i % 64] == (char)id;
    }
    return (void *)(uintptr_t)ok;
}

/* A deep stack: 4 MiB of locals touched at both ends, within the
   default 8 MiB. */
static void *deep_thread(void *arg)
{
    static const size_t n = 4u << 20;
    volatile char *big = __builtin_alloca(n);

    big[0] = 1;
    big[n - 1] = 2;
    return (void *)(uintptr_t)(big[0] + big[n - 1]);
}

TEST(thread_local_and_stack)
{
    pthread_t t[TLS_THREADS], d;
    void *ret;
    int ok = 0;

    tls_counter = -1;               /* main's own copy */
    for (long i = 0; i < TLS_THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, tls_thread,
                             (void *)(uintptr_t)(i + 1)) == 0);
    for (int i = 0; i < TLS_THREADS; i++) {
        CHECK(pthread_join(t[i], &ret) == 0);
        ok += ret != NULL;
    }
    CHECKF(ok == TLS_THREADS, "%d of %d threads saw their own __thread "
           "variables throughout", ok, TLS_THREADS);
    CHECK(tls_counter == -1);       /* untouched by the threads */
    CHECK(pthread_create(&d, NULL, deep_thread, NULL) == 0);
    CHECK(pthread_join(d, &ret) == 0 && ret == (void *)3);
}

/* ---- attributes and accepted calls ------------------------------------ */

static void *stack_user(void *arg)
{
    volatile char buf[8192];

    memset((char *)buf, 1, sizeof buf);
    return (void *)(uintptr_t)buf[100];
}

TEST(attributes)
{
    pthread_attr_t a;
    struct sched_param sp = { .sched_priority = 3 };
    size_t n;
    void *addr;
    int v;
    pthread_t t;
    void *ret;

    CHECK(pthread_attr_init(&a) == 0);
    CHECK(pthread_attr_getstacksize(&a, &n) == 0 && n == 8UL << 20);
    CHECK(pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN - 1) == EINVAL);
    CHECK(pthread_attr_setstacksize(&a, 1 << 20) == 0);
    CHECK(pthread_attr_getstacksize(&a, &n) == 0 && n == 1 << 20);
    CHECK(pthread_attr_setguardsize(&a, 8192) == 0);
    CHECK(pthread_attr_getguardsize(&a, &n) == 0 && n == 8192);
    CHECK(pthread_attr_setstack(&a, &v, 65536) == EINVAL);
    CHECK(pthread_attr_getstack(&a, &addr, &n) == 0 && !addr);
    CHECK(pthread_attr_setschedparam(&a, &sp) == 0);
    sp.sched_priority = 0;
    CHECK(pthread_attr_getschedparam(&a, &sp) == 0 && sp.sched_priority == 3);
    CHECK(pthread_attr_setdetachstate(&a, 42) == EINVAL);
    CHECK(pthread_create(&t, &a, stack_user, NULL) == 0);
    CHECK(pthread_join(t, &ret) == 0 && (uintptr_t)ret == 1);
    CHECK(pthread_attr_destroy(&a) == 0);
}

TEST(accepted_calls)
{
    sigset_t set = 1 << 3, old;
    int prev;

    CHECK(sched_yield() == 0);
    CHECK(pthread_kill(pthread_self(), 0) == 0);
    CHECK(pthread_cancel(pthread_self()) == ENOSYS);
    CHECK(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &prev) == 0);
    CHECK(prev == PTHREAD_CANCEL_ENABLE);
    CHECK(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &prev) == 0);
    CHECK(prev == PTHREAD_CANCEL_DISABLE);
    CHECK(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &prev) == 0);
    CHECK(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &prev) == 0);
    CHECK(prev == PTHREAD_CANCEL_ASYNCHRONOUS);
    CHECK(pthread_sigmask(SIG_BLOCK, &set, NULL) == 0);
    CHECK(pthread_sigmask(SIG_SETMASK, NULL, &old) == 0 && old == set);
    CHECK(pthread_sigmask(SIG_UNBLOCK, &set, &old) == 0 && old == set);
    CHECK(pthread_sigmask(SIG_SETMASK, NULL, &old) == 0 && old == 0);
    CHECK(pthread_atfork(NULL, NULL, NULL) == 0);
}

/* Affinity: a set with a core there is accepted, an empty one is not,
   and a thread's reads as every core. */
TEST(affinity)
{
    cpu_set_t s;
    int cpu = sched_getcpu();

    CHECK(cpu >= 0 && cpu < sp_ncpu());
    CPU_ZERO(&s);
    CHECK(CPU_COUNT(&s) == 0);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof s, &s) == EINVAL);
    CPU_SET(0, &s);
    CHECK(CPU_ISSET(0, &s) && !CPU_ISSET(1, &s) && CPU_COUNT(&s) == 1);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0);
    CHECK(sched_setaffinity(0, sizeof s, &s) == 0);
    CPU_CLR(0, &s);
    CPU_SET(CPU_SETSIZE - 1, &s);           /* no such core */
    CHECK(sched_setaffinity(0, sizeof s, &s) == -1 && errno == EINVAL);
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof s, &s) == 0);
    CHECK(CPU_COUNT(&s) == sp_ncpu());
    CHECK(sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) == sp_ncpu());
    CHECK(sched_getaffinity(0, 4, &s) == -1 && errno == EINVAL);
}
