/*
 * profbuf.c - the profiler's per-core sample buffer, its dump encoding
 * and its command-line values.  See profbuf.h for the contracts.
 */
#include <stdlib.h>
#include <string.h>
#include "kernel/crc32.h"
#include "kernel/fmt.h"
#include "sched/profbuf.h"

void profbuf_init(struct profbuf *b, uint64_t *w, uint64_t cap)
{
    b->w = w;
    b->cap = cap;
    profbuf_reset(b);
}

void profbuf_reset(struct profbuf *b)
{
    b->n = 0;
    b->records = 0;
    b->weight = 0;
    b->lost = 0;
}

/* Everything of a record but its weight: the header's other bits and
   the words after it. */
static uint32_t rec_hash(const uint64_t *r)
{
    uint64_t h = (r[0] >> 32) * 0x9E3779B97F4A7C15ULL;

    for (unsigned i = 1; i < PROF_HDR + prof_depth(r); i++)
        h = (h ^ r[i]) * 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(h >> 32);
}

static bool rec_same(const uint64_t *a, const uint64_t *b)
{
    return a[0] >> 32 == b[0] >> 32 &&
           !memcmp(a + 1, b + 1, (PROF_HDR - 1 + prof_depth(a)) * 8);
}

uint64_t profbuf_merge(struct profbuf *b, uint32_t *table, uint64_t tsize)
{
    uint64_t left = 0;

    /* Entries hold a record's word index + 1; 0 is an empty slot.
       Linear probing: at most half full, so every probe ends. */
    memset(table, 0, tsize * sizeof *table);
    for (uint64_t at = 0; at < b->n; at = profbuf_next(b, at)) {
        uint64_t *r = b->w + at;
        uint64_t i = rec_hash(r) & (tsize - 1);

        for (;; i = (i + 1) & (tsize - 1)) {
            uint64_t *first;

            if (!table[i]) {
                table[i] = (uint32_t)(at + 1);
                left++;
                break;
            }
            first = b->w + table[i] - 1;
            if (rec_same(first, r) &&
                prof_weight(first) + prof_weight(r) <= 0xffffffffu) {
                first[0] += prof_weight(r);
                r[0] &= ~(uint64_t)0xffffffffu;
                break;
            }
        }
    }
    return left;
}

static const char *const kind_names[PROF_NKINDS] = {
    "g", "sched", "idle", "halt", "irq",
};

size_t profbuf_line(const uint64_t *rec, int core, uint64_t i, char *line)
{
    unsigned kind = prof_kind_of(rec), depth = prof_depth(rec);
    size_t len;

    len = fmt_snprintf(line, PROF_LINE_MAX,
                       "PROF S %d %lu %s%s %lu %lu %lx %lx",
                       core, (unsigned long)i,
                       kind < PROF_NKINDS ? kind_names[kind] : "?",
                       prof_flags(rec) & PROF_IRQOFF ? "-off" : "",
                       (unsigned long)prof_weight(rec),
                       (unsigned long)rec[1], (unsigned long)rec[2],
                       (unsigned long)rec[3]);
    for (unsigned k = 0; k < depth && k < PROF_DEPTH; k++)
        len += fmt_snprintf(line + len, PROF_LINE_MAX - len, " %lx",
                            (unsigned long)rec[PROF_HDR + k]);
    len += fmt_snprintf(line + len, PROF_LINE_MAX - len, " %08x\n",
                        crc32_update(0, line, len));
    return len;
}

/* s as a whole decimal number (digits only, at most 2^40), or -1. */
static int64_t whole(const char *s)
{
    unsigned long long v;
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    v = strtoull(s, &end, 10);
    return *end || v > 1ULL << 40 ? -1 : (int64_t)v;
}

int profcfg_parse(const char *hz, const char *buf, struct profcfg *cfg,
                  char *err, size_t errlen)
{
    int64_t v;
    int rc = 0;

    if (errlen)
        err[0] = '\0';
    cfg->hz = 0;
    if (hz && strcmp(hz, "off")) {
        v = !strcmp(hz, "on") ? PROF_HZ_DEFAULT : whole(hz);
        if (v < 0) {
            fmt_snprintf(err, errlen, "profile=%s is not a rate in Hz "
                         "(1..%d, on or off); profiling at %d Hz", hz,
                         PROF_HZ_MAX, PROF_HZ_DEFAULT);
            v = PROF_HZ_DEFAULT;
            rc = -1;
        } else if (v > PROF_HZ_MAX) {
            fmt_snprintf(err, errlen, "profile=%s is above %d Hz; "
                         "profiling at %d Hz", hz, PROF_HZ_MAX, PROF_HZ_MAX);
            v = PROF_HZ_MAX;
            rc = -1;
        }
        cfg->hz = v;
    }
    v = buf ? whole(buf) : PROF_BUF_DEFAULT_KIB;
    if (v < PROF_BUF_MIN_KIB || v > PROF_BUF_MAX_KIB)
        v = -1;
    cfg->words = (uint64_t)(v < 0 ? PROF_BUF_DEFAULT_KIB : v) * 1024 / 8;
    if (v >= 0)
        return rc;
    if (!rc)
        fmt_snprintf(err, errlen, "profile_buf=%s is not %d..%d KiB; %d KiB "
                     "per core", buf, PROF_BUF_MIN_KIB, PROF_BUF_MAX_KIB,
                     PROF_BUF_DEFAULT_KIB);
    return -1;
}
