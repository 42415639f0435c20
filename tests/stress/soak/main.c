/*
 * soak - a long mixed workload that checks, as it runs, that nothing is
 * lost, duplicated or leaked.
 *
 * Rounds of phases (phases.c: spawning, channels, select, mutexes,
 * timers, CPU hogs beside sleepers) run until the time is up.  Each phase
 * checks its own results; between phases, with every phase G gone, this
 * file checks the scheduler's books (sched_census):
 *   - every G ever made is running, runnable, waiting or dead, and every
 *     dead G is on a free list;
 *   - Gs created minus Gs exited is the number alive, and the phase
 *     created exactly the Gs it started;
 *   - memory: the heap in use, less the timer heaps' arrays, is back at
 *     its level after the first round, and so are the pages in use, less
 *     the G slots, heap and run queue chunks that a busier moment may have
 *     added for good.
 * A progress line comes every report= seconds; the end prints the totals.
 *
 * Arguments after "--": secs=N or min=N (how long; default 5 s),
 * rounds=N (at least this many rounds, whatever the time; default 3),
 * report=N (progress period in seconds; default 60), via=HOST:PORT (the
 * network-fault phase: its clients dial there, a host's port that QEMU
 * forwards back to the listener, so that every byte crosses the NIC twice
 * each way and meets the link faults of fault=).  `make soak` runs it
 * for SOAK_MIN minutes; `make test` for a few seconds (test.conf).  With
 * fault= on the command line (kernel/faultinject.h) it runs under those faults
 * and the totals say how often each was injected.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"
#include "soak.h"
#include "tests/lib/testutil.h"

struct tally tally;

static char first_bad[240];     /* the first broken law */
static uint64_t nbad_books;     /* scheduler books that did not balance */
static uint64_t nbad_memory;    /* phases that left memory behind */

void soak_fail(const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (__atomic_fetch_add(&tally.bad, 1, __ATOMIC_ACQ_REL) == 0)
        snprintf(first_bad, sizeof first_bad, "%s", msg);
    printf("soak: %s\n", msg);
}

/* ---- the run's settings --------------------------------------------- */

static uint64_t run_ns = 5000000000ULL;
static int min_rounds = 3;
static uint64_t report_ns = 60000000000ULL;

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strncmp(a, "secs=", 5))
            run_ns = strtoull(a + 5, NULL, 10) * 1000000000ULL;
        else if (!strncmp(a, "min=", 4))
            run_ns = strtoull(a + 4, NULL, 10) * 60000000000ULL;
        else if (!strncmp(a, "rounds=", 7))
            min_rounds = atoi(a + 7);
        else if (!strncmp(a, "via=", 4))
            phase_netfault_via(a + 4);
        else if (!strncmp(a, "report=", 7) && atoi(a + 7) > 0)
            report_ns = strtoull(a + 7, NULL, 10) * 1000000000ULL;
        else if (strncmp(a, "cores=", 6))
            printf("soak: ignoring argument '%s' (secs=, min=, rounds=, "
                   "report=, via=)\n", a);
    }
}

/* Rounds short enough that a progress line and the end come on time at
   any core count; sanitizers make every operation dearer, so their
   rounds are smaller, not their laws fewer. */
static struct sizes sizes_for(int ncpu)
{
    int k = SP_TSAN || SP_ASAN ? 1 : 4;

    return (struct sizes){
        .spawn = 500 * k,
        .producers = 4, .consumers = 2, .msgs_per_producer = 250 * k,
        .selectors = 3, .selects_each = 100 * k,
        .lockers = 2 * ncpu, .locks_each = 100 * k,
        .timers = 100 * k,
        .sleepers = 2 * ncpu, .sleeps_each = 5,
        .hogs = ncpu + 1, .hog_ms = 25,
        .conns = 4, .msgs_per_conn = 8 * k,
    };
}

/* ---- the books --------------------------------------------------------- */

static struct gcensus base;     /* after main started, before any phase */

/*
 * True if the census balances: the Gs alive are those of the start, and
 * every dead G is on a free list.
 */
static bool balanced(const struct gcensus *c)
{
    long live = c->running + c->runnable + c->waiting;

    return live == base.running + base.runnable + base.waiting &&
           (long)(c->created - c->exited) == live &&
           c->all == live + c->dead && c->dead == c->free;
}

/*
 * Waits until the census balances; false if it still does not after 10 s.
 * A phase G that signalled its wait group may not have exited yet, and a
 * G that just exited is on its way to a free list (or moving between the
 * per-P and the global one): the books may be off for a moment, never
 * for long.
 */
static bool quiesce(struct gcensus *c)
{
    uint64_t end = sp_nanotime() + 10000000000ULL;

    for (;;) {
        sched_census(c);
        if (balanced(c))
            return true;
        if (sp_nanotime() > end)
            return false;
        sp_sleep(100000);
    }
}

static void books_fail(const char *phase, const char *fmt, ...)
{
    char msg[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&nbad_books, 1, __ATOMIC_RELAXED);
    soak_fail("after %s: %s", phase, msg);
}

/* The census after a phase that started `spawned` Gs. */
static void check_books(const char *phase, const struct gcensus *before,
                        uint64_t spawned)
{
    struct gcensus c;
    long live;

    if (!quiesce(&c)) {
        live = c.running + c.runnable + c.waiting;
        books_fail(phase, "unbalanced for 10 s: %ld alive (%ld at the start), "
                   "%lu created - %lu exited, %ld made = %ld dead + alive, "
                   "%ld on free lists", live,
                   base.running + base.runnable + base.waiting,
                   (unsigned long)c.created, (unsigned long)c.exited, c.all,
                   c.dead, c.free);
        sched_detail();
        return;
    }
    if (c.created - before->created != spawned)
        books_fail(phase, "%lu Gs created, the phase started %lu",
                   (unsigned long)(c.created - before->created),
                   (unsigned long)spawned);
}

/* Memory held for good by a busier moment: G slots, heap, queue chunks. */
struct memory {
    long pages;                 /* in use, page allocator */
    long kept;                  /* of those, kept on purpose */
    long gs;                    /* G slots made */
    long heap;                  /* malloc'd bytes in use, less the timer
                                   heaps' arrays (kept at their largest) */
};

static struct memory memory_now(void)
{
    struct memory m;
    size_t mem_free, gslot;

    /* Together: idle cores may be releasing Gs' pages meanwhile. */
    vm_page_accounts(&mem_free, &gslot);
    m.pages = (long)(mem_total_count() - mem_free);
    m.gs = sched_all_gs();
    m.kept = (long)gslot + sched_runq_pages() + (long)vm_heap_pages();
    m.heap = heap_in_use();
    if (m.heap >= 0)
        m.heap -= (long)timers_heap_bytes();
    return m;
}

static struct memory mem_base;
static bool mem_base_set;

static void check_memory(const char *phase)
{
    struct memory m = memory_now();
    /* New G slots need page-table pages too: a slot is 17 pages of
       address space, so one last-level table serves about 30 of them. */
    long slack = 8 + (m.gs - mem_base.gs) / 16;

    if (!mem_base_set)
        return;
    /* heap_in_use is -1 where malloc_stats says nothing (ASan's). */
    /* 1 KiB a core: the timer heaps' chunk headers, and state a
       per-thread allocator (glibc's, hosted) makes the first time a
       phase mallocs on a core.  A leak of a few bytes a phase passes
       it within a short run. */
    if (mem_base.heap >= 0 && m.heap > mem_base.heap + 1024 * sp_ncpu()) {
        __atomic_add_fetch(&nbad_memory, 1, __ATOMIC_RELAXED);
        soak_fail("after %s: heap in use %ld bytes, baseline %ld", phase,
                  m.heap, mem_base.heap);
    }
    if (m.pages - m.kept > mem_base.pages - mem_base.kept + slack) {
        __atomic_add_fetch(&nbad_memory, 1, __ATOMIC_RELAXED);
        soak_fail("after %s: %ld pages in use beyond G slots and heap, "
                  "baseline %ld", phase, m.pages - m.kept,
                  mem_base.pages - mem_base.kept);
    }
}

/* ---- the run ----------------------------------------------------------- */

static const struct {
    const char *name;
    void (*run)(const struct sizes *, uint64_t);
} phases[] = {
    { "spawn", phase_spawn },
    { "chan", phase_chan },
    { "select", phase_select },
    { "mutex", phase_mutex },
    { "timers", phase_timers },
    { "hogs", phase_hogs },
    { "net", phase_net },
    { "netfault", phase_netfault },
};

static int rounds;
static uint64_t t0, elapsed_ns;

static void progress(const struct gcensus *c, uint64_t now)
{
    uint64_t s = (now - t0) / 1000000;

    printf("soak: %lu.%03lu s, round %d: %lu Gs created (%lu/s), %lu switches "
           "(%lu/s), %zu MiB free, %lu G slots released (%zu now), %lu "
           "broken\n",
           (unsigned long)(s / 1000), (unsigned long)(s % 1000), rounds,
           (unsigned long)(c->created - base.created),
           (unsigned long)((c->created - base.created) * 1000 / (s ? s : 1)),
           (unsigned long)(c->switches - base.switches),
           (unsigned long)((c->switches - base.switches) * 1000 / (s ? s : 1)),
           mem_free_count() * 4096 >> 20,
           (unsigned long)vm_gslot_releases(), vm_gslots_released(),
           (unsigned long)tally.bad);
}

static void soak(void)
{
    struct sizes sz = sizes_for(sp_ncpu());
    uint64_t next_report, seed = 1;
    struct gcensus c;

    /* Before the baseline: the first printf and malloc_stats give stdout
       and stderr their buffers for good. */
    printf("soak: %lu s and at least %d rounds on %d cores\n",
           (unsigned long)(run_ns / 1000000000), min_rounds, sp_ncpu());
    fflush(stdout);
    memory_now();
    sched_census(&base);
    t0 = sp_nanotime();
    next_report = t0 + report_ns;
    while (rounds < min_rounds || sp_nanotime() - t0 < run_ns) {
        for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
            struct gcensus before;
            uint64_t spawned = tally.spawned;

            sched_census(&before);
            phases[i].run(&sz, seed++);
            check_books(phases[i].name, &before, tally.spawned - spawned);
            check_memory(phases[i].name);
        }
        rounds++;
        if (!mem_base_set) {
            mem_base = memory_now();
            mem_base_set = true;
        }
        if (sp_nanotime() >= next_report) {
            sched_census(&c);
            progress(&c, sp_nanotime());
            next_report += report_ns;
        }
    }
    elapsed_ns = sp_nanotime() - t0;
    sched_census(&c);
    if (next_report - report_ns + 1000000000 < sp_nanotime())
        progress(&c, sp_nanotime());    /* unless one was just printed */
    printf("soak: totals: %d rounds, %lu Gs started, %lu switches, %lu "
           "messages, %lu selects, %lu timers, %lu locks, %lu sleeps, %lu "
           "hog preemptions, %lu bytes echoed, %lu broken\n", rounds,
           (unsigned long)tally.spawned,
           (unsigned long)(c.switches - base.switches),
           (unsigned long)tally.msgs, (unsigned long)tally.selects,
           (unsigned long)tally.timers, (unsigned long)tally.locks,
           (unsigned long)tally.sleeps, (unsigned long)tally.preempts,
           (unsigned long)tally.net_bytes, (unsigned long)tally.bad);
    if (fault_armed) {
        struct fault_counts fc;

        fault_counts(&fc);
        printf("soak: faults injected: %lu page allocations failed, %lu "
               "IPIs answered late, %lu timer interrupts delayed\n",
               (unsigned long)fc.allocs_failed, (unsigned long)fc.ipis_deaf,
               (unsigned long)fc.timers_delayed);
    }
    if (phase_netfault_enabled()) {
        struct fault_counts fc;

        fault_counts(&fc);
        printf("soak: network-fault phase: %lu bytes echoed through the "
               "NIC; link faults rx drop %lu dup %lu reorder %lu corrupt "
               "%lu, tx drop %lu dup %lu reorder %lu corrupt %lu; TCP data "
               "segments lost rx %lu tx %lu\n",
               (unsigned long)tally.netfault_bytes,
               (unsigned long)fc.rx[FK_DROP], (unsigned long)fc.rx[FK_DUP],
               (unsigned long)fc.rx[FK_REORDER],
               (unsigned long)fc.rx[FK_CORRUPT],
               (unsigned long)fc.tx[FK_DROP], (unsigned long)fc.tx[FK_DUP],
               (unsigned long)fc.tx[FK_REORDER],
               (unsigned long)fc.tx[FK_CORRUPT],
               (unsigned long)fc.rx_data_lost, (unsigned long)fc.tx_data_lost);
    }
}

/* ---- the verdict ------------------------------------------------------- */

TEST(rounds_done)
{
    soak();
    CHECKF(rounds >= min_rounds && rounds >= 2,
           "%d rounds in %lu ms", rounds, (unsigned long)(elapsed_ns / 1000000));
}

TEST(every_phase_worked)
{
    CHECK(tally.spawned > 0);
    CHECK(tally.msgs > 0);
    CHECK(tally.selects > 0);
    CHECK(tally.timers > 0);
    CHECK(tally.locks > 0);
    CHECK(tally.sleeps > 0);
    /* ncpu + 1 hogs of 25 ms each round: one core holds two at a time. */
    CHECKF(tally.preempts > 0, "hogs burned %lu ms, never preempted",
           (unsigned long)tally.hog_ms);
    CHECK(!phase_net_enabled() || tally.net_bytes > 0);
    CHECK(!phase_netfault_enabled() || tally.netfault_bytes > 0);
}

TEST(gs_accounted_for)
{
    CHECKF(nbad_books == 0, "%lu unbalanced: %s", (unsigned long)nbad_books,
           first_bad);
}

TEST(memory_back_at_baseline)
{
    CHECKF(nbad_memory == 0, "%lu phases: %s", (unsigned long)nbad_memory,
           first_bad);
}

TEST(nothing_lost_or_duplicated)
{
    CHECKF(tally.bad == 0, "%lu broken laws, first: %s",
           (unsigned long)tally.bad, first_bad);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    return sp_test_main();
}
