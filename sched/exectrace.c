/*
 * exectrace.c - the execution tracer (trace=1, trace=wrap): every G
 * transition, steal, timer firing and core halt, recorded per core and
 * dumped at exit or on sp_trace_flush for tools/run/trace.py, which makes a
 * Perfetto-loadable JSON file and a summary of it.
 *
 * Buffers.  Each core owns one struct tracebuf (sched/exectrace_buf.h) on
 * cache lines of its own, and only that core writes it, with interrupts
 * off (TRACE's contract, exectrace.h): no lock, no line shared with
 * another writer.  Its events go to blocks of one pool, 64 KiB at most;
 * in stop mode a core takes each block with one atomic add on the pool's
 * count, the only read-modify-write, once per block.  The only shared
 * word on the event path is trace_flag.on, which is written when the
 * tracer starts and around a flush, so it stays in every core's cache.
 *
 * Reading them.  A reader must know that no owner is in the middle of an
 * event: it clears the flag, then runs a cross-core call on every core
 * (smp_call_all).  A core answers the call only between Gs, in its
 * scheduler loop, never inside trace_event (interrupts are off there),
 * so once every core has answered, each has finished the event it was
 * writing, and sees the flag off from then on: the flag's store comes
 * before the call's release of call_seq, which each core acquires.  The
 * owners' events are ordered before the reader's loads by the same
 * call's release of call_done and the caller's acquire.  A second call
 * empties every buffer on its own core, after the reader has freed the
 * pool's blocks, before the flag goes on again.
 * Events that would have come while the flag was off are not recorded:
 * each dump is a segment of its own (seg=), and the decoder does not
 * carry a G's state across segments.
 *
 * Where the dump goes: the "TRACE " lines of exectrace_buf.h, on the
 * hosted build to a file (trace_file=PATH, else the image's path with
 * .trace for .elf) through arch_trace_file_*; on bare metal to the host
 * channel (kernel/hostchan.h: under QEMU a virtio console port that
 * tools/run/trace.sh has QEMU write to a file), else the console.  A
 * panic or a deadlock ends the machine without a dump.
 */
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/fmt.h"
#include "kernel/hostchan.h"
#include "kernel/mem.h"
#include "kernel/printk.h"
#include "sched/exectrace.h"
#include "sched/schedimpl.h"
#include <spindle/trace.h>

struct trace_flag trace_flag;

static struct tracecfg cfg;
static struct tracepool pool;   /* every core's blocks */
struct tracebuf *trace_bufs[MAXCPU];
static int segment;             /* dumps made; under flushing */
static struct out dumpout;      /* under flushing: too big for a stack */
static int flushing;            /* a flush runs; atomic exchange */

/* No files on bare metal: the dump goes to the console.  The hosted
   build replaces these (arch/hosted/process.c). */
__attribute__((weak)) void *arch_trace_file_open(const char *path)
{
    return NULL;
}

__attribute__((weak)) void arch_trace_file_write(void *f, const char *s,
                                                 size_t n)
{
}

__attribute__((weak)) void arch_trace_file_close(void *f)
{
}

void trace_event(unsigned type, uint32_t g, uint32_t arg)
{
    trace_put(arch_cycles(), type, g, arg);
}

/* Interrupts are off, and the scheduler may hold its locks: printk may
   be called so (the console's lock ranks after all of them,
   kernel/lockrank.h).  How many were lost comes with the dump
   (report_lost). */
void trace_lost_first(void)
{
    struct tracebuf *b = trace_bufs[cpu_id()];
    unsigned long kib = (unsigned long)(cfg.cap * sizeof(struct trace_ev) >>
                                        10);

    if (b->wrap)
        printk("trace: core %d's buffer wrapped (%lu events, %lu KiB): its "
               "oldest events are being overwritten; a larger trace_buf= "
               "keeps more\n", cpu_id(), (unsigned long)tracebuf_cap(b),
               kib);
    else
        printk("trace: core %d found the pool full (%lu events, %lu KiB a "
               "core): its later events are lost; a larger trace_buf= keeps "
               "them, trace=wrap keeps the last\n", cpu_id(),
               (unsigned long)tracebuf_cap(b), kib);
}

static void trace_at_exit(void)
{
    tracer_flush(false);
}

void tracer_init(void)
{
    const char *t = NULL, *b = NULL;
    char err[96];
    uint64_t block, kib;
    uint32_t nblocks, nblk;
    struct trace_ev *ev;

    cmdline_get("trace", &t);
    cmdline_get("trace_buf", &b);
    if (tracecfg_parse(t, b, tracecfg_default_kib(mem_total_count() *
                                                  (PAGE_SIZE / 1024), ncpu),
                       &cfg, err, sizeof err) < 0)
        printk("trace: %s\n", err);
    if (cfg.mode == TRACE_OFF)
        return;
    kib = cfg.cap * sizeof(struct trace_ev) >> 10;
    block = tracecfg_block(cfg.cap);
    nblocks = (uint32_t)(cfg.cap / block) * (uint32_t)ncpu;
    nblk = cfg.mode == TRACE_WRAP ? nblocks / (uint32_t)ncpu : nblocks;
    ev = zalloc_lines(nblocks * block * sizeof *ev);
    if (!ev)
        goto nomem;
    tracepool_init(&pool, ev, block, nblocks);
    for (int i = 0; i < ncpu; i++) {
        struct tracebuf *tb = zalloc_lines(sizeof *tb);
        uint32_t *blk = zalloc_lines(nblk * sizeof *blk);

        if (!tb || !blk)
            goto nomem;
        tracebuf_init(tb, &pool, blk, i, ncpu, cfg.mode == TRACE_WRAP);
        trace_bufs[i] = tb;
    }
    arch_branch_enable();
    atexit(trace_at_exit);
    if (cfg.mode == TRACE_WRAP)
        printk("trace: on (wrap: the last kept), %lu events (%lu KiB) a "
               "core, dumped at exit\n", (unsigned long)cfg.cap,
               (unsigned long)kib);
    else
        printk("trace: on (stop: the first kept), %lu events (%lu KiB) a "
               "core, in one pool that busy cores draw on; dumped at exit\n",
               (unsigned long)cfg.cap, (unsigned long)kib);
    __atomic_store_n(&trace_flag.on, true, __ATOMIC_RELEASE);
    return;
nomem:
    printk("trace: no memory for %lu KiB a core; off\n", (unsigned long)kib);
    cfg.mode = TRACE_OFF;
}

/* ---- The dump ---------------------------------------------------------- */

enum sink {
    TO_CONSOLE,
    TO_FILE,                    /* the hosted build's file */
    TO_CHANNEL,                 /* the host channel (kernel/hostchan.h) */
};

struct out {
    enum sink to;
    void *file;                 /* TO_FILE's */
    size_t len;
    char buf[2048];             /* whole lines, written together */
};

static void out_flush(struct out *o)
{
    if (o->to == TO_FILE)
        arch_trace_file_write(o->file, o->buf, o->len);
    else if (o->to == TO_CHANNEL)
        hostchan_write(o->buf, o->len);     /* a failure is said there */
    else
        console_write(o->buf, o->len);
    o->len = 0;
}

static void out_line(struct out *o, const char *line, size_t n)
{
    if (o->len + n > sizeof o->buf)
        out_flush(o);
    memcpy(o->buf + o->len, line, n);
    o->len += n;
}

static void dump(struct out *o)
{
    char line[TRACE_LINE_MAX > 512 ? TRACE_LINE_MAX : 512];
    uint64_t total = 0;
    size_t n;

    n = fmt_snprintf(line, sizeof line,
                     "TRACE BEGIN v=1 seg=%d cores=%d hz=%lu mode=%s cap=%lu\n",
                     segment, ncpu, (unsigned long)arch_cycles_hz(),
                     cfg.mode == TRACE_WRAP ? "wrap" : "stop",
                     (unsigned long)cfg.cap);
    out_line(o, line, n);
    n = fmt_snprintf(line, sizeof line, "TRACE REASONS");
    for (int r = 0; r < WAIT_NREASONS; r++)
        n += fmt_snprintf(line + n, sizeof line - n, "%c%s", r ? ';' : ' ',
                          waitreason_string(r));
    line[n++] = '\n';
    out_line(o, line, n);
    for (int c = 0; c < ncpu; c++) {
        struct tracebuf *b = trace_bufs[c];
        uint64_t k = tracebuf_chunks(b);

        n = fmt_snprintf(line, sizeof line,
                         "TRACE CORE %d events=%lu lost=%lu chunks=%lu\n", c,
                         (unsigned long)(b->n - tracebuf_first(b)),
                         (unsigned long)tracebuf_lost(b), (unsigned long)k);
        out_line(o, line, n);
        for (uint64_t i = 0; i < k; i++) {
            n = tracebuf_chunk_line(b, c, i, line);
            out_line(o, line, n);
        }
        total += k;
    }
    n = fmt_snprintf(line, sizeof line, "TRACE END seg=%d lines=%lu\n",
                     segment, (unsigned long)total);
    out_line(o, line, n);
    out_flush(o);
}

/* After a dump: what each core lost, and the trace_buf= that keeps it. */
static void report_lost(void)
{
    uint64_t seen[MAXCPU], lost = 0, kib;

    for (int c = 0; c < ncpu; c++) {
        struct tracebuf *b = trace_bufs[c];
        uint64_t l = tracebuf_lost(b);

        seen[c] = tracebuf_seen(b);
        lost += l;
        if (l)
            printk("trace: core %d lost %lu of its %lu events (%s)\n", c,
                   (unsigned long)l, (unsigned long)seen[c],
                   b->wrap ? "the oldest" : "the newest");
    }
    if (!lost)
        return;
    kib = tracecfg_kib_to_keep(seen, ncpu, cfg.mode == TRACE_WRAP);
    if (kib)
        printk("trace: trace_buf=%lu (KiB a core) keeps them all\n",
               (unsigned long)kib);
    else
        printk("trace: more than trace_buf=%d holds them; trace=wrap keeps "
               "the last, sp_trace_flush() calls cut the run into "
               "segments\n", TRACE_BUF_MAX_KIB);
}

static void quiesce(void *arg)
{
}

static void reset_own(void *arg)
{
    tracebuf_reset(trace_bufs[cpu_id()]);
}

static const char *trace_path(void)
{
    const char *p = NULL;

    cmdline_get("trace_file", &p);
    return p;
}

void tracer_flush(bool resume)
{
    struct out *o = &dumpout;

    if (cfg.mode == TRACE_OFF || !getg())
        return;
    while (__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQUIRE))
        goyield();
    if (!__atomic_load_n(&trace_flag.on, __ATOMIC_RELAXED)) {
        /* The exit's dump after a flush that did not resume. */
        __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&trace_flag.on, false, __ATOMIC_RELAXED);
    smp_call_all(quiesce, NULL);
    o->len = 0;
    /* One file for every segment: opened by the first dump, closed by
       the exit's.  Without one, the host channel while it works. */
    if (!segment && (o->file = arch_trace_file_open(trace_path())))
        o->to = TO_FILE;
    else if (o->to != TO_FILE)
        o->to = hostchan_present() ? TO_CHANNEL : TO_CONSOLE;
    if (!segment && o->to == TO_CHANNEL)
        printk("trace: dumped to the host channel\n");
    dump(o);
    if (o->to == TO_CHANNEL)
        hostchan_flush();
    report_lost();
    if (o->to == TO_FILE && !resume) {
        arch_trace_file_close(o->file);
        o->to = TO_CONSOLE;
    }
    segment++;
    if (resume) {
        /* No core writes while the flag is off; the call's release
           orders the freed pool before each core's next block. */
        tracepool_reset(&pool);
        smp_call_all(reset_own, NULL);
        __atomic_store_n(&trace_flag.on, true, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
}

void tracer_stats(uint64_t *events, uint64_t *lost)
{
    *events = *lost = 0;
    if (cfg.mode == TRACE_OFF)
        return;
    for (int c = 0; c < ncpu; c++) {
        struct tracebuf *b = trace_bufs[c];
        uint64_t n = __atomic_load_n(&b->n, __ATOMIC_RELAXED);
        uint64_t l = __atomic_load_n(&b->lost, __ATOMIC_RELAXED);

        if (b->wrap) {
            *events += n;
            *lost += n > tracebuf_cap(b) ? n - tracebuf_cap(b) : 0;
        } else {
            *events += n + l;
            *lost += l;
        }
    }
}

/* ---- The app's calls (include/spindle/trace.h) ------------------------- */

bool sp_trace_on(void)
{
    return cfg.mode != TRACE_OFF;
}

void sp_trace_flush(void)
{
    tracer_flush(true);
}

void sp_trace_mark(uint32_t value)
{
    unsigned long f = arch_irq_save();

    TRACE(TEV_MARK, TRACE_GOID(running_g()), value);
    arch_irq_restore(f);
}

void sp_trace_stats(struct sp_trace_stats *s)
{
    tracer_stats(&s->events, &s->lost);
}
