/*
 * bench.h - what the benchmark harness (main.c) and the workloads
 * (spawn.c, compute.c, comm.c) share.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <spindle/sync.h>

/* Most figures one workload reports (timers: total and 3 latenesses). */
#define NFIG 4

/*
 * One run of a workload.  It fills out[0], and out[1..] for a workload
 * with more figures (NAN there means "not measured"), and returns true, or
 * prints "# ERROR <name>: ..." and returns false when its result is wrong.
 */
typedef bool bench_fn(double out[NFIG]);

bench_fn bench_spawn, bench_spawn_par, bench_yield;    /* spawn.c */
bench_fn bench_fib, bench_skew;                          /* compute.c */
bench_fn bench_pingpong, bench_chan_fanin, bench_mutex;  /* comm.c */
bench_fn bench_timers, bench_preempt, bench_preempt_cost; /* time.c */
bench_fn bench_trace_event;                              /* trace.c */
bench_fn bench_profile_sample;                           /* profile.c */
bench_fn bench_park;                                     /* park.c */
bench_fn bench_threadring, bench_ring_scale, bench_chameneos; /* ring.c */

/* The 1-core fib time in ms from the `fib1=` argument; 0 when not given. */
extern double bench_fib1_ms;

/* Calibrates skew's spin loop; main calls it once, before any workload. */
void skew_calibrate(void);

/*
 * A countdown: n Gs each call countdown_hit once; the G that brings it to
 * zero wakes the one waiting in countdown_wait.  That keeps the waiting
 * cost out of the workloads: one atomic decrement per G, one wakeup.
 */
struct countdown {
    long left;                  /* atomic; decremented by each hit */
    sp_waitgroup wg;            /* 1 until left reaches 0 */
};

void countdown_init(struct countdown *c, long n);
void countdown_hit(struct countdown *c);
void countdown_wait(struct countdown *c);

/* Nanoseconds since t0, as a double. */
double since(uint64_t t0);

/*
 * The share of total that part p of n gets: total / n, with the
 * remainder spread over the first parts, so the shares add up to total.
 */
long share(long total, int n, int p);

/* qsort comparator for uint64_t, ascending. */
int cmp_u64(const void *a, const void *b);

#endif
