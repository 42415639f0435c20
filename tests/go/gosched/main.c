/*
 * gosched - Go's own tests of goroutine scheduling, ported: the
 * scheduler's cases of runtime/proc_test.go and the non-fatal ones of
 * runtime/crash_test.go.  Each case is named after the Go test it ports
 * and keeps that test's assertion; the counts are Go's, or its -short
 * ones (testing.Short()) where noted, so that the image runs in seconds
 * under TCG and under TSan.  runtime.Gosched() is sp_yield().
 *
 * Not ported (Spindle's API cannot express them, or they test something
 * else):
 *   - LockOSThread: Spindle has no OS threads to lock a G to.
 *     TestYieldLocked, TestYieldLockedProgress and TestBlockLocked are
 *     ported without the lock (their traffic and assertion stand);
 *     TestLockOSThreadNesting, TestLockOSThreadExit,
 *     TestLockOSThreadAvoidsStatePropagation,
 *     TestLockOSThreadTemplateThreadRace, TestLockOSThreadVgetrandom and
 *     crash_test.go's TestLockedDeadlock, TestLockedDeadlock2 are not.
 *   - runtime.GOMAXPROCS changes (TestGoroutineParallelism's P = 4,
 *     TestPingPongHog's 1, TestBigGOMAXPROCS, TestStopTheWorldDeadlock):
 *     the core count is fixed at boot; the cases use the count booted
 *     (TestGoroutineParallelism: up to 4 Gs, one a core).
 *   - The garbage collector: TestPreemptionGC, TestGCFairness,
 *     TestGCFairness2, TestPreemptSplitBig (split stacks),
 *     TestStopTheWorldDeadlock, TestTraceSTW.  TestAsyncPreempt's GC, the
 *     thing its spinning Gs must let through, is the main G's own turn.
 *   - TestGoroutineParallelism2's netpoll variant (net.Listen): the
 *     network is tests/net's; the load variants are ported.
 *   - TestTimerFairness2's zero-length syscall.Read: no file descriptors
 *     in the scheduler's tests; the port keeps its selects.
 *   - TestNumGoroutine's comparison with runtime.Stack: no stack dumps;
 *     the count of Gs at start (1) is ported, through sched/export_test.h.
 *   - runtime internals behind export_test.go: TestSchedLocalQueue,
 *     TestSchedLocalQueueSteal, TestSchedLocalQueueEmpty, TestStealOrder
 *     (tests/host/runq_test.c tests Spindle's run queue),
 *     TestGetgThreadSwitch, TestNetpollBreak, TestPreemptionAfterSyscall
 *     (Entersyscall: no system calls in Spindle).
 *   - crash_test.go's fatal paths, each a boot of its own:
 *     TestSimpleDeadlock: tests/go/fatal_deadlock_all_asleep (and
 *     tests/sched/deadlock); TestGoexitDeadlock and TestGoexitCrash:
 *     tests/go/fatal_goexit_deadlock; TestGoNil:
 *     tests/go/fatal_go_nil; TestStackOverflow:
 *     tests/sched/gstack_overflow (Spindle's message, not Go's).
 *     TestInitDeadlock (Go's init()), the panic and recover tests
 *     (TestRecursivePanic*, TestGoexitInPanic, TestGoexitDefer,
 *     TestPanic*), TestThreadExhaustion, TestBreakpoint and the cgo ones
 *     are not portable.
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
#include "sched/export_test.h"


/* Sends *v on c, giving up after WAIT_NS: false then. */
static bool send_wait(sp_chan *c, const void *v)
{
    sp_timer *t = sp_timer_new(WAIT_NS);
    struct sp_case cs[2] = { { c, SP_SEND, (void *)v, false },
                             { sp_timer_chan(t), SP_RECV, NULL, false } };
    int k = sp_select(cs, 2, true);

    sp_timer_free(t);
    return k == 0;
}

static uint32_t load32(const uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void store32(uint32_t *p, uint32_t v)
{
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

/* ---- TestNumGoroutine, TestMainGoroutineID --------------------------- */

/* runtime/proc_test.go (testprog NumGoroutine: 1 at start) */
TEST(TestNumGoroutine)
{
    long n = sched_live_gs();

    CHECKF(n == 1, "want 1 goroutine at start, got %ld", n);
}

/* runtime/crash_test.go (testprog MainGoroutineID) */
TEST(TestMainGoroutineID)
{
    CHECKF(sp_goid() == 1, "main's goroutine id is %lu, want 1",
           (unsigned long)sp_goid());
}

/* ---- TestYieldProgress, TestYieldLockedProgress, TestYieldLocked ----- */

struct yp {
    sp_chan *c, *cack;
};

/* Polls c in a select with a default that yields. */
static void yield_poller(void *arg)
{
    struct yp *y = arg;

    for (;;) {
        struct sp_case cs[1] = { { y->c, SP_RECV, NULL, false } };

        if (sp_select(cs, 1, false) == 0) {
            sp_chan_send(y->cack, &(bool){ true });
            return;
        }
        sp_yield();
    }
}

/* Go's testYieldProgress: a G that yields in a loop still lets main send
   to it (locked: it held its thread, which Spindle has no notion of). */
static void test_yield_progress(void)
{
    struct yp y = { sp_chan_make(sizeof(bool), 0),
                    sp_chan_make(sizeof(bool), 0) };

    CHECK(y.c && y.cack);
    sp_go(yield_poller, &y);
    sp_sleep(SP_MS(10));
    CHECKF(send_wait(y.c, &(bool){ true }), "the yielding G never took c");
    CHECK(recv_wait(y.cack, NULL));
    sp_chan_free(y.c);
    sp_chan_free(y.cack);
}

/* runtime/proc_test.go */
TEST(TestYieldProgress)
{
    test_yield_progress();
}

/* runtime/proc_test.go (without LockOSThread) */
TEST(TestYieldLockedProgress)
{
    test_yield_progress();
}

static void yield_sleeper(void *arg)
{
    for (int i = 0; i < 10; i++) {
        sp_yield();
        sp_sleep(SP_MS(1));
    }
    sp_chan_send(arg, &(bool){ true });
}

/* runtime/proc_test.go (without LockOSThread) */
TEST(TestYieldLocked)
{
    sp_chan *c = sp_chan_make(sizeof(bool), 0);

    CHECK(c);
    sp_go(yield_sleeper, c);
    CHECK(recv_wait(c, NULL));
    sp_chan_free(c);
}

/* ---- TestGoroutineParallelism, TestGoroutineParallelism2 ------------- */

/*
 * P Gs take turns on a counter without blocking or yielding: each spins
 * until the counter reaches its own turn.  They finish only if all P run
 * at the same time (or are preempted); P is the cores there are, up to
 * Go's 4 (Go skips the test on one CPU; here one G runs alone).
 */
#define PAR_N (SP_TSAN || SP_ASAN ? 3 : 10)     /* Go: 10 tries, 3 in -short */

struct par {
    uint32_t x;
    int p, np;
    sp_chan *done;
};

static void par_turns(struct par *s, int p)
{
    for (int i = 0; i < 3; i++) {
        uint32_t expected = (uint32_t)(s->np * i + p);

        while (load32(&s->x) != expected)
            ;
        store32(&s->x, expected + 1);
    }
    sp_chan_send(s->done, &(bool){ true });
}

struct par_arg {
    struct par *s;
    int p;
};

static void par_g(void *arg)
{
    struct par_arg *a = arg;

    par_turns(a->s, a->p);
}

static int par_procs(void)
{
    return sp_ncpu() < 4 ? sp_ncpu() : 4;
}

/* runtime/proc_test.go */
TEST(TestGoroutineParallelism)
{
    int np = par_procs();

    for (int try = 0; try < PAR_N; try++) {
        struct par s = { 0, 0, np, sp_chan_make(sizeof(bool), 0) };
        struct par_arg a[4];

        CHECK(s.done);
        for (int p = 0; p < np; p++) {
            a[p] = (struct par_arg){ &s, p };
            sp_go(par_g, &a[p]);
        }
        for (int p = 0; p < np; p++)
            CHECKF(recv_wait(s.done, NULL), "try %d: %d of %d Gs finished",
                   try, p, np);
        sp_chan_free(s.done);
    }
}

/* The load of testGoroutineParallelism2: P Gs spin until all of them
   run, so that the cores that ran them start parking. */
struct load {
    uint32_t x;
    int np;
    sp_chan *done;
};

static void load_g(void *arg)
{
    struct load *l = arg;

    if (__atomic_add_fetch(&l->x, 1, __ATOMIC_SEQ_CST) == (uint32_t)l->np) {
        sp_chan_send(l->done, &(bool){ true });
        return;
    }
    while (load32(&l->x) != (uint32_t)l->np)
        ;
}

/* The nested spawn of testGoroutineParallelism2: P/2 Gs each start two. */
struct nest {
    struct par *s;
    int p;
    struct par_arg kids[2];
};

static void nest_g(void *arg)
{
    struct nest *n = arg;

    for (int p2 = 0; p2 < 2; p2++) {
        n->kids[p2] = (struct par_arg){ n->s, n->p * 2 + p2 };
        sp_go(par_g, &n->kids[p2]);
    }
}

/* runtime/proc_test.go (the load variants; not netpoll) */
TEST(TestGoroutineParallelism2)
{
    int np = par_procs() & ~1;  /* P/2 pairs */

    if (np == 0)
        np = 1;
    for (int load = 0; load < 2; load++) {
        for (int try = 0; try < PAR_N; try++) {
            struct par s = { 0, 0, np, sp_chan_make(sizeof(bool), 0) };
            struct nest n[2];
            struct par_arg single;

            CHECK(s.done);
            if (load) {
                /* Static: its spinners may read it after main goes on. */
                static struct load l;

                l = (struct load){ 0, np, sp_chan_make(sizeof(bool), 0) };
                CHECK(l.done);
                for (int p = 0; p < np; p++)
                    sp_go(load_g, &l);
                CHECKF(recv_wait(l.done, NULL), "the load never ran");
            }
            if (np == 1) {
                single = (struct par_arg){ &s, 0 };
                sp_go(par_g, &single);
            } else {
                for (int p = 0; p < np / 2; p++) {
                    n[p] = (struct nest){ .s = &s, .p = p };
                    sp_go(nest_g, &n[p]);
                }
            }
            for (int p = 0; p < np; p++)
                CHECKF(recv_wait(s.done, NULL),
                       "load %d try %d: %d of %d Gs finished", load, try, p,
                       np);
            sp_chan_free(s.done);
        }
    }
}

/* ---- TestBlockLocked ------------------------------------------------- */

static void block_sender(void *arg)
{
    for (int i = 0; i < 10; i++)
        sp_chan_send(arg, &(bool){ true });
}

/* runtime/proc_test.go (without LockOSThread) */
TEST(TestBlockLocked)
{
    sp_chan *c = sp_chan_make(sizeof(bool), 0);

    CHECK(c);
    sp_go(block_sender, c);
    for (int i = 0; i < 10; i++)
        CHECK(recv_wait(c, NULL));
}

/* ---- TestTimerFairness, TestTimerFairness2 --------------------------- */

struct tf {
    sp_chan *c, *done, *left;
};

static void tf_sender(void *arg)
{
    struct tf *t = arg;

    for (;;) {
        struct sp_case cs[2] = { { t->c, SP_SEND, &(bool){ true }, false },
                                 { t->done, SP_RECV, NULL, false } };

        if (sp_select(cs, 2, true) == 1)
            break;
    }
    sp_chan_send(t->left, NULL);
}

/* A timer's channel gets its turn in a select whose other case is always
   ready. */

/* runtime/proc_test.go */
TEST(TestTimerFairness)
{
    struct tf t = { sp_chan_make(sizeof(bool), 0), sp_chan_make(0, 0),
                    sp_chan_make(0, 2) };
    sp_timer *timer = sp_timer_new(SP_MS(20));
    uint64_t end = sp_nanotime() + WAIT_NS;

    CHECK(t.c && t.done && t.left && timer);
    for (int i = 0; i < 2; i++)
        sp_go(tf_sender, &t);
    for (;;) {
        struct sp_case cs[2] = {
            { t.c, SP_RECV, NULL, false },
            { sp_timer_chan(timer), SP_RECV, NULL, false },
        };

        if (sp_select(cs, 2, true) == 1)
            break;
        CHECKF(sp_nanotime() < end, "the timer never won the select");
    }
    sp_chan_close(t.done);
    CHECK(recv_wait(t.left, NULL) && recv_wait(t.left, NULL));
    sp_timer_free(timer);
    sp_chan_free(t.c);
    sp_chan_free(t.done);
    sp_chan_free(t.left);
}

static void tf2_g(void *arg)
{
    struct tf *t = arg;
    sp_timer *timer = sp_timer_new(SP_MS(20));
    uint64_t end = sp_nanotime() + WAIT_NS;

    for (;;) {
        struct sp_case cs[3] = {
            { t->c, SP_SEND, &(bool){ true }, false },
            { t->c, SP_RECV, NULL, false },
            { sp_timer_chan(timer), SP_RECV, NULL, false },
        };

        if (sp_select(cs, 3, true) == 2 || sp_nanotime() > end)
            break;
    }
    sp_timer_free(timer);
    sp_chan_send(t->done, &(bool){ sp_nanotime() <= end });
}

/* runtime/proc_test.go (without the zero-length read) */
TEST(TestTimerFairness2)
{
    struct tf t = { sp_chan_make(sizeof(bool), 0),
                    sp_chan_make(sizeof(bool), 0), NULL };
    bool won = false;

    CHECK(t.c && t.done);
    for (int i = 0; i < 2; i++)
        sp_go(tf2_g, &t);
    for (int i = 0; i < 2; i++) {
        CHECK(recv_wait(t.done, &won));
        CHECKF(won, "a G's timer never won its select");
    }
    sp_chan_free(t.c);
    sp_chan_free(t.done);
}

/* ---- TestPreemption -------------------------------------------------- */

/* Go's preempt: a call the compiler keeps (and Go preempts at). */
static __attribute__((noinline)) int preempt_fn(void)
{
    volatile int a[128] = { 0 };
    int sum = 0;

    for (int i = 0; i < 128; i++)
        sum += a[i];
    return sum;
}

struct pre {
    uint32_t x;
    sp_chan *c;
};

static struct pre pre_s;

static void pre_g(void *arg)
{
    uint32_t g = (uint32_t)(uintptr_t)arg;

    for (int i = 0; i < 5; i++) {           /* Go: 5, 2 in -short */
        while (load32(&pre_s.x) != g)
            preempt_fn();
        store32(&pre_s.x, 1 - g);
    }
    sp_chan_send(pre_s.c, &(bool){ true });
}

/* Two Gs that spin waiting for each other finish, even on one core. */

/* runtime/proc_test.go */
TEST(TestPreemption)
{
    pre_s = (struct pre){ 0, sp_chan_make(sizeof(bool), 0) };
    CHECK(pre_s.c);
    for (int g = 0; g < 2; g++)
        sp_go(pre_g, (void *)(uintptr_t)g);
    CHECK(recv_wait(pre_s.c, NULL));
    CHECK(recv_wait(pre_s.c, NULL));
    sp_chan_free(pre_s.c);
}

/* ---- TestAsyncPreempt ------------------------------------------------ */

/*
 * testprog AsyncPreempt: Gs with no safe points at all (a loop of calls,
 * a frameless function, an empty loop) on every core; the runtime must
 * still stop them (Go: for a GC).  Here main must still get its turns:
 * sleep, wake and finish while they spin.  They spin until told to stop,
 * with one more of them than there are cores.
 */
static uint32_t ap_ready, ap_ready2, ap_stop;

static __attribute__((noinline)) void ap_dummy(void)
{
    __asm__ volatile("" ::: "memory");
}

static void ap_calls(void *arg)
{
    while (!__atomic_load_n(&ap_stop, __ATOMIC_RELAXED)) {
        __atomic_store_n(&ap_ready, 1, __ATOMIC_RELAXED);
        ap_dummy();
        ap_dummy();
    }
}

static void ap_empty(void *arg)
{
    __atomic_add_fetch(&ap_ready2, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&ap_stop, __ATOMIC_RELAXED))
        ;
}

/* runtime/proc_test.go (testprog AsyncPreempt) */
TEST(TestAsyncPreempt)
{
    int n = sp_ncpu() + 1;
    uint64_t t0, end;

    ap_ready = ap_ready2 = ap_stop = 0;
    sp_go(ap_calls, NULL);
    for (int i = 1; i < n; i++)
        sp_go(ap_empty, NULL);
    end = sp_nanotime() + WAIT_NS;
    while (!__atomic_load_n(&ap_ready, __ATOMIC_RELAXED) ||
           __atomic_load_n(&ap_ready2, __ATOMIC_RELAXED) < (uint32_t)(n - 1)) {
        CHECKF(sp_nanotime() < end, "the spinning Gs never all started");
        sp_yield();
    }
    /* Every core spins now; main must still be scheduled. */
    t0 = sp_nanotime();
    for (int i = 0; i < 5; i++)
        sp_sleep(SP_MS(1));
    __atomic_store_n(&ap_stop, 1, __ATOMIC_RELAXED);
    CHECKF(sp_nanotime() - t0 < SP_S(10),
           "main slept 5 ms in %lu ms beside the spinners",
           (unsigned long)((sp_nanotime() - t0) / SP_MS(1)));
}

/* ---- TestPingPongHog ------------------------------------------------- */

/*
 * Two hog Gs hand a token to each other and do 10^6 increments a turn,
 * two light Gs do 10^3: each pair hands its core to its buddy within a
 * time slice, so over 100 ms the counts stay within a factor of 20.  Go
 * runs it at GOMAXPROCS 1, where both pairs share a P; Spindle runs it
 * at the cores booted (each pair on its core, or all on one).
 */
struct pph {
    sp_chan *done;
    sp_chan *hog, *light;
    volatile long hog_count, light_count;
    sp_waitgroup wg;
};

struct pph_run {
    struct pph *s;
    long limit;
    volatile long *counter;
    sp_chan *wake;
};

static void pph_run(void *arg)
{
    struct pph_run *r = arg;

    for (;;) {
        struct sp_case cs[2] = { { r->s->done, SP_RECV, NULL, false },
                                 { r->wake, SP_RECV, NULL, false } };

        if (sp_select(cs, 2, true) == 0)
            break;
        for (long i = 0; i < r->limit; i++)
            *r->counter = *r->counter + 1;
        sp_chan_send(r->wake, &(bool){ true });
    }
    sp_waitgroup_done(&r->s->wg);
}

/* runtime/proc_test.go */
TEST(TestPingPongHog)
{
    static struct pph s;
    static struct pph_run runs[4];
    const long factor = 20;
    long hog, light;

    s = (struct pph){ .done = sp_chan_make(0, 0),
                      .hog = sp_chan_make(sizeof(bool), 0),
                      .light = sp_chan_make(sizeof(bool), 0) };
    CHECK(s.done && s.hog && s.light);
    sp_waitgroup_add(&s.wg, 4);
    for (int i = 0; i < 4; i++) {
        runs[i] = i < 2 ? (struct pph_run){ &s, 1000000, &s.hog_count, s.hog }
                        : (struct pph_run){ &s, 1000, &s.light_count,
                                            s.light };
        sp_go(pph_run, &runs[i]);
    }
    sp_chan_send(s.hog, &(bool){ true });
    sp_chan_send(s.light, &(bool){ true });
    sp_sleep(SP_MS(100));
    sp_chan_close(s.done);
    CHECK(recv_wait(s.hog, NULL));
    CHECK(recv_wait(s.light, NULL));
    sp_waitgroup_wait(&s.wg);
    hog = s.hog_count;
    light = s.light_count;
    CHECKF(hog / factor <= light && light / factor <= hog,
           "want hogCount/lightCount in [1/%ld, %ld]; got %ld/%ld", factor,
           factor, hog, light);
    sp_chan_free(s.done);
    sp_chan_free(s.hog);
    sp_chan_free(s.light);
}

int main(void)
{
    return sp_test_main();
}
