/*
 * bench - the scheduler benchmarks of the README's benchmark table.
 *
 * The workloads are fixed so that the numbers compare with the same
 * programs written in Go (GOMAXPROCS = the cores Spindle runs on):
 *
 *   spawn       1,000,000 Gs, each one atomic increment; wait   ns/G
 *   spawn_par   ncpu Gs each spawn 1,000,000/ncpu such Gs       ns/G
 *   pingpong    2 Gs, two unbuffered channels, 1,000,000 round  ns per
 *               trips                                           one-way switch
 *   yield       2*ncpu Gs yield 1,000,000 times in total        ns/yield
 *   fib         fork-join fib(32), a G per call while n > 20    ms
 *   fib_speedup the 1-core fib time (argument fib1=) / this     x
 *   skew        one G spawns 20,000 tasks of ~50 us CPU each    ms
 *   skew_eff    task CPU / (wall * ncpu), task CPU = the sum    ratio
 *               of the tasks' measured times, each capped at
 *               twice their median
 *   chan_fanin  8 producers, 1 consumer, chan of 128, 1,000,000 ns/message
 *               ints
 *   mutex       4*ncpu Gs, 4,000,000 lock/increment/unlock      ns/lock
 *   timers      100,000 Gs each sleep a random 1-20 ms           ms total
 *   timers_late_mean, _p99, _max   how late they woke           us
 *   preempt_late_p99, _max   a G hogs the CPU for 2 s while     us
 *               another sleeps 1 ms in a loop; tools/bench/bench.sh runs
 *               it at 1 core, in its 1-core boot
 *   preempt_cost  CPU a spinning G loses to preemption            %
 *   preempt_gap   what one preemption costs it (time.c)           us
 *   threadring_503, _10007   a token passed 5,000,000 times   ns/pass
 *               round a ring of 503 (10,007) Gs over unbuffered
 *               channels (ring.c; the Benchmarks Game's thread-ring)
 *   ring_1k, _10k, _100k   the same ring, 2,000,000 passes       ns/pass
 *   chameneos_3, _10   3 (10) creatures meet 600,000 times      ns/meeting
 *               through a mall G (the Benchmarks Game's chameneos-redux)
 *   trace_event_ns  one event of the execution tracer (trace.c):  ns
 *               its cost with trace= on the kernel command line
 *               (make bench CMDLINE="trace=wrap"), else the cost of
 *               a call site that finds the tracer off
 *   profile_sample_ns  one sample of the CPU profiler (profile.c): ns
 *               the stack found and walked and the record stored, as
 *               in the timer interrupt, less the interrupt
 *
 * Protocol.  Every workload runs `reps` times (3 unless reps=N), one after
 * the other, from main's G, with nothing else running; each run times
 * itself with sp_nanotime from before its first spawn until the G waiting
 * for the last one wakes.  For each figure the app prints
 *
 *   # <name>: <every repetition>
 *   BENCH <name> <median> <unit>
 *
 * and any other remark as a "# " line.  Each run checks its result (counts
 * exact, fib(32) = 2178309, sums of sent values); a wrong one prints
 * "# ERROR ...", drops that workload's BENCH line, and makes main return 1.
 *
 * Arguments (after the kernel command line's "--"):
 *   reps=N       repetitions per workload
 *   only=a,b     run only these workloads (names from the table)
 *   skip=a,b     and not these
 *   fib1=MS      the fib time measured at 1 core, for fib_speedup; the app
 *                cannot reboot itself at 1 core, so tools/bench/bench.sh boots
 *                once at smp=1 with only=fib and passes the result here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include "bench.h"

#define MAXREPS 99

struct workload {
    const char *key;            /* its name for only= */
    bench_fn *run;
    const char *name[NFIG];     /* the figures out[i] it fills; NULL ends */
    const char *unit[NFIG];
};

static const struct workload workloads[] = {
    { "spawn",      bench_spawn,      { "spawn" },      { "ns" } },
    { "spawn_par",  bench_spawn_par,  { "spawn_par" },  { "ns" } },
    { "pingpong",   bench_pingpong,   { "pingpong" },   { "ns" } },
    { "yield",      bench_yield,      { "yield" },      { "ns" } },
    { "fib",        bench_fib,        { "fib", "fib_speedup" },
                                      { "ms", "x" } },
    { "skew",       bench_skew,       { "skew", "skew_eff" },
                                      { "ms", "ratio" } },
    { "chan_fanin", bench_chan_fanin, { "chan_fanin" }, { "ns" } },
    { "mutex",      bench_mutex,      { "mutex" },      { "ns" } },
    { "timers",     bench_timers,     { "timers", "timers_late_mean",
                                        "timers_late_p99", "timers_late_max" },
                                      { "ms", "us", "us", "us" } },
    { "preempt",    bench_preempt,    { "preempt_late_p99",
                                        "preempt_late_max" },
                                      { "us", "us" } },
    { "preempt_cost", bench_preempt_cost, { "preempt_cost", "preempt_gap" },
                                      { "%", "us" } },
    { "trace_event", bench_trace_event, { "trace_event_ns" }, { "ns" } },
    { "profile_sample", bench_profile_sample, { "profile_sample_ns" },
                                      { "ns" } },
    { "threadring", bench_threadring, { "threadring_503", "threadring_10007" },
                                      { "ns", "ns" } },
    { "ring_scale", bench_ring_scale, { "ring_1k", "ring_10k", "ring_100k" },
                                      { "ns", "ns", "ns" } },
    { "chameneos",  bench_chameneos,  { "chameneos_3", "chameneos_10" },
                                      { "ns", "ns" } },
    { "park",       bench_park,       { "park_bytes_per_g", "park_ns_per_g",
                                        "park_fresh_bytes_per_g",
                                        "park_release_ms" },
                                      { "B", "ns", "B", "ms" } },
};
#define NWORKLOADS (int)(sizeof workloads / sizeof workloads[0])

double bench_fib1_ms;

/* ---- helpers the workloads share ------------------------------------- */

void countdown_init(struct countdown *c, long n)
{
    c->left = n;
    c->wg = (sp_waitgroup)SP_WAITGROUP_INIT;
    sp_waitgroup_add(&c->wg, 1);
}

void countdown_hit(struct countdown *c)
{
    /* acq-rel: the waiter sees every write the other Gs made before. */
    if (__atomic_sub_fetch(&c->left, 1, __ATOMIC_ACQ_REL) == 0)
        sp_waitgroup_done(&c->wg);
}

void countdown_wait(struct countdown *c)
{
    sp_waitgroup_wait(&c->wg);
}

double since(uint64_t t0)
{
    return (double)(sp_nanotime() - t0);
}

long share(long total, int n, int p)
{
    return total / n + (p < total % n);
}

int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* ---- the harness ------------------------------------------------------ */

/* Decimals to print for a unit: ns and ms to 0.1, x to 0.01, ratio 0.001. */
static int decimals(const char *unit)
{
    if (strcmp(unit, "x") == 0)
        return 2;
    if (strcmp(unit, "ratio") == 0 || strcmp(unit, "%") == 0)
        return 3;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAXREPS];

    memcpy(s, v, n * sizeof *v);
    qsort(s, n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Prints the "# name: reps" line, then the BENCH line with the median. */
static void report(const char *name, const char *unit, const double *v,
                   int n)
{
    int d = decimals(unit);

    printf("# %s:", name);
    for (int i = 0; i < n; i++)
        printf(" %.*f", d, v[i]);
    printf(" %s\n", unit);
    printf("BENCH %s %.*f %s\n", name, d, median(v, n), unit);
}

/* Runs w reps times and reports it; false if a run went wrong. */
static bool run_workload(const struct workload *w, int reps)
{
    double v[NFIG][MAXREPS];

    for (int i = 0; i < reps; i++) {
        double out[NFIG] = { NAN, NAN, NAN, NAN };

        if (!w->run(out)) {
            printf("# ERROR %s: repetition %d went wrong; no BENCH line\n",
                   w->name[0], i + 1);
            return false;
        }
        for (int k = 0; k < NFIG; k++)
            v[k][i] = out[k];
    }
    for (int k = 0; k < NFIG && w->name[k]; k++)
        if (!isnan(v[k][0]))
            report(w->name[k], w->unit[k], v[k], reps);
    return true;
}

/* Is name in the comma-separated list? */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *s = list; *s; ) {
        size_t len = strcspn(s, ",");

        if (len == n && strncmp(s, name, n) == 0)
            return true;
        s += len + (s[len] == ',');
    }
    return false;
}

static const struct workload *find_workload(const char *name, size_t len)
{
    for (int i = 0; i < NWORKLOADS; i++)
        if (strlen(workloads[i].key) == len &&
            strncmp(workloads[i].key, name, len) == 0)
            return &workloads[i];
    return NULL;
}

/* Checks that every name in only= or skip= (key) is a workload. */
static bool list_is_valid(const char *key, const char *list)
{
    for (const char *s = list; *s; ) {
        size_t len = strcspn(s, ",");

        if (!find_workload(s, len)) {
            printf("# ERROR %s=: no workload '%.*s'\n", key, (int)len, s);
            return false;
        }
        s += len + (s[len] == ',');
    }
    return true;
}

int main(int argc, char **argv)
{
    const char *only = NULL, *skip = "";
    int reps = 3, status = 0;

    for (int i = 1; i < argc; i++) {
        char *end;

        if (strncmp(argv[i], "reps=", 5) == 0) {
            reps = strtol(argv[i] + 5, &end, 10);
            if (*end || reps < 1 || reps > MAXREPS) {
                printf("# ERROR reps= wants 1..%d, not '%s'\n", MAXREPS,
                       argv[i] + 5);
                return 2;
            }
        } else if (strncmp(argv[i], "only=", 5) == 0) {
            only = argv[i] + 5;
            if (!list_is_valid("only", only))
                return 2;
        } else if (strncmp(argv[i], "skip=", 5) == 0) {
            skip = argv[i] + 5;
            if (!list_is_valid("skip", skip))
                return 2;
        } else if (strncmp(argv[i], "fib1=", 5) == 0) {
            bench_fib1_ms = strtod(argv[i] + 5, &end);
            if (*end || !(bench_fib1_ms > 0)) {
                printf("# ERROR fib1= wants a time in ms, not '%s'\n",
                       argv[i] + 5);
                return 2;
            }
        } else {
            printf("# ERROR unknown argument '%s' (reps=N only=a,b "
                   "skip=a,b fib1=MS)\n", argv[i]);
            return 2;
        }
    }

    printf("# ncpu %d, reps %d, only %s, fib1 ", sp_ncpu(), reps,
           only ? only : "(all)");
    if (bench_fib1_ms > 0)
        printf("%.1f ms\n", bench_fib1_ms);
    else
        printf("(not given: no fib_speedup)\n");
    if ((!only || listed(only, "skew")) && !listed(skip, "skew"))
        skew_calibrate();
    for (int i = 0; i < NWORKLOADS; i++) {
        if ((only && !listed(only, workloads[i].key)) ||
            listed(skip, workloads[i].key))
            continue;
        if (!run_workload(&workloads[i], reps))
            status = 1;
    }
    return status;
}
