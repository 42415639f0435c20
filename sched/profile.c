/*
 * profile.c - the sampling CPU profiler (profile=HZ, <spindle/profile.h>):
 * every core samples what it runs HZ times a second from its own timer
 * interrupt, and the samples leave at exit (or sp_profile_stop) as a dump
 * that tools/run/pprof.py turns into a pprof profile and folded stacks.
 *
 * When.  Each core keeps m->prof_due, the cycle count at which its next
 * sample is due, on a grid of `period` cycles, from prof_core_start on.
 * While it runs Gs its one timer is armed no later than that
 * (core_timer_arm, schedimpl.h), beside its slice end and its timers.  A
 * sample is taken at the first interrupt at or after the due time, and
 * its weight is the whole periods the core's run clock (arch_run_clock:
 * the cycle counter on bare metal, the core thread's CPU time hosted)
 * advanced since the last one, the remainder carried: late interrupts,
 * timergap's moderation and a vCPU the host descheduled lose no time,
 * each core's weights add up to the time it ran, and pprof's
 * cpu/nanoseconds is weight * period.  A halted core is not woken to be
 * sampled: its sleep is charged to idle when it wakes (prof_woken), as
 * one sample of the periods it slept.
 *
 * Where interrupts were off.  Spindle masks interrupts in software (arch/
 * arch_impl.h): an interrupt that arrives while the core's mask is set is
 * noted and taken later, but its arrival still stops the core at the very
 * instruction the mask covers, with the registers in hand.  The arch
 * calls prof_interrupt there (x86_64 for the timer's masked arrival,
 * aarch64 for any, as it does not acknowledge a held one; the hosted
 * build for a timer signal that comes while masked, or inside libc where
 * it may not act), so time with interrupts off (the scheduler, a
 * spinlock's section, newproc, timer functions) is attributed where it
 * was spent, flagged PROF_IRQOFF (pprof label irqs=off).  What the
 * hardware itself holds off (IF or PSTATE.I clear: only interrupt
 * handlers and a few instructions around arch_halt and the unmasking) is
 * charged at the end of the handler (prof_irq_done: the interrupt
 * pseudo-frame and the handler's name) or, for the few instructions,
 * where interrupts come back on.  A masked stretch longer than a period
 * gets its first sample where it was spent; the rest is charged where
 * the held timer interrupt runs (it re-arms the timer).
 *
 * What a sample holds: the interrupted program counter and the return
 * addresses of the frame-pointer chain above it (every build keeps frame
 * pointers: -fno-omit-frame-pointer for the kernel, lwIP, newlib and the
 * hosted build), at most PROF_DEPTH, the G whose stack it is (its id and
 * start function g->fn), and the kind (profbuf.h): a G's stack, g0's
 * (the core's own: the scheduler, or idle when the M spins for work),
 * halted, or an interrupt handler (m->prof_irq, profile.h).  The core is
 * the buffer's.  The unwinding never faults: the stack is found from the
 * interrupted stack pointer (a G slot, a big stack, or the core's own),
 * and every frame read lies in [sp, top of that stack), which is mapped
 * (every page between a running stack's pointer and its top has been
 * touched: frames under a page are adjacent, larger ones probe each
 * page), 8-byte aligned, above the one before; anything else ends the
 * walk.  A stack pointer on no known stack gives the program counter
 * alone.  Code without frame pointers (hand-written assembly, the host's
 * glibc) makes a short or wrong chain, never a fault.  A leaf that keeps
 * no frame record (gcc makes none for a function without stack use,
 * frame pointers or not) would lose its caller: the sample keeps its
 * link (profbuf.h), which tools/run/pprof.py splices in where the
 * image's unwind table says the return address is there.
 *
 * Buffers.  Each core owns a profbuf (profbuf.h) on cache lines of its
 * own; only the core writes it, from its interrupts or with interrupts
 * off, and `busy` keeps a hosted signal that comes inside a sample out.
 * Nothing is shared but the rate, written while no core samples.
 *
 * Reading them (prof_stop).  Every core stops itself in a cross-core
 * call (prof_due = 0).  A sample is an interrupt handler, which ends
 * before the code it interrupted goes on, so once a core has answered
 * the call none of its samples is half written and none comes later;
 * the call's release of call_done and the caller's acquire order the
 * owners' writes before the reader's loads.  The reader then folds equal
 * samples together (a CPU-bound loop makes thousands of few stacks) and
 * writes the dump: the console (lines of profbuf.h, checksummed) or on
 * the hosted build a file (profile_file=PATH, else the image's path with
 * .prof for .elf), one per run, each dump a segment in it.  A panic or a
 * deadlock ends the machine without a dump.
 */
#include <errno.h>
#include <stdlib.h>
#include "arch/arch.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/fmt.h"
#include "kernel/printk.h"
#include "kernel/vm.h"
#include "kernel/panic.h"
#include "sched/pprofenc.h"
#include "sched/profile.h"
#include "sched/schedimpl.h"
#include <spindle/profile.h>
#include <spindle/time.h>

/* The sampler runs in interrupts that may come anywhere: on the hosted
   build inside a sanitizer's runtime, so it is not instrumented (it
   calls nothing that is: the inline helpers it uses are always_inline,
   and its own helpers carry this too); and it reads other frames'
   words, which ASan must not take for a stray access. */
#define PROF_NOSAN __attribute__((no_sanitize_address, no_sanitize_thread, \
                                  no_sanitize_undefined))

struct profcore {
    struct profbuf buf;
    uint64_t ran;               /* arch_run_clock() up to which samples
                                   have charged the core's time (owner
                                   only) */
    bool busy;                  /* a sample is being taken (owner only) */
};

static struct {
    struct profcfg cfg;         /* the command line's values */
    long hz;                    /* the rate in force, 0 while stopped */
    uint64_t period;            /* cycles; written while no core samples */
    uint64_t started;           /* arch_cycles() and sp_walltime() at the */
    uint64_t started_wall;      /* start, for a pprof profile's times */
    struct profcore *core[MAXCPU];
    int segment;                /* dumps made */
    void *file;                 /* the hosted build's dump file, or NULL */
    bool exit_hook;             /* atexit(prof_at_exit) done */
    int op;                     /* a start or stop runs; atomic exchange */
} prof;

/* No files on bare metal: the dump goes to the console.  The hosted
   build replaces these (arch/hosted/process.c). */
__attribute__((weak)) void *arch_dump_open(const char *path, const char *ext,
                                           const char *who)
{
    return NULL;
}

__attribute__((weak)) void arch_dump_write(void *f, const char *s, size_t n)
{
}

__attribute__((weak)) void arch_dump_close(void *f)
{
}

/* ---- Sampling ---------------------------------------------------------- */

/*
 * The stack that holds sp: sets [*lo, *hi) to what of it may be read
 * (from sp to its top; *hi = 0 if sp lies on none known) and returns
 * the G it belongs to, NULL for the core's own.
 */
static PROF_NOSAN struct g *stack_of(const struct cpu *c, uintptr_t sp,
                                     uintptr_t *lo, uintptr_t *hi)
{
    struct g *gp = NULL;
    uintptr_t top = 0;

    *lo = sp;
    if (sp - VM_GSLOT_BASE < VM_GSLOT_MAX) {
        size_t i = (sp - VM_GSLOT_BASE) / VM_GSLOT_SIZE;

        gp = GTAB + i;
        top = VM_GSLOT_BASE + (i + 1) * VM_GSLOT_SIZE;
    } else if (sp - VM_BIGSTACK_BASE < VM_BIGSTACK_AREA) {
        size_t i = (sp - VM_BIGSTACK_BASE) >> VM_BIGSTACK_SHIFT;

        gp = __atomic_load_n(&vm_bigstack_owner[i], __ATOMIC_RELAXED);
        top = VM_BIGSTACK_BASE + ((i + 1) << VM_BIGSTACK_SHIFT);
    } else if (sp >= c->stack_lo && sp < c->stack_hi) {
        *hi = c->stack_hi;
        return NULL;
    }
    /* A G's own top, below its TLS block and newlib state, if it is in
       its stack's range (a G being made may not have it yet). */
    *hi = gp && gp->stack_hi > sp && gp->stack_hi <= top ? gp->stack_hi : 0;
    return gp;
}

/* pc, then the return addresses of the frame chain from fp, within
   [lo, hi) (profile.c's header); how many went into pcs. */
PROF_NOSAN unsigned prof_unwind(uintptr_t pc, uintptr_t fp, uintptr_t lo,
                                uintptr_t hi, uint64_t *pcs)
{
    unsigned n = 0;

    if (pc)
        pcs[n++] = pc;
    while (n < PROF_DEPTH && hi >= 16 && fp >= lo && fp <= hi - 16 &&
           !(fp & 7)) {
        const uintptr_t *frame = (const uintptr_t *)fp;
        uintptr_t next = frame[0], ret = frame[1];

        if (!ret)
            break;
        pcs[n++] = ret;
        if (next <= fp)
            break;
        fp = next;
    }
    return n;
}

/* The image's code (the linker scripts; the hosted build's link). */
extern const char __text_start[], __text_end[];

/* The link of a sample (profbuf.h): lr, else the word at sp if it can be
   read; kept if it is an address of the image's code. */
static PROF_NOSAN uint64_t link_of(uintptr_t lr, uintptr_t sp, uintptr_t hi)
{
    uintptr_t v = lr;

    if (!v && hi >= 8 && sp && sp <= hi - 8 && !(sp & 7))
        v = *(const uintptr_t *)sp;
    return v >= (uintptr_t)__text_start && v < (uintptr_t)__text_end ? v : 0;
}

/* Records a sample of n periods of what m's core runs, the registers
   those of the interrupted code (pc 0: none). */
static PROF_NOSAN void record(struct m *m, struct profbuf *b, uint64_t n,
                              uintptr_t pc, uintptr_t fp, uintptr_t sp,
                              uintptr_t lr, unsigned flags)
{
    uint64_t pcs[PROF_DEPTH], link = 0;
    unsigned kind = PROF_HALT, depth = 0;
    struct g *gp = NULL;
    uintptr_t lo, hi;

    if (!__atomic_load_n(&m->halted, __ATOMIC_RELAXED)) {
        gp = stack_of(m->cpu, sp, &lo, &hi);
        depth = prof_unwind(pc, fp, lo, hi, pcs);
        if (pc)
            link = link_of(lr, sp, hi);
        if (m->prof_irq)
            kind = PROF_IRQ;
        else if (gp)
            kind = PROF_G;
        else
            kind = __atomic_load_n(&m->spinning, __ATOMIC_RELAXED)
                       ? PROF_IDLE : PROF_SCHED;
        if (kind == PROF_IRQ && !gp)
            gp = __atomic_load_n(&m->curg, __ATOMIC_RELAXED);
    }
    profbuf_put(b, n > 0xffffffffu ? 0xffffffffu : (uint32_t)n, kind, flags,
                gp ? gp->goid : 0, gp ? (uintptr_t)gp->fn : 0, link, pcs,
                depth);
}

/* sample's work, once the core's sample is its own: the weight from the
   run clock since the last one, then the record if it is not 0. */
static PROF_NOSAN void take(struct m *m, struct profcore *pc_, uintptr_t pc,
                            uintptr_t fp, uintptr_t sp, uintptr_t lr,
                            unsigned flags)
{
    uint64_t due = m->prof_due, now, run, n;

    if (!due || (now = arch_cycles()) < due)
        return;
    /* The next grid point after now. */
    m->prof_due = now + prof.period - (now - due) % prof.period;
    run = arch_run_clock();
    n = (run - pc_->ran) / prof.period;
    pc_->ran += n * prof.period;
    if (n)
        record(m, &pc_->buf, n, pc, fp, sp, lr, flags);
}

/* Records one sample of what this core runs if one is due, with the
   registers of the interrupted code; m is this core's M.  With
   interrupts off. */
static PROF_NOSAN void sample(struct m *m, uintptr_t pc, uintptr_t fp,
                              uintptr_t sp, uintptr_t lr, unsigned flags)
{
    struct profcore *pc_ = prof.core[m->cpu->id];

    /* busy first, then the due time (take): a signal inside this sample
       (hosted) finds it busy, and one before it has moved prof_due on. */
    if (pc_->busy)
        return;
    pc_->busy = true;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    take(m, pc_, pc, fp, sp, lr, flags);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pc_->busy = false;
}

PROF_NOSAN void prof_interrupt(uintptr_t pc, uintptr_t fp, uintptr_t sp,
                               uintptr_t lr, bool masked)
{
    struct m *m = this_cpu()->m;

    if (m && m->prof_due && arch_cycles() >= m->prof_due)
        sample(m, pc, fp, sp, lr, masked ? PROF_IRQOFF : 0);
}

void prof_timer(struct m *m, struct trapframe *tf)
{
    uintptr_t pc = arch_trapframe_pc(tf);

    if (pc)
        sample(m, pc, arch_trapframe_fp(tf), arch_trapframe_sp(tf),
               arch_trapframe_lr(tf), 0);
    else
        sample(m, 0, arch_frame_address(), arch_frame_address(), 0, 0);
}

void prof_woken(struct m *m)
{
    sample(m, 0, 0, 0, 0, 0);   /* m->halted: no frames */
}

void prof_irq_done(struct m *m, uintptr_t handler)
{
    /* The handler's entry alone: no stack pointer, no chain. */
    if (arch_cycles() >= m->prof_due)
        sample(m, handler, 0, 0, 0, 0);
    m->prof_irq--;
}

int prof_sample_bench(long n)
{
    static uint64_t scratch[PROF_HDR + PROF_DEPTH];
    unsigned long f = arch_irq_save();
    struct m *m = this_cpu()->m;
    struct profbuf b;

    profbuf_init(&b, scratch, PROF_HDR + PROF_DEPTH);
    for (long i = 0; i < n; i++) {
        uintptr_t fp = arch_frame_address();

        /* take's clock reads, then its record. */
        (void)arch_cycles();
        (void)arch_run_clock();
        profbuf_reset(&b);
        record(m, &b, 1, (uintptr_t)prof_sample_bench, fp, fp, 0, 0);
    }
    arch_irq_restore(f);
    return (int)prof_depth(b.w);
}

/* ---- Starting and stopping --------------------------------------------- */

/* Every core's buffer, made on the first start and kept. */
static bool alloc_cores(void)
{
    for (int i = 0; i < ncpu; i++) {
        struct profcore *pc_;
        uint64_t *w;

        if (prof.core[i])
            continue;
        /* A failure keeps what it got: zalloc_lines's blocks are not
           the heap's to free. */
        if (!(pc_ = zalloc_lines(sizeof *pc_)) ||
            !(w = zalloc_lines(prof.cfg.words * sizeof *w))) {
            printk("profile: no memory for %lu KiB per core\n",
                   (unsigned long)(prof.cfg.words * sizeof *w >> 10));
            return false;
        }
        profbuf_init(&pc_->buf, w, prof.cfg.words);
        prof.core[i] = pc_;
    }
    return true;
}

/* This core samples from now on; interrupts off. */
static void start_core(struct m *m)
{
    prof.core[m->cpu->id]->ran = arch_run_clock();
    m->prof_due = arch_cycles() + prof.period;
}

void prof_core_start(struct m *m)
{
    /* Set by prof_init before sched.ready's release, which this core
       has acquired. */
    if (__atomic_load_n(&prof.hz, __ATOMIC_RELAXED))
        start_core(m);
}

/* The cross-core call of a start: the timer armed for it too. */
static void start_own(void *arg)
{
    unsigned long f = arch_irq_save();
    struct m *m = this_cpu()->m;

    start_core(m);
    core_timer_arm(m, m->prof_due);
    arch_irq_restore(f);
}

static void stop_own(void *arg)
{
    this_cpu()->m->prof_due = 0;
}

static void prof_at_exit(void);

/* Under prof.op: the buffers empty, the rate set, the exit's dump hooked. */
static int ready(long hz)
{
    if (hz < 1 || hz > PROF_HZ_MAX)
        return -EINVAL;
    if (prof.hz)
        return -EBUSY;
    if (!alloc_cores())
        return -ENOMEM;
    for (int i = 0; i < ncpu; i++)
        profbuf_reset(&prof.core[i]->buf);
    __atomic_store_n(&prof.hz, hz, __ATOMIC_RELAXED);
    prof.period = arch_cycles_hz() / hz ? arch_cycles_hz() / hz : 1;
    prof.started = arch_cycles();
    prof.started_wall = sp_walltime();
    if (!prof.exit_hook) {
        prof.exit_hook = true;
        atexit(prof_at_exit);
    }
    return 0;
}

static void op_begin(void)
{
    while (__atomic_exchange_n(&prof.op, 1, __ATOMIC_ACQUIRE))
        goyield();
}

static void op_end(void)
{
    __atomic_store_n(&prof.op, 0, __ATOMIC_RELEASE);
}

int prof_start(long hz)
{
    int rc;

    op_begin();
    if (!(rc = ready(hz)))
        smp_call_all(start_own, NULL);
    op_end();
    return rc;
}

void prof_init(void)
{
    const char *hz = NULL, *buf = NULL;
    char err[128];

    cmdline_get("profile", &hz);
    cmdline_get("profile_buf", &buf);
    if (profcfg_parse(hz, buf, &prof.cfg, err, sizeof err) < 0)
        printk("profile: %s\n", err);
    /* Each core starts itself in prof_core_start, and arms its timer
       for its first sample when it starts its first G. */
    if (!prof.cfg.hz || ready(prof.cfg.hz) < 0)
        return;
    printk("profile: sampling every core at %ld Hz, %lu KiB per core, "
           "dumped at exit\n", prof.hz,
           (unsigned long)(prof.cfg.words * 8 >> 10));
}

/* ---- The dump ---------------------------------------------------------- */

static void out(const char *line, size_t n)
{
    if (prof.file)
        arch_dump_write(prof.file, line, n);
    else
        console_write(line, n);
}

/* Folds b's equal samples together (profbuf_merge) with a scratch table
   from the heap, or leaves them unfolded without one; the records left. */
static uint64_t merge(struct profbuf *b)
{
    uint64_t tsize = 1, left = b->records;
    uint32_t *table;

    while (tsize < 2 * b->records)
        tsize *= 2;
    if ((table = malloc(tsize * sizeof *table))) {
        left = profbuf_merge(b, table, tsize);
        free(table);
    }
    return left;
}

/* Core c's buffer, folded, as dump lines; the records left. */
static uint64_t dump_core(int c, char *line)
{
    struct profbuf *b = &prof.core[c]->buf;
    uint64_t left = merge(b), i = 0;
    size_t n;

    n = fmt_snprintf(line, PROF_LINE_MAX,
                     "PROF CORE %d records=%lu weight=%lu lost=%lu\n", c,
                     (unsigned long)left, (unsigned long)b->weight,
                     (unsigned long)b->lost);
    out(line, n);
    for (uint64_t at = 0; at < b->n; at = profbuf_next(b, at))
        if (prof_weight(b->w + at))
            out(line, profbuf_line(b->w + at, c, i++, line));
    return left;
}

static uint64_t dump(void)
{
    static char line[PROF_LINE_MAX];    /* under prof.op */
    uint64_t total = 0;
    size_t n;

    if (!prof.segment) {
        const char *path = NULL;

        cmdline_get("profile_file", &path);
        prof.file = arch_dump_open(path, ".prof", "profile");
    }
    n = fmt_snprintf(line, sizeof line,
                     "PROF BEGIN v=1 seg=%d cores=%d hz=%ld period_ns=%lu\n",
                     prof.segment, ncpu, prof.hz,
                     (unsigned long)(1000000000 / prof.hz));
    out(line, n);
    for (int c = 0; c < ncpu; c++)
        total += dump_core(c, line);
    n = fmt_snprintf(line, sizeof line, "PROF END seg=%d records=%lu\n",
                     prof.segment, (unsigned long)total);
    out(line, n);
    prof.segment++;
    return total;
}

/* ---- The pprof profile (sp_profile_stop_pprof) ------------------------- */

static const char *ksym_name(uint64_t pc, uint64_t *start)
{
    uintptr_t off;
    const char *name = ksym_lookup(pc, &off);

    *start = pc - off;
    return name;
}

struct pprof *prof_pprof_new(const struct pprof_type *types, int ntypes,
                             const struct pprof_type *period_type,
                             int64_t period)
{
    return pprof_new(types, ntypes, period_type, period,
                     (uintptr_t)__text_start, (uintptr_t)__text_end,
                     "spindle", ksym_name);
}

/* The pseudo-frames at the root of a sample of each kind, innermost
   first (tools/run/pprof.py gives the same). */
static const char *const pseudo[PROF_NKINDS][2] = {
    [PROF_SCHED] = { "[scheduler]" },
    [PROF_IDLE] = { "[idle]" },
    [PROF_HALT] = { "[halted]", "[idle]" },
    [PROF_IRQ] = { "[interrupt]" },
};

/* One record of core c as a sample of p, labelled as tools/run/pprof.py
   labels: core and g numbers (pprof takes -tagfocus=core=1 as a numeric
   filter), gfn, and irqs=off. */
static void pprof_record(struct pprof *p, const uint64_t *rec, int c,
                         int64_t period_ns)
{
    uint64_t locs[PROF_DEPTH + 2], start;
    unsigned depth = prof_depth(rec), kind = prof_kind_of(rec), n = 0;
    struct pprof_label l[4];
    int nl = 0;
    int64_t v[2] = { (int64_t)prof_weight(rec),
                     (int64_t)prof_weight(rec) * period_ns };
    const char *gfn;

    for (unsigned i = 0; i < depth; i++)
        locs[n++] = pprof_pc(p, rec[PROF_HDR + i], i == 0);
    for (int i = 0; kind < PROF_NKINDS && i < 2 && pseudo[kind][i]; i++)
        locs[n++] = pprof_pseudo(p, pseudo[kind][i]);
    l[nl++] = (struct pprof_label){ .key = "core", .num = c, .unit = "core" };
    if (rec[1])
        l[nl++] = (struct pprof_label){ .key = "g", .num = (int64_t)rec[1],
                                        .unit = "g" };
    if (rec[2] && (gfn = ksym_name(rec[2], &start)))
        l[nl++] = (struct pprof_label){ .key = "gfn", .str = gfn };
    if (prof_flags(rec) & PROF_IRQOFF)
        l[nl++] = (struct pprof_label){ .key = "irqs", .str = "off" };
    pprof_sample(p, locs, (int)n, v, l, nl);
}

/* Every core's records (folded) as a pprof profile, to w; *records gets
   how many samples it holds. */
static int write_pprof(sp_profile_writer w, void *arg, uint64_t *records)
{
    static const struct pprof_type types[] = { { "samples", "count" },
                                               { "cpu", "nanoseconds" } };
    int64_t period_ns = 1000000000 / prof.hz;
    uint64_t hz = arch_cycles_hz(), cycles = arch_cycles() - prof.started;
    struct pprof *p = prof_pprof_new(types, 2, &types[1], period_ns);
    int rc;

    if (!p)
        return -ENOMEM;
    *records = 0;
    for (int c = 0; c < ncpu; c++) {
        struct profbuf *b = &prof.core[c]->buf;

        merge(b);
        for (uint64_t at = 0; at < b->n; at = profbuf_next(b, at))
            if (prof_weight(b->w + at)) {
                pprof_record(p, b->w + at, c, period_ns);
                ++*records;
            }
    }
    rc = pprof_finish(p, (int64_t)prof.started_wall,
                      (int64_t)(cycles / hz * 1000000000 +
                                cycles % hz * 1000000000 / hz), w, arg);
    pprof_free(p);
    return rc;
}

int prof_stop(struct sp_profile_stats *s, sp_profile_writer w, void *arg)
{
    int rc = 0;

    *s = (struct sp_profile_stats){ 0 };
    op_begin();
    if (prof.hz) {
        smp_call_all(stop_own, NULL);
        s->hz = (int)prof.hz;
        for (int c = 0; c < ncpu; c++) {
            s->samples += prof.core[c]->buf.weight;
            s->lost += prof.core[c]->buf.lost;
        }
        if (w)
            rc = write_pprof(w, arg, &s->records);
        else
            s->records = dump();
        __atomic_store_n(&prof.hz, 0, __ATOMIC_RELAXED);
    } else if (w)
        rc = -ENOENT;
    op_end();
    return rc;
}

static void prof_at_exit(void)
{
    struct sp_profile_stats s;

    if (!getg())
        return;
    prof_stop(&s, NULL, NULL);
    if (prof.file) {
        arch_dump_close(prof.file);
        prof.file = NULL;
    }
}

/* ---- The app's calls (include/spindle/profile.h) ----------------------- */

int sp_profile_start(int hz)
{
    return prof_start(hz ? hz : PROF_HZ_DEFAULT);
}

void sp_profile_stop(struct sp_profile_stats *s)
{
    struct sp_profile_stats none;

    prof_stop(s ? s : &none, NULL, NULL);
}

int sp_profile_stop_pprof(struct sp_profile_stats *s, sp_profile_writer w,
                          void *arg)
{
    struct sp_profile_stats none;

    return w ? prof_stop(s ? s : &none, w, arg) : -EINVAL;
}

bool sp_profile_on(void)
{
    return __atomic_load_n(&prof.hz, __ATOMIC_RELAXED) != 0;
}
