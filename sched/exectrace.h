/*
 * exectrace.h - the execution tracer's hooks in the scheduler (trace=1 or
 * trace=wrap; exectrace.c).  Not schedtrace= (schedtrace.c), which prints Go's
 * periodic summary line.
 *
 * TRACE(type, g, arg) records one event (sched/exectrace_buf.h has the
 * types) in the calling core's buffer.  Contract for every call site:
 * interrupts are off (the buffer's owner is the core, and an interrupt
 * that traced in the middle of an event would tear it), and the event
 * is recorded before the transition is published to other cores (the
 * run queue's release store, a lock's release), so that an event that
 * causes another on a different core (a ready and the start it leads
 * to) has the earlier cycle count.
 *
 * Off (no trace=), a call site costs one no-op instruction (tracing):
 * the arguments are evaluated only when it is on.
 */
#ifndef SCHED_EXECTRACE_H
#define SCHED_EXECTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "sched/exectrace_buf.h"

/* The tracer's on/off flag, alone on its cache line: written only when
   the tracer starts (tracer_init) and around a flush (tracer_flush),
   read by every call site once the tracer has started. */
struct trace_flag {
    _Alignas(64) bool on;
    char pad[63];
};
extern struct trace_flag trace_flag;

/*
 * Is the tracer recording?  A site that tests it and then records does
 * both with interrupts off, so a flush (which waits for every core to
 * pass its scheduler loop) never reads an event half written.  Until
 * trace= starts the tracer, the test is one no-op instruction
 * (arch_branch_site, patched into a jump at boot by tracer_init); once
 * it has, the flag, which a flush clears for a while, decides.
 */
static inline __attribute__((always_inline)) bool tracing(void)
{
    arch_branch_site(started);
    return false;
started:
    return __builtin_expect(__atomic_load_n(&trace_flag.on, __ATOMIC_RELAXED),
                            0);
}

/* One event, at the cycle count now (arch_cycles, read in the call).
   Cold: gcc lays a site's call out of the path that finds the flag off. */
__attribute__((cold)) void trace_event(unsigned type, uint32_t g,
                                       uint32_t arg);

/* Each core's buffer, from tracer_init on (NULL before). */
extern struct tracebuf *trace_bufs[MAXCPU];

/* This core's buffer lost its first event (since it was emptied): says
   so on the console, with how to keep such events.  Interrupts off. */
__attribute__((cold)) void trace_lost_first(void);

/* One event at cycle count ts, read by the caller on this core with
   interrupts off since: events that share one reading (a stop and the
   start after it) keep their order in the buffer.  Inline, for the
   scheduler's out-of-line trace functions, after tracing(). */
static inline void trace_put(uint64_t ts, unsigned type, uint32_t g,
                             uint32_t arg)
{
    if (tracebuf_put(trace_bufs[cpu_id()], ts, type, g, arg))
        trace_lost_first();
}

#define TRACE(type, g, arg)                                               \
    do {                                                                  \
        if (tracing())                                                    \
            trace_event((type), (uint32_t)(g), (uint32_t)(arg));          \
    } while (0)

/* The low 32 bits of a G's id, 0 for none (the scheduler context). */
#define TRACE_GOID(gp) ((gp) ? (uint32_t)(gp)->goid : 0)

/* Boot core, in sched_init: reads trace= and trace_buf=, and if asked
   allocates every core's buffer and starts recording. */
void tracer_init(void);

/*
 * From a G: stops recording, waits until no core is in the middle of an
 * event, and dumps every buffer (one segment); with resume, empties them
 * and records again.  One flush at a time; a second waits.  The exit's
 * dump is tracer_flush(false), registered with atexit.
 */
void tracer_flush(bool resume);

/* Events recorded (kept or lost) and lost since the last flush, every
   core; read while the cores go on, so only exact once they are still. */
void tracer_stats(uint64_t *events, uint64_t *lost);

#endif
