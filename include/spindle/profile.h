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
#include <stddef.h>
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

/*
 * Where a profile's bytes go: called with each piece in order; returns
 * 0, or a negative errno to stop the writing, which the call that wrote
 * returns.
 */
typedef int (*sp_profile_writer)(void *arg, const void *buf, size_t n);

/*
 * sp_profile_stop, but what the cores recorded goes to w as a pprof
 * profile (gzipped profile.proto, what Go's pprof.StopCPUProfile leaves
 * and `go tool pprof` reads; functions named from the image's symbol
 * table, no files or lines) instead of the dump.  Returns 0, -ENOENT if
 * the profiler was not running (nothing written), -ENOMEM, or w's
 * error.  From a G; it allocates about 100 bytes per distinct sample.
 */
int sp_profile_stop_pprof(struct sp_profile_stats *s, sp_profile_writer w,
                          void *arg);

/*
 * Every G, its state (running, runnable, or why it waits), the core that
 * runs or last ran it, and its stack, written to w as Go's goroutine
 * profile is (/debug/pprof/goroutine?debug=N):
 *   0  a pprof profile (goroutine/count, Gs of equal stack and state one
 *      sample, labelled state=...), which `go tool pprof` reads
 *   1  text: "goroutine profile: total N", then per stack and state its
 *      count and program counters (the legacy format pprof also reads),
 *      with the Gs' ids and the symbolized frames as # comments
 *   2  text: each G on its own, as Go prints them on SIGQUIT
 * The machine stops between Gs while the stacks are read (every other
 * core waits in a cross-core call), for a time linear in the Gs.  Returns
 * 0, -EINVAL for another debug, -ENOMEM, or w's error.  From a G.
 */
int sp_goroutine_profile(int debug, sp_profile_writer w, void *arg);

#endif
