/*
 * spindle/trace.h - the execution tracer, as an app sees it.
 *
 * Booted with trace=1 (or trace=wrap), the kernel records every G
 * transition on every core and dumps the record when main() returns (or
 * exit() is called); tools/run/trace.py turns the dump into a trace that
 * Perfetto (ui.perfetto.dev) or chrome://tracing opens, and prints a
 * summary.  `make trace APP=<app>` does all of it.  Without trace= these
 * calls do nothing.
 */
#ifndef SPINDLE_TRACE_H
#define SPINDLE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* True if the machine was booted with the tracer on. */
bool sp_trace_on(void);

/*
 * Dumps what was recorded so far (on the console, or the hosted build's
 * trace file) as one segment, empties the buffers and records on.  What
 * happens while the dump is written is not recorded.  From a G only.
 */
void sp_trace_flush(void);

/* Records a mark with `value` on the caller's core, from the calling G:
   an instant event on the trace's timeline. */
void sp_trace_mark(uint32_t value);

struct sp_trace_stats {
    uint64_t events;            /* recorded since the last flush, lost
                                   ones included */
    uint64_t lost;              /* of them, dropped (trace=1, a full
                                   buffer) or overwritten (trace=wrap) */
};

/* The counts over every core; exact once the other cores are idle. */
void sp_trace_stats(struct sp_trace_stats *s);

#endif
