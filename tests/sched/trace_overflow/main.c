/*
 * trace_overflow - a trace buffer that fills is reported (booted with
 * trace=1 trace_buf=4: a pool of 256 events a core, in blocks of 256;
 * test.conf has the host's check of the dump).
 *
 * After a flush empties the pool, Gs that yield thousands of times fill
 * it from the cores they run on.  Each core that then loses an event
 * says so on the console once, at its first; the flush after them names
 * each such core's lost and total events, then the trace_buf= that would
 * have kept them all, and where the dump is on the console (bare metal:
 * no host channel in a test boot) its CORE lines carry the same counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/trace.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"

#define YIELDS 2000
#define TAP_SIZE (512 * 1024)

static char tap[TAP_SIZE];
static sp_waitgroup wg = SP_WAITGROUP_INIT;

static void yielder(void *arg)
{
    for (int i = 0; i < YIELDS; i++)
        sp_yield();
    sp_waitgroup_done(&wg);
}

/* The n-th (from 0) line of tap starting with `prefix` that names core c
   right after it, or NULL. */
static const char *core_line(const char *prefix, int c, int n)
{
    size_t len = strlen(prefix);

    for (const char *l = tap; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
        if (!strncmp(l, prefix, len) && atoi(l + len) == c &&
            l[len] >= '0' && l[len] <= '9' && n-- == 0)
            return l;
    return NULL;
}

TEST(overflow_is_reported)
{
    struct sp_trace_stats st;
    unsigned long lost_sum = 0, seen_sum = 0, held_sum = 0, kib = 0;
    const char *keep;
    int cores_lost = 0;
    size_t len;

    sp_trace_flush();           /* segment 0, the boot: the pool emptied */
    console_tap(tap, TAP_SIZE - 1);
    sp_waitgroup_add(&wg, 2 * sp_ncpu());
    for (int i = 0; i < 2 * sp_ncpu(); i++)
        sp_go(yielder, NULL);
    sp_waitgroup_wait(&wg);
    sp_trace_stats(&st);
    sp_trace_flush();           /* segment 1, with its losses */
    len = console_tap(NULL, 0);
    tap[len] = 0;
    CHECKF(st.lost > 0 && st.lost < st.events, "%llu of %llu events lost",
           (unsigned long long)st.lost, (unsigned long long)st.events);
    for (int c = 0; c < sp_ncpu(); c++) {
        const char *full = core_line("trace: core ", c, 0);
        const char *report = core_line("trace: core ", c, 1);
        const char *dump = core_line("TRACE CORE ", c, 0);
        unsigned long lost = 0, seen = 0, events = 0, dlost = 0;
        char want[256];

        if (!full) {
            CHECKF(!report, "core %d: a count of its losses, but no line "
                   "at its first", c);
            continue;
        }
        cores_lost++;
        snprintf(want, sizeof want, "trace: core %d found the pool full (%d "
                 "events, 4 KiB a core): its later events are lost; a larger "
                 "trace_buf= keeps them, trace=wrap keeps the last\n", c,
                 256 * sp_ncpu());
        CHECKF(!strncmp(full, want, strlen(want)), "core %d: %.200s", c, full);
        CHECKF(report, "core %d: no count of its losses after the dump", c);
        CHECKF(sscanf(report + strlen("trace: core "), "%*d lost %lu of its "
                      "%lu events (the newest)", &lost, &seen) == 2,
               "core %d: %.160s", c, report);
        CHECKF(!core_line("trace: core ", c, 2), "core %d: a third line", c);
        /* What it holds is whole blocks of the pool. */
        CHECKF(lost > 0 && seen >= lost && (seen - lost) % 256 == 0,
               "core %d: %.160s", c, report);
        lost_sum += lost;
        seen_sum += seen;
        held_sum += seen - lost;
        if (!dump)              /* the hosted build's dump is in a file */
            continue;
        CHECKF(sscanf(dump, "TRACE CORE %*d events=%lu lost=%lu", &events,
                      &dlost) == 2, "%.80s", dump);
        CHECKF(events == seen - lost && dlost == lost && full < dump &&
               dump < report, "core %d: %.80s, then %.160s", c, dump, report);
    }
    CHECKF(cores_lost > 0, "no core said it lost events");
    CHECKF(held_sum <= 256UL * sp_ncpu(), "%lu events held", held_sum);
    /* The flush itself may lose a few more on its own core. */
    CHECKF(lost_sum >= st.lost && lost_sum < st.lost + 64,
           "the counts add up to %lu, the stats said %llu", lost_sum,
           (unsigned long long)st.lost);
    /* Then the size that keeps them: a pool at least as large. */
    keep = strstr(tap, "trace: trace_buf=");
    CHECKF(keep && sscanf(keep, "trace: trace_buf=%lu (KiB a core) keeps "
                          "them all", &kib) == 1 && !strstr(keep + 1,
                          "trace: trace_buf="), "%.120s", keep ? keep : "none");
    CHECKF(kib > 4 && !(kib & (kib - 1)) && kib * 64 * sp_ncpu() >= seen_sum,
           "trace_buf=%lu for %lu events on %d cores", kib, seen_sum,
           sp_ncpu());
}

int main(void)
{
    return sp_test_main();
}
