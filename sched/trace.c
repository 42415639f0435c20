/*
 * trace.c - schedtrace=N: every N ms, one line in Go's GODEBUG=schedtrace
 * format, e.g.
 *   SCHED 1000ms: gomaxprocs=4 idleprocs=1 threads=4 spinningthreads=0
 *   idlethreads=1 runqueue=0 [0 2 0 1]
 * (on one line).  Here threads are cores, and a core is idle exactly when
 * its P is.  The check runs in every core's scheduler loop, so lines come
 * while any core schedules; an idle machine prints when a core wakes.
 * With scheddetail=1 (Go's GODEBUG=scheddetail=1) each line is followed
 * by one line per P and one per M (sched_detail), which tests also print
 * when a scheduling check fails.
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
static bool detail;             /* scheddetail=1 */

void schedtrace_init(void)
{
    long ms, d;

    switch (cmdline_long("scheddetail", 0, 1, &d)) {
    case CMDLINE_ABSENT:
        break;
    case CMDLINE_OK:
        detail = d;
        break;
    default:
        printk("scheddetail: needs 0 or 1; off\n");
    }

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
    if (detail)
        sched_detail();
}

/*
 * One line per P and per M, as Go's scheddetail prints them, from racy
 * reads: a picture of the moment for a person, not for the scheduler.
 */
void sched_detail(void)
{
    for (int i = 0; i < ncpu; i++) {
        struct p *p = sched.allp[i];

        printk("  P%d: idle=%d schedtick=%u runqsize=%u runnext=%d "
               "wakeq=%u timers=%d gfreecnt=%d\n", i,
               __atomic_load_n(&p->idle, __ATOMIC_RELAXED),
               __atomic_load_n(&p->schedtick, __ATOMIC_RELAXED),
               runq_len(&p->runq),
               __atomic_load_n(&p->runq.runnext, __ATOMIC_RELAXED) != NULL,
               __atomic_load_n(&p->nwake, __ATOMIC_RELAXED),
               __atomic_load_n(&p->ntimers, __ATOMIC_RELAXED),
               __atomic_load_n(&p->ngfree, __ATOMIC_RELAXED));
    }
    for (int i = 0; i < ncpu; i++) {
        struct m *m = sched.allm[i];
        struct g *gp = __atomic_load_n(&m->curg, __ATOMIC_RELAXED);

        printk("  M%d: p=%d curg=%ld spinning=%d halted=%d\n", i,
               m->p->id, gp ? (long)__atomic_load_n(&gp->goid,
                                                   __ATOMIC_RELAXED) : -1L,
               __atomic_load_n(&m->spinning, __ATOMIC_RELAXED),
               __atomic_load_n(&m->halted, __ATOMIC_RELAXED));
    }
    printk("  nmspinning=%d npidle=%d runqueue=%u\n",
           __atomic_load_n(&sched.nmspinning, __ATOMIC_RELAXED),
           __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED),
           __atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED));
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
