/*
 * trace.c - schedtrace=N: every N ms, one line in Go's GODEBUG=schedtrace
 * format, e.g.
 *   SCHED 1000ms: gomaxprocs=4 idleprocs=1 threads=4 spinningthreads=0
 *   idlethreads=1 runqueue=0 [0 2 0 1]
 * (on one line).  Here threads are cores, and a core is idle exactly when
 * its P is.  The check runs in every core's scheduler loop, so lines come
 * while any core schedules; an idle machine prints when a core wakes
 * (until per-core timers exist, nothing wakes a fully idle machine).
 */
#include "arch.h"
#include "cmdline.h"
#include "fmt.h"
#include "printk.h"
#include "schedimpl.h"

#define MAX_PERIOD_MS 3600000

uint64_t schedtrace_period;     /* in cycles; 0 = off */
static uint64_t next;           /* cycles of the next line; CAS to claim */
static uint64_t start;

void schedtrace_init(void)
{
    long ms;

    switch (cmdline_long("schedtrace", 1, MAX_PERIOD_MS, &ms)) {
    case CMDLINE_ABSENT:
        return;
    case CMDLINE_OK:
        break;
    default:
        printk("schedtrace: needs a period in ms (1..%d); off\n",
               MAX_PERIOD_MS);
        return;
    }
    start = arch_cycles();
    schedtrace_period = arch_cycles_hz() / 1000 * ms;
    next = start + schedtrace_period;
}

static void print_line(uint64_t now)
{
    char buf[64 + MAXCPU * 6], *b = buf;
    char *end = buf + sizeof buf;

    for (int i = 0; i < ncpu; i++)
        b += fmt_snprintf(b, end - b, "%s%u", i ? " " : "",
                          runq_len(&sched.allp[i]->runq) +
                          __atomic_load_n(&sched.allp[i]->nwake,
                                          __ATOMIC_RELAXED));
    printk("SCHED %lums: gomaxprocs=%d idleprocs=%d threads=%d "
           "spinningthreads=%d idlethreads=%d runqueue=%u [%s]\n",
           (unsigned long)((now - start) * 1000 / arch_cycles_hz()), ncpu,
           __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED), ncpu,
           __atomic_load_n(&sched.nmspinning, __ATOMIC_RELAXED),
           __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED),
           __atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED), buf);
}

void schedtrace_due(void)
{
    uint64_t now, due;

    now = arch_cycles();
    due = __atomic_load_n(&next, __ATOMIC_RELAXED);
    if (now < due)
        return;
    /* One core prints each line; the others see the new deadline. */
    if (__atomic_compare_exchange_n(&next, &due, now + schedtrace_period,
                                    false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
        print_line(now);
}
