/*
 * schedtrace.c - schedtrace=N: every N ms, one line in Go's GODEBUG=schedtrace
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
#include "arch/arch.h"
#include "kernel/cmdline.h"
#include "kernel/fmt.h"
#include "kernel/mem.h"
#include "kernel/printk.h"
#include "kernel/vm.h"
#include "sched/schedimpl.h"
#include <spindle/sched.h>

#define MAX_PERIOD_MS 3600000

uint64_t schedtrace_period;     /* in cycles; 0 = off */
static uint64_t next;           /* cycles of the next line; CAS to claim */
static int printing;            /* a core prints a line (and its detail) */
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

/* Go's schedtrace line for the moment `now`, ms counted from `since`
   (no newline); returns its length, as snprintf. */
static int format_line(char *out, size_t len, uint64_t now, uint64_t since)
{
    char buf[64 + MAXCPU * 6], *b = buf;
    char *end = buf + sizeof buf;

    buf[0] = 0;
    for (int i = 0; i < ncpu; i++)
        b += fmt_snprintf(b, end - b, "%s%u", i ? " " : "",
                          runq_len(&sched.allp[i]->runq) +
                          __atomic_load_n(&sched.allp[i]->nwake,
                                          __ATOMIC_RELAXED));
    return fmt_snprintf(out, len, "SCHED %lums: gomaxprocs=%d idleprocs=%d "
           "threads=%d spinningthreads=%d idlethreads=%d runqueue=%u [%s]",
           (unsigned long)((now - since) * 1000 / arch_cycles_hz()), ncpu,
           __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED), ncpu,
           __atomic_load_n(&sched.nmspinning, __ATOMIC_RELAXED),
           __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED),
           __atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED), buf);
}

static void print_line(uint64_t now)
{
    char line[128 + MAXCPU * 6];

    format_line(line, sizeof line, now, start);
    printk("%s\n", line);
    if (detail)
        sched_detail();
}

int sp_sched_report(char *buf, size_t len)
{
    int n = format_line(buf, len, arch_cycles(), 0);

    for (int i = 0; i < ncpu && n >= 0 && (size_t)n < len; i++) {
        struct p *p = sched.allp[i];

        n += fmt_snprintf(buf + n, len - n, "\nP%d: schedtick=%u "
                          "gs_run=%lu runqsize=%u preempted=%lu", i,
                          __atomic_load_n(&p->schedtick, __ATOMIC_RELAXED),
                          (unsigned long)__atomic_load_n(&p->nsched,
                                                         __ATOMIC_RELAXED),
                          runq_len(&p->runq),
                          (unsigned long)__atomic_load_n(
                              &sched.allm[i]->npreempt, __ATOMIC_RELAXED));
    }
    if (n >= 0 && (size_t)n < len) {
        struct gcensus c;
        size_t mem_free, gslot;

        vm_page_accounts(&mem_free, &gslot);
        sched_census(&c);
        n += fmt_snprintf(buf + n, len - n, "\nmem: pages_in_use=%lu "
                          "gslot_pages=%lu heap_pages=%lu runq_pages=%ld "
                          "gs_alive=%ld g_slots=%ld",
                          (unsigned long)(mem_total_count() - mem_free),
                          (unsigned long)gslot,
                          (unsigned long)vm_heap_pages(), sched_runq_pages(),
                          c.running + c.runnable + c.waiting, c.all);
    }
    return n;
}

/*
 * One line per P and per M, as Go's scheddetail prints them, from racy
 * reads of fields their owners write with atomics: a picture of the
 * moment for a person, not for the scheduler.  nexttimer is in µs from
 * now (negative: due), or "-" for none.
 */
void sched_detail(void)
{
    uint64_t now = arch_cycles(), hz = arch_cycles_hz();

    for (int i = 0; i < ncpu; i++) {
        struct p *p = sched.allp[i];
        uint64_t t = timers_next(p);
        char tb[24];

        if (t)
            fmt_snprintf(tb, sizeof tb, "%ldus",
                         (long)((int64_t)(t - now) * 1000000 / (int64_t)hz));
        else
            fmt_snprintf(tb, sizeof tb, "-");
        printk("  P%d: idle=%d schedtick=%u runqsize=%u runnext=%d "
               "wakeq=%u nexttimer=%s\n", i,
               __atomic_load_n(&p->idle, __ATOMIC_RELAXED),
               __atomic_load_n(&p->schedtick, __ATOMIC_RELAXED),
               runq_len(&p->runq),
               __atomic_load_n(&p->runq.runnext, __ATOMIC_RELAXED) != NULL,
               __atomic_load_n(&p->nwake, __ATOMIC_RELAXED), tb);
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

int sched_nmspinning(void)
{
    return __atomic_load_n(&sched.nmspinning, __ATOMIC_SEQ_CST);
}

int sched_spinning_ms(void)
{
    int n = 0;

    for (int i = 0; i < ncpu; i++)
        n += __atomic_load_n(&sched.allm[i]->spinning, __ATOMIC_RELAXED);
    return n;
}

void schedtrace_due(void)
{
    uint64_t now, due;

    now = arch_cycles();
    due = __atomic_load_n(&next, __ATOMIC_RELAXED);
    if (now < due)
        return;
    /* One core prints each line; the others see the new deadline.  A
       line (with its detail) is not begun while the last one is still
       being printed: that one's turn is skipped instead. */
    if (__atomic_exchange_n(&printing, 1, __ATOMIC_ACQUIRE))
        return;
    if (__atomic_compare_exchange_n(&next, &due, now + schedtrace_period,
                                    false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
        print_line(now);
    __atomic_store_n(&printing, 0, __ATOMIC_RELEASE);
}
