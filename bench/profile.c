/*
 * profile.c - what the CPU profiler costs per sample: profile_sample_ns.
 *
 * 100,000 samples of the caller's own stack (prof_sample_bench, from
 * sched/profile.h): the profiler's work in a timer interrupt, less the
 * interrupt itself - reading the clocks (the hosted build's run clock is
 * a system call), finding the stack, walking the frame chain, reading
 * the link, storing the record - with interrupts off as there.  The
 * frame chain is this benchmark's depth in the image (main's G: seven
 * or eight frames).
 */
#include <stdio.h>
#include <spindle/time.h>
#include "bench.h"
#include "sched/export_test.h"

#define NSAMPLES 100000

bool bench_profile_sample(double out[NFIG])
{
    static bool said;
    uint64_t t0 = sp_nanotime();
    int depth = prof_sample_bench(NSAMPLES);

    out[0] = since(t0) / NSAMPLES;
    if (!said) {
        said = true;
        printf("# profile_sample: %d frames a sample\n", depth);
    }
    return depth > 0;
}
