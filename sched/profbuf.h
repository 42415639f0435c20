/*
 * profbuf.h - the CPU profiler's per-core sample buffer, its text
 * encoding, and the profile= / profile_buf= values (sched/profile.c
 * samples into it).  Pure C with no kernel state, so that the host tests
 * and the command-line fuzzer run it as the kernel does.
 *
 * One buffer belongs to one core: only that core writes it (profbuf_put,
 * from its timer interrupt or with interrupts off), and it is read
 * (profbuf_merge, profbuf_line, the counts) only while the owner is known
 * not to write, which the caller arranges (sched/profile.c: every core
 * stops sampling in a cross-core call before the buffers are read).  So
 * it takes no lock, no atomic and no barrier.  A full buffer drops what
 * comes and counts it in `lost`.
 */
#ifndef SCHED_PROFBUF_H
#define SCHED_PROFBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the core was doing when a sample was taken. */
enum prof_kind {
    PROF_G,             /* running a G (on its stack) */
    PROF_SCHED,         /* the scheduler (g0, the core's own stack) */
    PROF_IDLE,          /* g0 spinning for work (m->spinning) */
    PROF_HALT,          /* halted for want of work: no frames */
    PROF_IRQ,           /* an interrupt handler */
    PROF_NKINDS,
};

/* Flags of a sample. */
#define PROF_IRQOFF 1u  /* the core had interrupts masked (the sample was
                           taken as the timer interrupt arrived, not in
                           its handler) */

/*
 * A record: PROF_HDR words, then `depth` program counters, the
 * interrupted one first, then return addresses towards the stack's base.
 *   word 0  weight (bits 0-31: the sampling periods it stands for),
 *           depth (32-39), kind (40-47), flags (48-55)
 *   word 1  the G's id, 0 for none
 *   word 2  the G's start function (g->fn), 0 for none
 *   word 3  the link: where the interrupted function's return address
 *           is if it has not pushed it (aarch64's link register x30,
 *           else the word at the stack pointer), when that is an
 *           address of the image's code, else 0.  The frame chain skips
 *           the caller of a function that keeps no frame record (a leaf
 *           without stack, compiled so even with frame pointers); the
 *           decoder, which has the image's unwind tables, knows where
 *           the pc was and uses the link then.
 */
#define PROF_HDR   4
#define PROF_DEPTH 32           /* program counters kept at most */

struct profbuf {
    uint64_t *w;                /* cap words of records */
    uint64_t cap;
    uint64_t n;                 /* words used */
    uint64_t records;           /* records held */
    uint64_t weight;            /* periods they stand for */
    uint64_t lost;              /* periods dropped: the buffer was full */
};

static inline uint64_t prof_weight(const uint64_t *rec)
{
    return rec[0] & 0xffffffffu;
}

static inline unsigned prof_depth(const uint64_t *rec)
{
    return rec[0] >> 32 & 0xff;
}

static inline unsigned prof_kind_of(const uint64_t *rec)
{
    return rec[0] >> 40 & 0xff;
}

static inline unsigned prof_flags(const uint64_t *rec)
{
    return rec[0] >> 48 & 0xff;
}

/* Binds b to w[0..cap) and empties it. */
void profbuf_init(struct profbuf *b, uint64_t *w, uint64_t cap);

/* Empties b (its owner, or a reader while the owner does not write). */
void profbuf_reset(struct profbuf *b);

/*
 * Owner only: records one sample of `weight` periods (at least 1, at
 * most 2^32 - 1: the caller clamps) with pcs[0..depth), depth at most
 * PROF_DEPTH.  False if it did not fit (counted in lost).  Always
 * inlined: the sampler, which no sanitizer instruments (profile.c), calls
 * it, and an inline function is instrumented as its caller is.
 */
static inline __attribute__((always_inline)) bool
profbuf_put(struct profbuf *b, uint32_t weight, unsigned kind, unsigned flags,
            uint64_t goid, uint64_t gfn, uint64_t link, const uint64_t *pcs,
            unsigned depth)
{
    uint64_t *r;

    if (b->cap - b->n < PROF_HDR + depth) {
        b->lost += weight;
        return false;
    }
    r = b->w + b->n;
    r[0] = weight | (uint64_t)depth << 32 | (uint64_t)kind << 40 |
           (uint64_t)flags << 48;
    r[1] = goid;
    r[2] = gfn;
    r[3] = link;
    for (unsigned i = 0; i < depth; i++)
        r[PROF_HDR + i] = pcs[i];
    b->n += PROF_HDR + depth;
    b->records++;
    b->weight += weight;
    return true;
}

/* The record after the one at word `at` (b->n past the last). */
static inline uint64_t profbuf_next(const struct profbuf *b, uint64_t at)
{
    return at + PROF_HDR + prof_depth(b->w + at);
}

/*
 * Folds every record into the first one equal to it but for the weight,
 * which then carries both weights; the others keep weight 0 and are
 * skipped by the dump.  A CPU-bound loop gives thousands of samples of a
 * few distinct stacks.  table is scratch space of tsize entries, a power
 * of two at least twice b->records.  Returns the records left (of
 * nonzero weight).  A reader's call.
 */
uint64_t profbuf_merge(struct profbuf *b, uint32_t *table, uint64_t tsize);

/* ---- The dump ---------------------------------------------------------
 *
 * A dump is text lines, each starting "PROF ", so that it can travel in
 * a console log among other lines (each line is written whole):
 *
 *   PROF BEGIN v=1 seg=S cores=N hz=HZ period_ns=NS
 *   PROF CORE C records=R weight=W lost=L     for each core C, then its
 *   PROF S C I KIND WEIGHT GOID GFN LINK PC... CRC
 *                                              R sample lines, I = 0..R-1
 *   PROF END seg=S records=TOTAL
 *
 * KIND is g, sched, idle, halt or irq (enum prof_kind), with "-off"
 * appended when the core had interrupts masked (PROF_IRQOFF); WEIGHT and
 * GOID are decimal, GFN, LINK and the PCs hex without 0x; CRC is the CRC-32
 * (kernel/crc32.h) of the line's text before the blank that precedes it,
 * in 8 hex digits, so that the decoder (tools/run/pprof.py) tells a
 * damaged line from a whole one, and a missing one by I and R.
 */
#define PROF_LINE_MAX (64 + 17 * (PROF_DEPTH + 3) + 16)

/* Writes the sample line of the record at rec, core `core`'s I-th line,
   into line (PROF_LINE_MAX bytes), newline included; returns its length. */
size_t profbuf_line(const uint64_t *rec, int core, uint64_t i, char *line);

/* ---- The command line -------------------------------------------------
 *
 *   profile=HZ          sample every core HZ times a second, 1 ..
 *                       PROF_HZ_MAX; on: PROF_HZ_DEFAULT; 0 or off: no
 *                       profiler (the default)
 *   profile_buf=KIB     each core's buffer in KiB (PROF_BUF_MIN_KIB ..
 *                       PROF_BUF_MAX_KIB, PROF_BUF_DEFAULT_KIB if absent)
 */
#define PROF_HZ_DEFAULT      100        /* Go's runtime/pprof */
#define PROF_HZ_MAX          10000
#define PROF_BUF_MIN_KIB     16
#define PROF_BUF_MAX_KIB     262144
#define PROF_BUF_DEFAULT_KIB 1024

struct profcfg {
    long hz;                    /* 0: off */
    uint64_t words;             /* each core's buffer, in 8-byte words */
};

/*
 * Parses the values of profile= and profile_buf= (NULL when absent) into
 * *cfg.  A value that cannot be used is described in err (NUL-terminated,
 * "" when both were good): a profile= that is not a rate profiles at
 * PROF_HZ_DEFAULT, one above PROF_HZ_MAX at PROF_HZ_MAX, a bad
 * profile_buf= takes the default size.  Returns 0 if both were good, -1
 * otherwise.
 */
int profcfg_parse(const char *hz, const char *buf, struct profcfg *cfg,
                  char *err, size_t errlen);

#endif
