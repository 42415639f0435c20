/*
 * time.c - the timer workloads: many sleepers, and a sleeper beside CPU
 * hogs (preemption).
 *
 *   timers   100,000 Gs each sleep a random 1-20 ms; the figures are the
 *            wall time until the last one woke, and the mean, p99 and max
 *            of how late each woke (actual sleep - requested), in us.
 *   preempt  ncpu Gs spin without calling anything for 2 s while one more
 *            G sleeps 1 ms in a loop; p99 and max of the sleeper's
 *            lateness.  At 1 core only preemption lets the sleeper run
 *            (tools/bench/bench.sh runs it in its 1-core boot).  At more cores every core has a hog, so
 *            it measures the same thing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include "bench.h"

#define NTIMERS     100000
#define HOG_NS      SP_S(2)
#define NAP_NS      SP_MS(1)

/* Fills out[first..first+2] with mean, p99 and max of late[0..n), in us,
   or out[first..first+1] with p99 and max when with_mean is false. */
static void lateness(uint64_t *late, long n, double *out, bool with_mean)
{
    double sum = 0;

    qsort(late, n, sizeof *late, cmp_u64);
    for (long i = 0; i < n; i++)
        sum += late[i];
    if (with_mean)
        *out++ = sum / n / 1e3;
    out[0] = late[(n * 99) / 100] / 1e3;
    out[1] = late[n - 1] / 1e3;
}

/* ---- timers ------------------------------------------------------------ */

struct sleeper {
    uint64_t want;              /* requested ns */
    uint64_t *late;             /* where to put the lateness */
    struct countdown *cd;
    int early;                  /* woke before its time: a bug */
};

static struct sleeper *sleepers;
static int nearly;

static void sleep_once(void *arg)
{
    struct sleeper *s = arg;
    uint64_t t0 = sp_nanotime(), slept;

    sp_sleep(s->want);
    slept = sp_nanotime() - t0;
    if (slept < s->want)
        __atomic_add_fetch(&nearly, 1, __ATOMIC_RELAXED);
    *s->late = slept >= s->want ? slept - s->want : 0;
    countdown_hit(s->cd);
}

bool bench_timers(double out[NFIG])
{
    uint64_t *late = malloc(NTIMERS * sizeof *late);
    uint64_t seed = 0x9E3779B97F4A7C15ULL, t0, late_irqs;
    struct countdown cd;

    sleepers = malloc(NTIMERS * sizeof *sleepers);
    if (!late || !sleepers) {
        printf("# ERROR timers: out of memory\n");
        return false;
    }
    nearly = 0;
    late_irqs = sp_timer_irqs_late();
    countdown_init(&cd, NTIMERS);
    t0 = sp_nanotime();
    for (long i = 0; i < NTIMERS; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        sleepers[i] = (struct sleeper){
            .want = SP_MS(1) + (seed >> 33) % SP_MS(19),
            .late = &late[i],
            .cd = &cd,
        };
        sp_go(sleep_once, &sleepers[i]);
    }
    countdown_wait(&cd);
    out[0] = since(t0) / 1e6;
    /* The host's share of the lateness (preempt.c says why). */
    printf("# late core timer interrupts in this timers run: %llu "
           "(over 1 ms past their deadline)\n",
           (unsigned long long)(sp_timer_irqs_late() - late_irqs));
    lateness(late, NTIMERS, &out[1], true);
    free(late);
    free(sleepers);
    if (nearly) {
        printf("# ERROR timers: %d sleeps woke early\n", nearly);
        return false;
    }
    return true;
}

/* ---- preempt ----------------------------------------------------------- */

static volatile int hogs_stop;

static void hog(void *arg)
{
    struct countdown *cd = arg;

    while (!hogs_stop)
        ;                       /* no calls: only preemption stops it */
    countdown_hit(cd);
}

bool bench_preempt(double out[NFIG])
{
    long max = HOG_NS / NAP_NS, n = 0;
    uint64_t *late = malloc(max * sizeof *late), start;
    struct countdown cd;

    if (!late) {
        printf("# ERROR preempt: out of memory\n");
        return false;
    }
    hogs_stop = 0;
    countdown_init(&cd, sp_ncpu());
    for (int i = 0; i < sp_ncpu(); i++)
        sp_go(hog, &cd);
    start = sp_nanotime();
    while (n < max && sp_nanotime() - start < HOG_NS) {
        uint64_t t0 = sp_nanotime(), slept;

        sp_sleep(NAP_NS);
        slept = sp_nanotime() - t0;
        late[n++] = slept > NAP_NS ? slept - NAP_NS : 0;
    }
    hogs_stop = 1;
    countdown_wait(&cd);
    lateness(late, n, out, false);
    printf("# preempt: %ld naps of 1 ms beside %d hogs in 2 s\n", n,
           sp_ncpu());
    free(late);
    return n > 0;
}

/* ---- preempt_cost ------------------------------------------------------ */

/*
 * What preemption costs a CPU-bound G.  ncpu Gs (one per core, so every
 * gap in a G's run is overhead, not another G's turn) spin for COST_NS
 * reading the clock and sp_preempted(); the gap around each rise of the
 * count is one preemption: the timer interrupt, the trip through the
 * scheduler, and the resumption (the same path as a switch to another G,
 * but measurable).  Other gaps much longer than a loop iteration (under
 * QEMU, the host taking the vCPU away; other interrupts) are counted
 * apart.
 *
 *   preempt_cost     preemptions x their median gap / run time, in % of
 *                    the CPU; the median keeps the rare preemption during
 *                    which the host took the vCPU away out of the figure
 *   preempt_gap      that median: one preemption, in us
 *
 * At the default quantum a G is preempted every 10 ms, so 1% is 100 us
 * per preemption.
 */
#define COST_NS     SP_MS(500)
#define COST_GAPS   4096
#define GAP_FACTOR  20          /* another gap: > 20 loop iterations */
#define GAP_MIN_NS  1000        /* and over 1 us */

struct coster {
    uint64_t gap[COST_GAPS];    /* the gaps that were preemptions */
    int ngaps, nother;
    uint64_t run_ns, iters;
    struct countdown *cd;
};

/*
 * Each iteration reads the preemption count, then the clock.  A count
 * that moved at iteration i means the preemption happened after the read
 * of i-1's count: between the clock reads of i-2 and i.  That span, less
 * one ordinary iteration, is its gap.
 */
static void cost_g(void *arg)
{
    struct coster *c = arg;
    uint64_t start = sp_nanotime(), now, prev, prev2, iter, min_gap;
    uint64_t npre, n;

    /* A first pass of 1 ms measures one loop iteration. */
    while ((now = sp_nanotime()) - start < SP_MS(1)) {
        n = sp_preempted();
        c->iters++;
    }
    iter = (now - start) / c->iters;
    min_gap = iter * GAP_FACTOR > GAP_MIN_NS ? iter * GAP_FACTOR : GAP_MIN_NS;
    npre = sp_preempted();
    start = prev = prev2 = sp_nanotime();
    for (;;) {
        n = sp_preempted();
        now = sp_nanotime();
        if (now - start >= COST_NS)
            break;
        if (n != npre) {
            if (c->ngaps < COST_GAPS)
                c->gap[c->ngaps++] = now - prev2 > iter ? now - prev2 - iter : 0;
            npre = n;
        } else if (now - prev > min_gap) {
            c->nother++;
        }
        prev2 = prev;
        prev = now;
    }
    c->run_ns = now - start;
    countdown_hit(c->cd);
}

bool bench_preempt_cost(double out[NFIG])
{
    int n = sp_ncpu(), total = 0, other = 0;
    struct coster *c = calloc(n, sizeof *c);
    uint64_t *all, run_ns = 0;
    struct countdown cd;

    if (!c) {
        printf("# ERROR preempt_cost: out of memory\n");
        return false;
    }
    countdown_init(&cd, n);
    for (int i = 0; i < n; i++) {
        c[i].cd = &cd;
        sp_go(cost_g, &c[i]);
    }
    countdown_wait(&cd);
    for (int i = 0; i < n; i++) {
        total += c[i].ngaps;
        other += c[i].nother;
        run_ns += c[i].run_ns;
    }
    all = malloc((total + 1) * sizeof *all);
    if (!all || !total) {
        printf("# ERROR preempt_cost: %s\n", all ? "no G was ever "
               "preempted" : "out of memory");
        free(all);
        free(c);
        return false;
    }
    total = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c[i].ngaps; j++)
            all[total++] = c[i].gap[j];
    qsort(all, total, sizeof *all, cmp_u64);
    out[1] = all[total / 2] / 1e3;
    out[0] = 100.0 * total * all[total / 2] / run_ns;
    printf("# preempt_cost: %d preemptions of %d Gs x %llu ms, median "
           "%.1f us, max %.1f us; %d other gaps\n", total, n,
           (unsigned long long)COST_NS / 1000000, all[total / 2] / 1e3,
           all[total - 1] / 1e3, other);
    free(all);
    free(c);
    return true;
}
