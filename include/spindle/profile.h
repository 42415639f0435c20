/*
 * spindle/profile.h - the sampling CPU profiler, as an app sees it.
 *
 * Booted with profile=HZ, every core samples what it runs HZ times a
 * second (Go's default is 100) from boot until main() returns or exit()
 * is called, then the samples are dumped (on the console, or the hosted
 * build's profile file); tools/run/pprof.py makes them a pprof profile
 * (`go tool pprof`) and folded stacks for flame graphs.  `make profile
 * APP=<app>` does all of it.  These calls profile a window instead, as
 * Go's pprof.StartCPUProfile and StopCPUProfile do.
 *
 * A sample is the interrupted stack, the G whose stack it is and its
 * start function, and the core; the scheduler, idle cores (spinning for
 * work or halted) and interrupt handlers show as pseudo-frames.
 */
#ifndef SPINDLE_PROFILE_H
#define SPINDLE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Starts every core sampling hz times a second (0: 100; at most
 * 10,000, and no more often than the timergap= moderation lets the
 * timer interrupt come: faster rates give samples that stand for
 * several periods).  Returns 0, or -EBUSY if the profiler already runs
 * (booted with profile=, or started and not stopped), -EINVAL for a
 * rate out of range, -ENOMEM without room for the buffers.  From a G.
 */
int sp_profile_start(int hz);

struct sp_profile_stats {
    int hz;                     /* the rate they were taken at */
    uint64_t samples;           /* sampling periods recorded, all cores */
    uint64_t lost;              /* periods dropped: a core's buffer was
                                   full (profile_buf= makes it bigger) */
    uint64_t records;           /* lines dumped: samples of equal stack,
                                   G, kind and core are one line */
};

/* Stops every core sampling and dumps what they recorded as one segment
   of the dump; fills *s when s is not NULL (zeros if the profiler was
   not running).  From a G. */
void sp_profile_stop(struct sp_profile_stats *s);

/* True while the cores sample. */
bool sp_profile_on(void);

#endif
