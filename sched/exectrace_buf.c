/*
 * exectrace_buf.c - the tracer's pool of event buffers, its dump encoding
 * and its command-line values.  See exectrace_buf.h for the contracts.
 */
#include <string.h>
#include "kernel/crc32.h"
#include "kernel/fmt.h"
#include "sched/exectrace_buf.h"

void tracepool_init(struct tracepool *p, struct trace_ev *ev, uint64_t block,
                    uint32_t nblocks)
{
    p->ev = ev;
    p->block = block;
    p->nblocks = nblocks;
    tracepool_reset(p);
}

void tracepool_reset(struct tracepool *p)
{
    p->taken = 0;
}

void tracebuf_init(struct tracebuf *b, struct tracepool *p, uint32_t *blk,
                   int core, int ncores, bool wrap)
{
    b->pool = p;
    b->bmask = p->block - 1;
    b->blk = blk;
    b->wrap = wrap;
    if (wrap) {
        b->nblk = p->nblocks / (uint32_t)ncores;
        for (uint32_t i = 0; i < b->nblk; i++)
            blk[i] = (uint32_t)core * b->nblk + i;
    }
    tracebuf_reset(b);
}

void tracebuf_reset(struct tracebuf *b)
{
    b->cur = NULL;
    b->n = 0;
    b->end = 0;
    b->lost = 0;
    if (!b->wrap)
        b->nblk = 0;
}

bool tracebuf_next(struct tracebuf *b, uint64_t ts, unsigned type,
                   uint32_t g, uint32_t arg)
{
    struct tracepool *p = b->pool;
    uint64_t n = b->n, k = n / p->block;    /* b's k-th block from here */
    bool first = false;
    uint32_t id;

    if (b->wrap) {
        first = k == b->nblk;               /* its first overwrite */
        id = b->blk[k % b->nblk];
    } else {
        /* Once the pool is empty it stays so until the reset. */
        id = b->lost ? p->nblocks
                     : __atomic_fetch_add(&p->taken, 1, __ATOMIC_RELAXED);
        if (id >= p->nblocks) {
            __atomic_store_n(&b->lost, b->lost + 1, __ATOMIC_RELAXED);
            return b->lost == 1;
        }
        b->blk[b->nblk++] = id;
    }
    b->cur = p->ev + id * p->block;
    b->end = n + p->block;
    tracebuf_store(b, n, ts, type, g, arg);
    return first;
}

uint64_t tracebuf_cap(const struct tracebuf *b)
{
    return (b->wrap ? b->nblk : b->pool->nblocks) * b->pool->block;
}

uint64_t tracebuf_first(const struct tracebuf *b)
{
    uint64_t cap = b->nblk * b->pool->block;

    return b->wrap && b->n > cap ? b->n - cap : 0;
}

const struct trace_ev *tracebuf_at(const struct tracebuf *b, uint64_t i)
{
    uint64_t block = b->pool->block;

    return &b->pool->ev[b->blk[i / block % b->nblk] * block + (i & b->bmask)];
}

uint64_t tracebuf_lost(const struct tracebuf *b)
{
    return b->wrap ? tracebuf_first(b) : b->lost;
}

uint64_t tracebuf_seen(const struct tracebuf *b)
{
    return b->wrap ? b->n : b->n + b->lost;
}

uint64_t tracebuf_chunks(const struct tracebuf *b)
{
    uint64_t held = b->n - tracebuf_first(b);

    return (held + TRACE_CHUNK_EVENTS - 1) / TRACE_CHUNK_EVENTS;
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 (RFC 4648, padded) of in[0..n) into out; returns its length. */
static size_t base64(const uint8_t *in, size_t n, char *out)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;

        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = b64[v >> 18 & 63];
        out[o++] = b64[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    return o;
}

size_t tracebuf_chunk_line(const struct tracebuf *b, int core, uint64_t i,
                           char *line)
{
    struct trace_ev ev[TRACE_CHUNK_EVENTS];
    uint64_t from = tracebuf_first(b) + i * TRACE_CHUNK_EVENTS;
    uint64_t k = b->n - from < TRACE_CHUNK_EVENTS ? b->n - from
                                                  : TRACE_CHUNK_EVENTS;
    size_t len;

    /* Copied out first: the chunk may cross blocks. */
    for (uint64_t j = 0; j < k; j++)
        ev[j] = *tracebuf_at(b, from + j);
    len = fmt_snprintf(line, TRACE_LINE_MAX, "TRACE D %d %lu ", core,
                       (unsigned long)i);
    len += base64((const uint8_t *)ev, k * sizeof ev[0], line + len);
    len += fmt_snprintf(line + len, TRACE_LINE_MAX - len, " %08x\n",
                        crc32_update(0, ev, k * sizeof ev[0]));
    return len;
}

/* A whole decimal number below 2^40, or -1. */
static int64_t decimal(const char *s)
{
    int64_t v = 0;

    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > ((int64_t)1 << 40))
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* Events in kib KiB, rounded down to a power of two. */
static uint64_t events_in(uint64_t kib)
{
    uint64_t n = kib * 1024 / sizeof(struct trace_ev), cap = 1;

    while (cap * 2 <= n)
        cap *= 2;
    return cap;
}

uint64_t tracecfg_default_kib(uint64_t mem_kib, int ncpu)
{
    uint64_t total = mem_kib / TRACE_MEM_SHARE, kib;

    if (total > TRACE_TOTAL_MAX_KIB)
        total = TRACE_TOTAL_MAX_KIB;
    kib = total / (uint64_t)(ncpu > 0 ? ncpu : 1);
    return kib < TRACE_BUF_MIN_KIB ? TRACE_BUF_MIN_KIB : kib;
}

uint64_t tracecfg_block(uint64_t cap)
{
    return cap < TRACE_BLOCK_EVENTS ? cap : TRACE_BLOCK_EVENTS;
}

uint64_t tracecfg_kib_to_keep(const uint64_t *seen, int ncores, bool wrap)
{
    const uint64_t ev_per_kib = 1024 / sizeof(struct trace_ev);

    for (uint64_t kib = TRACE_BUF_MIN_KIB; kib <= TRACE_BUF_MAX_KIB;
         kib *= 2) {
        uint64_t cap = kib * ev_per_kib, block = tracecfg_block(cap);
        uint64_t blocks = 0;
        bool fits = true;

        for (int c = 0; c < ncores; c++) {
            fits = fits && (!wrap || seen[c] <= cap);
            blocks += (seen[c] + block - 1) / block;
        }
        if (fits && (wrap || blocks <= (uint64_t)ncores * (cap / block)))
            return kib;
    }
    return 0;
}

int tracecfg_parse(const char *trace, const char *buf, uint64_t def_kib,
                   struct tracecfg *cfg, char *err, size_t errlen)
{
    int64_t kib;
    int rc = 0;

    if (def_kib < TRACE_BUF_MIN_KIB)
        def_kib = TRACE_BUF_MIN_KIB;
    if (def_kib > TRACE_BUF_MAX_KIB)
        def_kib = TRACE_BUF_MAX_KIB;
    if (errlen)
        err[0] = '\0';
    cfg->mode = TRACE_OFF;
    cfg->cap = events_in(def_kib);
    if (trace) {
        if (!strcmp(trace, "1") || !strcmp(trace, "on"))
            cfg->mode = TRACE_STOP;
        else if (!strcmp(trace, "wrap"))
            cfg->mode = TRACE_WRAP;
        else if (strcmp(trace, "0") && strcmp(trace, "off")) {
            fmt_snprintf(err, errlen, "trace=%s is not 1, wrap or 0; "
                         "the tracer stays off", trace);
            rc = -1;
        }
    }
    if (buf) {
        kib = decimal(buf);
        if (kib < TRACE_BUF_MIN_KIB || kib > TRACE_BUF_MAX_KIB) {
            if (!rc)
                fmt_snprintf(err, errlen, "trace_buf=%s is not %d..%d KiB; "
                             "%lu KiB per core", buf, TRACE_BUF_MIN_KIB,
                             TRACE_BUF_MAX_KIB, (unsigned long)def_kib);
            rc = -1;
        } else {
            cfg->cap = events_in(kib);
        }
    }
    return rc;
}
