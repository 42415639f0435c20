/*
 * exectrace_buf.c - the tracer's per-core buffer, its dump encoding and its
 * command-line values.  See exectrace_buf.h for the contracts.
 */
#include <string.h>
#include "kernel/fmt.h"
#include "sched/exectrace_buf.h"

void tracebuf_init(struct tracebuf *b, struct trace_ev *ev, uint64_t cap,
                   bool wrap)
{
    b->ev = ev;
    b->mask = cap - 1;
    b->wrap = wrap;
    tracebuf_reset(b);
}

void tracebuf_reset(struct tracebuf *b)
{
    b->n = 0;
    b->lost = 0;
    b->limit = b->mask;
}

bool tracebuf_full(struct tracebuf *b, uint64_t ts, unsigned type,
                   uint32_t g, uint32_t arg)
{
    if (!b->wrap) {
        __atomic_store_n(&b->lost, b->lost + 1, __ATOMIC_RELAXED);
        return b->lost == 1;
    }
    /* The first event to overwrite one: every later one does too. */
    b->limit = UINT64_MAX;
    tracebuf_store(b, b->n, ts, type, g, arg);
    return true;
}

uint64_t tracebuf_first(const struct tracebuf *b)
{
    return b->n > b->mask + 1 ? b->n - (b->mask + 1) : 0;
}

uint64_t tracebuf_lost(const struct tracebuf *b)
{
    return b->wrap ? tracebuf_first(b) : b->lost;
}

uint64_t tracebuf_seen(const struct tracebuf *b)
{
    return b->wrap ? b->n : b->n + b->lost;
}

uint32_t tracebuf_crc32(uint32_t crc, const void *buf, size_t n)
{
    const uint8_t *p = buf;

    /* Bit by bit: the dump is slow I/O anyway, and no table to set up. */
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
    }
    return ~crc;
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

    /* Copied out first: the ring may wrap inside the chunk. */
    for (uint64_t j = 0; j < k; j++)
        ev[j] = b->ev[(from + j) & b->mask];
    len = fmt_snprintf(line, TRACE_LINE_MAX, "TRACE D %d %lu ", core,
                       (unsigned long)i);
    len += base64((const uint8_t *)ev, k * sizeof ev[0], line + len);
    len += fmt_snprintf(line + len, TRACE_LINE_MAX - len, " %08x\n",
                        tracebuf_crc32(0, ev, k * sizeof ev[0]));
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

uint64_t tracecfg_kib_for(uint64_t events)
{
    uint64_t cap = TRACE_BUF_MIN_KIB * 1024 / sizeof(struct trace_ev);

    while (cap < events && cap <= (uint64_t)TRACE_BUF_MAX_KIB * 1024 /
                                  sizeof(struct trace_ev))
        cap *= 2;
    cap = cap * sizeof(struct trace_ev) / 1024;
    return cap > TRACE_BUF_MAX_KIB ? 0 : cap;
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
