/*
 * smp - every core online and usable at once: per-CPU state, IPIs,
 * spinlocks, newlib (malloc, printf, math) and the page allocator from all
 * cores concurrently, ending with a leak check of every page.
 */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"
#include "tests/lib/testutil.h"

static int want_cores;
static struct barrier bar;
static size_t free_at_start, tables_at_start, heap_at_start, gslot_at_start,
              big_at_start;
static long runq_at_start;

TEST(cores_online)
{
    CHECKF(want_cores > 0, "runner did not pass cores=N");
    CHECKF(sp_ncpu() == want_cores, "%d cores online, %d requested",
           sp_ncpu(), want_cores);
    for (int i = 0; i < sp_ncpu(); i++)
        CHECKF(cpus[i]->online && cpus[i]->id == i, "cpu %d not online", i);
}

/* ---- per-CPU blocks and stacks are distinct -------------------------- */

static struct cpu *seen_cpu[MAXCPU];
static uintptr_t seen_stack[MAXCPU];

static void record_self(void *arg)
{
    int id = sp_cpu_id();
    int local;

    seen_cpu[id] = this_cpu();
    seen_stack[id] = (uintptr_t)&local;
}

TEST(percpu_distinct)
{
    int n = sp_ncpu();

    memset(seen_cpu, 0, sizeof seen_cpu);
    sp_on_each_cpu(record_self, NULL);
    for (int i = 0; i < n; i++) {
        CHECKF(seen_cpu[i] == cpus[i], "core %d saw the wrong block", i);
        for (int j = 0; j < i; j++) {
            CHECKF(seen_cpu[i] != seen_cpu[j], "cores %d and %d share a "
                   "per-CPU block", i, j);
            CHECKF(seen_stack[i] - seen_stack[j] > 16384 &&
                   seen_stack[j] - seen_stack[i] > 16384,
                   "cores %d and %d run on the same stack", i, j);
        }
    }
}

/* ---- IPIs ------------------------------------------------------------ */

#define IPI_ROUNDS 200
#define IPI_WAIT_NS 1000000000ULL

static bool wait_ipis(struct cpu *c, uint64_t want)
{
    uint64_t end = sp_nanotime() + IPI_WAIT_NS;

    while (__atomic_load_n(&c->nipi, __ATOMIC_ACQUIRE) < want)
        if (sp_nanotime() > end)
            return false;
    return true;
}

/*
 * The IPI cases send from main's core and count what the others receive,
 * so main must not move meanwhile: it runs with preemption off (a
 * preempted main may be picked up by another core).
 */
static void pin(int delta)
{
    getg()->preemptoff += delta;
}

/* Main's core sends to each other core in turn; they are halted. */
static void ipi_each_core_pinned(void)
{
    int me = sp_cpu_id();

    for (int i = 0; i < sp_ncpu(); i++) {
        struct cpu *c = cpus[i];
        uint64_t base = __atomic_load_n(&c->nipi, __ATOMIC_ACQUIRE);

        if (i == me)
            continue;
        for (int k = 1; k <= IPI_ROUNDS; k++) {
            arch_send_ipi(c);
            CHECKF(wait_ipis(c, base + k), "core %d got %lu of %d IPIs", i,
                   (unsigned long)(c->nipi - base), k);
        }
    }
}

/* Every core sends to the next one at the same time. */
static int ring_fail;

static void ipi_ring_fn(void *arg)
{
    int n = sp_ncpu(), me = sp_cpu_id();
    struct cpu *next = cpus[(me + 1) % n];
    uint64_t base;

    barrier_wait(&bar, n);  /* the IPIs of sp_on_each_cpu are all counted */
    base = __atomic_load_n(&next->nipi, __ATOMIC_ACQUIRE);
    barrier_wait(&bar, n);
    for (int k = 1; k <= IPI_ROUNDS; k++) {
        arch_send_ipi(next);
        if (!wait_ipis(next, base + k))
            __atomic_store_n(&ring_fail, me + 1, __ATOMIC_RELEASE);
    }
    barrier_wait(&bar, n);
}

TEST(ipi_ring)
{
    if (sp_ncpu() < 2)
        return;         /* a core cannot be its own neighbour */
    ring_fail = 0;
    sp_on_each_cpu(ipi_ring_fn, NULL);
    CHECKF(!ring_fail, "core %d's IPIs to its neighbour went missing",
           ring_fail - 1);
}

TEST(ipi_each_core)
{
    pin(1);
    ipi_each_core_pinned();
    pin(-1);
}

static void ipi_broadcast_pinned(void)
{
    uint64_t base[MAXCPU];
    int me = sp_cpu_id();

    for (int i = 0; i < sp_ncpu(); i++)
        base[i] = __atomic_load_n(&cpus[i]->nipi, __ATOMIC_ACQUIRE);
    for (int k = 1; k <= IPI_ROUNDS; k++) {
        arch_send_ipi_others();
        for (int i = 0; i < sp_ncpu(); i++)
            CHECKF(i == me || wait_ipis(cpus[i], base[i] + k),
                   "core %d missed broadcast %d", i, k);
    }
    CHECKF(cpus[me]->nipi == base[me], "the sender received its own "
           "broadcast");
}

TEST(ipi_broadcast)
{
    pin(1);
    ipi_broadcast_pinned();
    pin(-1);
}

/*
 * An IPI that reaches a core with interrupts off must wait until they are
 * on, then run exactly once.  (Every build masks them in software: x86_64
 * and the hosted build send a held one again, aarch64 leaves it pending
 * in the GIC; a lost or doubled resend, a pending one never taken, or a
 * handler run inside the masked region, shows here.)  Main sends them to
 * its own core, pinned, so it works at one core too.
 */
#define MASKED_ROUNDS 20
#define MASKED_NS 2000000ULL

static void ipi_while_masked_pinned(void)
{
    struct cpu *c = cpus[sp_cpu_id()];

    for (int k = 0; k < MASKED_ROUNDS; k++) {
        uint64_t base = __atomic_load_n(&c->nipi, __ATOMIC_ACQUIRE), end;
        unsigned long f = arch_irq_save();
        bool early = false;

        arch_send_ipi(c);
        end = sp_nanotime() + MASKED_NS;
        while (sp_nanotime() < end && !early)
            early = __atomic_load_n(&c->nipi, __ATOMIC_ACQUIRE) != base;
        arch_irq_restore(f);
        CHECKF(!early, "round %d: the IPI ran with interrupts off", k);
        CHECKF(wait_ipis(c, base + 1), "round %d: the IPI held while "
               "interrupts were off never ran", k);
        end = sp_nanotime() + MASKED_NS;
        while (sp_nanotime() < end)
            ;
        CHECKF(c->nipi == base + 1, "round %d: one IPI ran %lu times", k,
               (unsigned long)(c->nipi - base));
    }
}

TEST(ipi_while_masked)
{
    pin(1);
    ipi_while_masked_pinned();
    pin(-1);
}

/*
 * smp_call_all_irq reaches a core whose G never passes between Gs (it
 * spins with preemption off): the core runs the call in its IPI handler.
 * A call that waited for the scheduler would wait for the spinner's own
 * timeout.
 */
#define SPIN_LIMIT_NS 5000000000ULL

struct spinner {
    int started, stop, done, timed_out, core;
};

static int call_ran[MAXCPU];

static void note_core(void *arg)
{
    __atomic_store_n(&((int *)arg)[cpu_id()], 1, __ATOMIC_RELAXED);
}

static void spinner(void *arg)
{
    struct spinner *sp = arg;
    uint64_t end = sp_nanotime() + SPIN_LIMIT_NS;

    pin(1);
    sp->core = sp_cpu_id();
    __atomic_store_n(&sp->started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE))
        if (sp_nanotime() > end) {
            sp->timed_out = 1;
            break;
        }
    pin(-1);
    __atomic_store_n(&sp->done, 1, __ATOMIC_RELEASE);
}

TEST(call_irq_reaches_busy_core)
{
    struct spinner sp = { 0 };
    uint64_t end;

    memset(call_ran, 0, sizeof call_ran);
    if (sp_ncpu() < 2) {
        /* No core for the spinner: the caller's own call still runs. */
        smp_call_all_irq(note_core, call_ran);
        CHECKF(call_ran[0], "the call did not run on the only core");
        return;
    }
    pin(1);             /* main keeps its core: another one takes sp */
    sp_go(spinner, &sp);
    end = sp_nanotime() + SPIN_LIMIT_NS;
    while (!__atomic_load_n(&sp.started, __ATOMIC_ACQUIRE) &&
           sp_nanotime() < end)
        ;
    CHECKF(sp.started, "no other core took the spinner");
    if (sp.started) {
        smp_call_all_irq(note_core, call_ran);
        __atomic_store_n(&sp.stop, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < sp_ncpu(); i++)
            CHECKF(__atomic_load_n(&call_ran[i], __ATOMIC_RELAXED),
                   "core %d did not run the call", i);
    }
    pin(-1);
    while (sp.started && !__atomic_load_n(&sp.done, __ATOMIC_ACQUIRE))
        sp_yield();
    CHECKF(!sp.timed_out, "the call waited for the spinner on core %d to "
           "stop by itself", sp.core);
}

/* ---- spinlock -------------------------------------------------------- */

#define COUNTER_TOTAL 1000000

static struct spinlock counter_lock = SPINLOCK_INIT(LOCK_TEST);
static volatile long counter;
static long per_core_done[MAXCPU];

static void count_fn(void *arg)
{
    int n = sp_ncpu(), me = sp_cpu_id();
    long mine = COUNTER_TOTAL / n + (me < COUNTER_TOTAL % n);

    barrier_wait(&bar, n);
    for (long i = 0; i < mine; i++) {
        unsigned long f = spin_lock(&counter_lock);

        counter = counter + 1;      /* a non-atomic read-modify-write */
        spin_unlock(&counter_lock, f);
    }
    per_core_done[me] = mine;
}

TEST(spinlock_counter)
{
    counter = 0;
    sp_on_each_cpu(count_fn, NULL);
    CHECKF(counter == COUNTER_TOTAL, "counter %ld, expected %d", counter,
           COUNTER_TOTAL);
    for (int i = 0; i < sp_ncpu(); i++)
        CHECKF(per_core_done[i] > 0, "core %d did not take part", i);
}

/* ---- malloc, free, printf from every core ---------------------------- */

#define STRESS_NS   2000000000ULL
#define TAP_SIZE    (2 << 20)
#define MIX_LINES   12000       /* all cores together: ~0.9 MB of text */
#define SLOTS       64

static int stress_fail;
static unsigned long stress_lines[MAXCPU];

struct stress {
    uint64_t ns;                /* how long */
    unsigned long lines;        /* most "mix" lines, all cores together */
};

static void stress_fn(void *arg)
{
    const struct stress *st = arg;
    int me = sp_cpu_id();
    uint64_t seed = 0x9E3779B97F4A7C15ULL * (me + 1), end;
    unsigned char *p[SLOTS] = { 0 };
    size_t sz[SLOTS];
    unsigned long line = 0;

    barrier_wait(&bar, sp_ncpu());
    end = sp_nanotime() + st->ns;
    for (uint64_t it = 0; sp_nanotime() < end; it++) {
        int s = rnd(&seed) % SLOTS;

        if (p[s]) {
            for (size_t i = 0; i < sz[s]; i++)
                if (p[s][i] != (unsigned char)(s + me * 7 + i))
                    __atomic_store_n(&stress_fail, 1, __ATOMIC_RELEASE);
            free(p[s]);
        }
        sz[s] = 1 + rnd(&seed) % 4000;
        p[s] = malloc(sz[s]);
        if (!p[s]) {
            __atomic_store_n(&stress_fail, 2, __ATOMIC_RELEASE);
            break;
        }
        for (size_t i = 0; i < sz[s]; i++)
            p[s][i] = s + me * 7 + i;
        if (it % 16 == 0 && line < st->lines / sp_ncpu())
            printf("mix core=%d line=%lu %s %.3f\n", me, line++,
                   "abcdefghijklmnopqrstuvwxyz0123456789", sqrt(2.0) * me);
    }
    for (int s = 0; s < SLOTS; s++)
        free(p[s]);
    stress_lines[me] = line;
}

/* Every "mix" line in the console copy must be whole and in order. */
static const char *check_lines(const char *buf, size_t len)
{
    unsigned long next[MAXCPU] = { 0 };
    char want[160];

    for (const char *l = buf; l < buf + len;) {
        const char *e = memchr(l, '\n', buf + len - l);
        int core;
        unsigned long line;

        if (!e)
            return "console copy ends inside a line";
        if (!strncmp(l, "mix ", 4)) {
            if (sscanf(l, "mix core=%d line=%lu", &core, &line) != 2 ||
                core < 0 || core >= sp_ncpu())
                return "a malformed line (interleaved output?)";
            snprintf(want, sizeof want, "mix core=%d line=%lu %s %.3f", core,
                     line, "abcdefghijklmnopqrstuvwxyz0123456789",
                     sqrt(2.0) * core);
            if ((size_t)(e - l) != strlen(want) || strncmp(l, want, e - l))
                return "a line differs from what was printed (interleaved?)";
            if (line != next[core]++)
                return "a core's lines are missing or out of order";
        }
        l = e + 1;
    }
    for (int i = 0; i < sp_ncpu(); i++)
        if (next[i] != stress_lines[i])
            return "lines missing from the console";
    return NULL;
}

TEST(newlib_all_cores)
{
    char *tap = malloc(TAP_SIZE);
    long before, after;
    const char *err;
    size_t got;

    CHECK(tap);
    /* A short round first: newlib keeps some state for good after its
       first use in each context (dtoa's cache of big numbers for %f),
       and the heap must be compared without it.  Main stays on its core
       for the whole case, so both rounds run in the same contexts: once
       main moved between them and the measured round was the first %f
       in the context main had left, 1-2 KB "leaked". */
    pin(1);
    sp_on_each_cpu(stress_fn, &(struct stress){ STRESS_NS / 10, 256 });
    before = heap_in_use();
    stress_fail = 0;
    console_tap(tap, TAP_SIZE);
    sp_on_each_cpu(stress_fn, &(struct stress){ STRESS_NS, MIX_LINES });
    got = console_tap(NULL, 0);
    after = heap_in_use();
    pin(-1);
    CHECKF(before > 0, "malloc_stats printed no 'in use bytes'");
    CHECKF(stress_fail != 1, "a malloc'd block was corrupted");
    CHECKF(stress_fail != 2, "malloc failed");
    CHECKF(got < TAP_SIZE, "console copy overflowed");
    err = check_lines(tap, got);
    CHECKF(!err, "%s", err);
    CHECKF(after == before, "%ld bytes in use before, %ld after", before,
           after);
    free(tap);
}

static volatile double math_out[MAXCPU];

static void math_fn(void *arg)
{
    char buf[64];
    double x = sqrt(2.0) * sin(0.5) + log(10.0) + pow(2.0, 0.5);

    snprintf(buf, sizeof buf, "%.6f", x);
    math_out[sp_cpu_id()] = strtod(buf, NULL) + (strlen(buf) == 8 ? 0 : 100);
}

TEST(newlib_math)
{
    sp_on_each_cpu(math_fn, NULL);
    for (int i = 0; i < sp_ncpu(); i++)
        CHECKF(fabs(math_out[i] - 4.394808) < 0.00001, "core %d computed %f", i,
               math_out[i]);
}

/* ---- page allocator from every core ---------------------------------- */

#define PAGE_ROUNDS 2000
#define PAGE_HELD   32

static int page_fail;

static void pages_fn(void *arg)
{
    int me = sp_cpu_id();
    uint64_t held[PAGE_HELD] = { 0 }, seed = me + 12345;

    barrier_wait(&bar, sp_ncpu());
    for (int r = 0; r < PAGE_ROUNDS; r++) {
        int s = rnd(&seed) % PAGE_HELD;
        uint64_t *w;

        if (held[s]) {
            w = phys_to_virt(held[s]);
            /* Each page carries its owner's mark; another core having
               been handed the same page would have overwritten it. */
            if (w[0] != held[s] || w[1] != (uint64_t)me)
                __atomic_store_n(&page_fail, 1, __ATOMIC_RELEASE);
            mem_free_pages(held[s], 1);
        }
        held[s] = mem_alloc_pages(1);
        if (!held[s]) {
            __atomic_store_n(&page_fail, 2, __ATOMIC_RELEASE);
            break;
        }
        w = phys_to_virt(held[s]);
        w[0] = held[s];
        w[1] = me;
    }
    for (int s = 0; s < PAGE_HELD; s++)
        if (held[s])
            mem_free_pages(held[s], 1);
}

TEST(pages_all_cores)
{
    size_t before = mem_free_count();

    page_fail = 0;
    sp_on_each_cpu(pages_fn, NULL);
    CHECKF(page_fail != 1, "one page was handed to two owners");
    CHECKF(page_fail != 2, "out of pages");
    CHECKF(mem_free_count() == before, "%ld pages leaked",
           (long)(before - mem_free_count()));
}

/* Every page taken since main started is heap, G stack (main's big one
   included), page table or global run queue. */
TEST(leak_check)
{
    size_t mem_free, gslot;
    long used, grown;

    /* Together: idle cores may be releasing Gs' pages meanwhile. */
    vm_page_accounts(&mem_free, &gslot);
    used = (long)(free_at_start - mem_free);
    grown = (long)(vm_heap_pages() - heap_at_start) +
            (long)(gslot - gslot_at_start) +
            (long)(vm_bigstack_pages() - big_at_start) +
            (long)(arch_page_table_pages() - tables_at_start) +
            (sched_runq_pages() - runq_at_start);

    CHECKF(used == grown, "%ld pages in use since main started, %ld "
           "accounted for by heap, G stacks, page tables and the global "
           "run queue", used, grown);
}

int main(int argc, char **argv)
{
    vm_page_accounts(&free_at_start, &gslot_at_start);
    big_at_start = vm_bigstack_pages();
    tables_at_start = arch_page_table_pages();
    heap_at_start = vm_heap_pages();
    runq_at_start = sched_runq_pages();
    want_cores = expected_cores(argc, argv);
    return sp_test_main();
}
