/*
 * trace.c - what the execution tracer costs per event: trace_event_ns.
 *
 * 1,000,000 events through the scheduler's own hook (TRACE, from
 * sched/exectrace.h), in stretches of 1,000 with interrupts off as at its
 * call sites, timed together.  With the tracer on (make bench
 * CMDLINE="trace=wrap ...": wrap, so that every event is written, none
 * dropped) that is the cost of one event; off (no trace=), the cost of
 * a call site: one no-op instruction.
 */
#include <stdio.h>
#include <spindle/time.h>
#include <spindle/trace.h>
#include "arch/export_test.h"
#include "bench.h"
#include "sched/export_test.h"

#define NEVENTS 1000000
#define STRETCH 1000

bool bench_trace_event(double out[NFIG])
{
    static bool said;
    uint64_t t0 = sp_nanotime();

    for (long i = 0; i < NEVENTS; i += STRETCH) {
        unsigned long f = arch_irq_save();

        for (long k = i; k < i + STRETCH; k++)
            TRACE(TEV_MARK, 0, k);
        arch_irq_restore(f);
    }
    out[0] = since(t0) / NEVENTS;
    if (!said) {
        said = true;
        printf("# trace_event: the tracer is %s\n",
               sp_trace_on() ? "on" : "off (the cost of a call site)");
    }
    return true;
}
