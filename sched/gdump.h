/*
 * gdump.h - the goroutine dump (sp_goroutine_profile, gdump.c): every G,
 * its state and stack, for /debug/pprof/goroutine and for a key press on
 * the console, as Go prints on SIGQUIT.
 */
#ifndef SCHED_GDUMP_H
#define SCHED_GDUMP_H

#include <stdbool.h>

/*
 * Asks for a dump on the console (the format of debug=2 between the
 * lines "goroutine dump: N goroutines" and "end of goroutine dump"),
 * made by a new G soon after; the machine goes on.  Any context: an
 * interrupt handler's, a hosted signal's.  Requests that come while one
 * waits are one request.
 */
void gdump_request(void);

extern int gdump_wanted;        /* a request waits; atomic */

/* Whether a request waits: the idle loop's reason to look for work. */
static inline bool gdump_pending(void)
{
    return __builtin_expect(__atomic_load_n(&gdump_wanted, __ATOMIC_RELAXED),
                            0);
}

/* From the scheduler, owning a P, interrupts off: starts the G of a
   request that waits. */
void gdump_start(void);

static inline void gdump_poll(void)
{
    if (gdump_pending())
        gdump_start();
}

#endif
