/*
 * gosync - Go's own tests of package sync, ported: mutex_test.go,
 * rwmutex_test.go, once_test.go and waitgroup_test.go, on Spindle's
 * sp_mutex, sp_rwmutex, sp_once, sp_waitgroup and sp_sema
 * (include/spindle/sync.h).  Each case is named after the Go test it
 * ports and keeps that test's assertion; the counts are Go's, or its
 * -short ones (testing.Short()) where noted, so that the image runs in
 * seconds under TCG and under TSan.
 *
 * Not ported (Spindle's API cannot express them, or they test something
 * else):
 *   - TestMutexMisuse: each misuse (Mutex.Unlock, Mutex.Unlock2,
 *     RWMutex.Unlock, .Unlock2, .Unlock3, RWMutex.RUnlock, .RUnlock2,
 *     .RUnlock3) is fatal, as in Go's child process, so each is a boot of
 *     its own: tests/go/fatal_unlock_unlocked (the two Mutex ones),
 *     tests/go/fatal_rwmutex_unlock and tests/go/fatal_rwmutex_runlock
 *     (variants of its image).
 *   - TestWaitGroupMisuse (one Done too many): fatal in Spindle, a panic
 *     that cannot be recovered: tests/sched/wg_negative_panic.
 *   - TestWaitGroupMisuse2, TestWaitGroupMisuse3: they recover() the
 *     panics a racing Add or reuse may raise, a million rounds, hoping
 *     for one; a Spindle panic cannot be recovered.
 *   - TestOncePanic: recover() from a panicking Once function.
 *   - TestRWMutex's TryLock and TryRLock checks: sp_rwmutex has neither
 *     (sp_mutex_trylock is ported in TestMutex); the hammering is ported.
 *   - The GOMAXPROCS changes of TestParallelReaders and TestRWMutex
 *     (HammerRWMutex(gomaxprocs, ...)): the core count is fixed at boot;
 *     every reader count Go uses is run at the count booted.
 *   - TestRLocker's Locker interface: the port calls sp_rwmutex_rlock
 *     and runlock, which is what RLocker's Lock and Unlock do.
 *   - TestMutex's SetMutexProfileFraction: no profiler.
 *   - cond_test.go: Spindle has no condition variable.
 *   - oncefunc_test.go (OnceFunc, OnceValue), map_test.go, pool_test.go,
 *     atomic/: not in Spindle's API.
 *   - Benchmarks (Benchmark*).
 */
#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "tests/lib/gotest.h"

/* ---- TestSemaphore --------------------------------------------------- */

static sp_sema sem;
static int sem_inside, sem_bad;

/* Go's HammerSemaphore (with a check that the one unit excludes). */
static void hammer_semaphore(void *arg)
{
    sp_chan *cdone = arg;

    for (int i = 0; i < 1000; i++) {
        sp_sema_acquire(&sem);
        if (__atomic_add_fetch(&sem_inside, 1, __ATOMIC_RELAXED) != 1)
            __atomic_store_n(&sem_bad, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&sem_inside, 1, __ATOMIC_RELAXED);
        sp_sema_release(&sem);
    }
    sp_chan_send(cdone, &(bool){ true });
}

/* sync/mutex_test.go (runtime_Semacquire/Semrelease as sp_sema) */
TEST(TestSemaphore)
{
    sp_chan *c = sp_chan_make(sizeof(bool), 0);

    CHECK(c);
    sp_sema_init(&sem, 1);
    for (int i = 0; i < 10; i++)
        sp_go(hammer_semaphore, c);
    for (int i = 0; i < 10; i++)
        CHECK(recv_wait(c, NULL));
    CHECK(!sem_bad);
    CHECK(sp_sema_tryacquire(&sem) && !sp_sema_tryacquire(&sem));
    sp_chan_free(c);
}

/* ---- TestMutex ------------------------------------------------------- */

static sp_mutex hm;
static long hm_count;

/* Go's HammerMutex: every third round a TryLock instead. */
static void hammer_mutex(void *arg)
{
    sp_chan *cdone = arg;

    for (int i = 0; i < 1000; i++) {
        if (i % 3 == 0) {
            if (sp_mutex_trylock(&hm))
                sp_mutex_unlock(&hm);
            continue;
        }
        sp_mutex_lock(&hm);
        hm_count = hm_count + 1;        /* a plain read-modify-write */
        sp_mutex_unlock(&hm);
    }
    sp_chan_send(cdone, &(bool){ true });
}

/* sync/mutex_test.go */
TEST(TestMutex)
{
    sp_chan *c = sp_chan_make(sizeof(bool), 0);

    CHECK(c);
    sp_mutex_lock(&hm);
    CHECKF(!sp_mutex_trylock(&hm), "TryLock succeeded with mutex locked");
    sp_mutex_unlock(&hm);
    CHECKF(sp_mutex_trylock(&hm), "TryLock failed with mutex unlocked");
    sp_mutex_unlock(&hm);
    hm_count = 0;
    for (int i = 0; i < 10; i++)
        sp_go(hammer_mutex, c);
    for (int i = 0; i < 10; i++)
        CHECK(recv_wait(c, NULL));
    /* The port's own check: 666 locked rounds of each G, none lost. */
    CHECKF(hm_count == 10 * 666, "%ld locked increments, expected %d",
           hm_count, 10 * 666);
    sp_chan_free(c);
}

/* ---- TestMutexFairness ----------------------------------------------- */

struct fair {
    sp_mutex mu;
    sp_chan *stop, *done, *stopped;
};

static void fair_hog(void *arg)
{
    struct fair *f = arg;

    for (;;) {
        sp_mutex_lock(&f->mu);
        sp_sleep(SP_US(100));
        sp_mutex_unlock(&f->mu);
        if (sp_chan_tryrecv(f->stop, NULL, NULL))
            break;
    }
    sp_chan_send(f->stopped, NULL);
}

static void fair_other(void *arg)
{
    struct fair *f = arg;

    for (int i = 0; i < 10; i++) {
        sp_sleep(SP_US(100));
        sp_mutex_lock(&f->mu);
        sp_mutex_unlock(&f->mu);
    }
    sp_chan_send(f->done, &(bool){ true });
}

/* sync/mutex_test.go */
TEST(TestMutexFairness)
{
    static struct fair f;

    f = (struct fair){ SP_MUTEX_INIT, sp_chan_make(0, 0),
                       sp_chan_make(sizeof(bool), 0), sp_chan_make(0, 1) };
    CHECK(f.stop && f.done && f.stopped);
    sp_go(fair_hog, &f);
    sp_go(fair_other, &f);
    CHECKF(sp_chan_recv_timeout(f.done, NULL, SP_S(10), NULL) == 1,
           "can't acquire Mutex in 10 seconds");
    sp_chan_close(f.stop);      /* defer close(stop) */
    CHECK(recv_wait(f.stopped, NULL));
    sp_chan_free(f.stop);
    sp_chan_free(f.done);
    sp_chan_free(f.stopped);
}

/* ---- TestParallelReaders --------------------------------------------- */

struct preaders {
    sp_rwmutex m;
    sp_chan *clocked, *cunlock, *cdone;
};

static void parallel_reader(void *arg)
{
    struct preaders *p = arg;

    sp_rwmutex_rlock(&p->m);
    sp_chan_send(p->clocked, &(bool){ true });
    sp_chan_recv(p->cunlock, NULL);
    sp_rwmutex_runlock(&p->m);
    sp_chan_send(p->cdone, &(bool){ true });
}

/* All numReaders hold the read lock at once: each says so before any is
   let go. */
static void do_test_parallel_readers(int num_readers)
{
    static struct preaders p;

    p = (struct preaders){ SP_RWMUTEX_INIT, sp_chan_make(sizeof(bool), 0),
                           sp_chan_make(sizeof(bool), 0),
                           sp_chan_make(sizeof(bool), 0) };
    CHECK(p.clocked && p.cunlock && p.cdone);
    for (int i = 0; i < num_readers; i++)
        sp_go(parallel_reader, &p);
    for (int i = 0; i < num_readers; i++)
        CHECKF(recv_wait(p.clocked, NULL), "%d readers: only %d got in",
               num_readers, i);
    for (int i = 0; i < num_readers; i++)
        sp_chan_send(p.cunlock, &(bool){ true });
    for (int i = 0; i < num_readers; i++)
        CHECK(recv_wait(p.cdone, NULL));
    sp_chan_free(p.clocked);
    sp_chan_free(p.cunlock);
    sp_chan_free(p.cdone);
}

/* sync/rwmutex_test.go */
TEST(TestParallelReaders)
{
    do_test_parallel_readers(1);        /* Go: at GOMAXPROCS 4 */
    if (sp_test_failed())
        return;
    do_test_parallel_readers(3);        /* 4 */
    if (sp_test_failed())
        return;
    do_test_parallel_readers(4);        /* 2 */
}

/* ---- TestRWMutex ----------------------------------------------------- */

#define RW_ITERS 1000           /* Go: 1000, 5 in -short */

/* Active readers + 10000 * active writers. */
struct hammer {
    sp_rwmutex rwm;
    int activity;
    int bad;                    /* the activity a G saw that it must not */
    sp_chan *cdone;
};

static void spin100(void)
{
    for (volatile int i = 0; i < 100; i++)
        ;
}

static void rw_reader(void *arg)
{
    struct hammer *h = arg;

    for (int i = 0; i < RW_ITERS; i++) {
        int n;

        sp_rwmutex_rlock(&h->rwm);
        n = __atomic_add_fetch(&h->activity, 1, __ATOMIC_SEQ_CST);
        if (n < 1 || n >= 10000)
            __atomic_store_n(&h->bad, n, __ATOMIC_RELAXED);  /* wlock(n) */
        spin100();
        __atomic_sub_fetch(&h->activity, 1, __ATOMIC_SEQ_CST);
        sp_rwmutex_runlock(&h->rwm);
    }
    sp_chan_send(h->cdone, &(bool){ true });
}

static void rw_writer(void *arg)
{
    struct hammer *h = arg;

    for (int i = 0; i < RW_ITERS; i++) {
        int n;

        sp_rwmutex_lock(&h->rwm);
        n = __atomic_add_fetch(&h->activity, 10000, __ATOMIC_SEQ_CST);
        if (n != 10000)
            __atomic_store_n(&h->bad, n, __ATOMIC_RELAXED);
        spin100();
        __atomic_sub_fetch(&h->activity, 10000, __ATOMIC_SEQ_CST);
        sp_rwmutex_unlock(&h->rwm);
    }
    sp_chan_send(h->cdone, &(bool){ true });
}

/* Go's HammerRWMutex: two writers and num_readers readers. */
static void hammer_rwmutex(int gomaxprocs, int num_readers)
{
    static struct hammer h;
    int i;

    h = (struct hammer){ .rwm = SP_RWMUTEX_INIT,
                         .cdone = sp_chan_make(sizeof(bool), 0) };
    CHECK(h.cdone);
    sp_go(rw_writer, &h);
    for (i = 0; i < num_readers / 2; i++)
        sp_go(rw_reader, &h);
    sp_go(rw_writer, &h);
    for (; i < num_readers; i++)
        sp_go(rw_reader, &h);
    for (i = 0; i < 2 + num_readers; i++)
        CHECKF(recv_wait(h.cdone, NULL), "HammerRWMutex(%d, %d) hangs",
               gomaxprocs, num_readers);
    CHECKF(!h.bad, "HammerRWMutex(%d, %d): wlock(%d)", gomaxprocs,
           num_readers, h.bad);
    sp_chan_free(h.cdone);
}

/* sync/rwmutex_test.go */
TEST(TestRWMutex)
{
    static const int runs[][2] = { { 1, 1 },  { 1, 3 },  { 1, 10 },
                                   { 4, 1 },  { 4, 3 },  { 4, 10 },
                                   { 10, 1 }, { 10, 3 }, { 10, 10 },
                                   { 10, 5 } };

    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        hammer_rwmutex(runs[i][0], runs[i][1]);
        if (sp_test_failed())
            return;
    }
}

/* ---- TestRLocker ----------------------------------------------------- */

#define RL_N 10

struct rlocker {
    sp_rwmutex wl;
    sp_chan *wlocked, *rlocked;
};

static void rlocker_g(void *arg)
{
    struct rlocker *r = arg;

    for (int i = 0; i < RL_N; i++) {
        sp_rwmutex_rlock(&r->wl);       /* rl.Lock() */
        sp_rwmutex_rlock(&r->wl);       /* rl.Lock() */
        sp_chan_send(r->rlocked, &(bool){ true });
        sp_rwmutex_lock(&r->wl);
        sp_chan_send(r->wlocked, &(bool){ true });
    }
}

/* sync/rwmutex_test.go */
TEST(TestRLocker)
{
    static struct rlocker r;

    r = (struct rlocker){ SP_RWMUTEX_INIT, sp_chan_make(sizeof(bool), 1),
                          sp_chan_make(sizeof(bool), 1) };
    CHECK(r.wlocked && r.rlocked);
    sp_go(rlocker_g, &r);
    for (int i = 0; i < RL_N; i++) {
        CHECK(recv_wait(r.rlocked, NULL));
        sp_rwmutex_runlock(&r.wl);      /* rl.Unlock() */
        CHECKF(sp_chan_tryrecv(r.wlocked, NULL, NULL) == 0,
               "RLocker() didn't read-lock it");
        sp_rwmutex_runlock(&r.wl);
        CHECK(recv_wait(r.wlocked, NULL));
        CHECKF(sp_chan_tryrecv(r.rlocked, NULL, NULL) == 0,
               "RLocker() didn't respect the write lock");
        sp_rwmutex_unlock(&r.wl);
    }
}

/* ---- TestOnce -------------------------------------------------------- */

static sp_once once;
static int one;

static void increment(void *arg)
{
    (*(int *)arg)++;
}

static void once_run(void *arg)
{
    sp_chan *c = arg;
    bool good;

    sp_once_do(&once, increment, &one);
    good = one == 1;            /* "once failed inside run" otherwise */
    sp_chan_send(c, &good);
}

/* sync/once_test.go */
TEST(TestOnce)
{
    sp_chan *c = sp_chan_make(sizeof(bool), 0);

    CHECK(c);
    for (int i = 0; i < 10; i++)
        sp_go(once_run, c);
    for (int i = 0; i < 10; i++) {
        bool good = false;

        CHECK(recv_wait(c, &good));
        CHECKF(good, "once failed inside run: %d is not 1", one);
    }
    CHECKF(one == 1, "once failed outside run: %d is not 1", one);
    sp_chan_free(c);
}

/* ---- TestWaitGroup --------------------------------------------------- */

struct wgtest {
    sp_waitgroup *wg1, *wg2;
    sp_chan *exited;
};

static void wg_member(void *arg)
{
    struct wgtest *w = arg;

    sp_waitgroup_done(w->wg1);
    sp_waitgroup_wait(w->wg2);
    sp_chan_send(w->exited, &(bool){ true });
}

/* Go's testWaitGroup: a barrier of n Gs, released by wg2 only. */
static void test_wait_group(sp_waitgroup *wg1, sp_waitgroup *wg2)
{
    const int n = 16;
    static struct wgtest w;

    w = (struct wgtest){ wg1, wg2, sp_chan_make(sizeof(bool), n) };
    CHECK(w.exited);
    sp_waitgroup_add(wg1, n);
    sp_waitgroup_add(wg2, n);
    for (int i = 0; i < n; i++)
        sp_go(wg_member, &w);
    sp_waitgroup_wait(wg1);
    for (int i = 0; i < n; i++) {
        CHECKF(sp_chan_tryrecv(w.exited, NULL, NULL) == 0,
               "WaitGroup released group too soon");
        sp_waitgroup_done(wg2);
    }
    for (int i = 0; i < n; i++)     /* blocks if the barrier fails */
        CHECKF(recv_wait(w.exited, NULL), "%d of %d Gs left the barrier", i,
               n);
    sp_chan_free(w.exited);
}

/* sync/waitgroup_test.go */
TEST(TestWaitGroup)
{
    static sp_waitgroup wg1, wg2;

    /* The same test a few times: the barrier stays in a proper state. */
    for (int i = 0; i < 8 && !sp_test_failed(); i++)
        test_wait_group(&wg1, &wg2);
}

/* ---- TestWaitGroupRace ----------------------------------------------- */

struct wgrace {
    sp_waitgroup wg;
    int n;
};

static void wgrace_g(void *arg)
{
    struct wgrace *r = arg;

    __atomic_add_fetch(&r->n, 1, __ATOMIC_SEQ_CST);
    sp_waitgroup_done(&r->wg);
}

/* sync/waitgroup_test.go */
TEST(TestWaitGroupRace)
{
    for (int i = 0; i < 1000; i++) {
        static struct wgrace r;

        r = (struct wgrace){ SP_WAITGROUP_INIT, 0 };
        sp_waitgroup_add(&r.wg, 1);
        sp_go(wgrace_g, &r);
        sp_waitgroup_add(&r.wg, 1);
        sp_go(wgrace_g, &r);
        sp_waitgroup_wait(&r.wg);
        CHECKF(__atomic_load_n(&r.n, __ATOMIC_SEQ_CST) == 2,
               "Spurious wakeup from Wait (round %d)", i);
    }
}

/* ---- TestWaitGroupAlign ---------------------------------------------- */

/* A wait group after a byte in a struct (Go's 64-bit alignment worry). */
static sp_chan *align_c;

struct aligned {
    char x;
    sp_waitgroup wg;
};

static void align_done(void *arg)
{
    sp_waitgroup_done(&((struct aligned *)arg)->wg);
}

static void align_wait(void *arg)
{
    struct aligned *x = arg;

    sp_waitgroup_wait(&x->wg);
    sp_chan_send(align_c, NULL);
}

/* sync/waitgroup_test.go */
TEST(TestWaitGroupAlign)
{
    static struct aligned x;

    align_c = sp_chan_make(0, 1);
    CHECK(align_c);
    sp_waitgroup_add(&x.wg, 1);
    sp_go(align_done, &x);
    sp_go(align_wait, &x);      /* x.wg.Wait(), bounded */
    CHECKF(recv_wait(align_c, NULL), "Wait never returned");
    sp_chan_free(align_c);
}

int main(void)
{
    return sp_test_main();
}
