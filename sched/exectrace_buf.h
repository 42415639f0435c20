/*
 * exectrace_buf.h - the execution tracer's event buffers, their text
 * encoding, and the trace= / trace_buf= values (sched/exectrace.c records
 * the scheduler's events with them).  Pure C with no kernel state, so
 * that the host tests and the command-line fuzzer run it as the kernel
 * does.
 *
 * Every core's events go to blocks of one pool (struct tracepool), a
 * trace_buf= share a core.  In stop mode (TRACE_STOP) a core takes a free
 * block from the pool whenever it has filled one, so that a busy core
 * uses what idle ones leave; once the pool is empty its later events are
 * counted in `lost` and dropped, and the start of the run is kept.  In
 * wrap mode (TRACE_WRAP) each core owns its share of the blocks from the
 * start and goes round them, each event overwriting its oldest: the end
 * of the run is kept, and the overwritten ones are the lost.  tracebuf_put
 * tells its caller of the first event lost, so that it can say so while
 * the run goes on.
 *
 * One buffer (struct tracebuf) belongs to one core: only that core writes
 * it (tracebuf_put, with interrupts off), and it is read (tracebuf_first,
 * tracebuf_at, tracebuf_lost) only while the owner is known not to
 * write, which the caller arranges (sched/exectrace.c: the flag off, then
 * a cross-core call that each owner answers between events).  The one
 * word the owners share is the pool's count of blocks taken, an atomic
 * add once per block; a block taken is its taker's alone.
 */
#ifndef SCHED_EXECTRACE_BUF_H
#define SCHED_EXECTRACE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One event, 16 bytes, stored in the CPU's byte order (little-endian on
 * every supported arch; the dump carries the bytes as they are):
 *   tsk   the core's cycle counter (arch_cycles) << 8 | the type
 *   g     the G the event is about: the low 32 bits of its id, 0 for none
 *   arg   by type, below
 */
struct trace_ev {
    uint64_t tsk;
    uint32_t g;
    uint32_t arg;
};
_Static_assert(sizeof(struct trace_ev) == 16, "16-byte events");

enum trace_type {
    TEV_NONE,
    TEV_CREATE,         /* g created by arg (0: the scheduler); runnable */
    TEV_START,          /* this core runs g from now */
    TEV_STOP_YIELD,     /* g stops running and stays runnable: a yield */
    TEV_STOP_PREEMPT,   /* ... the timer preempted it */
    TEV_STOP_GOSCHED,   /* ... it went to the global queue (gosched) */
    TEV_STOP_PARK,      /* g parks; arg: its wait reason (enum waitreason) */
    TEV_STOP_EXIT,      /* g ends */
    TEV_READY,          /* g readied by G arg (0: the scheduler) */
    TEV_READY_TIMER,    /* g readied by a timer function (the TEV_TIMER
                           before it on this core) */
    TEV_READY_NET,      /* g readied by the network poller */
    TEV_STEAL,          /* this core took g and arg & 0xffff - 1 more Gs
                           from P arg >> 16 & 0xff; bit 24: from its wake
                           queue rather than its run queue */
    TEV_TIMER,          /* a timer of P arg's heap fired on this core */
    TEV_IDLE,           /* the core halts */
    TEV_WAKE,           /* the core is back from a halt */
    TEV_MARK,           /* G g called sp_trace_mark(arg) */
    TEV_NTYPES,
};

#define TEV_STEAL_WAKEQ (1u << 24)

enum trace_mode {
    TRACE_OFF,
    TRACE_STOP,         /* trace=1: once the pool is full, drops what
                           comes */
    TRACE_WRAP,         /* trace=wrap: a core's full share overwrites its
                           oldest */
};

#define TRACE_BLOCK_EVENTS 4096   /* a block at most: 64 KiB */

struct tracepool {
    struct trace_ev *ev;        /* nblocks blocks of `block` events */
    uint64_t block;             /* events a block: a power of two */
    uint32_t nblocks;
    uint32_t taken;             /* stop mode: blocks handed out (an
                                   atomic add; may run past nblocks) */
};

struct tracebuf {
    struct trace_ev *cur;       /* the block event n goes to */
    uint64_t bmask;             /* the pool's block - 1 */
    uint64_t n;                 /* events put since the last reset */
    uint64_t end;               /* put takes the slow path at n == end:
                                   cur's end, or n itself with no room */
    uint64_t lost;              /* TRACE_STOP: events dropped */
                                /* n and lost: relaxed atomic stores, so
                                   that tracer_stats may read them from
                                   any core while the owner writes */
    struct tracepool *pool;
    uint32_t *blk;              /* the numbers of its blocks in the pool,
                                   in the order it fills them */
    uint32_t nblk;              /* stop: blocks taken; wrap: its share */
    bool wrap;                  /* TRACE_WRAP */
};

/* Binds p to ev[0 .. nblocks * block) (block a power of two), every
   block free. */
void tracepool_init(struct tracepool *p, struct trace_ev *ev, uint64_t block,
                    uint32_t nblocks);

/* Frees every block: while no buffer of p is written, each to be reset
   before it is written again. */
void tracepool_reset(struct tracepool *p);

/*
 * Binds b, the buffer of core `core` of `ncores`, to p and empties it.
 * blk holds the numbers of the blocks b fills: room for every block of p
 * in stop mode; in wrap mode for its share, nblocks / ncores of them
 * (at least 1), which it owns from now on.
 */
void tracebuf_init(struct tracebuf *b, struct tracepool *p, uint32_t *blk,
                   int core, int ncores, bool wrap);

/* Empties b (its owner, or a reader while the owner does not write); in
   stop mode its blocks go back to the pool with tracepool_reset. */
void tracebuf_reset(struct tracebuf *b);

/* Owner only: event n (b->n) into its slot of cur. */
static inline void tracebuf_store(struct tracebuf *b, uint64_t n,
                                  uint64_t ts, unsigned type, uint32_t g,
                                  uint32_t arg)
{
    struct trace_ev *e = &b->cur[n & b->bmask];

    e->tsk = ts << 8 | type;
    e->g = g;
    e->arg = arg;
    __atomic_store_n(&b->n, n + 1, __ATOMIC_RELAXED);
}

/* Owner only, tracebuf_put's slow path: cur is full (or there is none). */
bool tracebuf_next(struct tracebuf *b, uint64_t ts, unsigned type,
                   uint32_t g, uint32_t arg);

/*
 * Owner only: records one event at cycle count ts.  Returns true for the
 * first event the buffer loses since it was emptied: in stop mode the
 * first one dropped, in wrap mode the first one that overwrites another.
 */
static inline bool tracebuf_put(struct tracebuf *b, uint64_t ts,
                                unsigned type, uint32_t g, uint32_t arg)
{
    uint64_t n = b->n;

    if (__builtin_expect(n == b->end, 0))
        return tracebuf_next(b, ts, type, g, arg);
    tracebuf_store(b, n, ts, type, g, arg);
    return false;
}

/* The index (in put order) of the oldest event still held; the events
   held are first .. b->n - 1. */
uint64_t tracebuf_first(const struct tracebuf *b);

/* Held event i (first <= i < b->n). */
const struct trace_ev *tracebuf_at(const struct tracebuf *b, uint64_t i);

/* Events lost so far: dropped (stop) or overwritten (wrap). */
uint64_t tracebuf_lost(const struct tracebuf *b);

/* Events put since the last reset, held or lost. */
uint64_t tracebuf_seen(const struct tracebuf *b);

/* Events b can hold: the whole pool's in stop mode, its share's in wrap
   mode. */
uint64_t tracebuf_cap(const struct tracebuf *b);

/* ---- The dump ---------------------------------------------------------
 *
 * A dump is text lines, each starting "TRACE ", so that it can travel in
 * a console log among other lines (each line is written whole):
 *
 *   TRACE BEGIN v=1 seg=S cores=N hz=HZ mode=stop|wrap cap=EVENTS
 *   TRACE REASONS name;name;...      the wait reasons, by number
 *   TRACE CORE C events=E lost=L chunks=K     for each core C, then its
 *   TRACE D C I BASE64 CRC                    K chunk lines, I = 0..K-1
 *   TRACE END seg=S lines=TOTAL_CHUNKS
 *
 * A chunk is up to TRACE_CHUNK_EVENTS events, oldest first, in base64;
 * CRC is the CRC-32 (zlib's) of the decoded bytes, in 8 hex digits, so
 * the decoder (tools/run/trace.py) tells a damaged or truncated dump from a
 * whole one.
 */
#define TRACE_CHUNK_EVENTS 6
#define TRACE_LINE_MAX 192      /* the longest chunk line, NUL included */


/* Chunks that the held events of b make. */
uint64_t tracebuf_chunks(const struct tracebuf *b);

/*
 * Writes chunk line `i` (0 .. tracebuf_chunks(b) - 1) of core `core`'s
 * buffer b into line (TRACE_LINE_MAX bytes), newline included; returns
 * its length.
 */
size_t tracebuf_chunk_line(const struct tracebuf *b, int core, uint64_t i,
                           char *line);

/* ---- The command line -------------------------------------------------
 *
 *   trace=1 | on       stop mode     trace=wrap   wrap mode
 *   trace=0 | off      no tracer (the default)
 *   trace_buf=KIB      each core's share of the pool, in KiB
 *                      (TRACE_BUF_MIN_KIB .. TRACE_BUF_MAX_KIB, rounded
 *                      down to a power of two number of events;
 *                      tracecfg_default_kib if absent)
 */
#define TRACE_BUF_MIN_KIB     4
#define TRACE_BUF_MAX_KIB     262144
#define TRACE_TOTAL_MAX_KIB   65536     /* the default: the pool at most */
#define TRACE_MEM_SHARE       8         /* ... and at most 1/8 of memory */

/*
 * The default trace_buf=: the pool takes at most 1/TRACE_MEM_SHARE of
 * mem_kib and at most TRACE_TOTAL_MAX_KIB, in equal shares for ncpu
 * cores; at least TRACE_BUF_MIN_KIB each.
 */
uint64_t tracecfg_default_kib(uint64_t mem_kib, int ncpu);

/* The block of a pool with cap events a core: TRACE_BLOCK_EVENTS, or
   cap if smaller. */
uint64_t tracecfg_block(uint64_t cap);

/*
 * The least trace_buf= (KiB) that would have kept the seen[c] events of
 * each core c of ncores: in wrap mode each core's share holds its own, in
 * stop mode the pool holds every core's in whole blocks.  0 if even
 * TRACE_BUF_MAX_KIB would not.
 */
uint64_t tracecfg_kib_to_keep(const uint64_t *seen, int ncores, bool wrap);

struct tracecfg {
    enum trace_mode mode;
    uint64_t cap;               /* events a core's share (a power of two) */
};

/*
 * Parses the values of trace= and trace_buf= (NULL when absent) into
 * *cfg; def_kib is the size without trace_buf= (tracecfg_default_kib's).
 * A value that cannot be used is described in err (NUL-terminated, ""
 * when both were good): a bad trace= leaves the tracer off, a bad
 * trace_buf= takes the default size.  Returns 0 if both were good, -1
 * otherwise.
 */
int tracecfg_parse(const char *trace, const char *buf, uint64_t def_kib,
                   struct tracecfg *cfg, char *err, size_t errlen);

#endif
