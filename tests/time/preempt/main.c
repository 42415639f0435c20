/*
 * preempt - timer-interrupt preemption, booted with quantum=1 (test.conf):
 * floating-point and SIMD state survive being preempted mid-computation,
 * bit for bit, and code with preemption off or a spinlock held is never
 * preempted there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "tests/lib/testutil.h"
#include "tests/lib/timeutil.h"

/* ---- FP and SIMD state across preemption ------------------------------ */

/*
 * fp_work(seed, iters, out) computes with FP and vector registers live
 * across a long loop, in a rounding mode picked by the seed, and
 * fp_equal compares two results bit for bit, control register included
 * (FP_CSR_NAME names it).  One version per arch.
 */
#if defined(__aarch64__)
#include "fp_aarch64.h"
#else
#include "fp_x86_64.h"
#endif

#define FP_RUN SP_MS(200)       /* each G's computation, about */
#define MAXFP (2 * MAXCPU)

struct fpjob {
    int seed;
    long iters;
    struct fpres want, got;
    int cpu0, cpu1;             /* where it started and ended */
};

static struct fpjob *jobs;
static sp_waitgroup fp_wg;

static void fp_g(void *arg)
{
    struct fpjob *j = arg;

    j->cpu0 = sp_cpu_id();
    fp_work(j->seed, j->iters, &j->got);
    j->cpu1 = sp_cpu_id();
    sp_waitgroup_done(&fp_wg);
}

static struct spinlock ref_lock = SPINLOCK_INIT(LOCK_TEST);

/* fp_work with interrupts off: nothing can preempt it, or slow it. */
static uint64_t fp_work_alone(int seed, long iters, struct fpres *out)
{
    unsigned long f = spin_lock(&ref_lock);
    uint64_t t0 = sp_nanotime();

    fp_work(seed, iters, out);
    t0 = sp_nanotime() - t0;
    spin_unlock(&ref_lock, f);
    return t0;
}

TEST(fp_survives_preemption)
{
    int n = 2 * sp_ncpu(), bad = -1, moved = 0;
    uint64_t t0, t1, np0, np1, dt;
    long iters = 20000;
    struct fpres tmp;

    jobs = calloc(n, sizeof *jobs);
    CHECK(jobs);
    /* How many iterations make FP_RUN, and the reference results, before
       any concurrency and with interrupts off. */
    dt = fp_work_alone(0, iters, &tmp);
    iters = iters * (FP_RUN / (dt + 1));
    if (iters < 20000)
        iters = 20000;
    if (iters > 20000000)
        iters = 20000000;
    for (int i = 0; i < n; i++) {
        jobs[i].seed = i;
        jobs[i].iters = iters;
        fp_work_alone(i, iters, &jobs[i].want);
    }
    np0 = npreempt_all();
    sp_waitgroup_add(&fp_wg, n);
    t0 = sp_nanotime();
    for (int i = 0; i < n; i++)
        sp_go(fp_g, &jobs[i]);
    sp_waitgroup_wait(&fp_wg);
    t1 = sp_nanotime();
    np1 = npreempt_all();
    for (int i = 0; i < n; i++) {
        if (bad < 0 && !fp_equal(&jobs[i].want, &jobs[i].got))
            bad = i;
        moved += jobs[i].cpu0 != jobs[i].cpu1;
    }
    printf("# %d FP Gs of %ld iterations on %d cores: %llu ms, %llu "
           "preemptions, %d Gs ended on another core\n", n, iters, sp_ncpu(),
           (unsigned long long)(t1 - t0) / 1000000,
           (unsigned long long)(np1 - np0), moved);
    if (bad >= 0) {
        struct fpjob j = jobs[bad];
        uint64_t got, want;

        memcpy(&got, &j.got.x, 8);
        memcpy(&want, &j.want.x, 8);
        free(jobs);
        CHECKF(false, "G %d's results differ from the reference: x bits "
               "%llx, want %llx; " FP_CSR_NAME " %x, want %x", bad,
               (unsigned long long)got, (unsigned long long)want,
               j.got.csr, j.want.csr);
    }
    free(jobs);
    /* Each G computed for about 200 ms with a 1 ms quantum. */
    CHECKF(np1 - np0 >= (uint64_t)n, "only %llu preemptions while %d Gs "
           "computed for %llu ms with a %llu us quantum",
           (unsigned long long)(np1 - np0), n,
           (unsigned long long)(t1 - t0) / 1000000,
           (unsigned long long)quantum_ns() / 1000);
}

/* ---- no preemption with preemption off or a spinlock held ------------- */

/*
 * Each region spins for 3 quanta.  Only the G running on a core can be
 * preempted on that core's M, and a G moves to another core only by
 * being preempted, so inside the region the core must stay the same and
 * its npreempt must not move.  After the region the G must be preempted
 * soon: the region really was long enough to be.  One G per core does
 * this at once, beside one plain hog per core, so that a preemption
 * would have somewhere to go.
 */
#define REGION_QUANTA 3
#define AFTER_QUANTA 100

enum region { R_PREEMPTOFF, R_SPINLOCK };

struct regions {
    enum region kind;
    long bad, never, done;
    char why[120];
    uint64_t end;               /* hogs stop */
    int nlocks;                 /* region_locks handed out */
};

static struct spinlock region_locks[MAXCPU];      /* one per region G */

static void region_fail(struct regions *r, const char *fmt, int a, int b)
{
    if (!__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED))
        snprintf(r->why, sizeof r->why, fmt, a, b);
}

static void in_region(void *arg)
{
    struct regions *r = arg;
    uint64_t q = quantum_ns();

    struct spinlock *l = &region_locks[__atomic_fetch_add(&r->nlocks, 1,
                                                          __ATOMIC_RELAXED)];

    for (int round = 0; round < 5; round++) {
        int me, now_on;
        uint64_t np, end;
        unsigned long f = 0;

        if (r->kind == R_SPINLOCK)
            f = spin_lock(l);
        else
            getg()->preemptoff++;
        me = sp_cpu_id();       /* settled now */
        np = npreempt_on(me);
        end = sp_nanotime() + REGION_QUANTA * q;
        while (sp_nanotime() < end) {
            if ((now_on = sp_cpu_id()) != me) {
                region_fail(r, "moved from core %d to %d inside the "
                            "region", me, now_on);
                break;
            }
            if (npreempt_on(me) != np) {
                region_fail(r, "preempted on core %d inside the region "
                            "(round %d)", me, round);
                break;
            }
        }
        if (r->kind == R_SPINLOCK)
            spin_unlock(l, f);
        else
            getg()->preemptoff--;
        /* Out of the region: the slice is long over.  (100 quanta: the
           host may hold a vCPU's timer interrupt back for tens of ms.) */
        end = sp_nanotime() + AFTER_QUANTA * q;
        while (sp_cpu_id() == me && npreempt_on(me) == np &&
               sp_nanotime() < end)
            ;
        if (sp_cpu_id() == me && npreempt_on(me) == np)
            __atomic_add_fetch(&r->never, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&r->done, 1, __ATOMIC_RELEASE);
}

static void plain_hog(void *arg)
{
    struct regions *r = arg;

    while (sp_nanotime() < r->end)
        ;
    __atomic_add_fetch(&r->done, 1, __ATOMIC_RELEASE);
}

static void region_case(enum region kind)
{
    struct regions r = { .kind = kind };
    int n = sp_ncpu();

    for (int i = 0; i < MAXCPU; i++)
        region_locks[i] = (struct spinlock)SPINLOCK_INIT(LOCK_TEST);
    r.end = sp_nanotime() + SP_MS(300);
    for (int i = 0; i < n; i++) {
        sp_go(in_region, &r);
        sp_go(plain_hog, &r);
    }
    CHECKF(wait_count(&r.done, 2 * n, SP_S(20)), "%ld of %d Gs finished",
           r.done, 2 * n);
    CHECKF(r.bad == 0, "%ld of %d regions were preempted; first: %s",
           r.bad, 5 * n, r.why);
    CHECKF(r.never == 0, "%ld of %d regions were not followed by a "
           "preemption within %d quanta", r.never, 5 * n, AFTER_QUANTA);
}

TEST(preemptoff_region)
{
    region_case(R_PREEMPTOFF);
}

TEST(spinlock_region)
{
    region_case(R_SPINLOCK);
}

/* ---- a late interrupt is counted --------------------------------------- */

static long late_fired;

static void note_fired(void *arg)
{
    __atomic_add_fetch((long *)arg, 1, __ATOMIC_RELEASE);
}

/*
 * A timer due in 0.5 ms, then interrupts off for 3 ms on its core: its
 * interrupt arrives 2.5 ms late, and sp_timer_irqs_late counts it.
 */
TEST(late_irq_counted)
{
    static struct timer t;      /* static: it may fire after a failure */
    uint64_t before = sp_timer_irqs_late(), hz = arch_cycles_hz(), t0, end;
    unsigned long f;

    late_fired = 0;
    timer_init(&t, note_fired, &late_fired);
    f = arch_irq_save();
    t0 = arch_cycles();
    timer_start(&t, t0 + hz / 2000, 0);
    while (arch_cycles() < t0 + 3 * hz / 1000)
        arch_cpu_relax();
    arch_irq_restore(f);
    CHECKF(wait_count(&late_fired, 1, SP_S(5)), "the timer did not fire");
    /* Another core may have run the timer (an idle one runs every P's)
       before this core's interrupt, which the host may hold back too,
       came in: wait for it. */
    end = sp_nanotime() + SP_S(5);
    while (sp_timer_irqs_late() == before && sp_nanotime() < end)
        sp_sleep(SP_US(100));
    CHECKF(sp_timer_irqs_late() > before, "an interrupt 2.5 ms late was "
           "not counted in 5 s (count %llu before and after)",
           (unsigned long long)before);
}

TEST(quantum_is_1ms)
{
    CHECKF(quantum_ns() == SP_MS(1), "booted with a %llu us quantum; the "
           "test.conf asks for quantum=1",
           (unsigned long long)quantum_ns() / 1000);
}

/* ---- a yield that hands its core to a preempted G --------------------- */

/*
 * A G that yields may switch straight to the G at the head of its P's
 * ring (the direct hand-off, sched/proc.c), which then finishes the yield
 * (puts the yielder back in the ring) when it resumes.  A G that was
 * preempted resumes inside the timer interrupt, so that is one of the
 * places that must finish it.  Gs that each spin past their slice
 * (preempted into the global queue, then refilled into the rings in
 * batches) and then yield make yielders switch to preempted Gs over and
 * over; a yield left unfinished loses its G, and the count never
 * completes.
 */
#define SPIN_YIELD_ROUNDS 20

static void spin_yield_g(void *arg)
{
    long *done = arg;
    uint64_t spin = quantum_ns() * 3 / 2;

    for (int i = 0; i < SPIN_YIELD_ROUNDS; i++) {
        uint64_t end = sp_nanotime() + spin;

        while (sp_nanotime() < end)
            ;
        sp_yield();
    }
    __atomic_add_fetch(done, 1, __ATOMIC_RELEASE);
}

TEST(yield_to_preempted)
{
    int n = 3 * sp_ncpu();
    uint64_t np = npreempt_all();
    long done = 0;

    for (int i = 0; i < n; i++)
        sp_go(spin_yield_g, &done);
    CHECKF(wait_count(&done, n, SP_S(30)), "%ld of %d spinning and "
           "yielding Gs finished (a G lost in a yield?)", done, n);
    CHECKF(npreempt_all() - np >= (uint64_t)n, "only %llu preemptions "
           "for %d Gs spinning 1.5 quanta at a time",
           (unsigned long long)(npreempt_all() - np), n);
}

/* ---- the FP control word across voluntary switches -------------------- */

/*
 * A preempted G gets its control word back from the trap frame; one that
 * yields gets it from arch_switch's frame only.  Gs of both rounding
 * modes yield to each other on every core, and each checks its mode, and
 * a division whose last bit depends on it, after every yield.
 */
#define CSR_YIELDS 300

static long csr_bad;
static sp_waitgroup csr_wg;

/* 1/10 in the current rounding mode.  Out of line and opaque: without
   -frounding-math the compiler would move or merge the division across
   the mode change. */
static __attribute__((noipa)) double tenth(void)
{
    volatile double one = 1.0, ten = 10.0;

    return one / ten;
}

static void csr_g(void *arg)
{
    bool zero = (uintptr_t)arg % 2;
    uint32_t saved = fp_csr_get(), mine = fp_csr_round(saved, zero);
    double want;

    fp_csr_set(mine);
    want = tenth();
    for (int k = 0; k < CSR_YIELDS; k++) {
        sp_yield();
        if (fp_csr_get() != mine || tenth() != want) {
            __atomic_add_fetch(&csr_bad, 1, __ATOMIC_RELAXED);
            break;
        }
    }
    fp_csr_set(saved);
    sp_waitgroup_done(&csr_wg);
}

TEST(fp_csr_survives_yield)
{
    int n = 4 * sp_ncpu();
    uint32_t saved = fp_csr_get();
    double nearest, zero;

    /* The two modes must give different bits, or the check is blind. */
    fp_csr_set(fp_csr_round(saved, true));
    zero = tenth();
    fp_csr_set(fp_csr_round(saved, false));
    nearest = tenth();
    fp_csr_set(saved);
    CHECKF(zero != nearest, "1/10 rounds the same in both modes");
    csr_bad = 0;
    sp_waitgroup_add(&csr_wg, n);
    for (int i = 0; i < n; i++)
        sp_go(csr_g, (void *)(uintptr_t)i);
    sp_waitgroup_wait(&csr_wg);
    CHECKF(csr_bad == 0, "%ld of %d Gs found another G's " FP_CSR_NAME
           " (or its rounding) after a yield", csr_bad, n);
    CHECKF(fp_csr_get() == saved, FP_CSR_NAME " of main changed");
}

TEST(all_freed)
{
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
