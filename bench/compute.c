/*
 * compute.c - the workloads where Gs do real work and the scheduler has
 * to spread it over the cores: fork-join fib and skewed spawning.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include "bench.h"

/* ---- fib: fork-join fib(32) ------------------------------------------ */

#define FIB_N       32
#define FIB_CUTOFF  20          /* at or below: plain recursion in the G */
#define FIB_WANT    2178309     /* fib(32) */

/* noinline: as in Go, the recursion stays one call per level instead of
   being inlined into itself several levels deep. */
__attribute__((noinline)) static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

struct fibcall {
    int n;
    long result;
    sp_waitgroup *wg;
};

static long fib_par(int n);

static void fib_g(void *arg)
{
    struct fibcall *c = arg;

    c->result = fib_par(c->n);
    sp_waitgroup_done(c->wg);
}

/*
 * As the Go version would: a call with n above the cutoff runs both its
 * halves as child Gs and waits for them; below it recursion is sequential.
 * The children's frames live on this G's stack, which outlives them.
 */
static long fib_par(int n)
{
    sp_waitgroup wg = SP_WAITGROUP_INIT;
    struct fibcall a = { n - 1, 0, &wg }, b = { n - 2, 0, &wg };

    if (n <= FIB_CUTOFF)
        return fib_seq(n);
    sp_waitgroup_add(&wg, 2);
    sp_go(fib_g, &a);
    sp_go(fib_g, &b);
    sp_waitgroup_wait(&wg);
    return a.result + b.result;
}

bool bench_fib(double out[NFIG])
{
    uint64_t t0 = sp_nanotime();
    long r = fib_par(FIB_N);

    out[0] = since(t0) / 1e6;
    out[1] = bench_fib1_ms > 0 ? bench_fib1_ms / out[0] : NAN;
    if (r != FIB_WANT) {
        printf("# ERROR fib: fib(%d) = %ld, want %d\n", FIB_N, r, FIB_WANT);
        return false;
    }
    return true;
}

/* ---- skew: one spawner, 20,000 tasks of ~50 us ----------------------- */

#define SKEW_TASKS  20000
#define SKEW_NS     50000       /* CPU per task */

static uint64_t skew_iters;     /* burn(skew_iters) takes about SKEW_NS */

static void burn(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile("" : : "r"(i));       /* keeps every iteration */
}

/*
 * Calibrates on main's core while the others are idle: doubles the count
 * until a run takes 2 ms, after one untimed run (under QEMU the first
 * pass also pays for translating the loop), then keeps the fastest of 20
 * runs.  A slower run was interrupted, or its vCPU lost the host CPU to
 * another process for a while; the fastest is the loop's real speed.
 * The tasks time themselves (below), so a calibration that is off makes
 * them longer or shorter than 50 us but does not bias skew_eff.
 */
void skew_calibrate(void)
{
    uint64_t n = 1000;
    double t, best;

    burn(n);
    for (;;) {
        uint64_t t0 = sp_nanotime();

        burn(n);
        t = since(t0);
        if (t >= 2e6)
            break;
        n *= 2;
    }
    best = t;
    for (int i = 0; i < 20; i++) {
        uint64_t t0 = sp_nanotime();

        burn(n);
        t = since(t0);
        if (t < best)
            best = t;
    }
    skew_iters = (uint64_t)(n * (SKEW_NS / best));
    printf("# skew: spin loop calibrated on one core: %llu iterations "
           "= %d us (fastest of 20 runs of %.1f ms)\n",
           (unsigned long long)skew_iters, SKEW_NS / 1000, best / 1e6);
}

/*
 * What a task costs is measured, not assumed: each task times its loop,
 * and skew_eff counts every task as its own loop time, capped at twice
 * the median of those times.  The calibrated 50 us would be wrong
 * whenever QEMU's vCPUs run at another speed than at calibration.  The
 * median alone is wrong under TCG too: there the same loop runs at two
 * speeds about 1.4x apart, task by task (also in a plain loop of timed
 * burns on one core, with no scheduling in between), so counting every
 * task as the median miscounts them all (at one core it gave 1.10).
 * The cap keeps out what is not the task's CPU: a task whose vCPU lost
 * the host CPU for a while, or one preempted mid-loop (which cannot
 * happen at the default 10 ms quantum).
 */
struct skew {
    struct countdown cd;
    uint64_t *task_ns;          /* each task's loop time, in finish order */
    long ndone;                 /* atomic: the next free task_ns slot */
    long *per_core;             /* atomic: tasks run on each core */
};

static void skew_task(void *arg)
{
    struct skew *s = arg;
    uint64_t t0 = sp_nanotime(), t;

    burn(skew_iters);
    t = sp_nanotime() - t0;
    s->task_ns[__atomic_fetch_add(&s->ndone, 1, __ATOMIC_RELAXED)] = t;
    __atomic_add_fetch(&s->per_core[sp_cpu_id()], 1, __ATOMIC_RELAXED);
    countdown_hit(&s->cd);
}

/* Spawns every task without blocking, so the other cores must steal. */
static void skew_spawner(void *arg)
{
    for (int i = 0; i < SKEW_TASKS; i++)
        sp_go(skew_task, arg);
}

/* Prints how the tasks spread over the cores; false if some are missing. */
static bool skew_spread(struct skew *s, int ncpu)
{
    long total = 0;

    printf("# skew: tasks per core:");
    for (int i = 0; i < ncpu; i++) {
        printf(" %ld", s->per_core[i]);
        total += s->per_core[i];
    }
    printf("\n");
    if (total != SKEW_TASKS || s->ndone != SKEW_TASKS) {
        printf("# ERROR skew: %ld (%ld) of %d tasks ran\n", total, s->ndone,
               SKEW_TASKS);
        return false;
    }
    return true;
}

bool bench_skew(double out[NFIG])
{
    int ncpu = sp_ncpu();
    struct skew s = {
        .task_ns = malloc(SKEW_TASKS * sizeof(uint64_t)),
        .per_core = calloc(ncpu, sizeof(long)),
    };
    double wall, median, cpu = 0;
    uint64_t t0;
    bool ok = false;

    if (!s.task_ns || !s.per_core) {
        printf("# ERROR skew: out of memory\n");
        goto out;
    }
    countdown_init(&s.cd, SKEW_TASKS);
    t0 = sp_nanotime();
    sp_go(skew_spawner, &s);
    countdown_wait(&s.cd);
    wall = since(t0);
    if (!skew_spread(&s, ncpu))
        goto out;
    qsort(s.task_ns, SKEW_TASKS, sizeof(uint64_t), cmp_u64);
    median = (double)s.task_ns[SKEW_TASKS / 2];
    for (int i = 0; i < SKEW_TASKS; i++)
        cpu += s.task_ns[i] < 2 * median ? s.task_ns[i] : 2 * median;
    out[0] = wall / 1e6;
    out[1] = cpu / (wall * ncpu);
    printf("# skew: wall %.1f ms, tasks' median %.1f us, capped mean %.1f us, "
           "max %.1f us; efficiency %.3f (%.3f counting the median a task, "
           "%.3f counting %d us)\n", out[0], median / 1e3,
           cpu / SKEW_TASKS / 1e3, s.task_ns[SKEW_TASKS - 1] / 1e3, out[1],
           SKEW_TASKS * median / (wall * ncpu),
           (double)SKEW_TASKS * SKEW_NS / (wall * ncpu), SKEW_NS / 1000);
    ok = true;
out:
    free(s.task_ns);
    free(s.per_core);
    return ok;
}
