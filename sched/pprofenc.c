/*
 * pprofenc.c - profile.proto encoded in the kernel (pprofenc.h).
 *
 * The builder keeps each message kind already encoded, in a growing
 * byte buffer: samples as pprof_sample gets them; locations, functions
 * and strings the first time they are asked for, found again through
 * hash tables of ids.  pprof_finish puts the sections together in field
 * order (the string table last, once every string is in) and gzips the
 * whole with stored deflate blocks: a profile of a few thousand samples
 * is some hundreds of KiB, and the reader's time, not the link's, is what
 * compression would save.
 *
 * Field numbers are profile.proto's:
 *   Profile   1 sample_type  2 sample  3 mapping  4 location  5 function
 *             6 string_table 9 time_nanos 10 duration_nanos
 *             11 period_type 12 period
 *   ValueType 1 type 2 unit
 *   Sample    1 location_id (packed) 2 value (packed) 3 label
 *   Label     1 key 2 str 3 num 4 num_unit
 *   Mapping   1 id 2 memory_start 3 memory_limit 5 filename
 *             7 has_functions
 *   Location  1 id 2 mapping_id 3 address 4 line
 *   Line      1 function_id 2 line
 *   Function  1 id 2 name 3 system_name 4 filename
 * Zero values are left out, as proto3 does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/crc32.h"
#include "sched/pprofenc.h"

struct bytes {
    uint8_t *b;
    size_t n, cap;
};

/* Open addressing from a nonzero 64-bit key to an id (0: empty). */
struct idmap {
    uint64_t *keys;
    uint32_t *ids;
    size_t cap, n;              /* cap a power of two, or 0 */
};

struct pprof {
    bool oom;
    int ntypes;
    pprof_symbolizer sym;
    uint64_t text_lo, text_hi;
    struct bytes head;          /* sample types, mapping */
    struct bytes samples, locations, functions, strings;
    struct bytes tail;          /* period type and period */
    struct bytes scratch;       /* one message being encoded */
    struct bytes strtext;       /* the strings, NUL-terminated, by offset */
    uint32_t *stroff;           /* string id -> offset in strtext */
    size_t nstr, strcap;
    struct idmap strmap;        /* string hash -> id (chained by probing) */
    struct idmap locmap;        /* pc * 2 + leaf, or pseudo name id -> id */
    struct idmap funcmap;       /* function start (or name id) -> id */
    uint32_t nloc, nfunc;
};

/* ---- Bytes ------------------------------------------------------------- */

static bool grow(struct pprof *p, struct bytes *b, size_t more)
{
    size_t cap;
    uint8_t *nb;

    if (p->oom)
        return false;
    if (b->n + more <= b->cap)
        return true;
    for (cap = b->cap ? b->cap : 256; cap < b->n + more; cap *= 2)
        ;
    if (!(nb = realloc(b->b, cap))) {
        p->oom = true;
        return false;
    }
    b->b = nb;
    b->cap = cap;
    return true;
}

static void put(struct pprof *p, struct bytes *b, const void *s, size_t n)
{
    if (n && grow(p, b, n)) {
        memcpy(b->b + b->n, s, n);
        b->n += n;
    }
}

static void put_varint(struct pprof *p, struct bytes *b, uint64_t v)
{
    uint8_t buf[10];
    size_t n = 0;

    do {
        buf[n] = v & 0x7f;
        v >>= 7;
        if (v)
            buf[n] |= 0x80;
        n++;
    } while (v);
    put(p, b, buf, n);
}

/* A varint field, left out when 0. */
static void put_int(struct pprof *p, struct bytes *b, int field, uint64_t v)
{
    if (v) {
        put_varint(p, b, (uint64_t)field << 3);
        put_varint(p, b, v);
    }
}

/* A length-delimited field. */
static void put_field(struct pprof *p, struct bytes *b, int field,
                      const void *s, size_t n)
{
    put_varint(p, b, (uint64_t)field << 3 | 2);
    put_varint(p, b, n);
    put(p, b, s, n);
}

/* Moves the scratch message into b as field `field`. */
static void put_scratch(struct pprof *p, struct bytes *b, int field)
{
    put_field(p, b, field, p->scratch.b, p->scratch.n);
    p->scratch.n = 0;
}

/* ---- Id maps ----------------------------------------------------------- */

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

/* The slot of key, or of the empty place it would go. */
static size_t slot(const struct idmap *m, uint64_t key)
{
    size_t i = mix(key) & (m->cap - 1);

    while (m->ids[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static uint32_t idmap_get(const struct idmap *m, uint64_t key)
{
    return m->cap ? m->ids[slot(m, key)] : 0;
}

static void idmap_put(struct pprof *p, struct idmap *m, uint64_t key,
                      uint32_t id)
{
    if (p->oom)
        return;
    if (2 * (m->n + 1) > m->cap) {
        struct idmap g = { .cap = m->cap ? 2 * m->cap : 64 };

        g.keys = malloc(g.cap * sizeof *g.keys);
        g.ids = calloc(g.cap, sizeof *g.ids);
        if (!g.keys || !g.ids) {
            free(g.keys);
            free(g.ids);
            p->oom = true;
            return;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->ids[i]) {
                size_t j = slot(&g, m->keys[i]);

                g.keys[j] = m->keys[i];
                g.ids[j] = m->ids[i];
            }
        g.n = m->n;
        free(m->keys);
        free(m->ids);
        *m = g;
    }
    size_t i = slot(m, key);

    m->keys[i] = key;
    m->ids[i] = id;
    m->n++;
}

static void idmap_free(struct idmap *m)
{
    free(m->keys);
    free(m->ids);
}

/* ---- Strings ----------------------------------------------------------- */

static uint64_t str_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;      /* FNV-1a */

    while (*s)
        h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return h | 1;                               /* never 0 */
}

/* The id of string s in the table, added if new (0 is ""). */
static uint32_t str(struct pprof *p, const char *s)
{
    uint64_t h;
    size_t len;

    if (!s || !*s || p->oom)
        return 0;
    /* Equal hashes of different strings take the next key: probe on. */
    for (h = str_hash(s);; h++) {
        uint32_t id = idmap_get(&p->strmap, h);

        if (!id)
            break;
        if (!strcmp((char *)p->strtext.b + p->stroff[id], s))
            return id;
    }
    if (p->nstr == p->strcap) {
        size_t cap = p->strcap ? 2 * p->strcap : 64;
        uint32_t *no = realloc(p->stroff, cap * sizeof *no);

        if (!no) {
            p->oom = true;
            return 0;
        }
        p->stroff = no;
        p->strcap = cap;
    }
    len = strlen(s) + 1;
    p->stroff[p->nstr] = (uint32_t)p->strtext.n;
    put(p, &p->strtext, s, len);
    put_field(p, &p->strings, 6, s, len - 1);
    idmap_put(p, &p->strmap, h, (uint32_t)p->nstr);
    return p->oom ? 0 : (uint32_t)p->nstr++;
}

/* ---- Functions and locations ------------------------------------------- */

/* The function named `name` starting at start (0: a pseudo-function). */
static uint32_t function(struct pprof *p, const char *name, uint64_t start)
{
    uint32_t sid = str(p, name);
    uint64_t key = start ? start : (uint64_t)sid << 1 | 1;
    uint32_t id = idmap_get(&p->funcmap, key);

    if (id || p->oom)
        return id;
    id = ++p->nfunc;
    put_int(p, &p->scratch, 1, id);
    put_int(p, &p->scratch, 2, sid);
    put_int(p, &p->scratch, 3, sid);
    put_scratch(p, &p->functions, 5);
    idmap_put(p, &p->funcmap, key, id);
    return id;
}

static uint32_t location(struct pprof *p, uint64_t key, uint64_t addr,
                         bool mapped, uint32_t fn)
{
    struct bytes line = { 0 };
    uint32_t id = ++p->nloc;

    put_int(p, &p->scratch, 1, id);
    put_int(p, &p->scratch, 2, mapped);        /* mapping 1, the image */
    put_int(p, &p->scratch, 3, addr);
    put_int(p, &line, 1, fn);
    put_field(p, &p->scratch, 4, line.b, line.n);
    free(line.b);
    put_scratch(p, &p->locations, 4);
    idmap_put(p, &p->locmap, key, id);
    return p->oom ? 0 : id;
}

uint64_t pprof_pc(struct pprof *p, uint64_t pc, bool leaf)
{
    uint64_t key = pc << 1 | leaf, at = leaf ? pc : pc - 1, start = 0;
    uint32_t id = idmap_get(&p->locmap, key);
    const char *name = NULL;
    bool mapped = at >= p->text_lo && at < p->text_hi;

    if (id || p->oom)
        return id;
    if (mapped)
        name = p->sym(at, &start);
    return location(p, key, pc, mapped,
                    function(p, name ? name : "[unknown]", name ? start : 0));
}

uint64_t pprof_pseudo(struct pprof *p, const char *name)
{
    uint32_t sid = str(p, name);
    /* Keys of pcs are pc * 2 + leaf, and no code lies at 0 or 1; a
       pseudo-frame's key is its name's id at the top bits. */
    uint64_t key = (uint64_t)sid << 40 | 1ull << 63;
    uint32_t id = idmap_get(&p->locmap, key);

    if (id || p->oom)
        return id;
    return location(p, key, 0, false, function(p, name, 0));
}

/* ---- Samples and the whole --------------------------------------------- */

static void put_packed(struct pprof *p, struct bytes *b, int field,
                       const uint64_t *v, int n)
{
    struct bytes pk = { 0 };

    for (int i = 0; i < n; i++)
        put_varint(p, &pk, v[i]);
    if (pk.n)
        put_field(p, b, field, pk.b, pk.n);
    free(pk.b);
}

void pprof_sample(struct pprof *p, const uint64_t *locs, int nlocs,
                  const int64_t *values, const struct pprof_label *labels,
                  int nlabels)
{
    uint64_t v[8];
    struct bytes sample = { 0 };
    int nv = p->ntypes;

    if (p->oom)
        return;
    for (int i = 0; i < nv; i++)
        v[i] = (uint64_t)values[i];
    put_packed(p, &sample, 1, locs, nlocs);
    put_packed(p, &sample, 2, v, nv);
    for (int i = 0; i < nlabels; i++) {
        const struct pprof_label *l = &labels[i];

        put_int(p, &p->scratch, 1, str(p, l->key));
        if (l->str)
            put_int(p, &p->scratch, 2, str(p, l->str));
        else {
            /* Zero is written: a numeric label of 0 must stay one. */
            put_varint(p, &p->scratch, 3 << 3);
            put_varint(p, &p->scratch, (uint64_t)l->num);
            put_int(p, &p->scratch, 4, str(p, l->unit));
        }
        put_scratch(p, &sample, 3);
    }
    put_field(p, &p->samples, 2, sample.b, sample.n);
    free(sample.b);
}

static void value_type(struct pprof *p, struct bytes *b, int field,
                       const struct pprof_type *t)
{
    put_int(p, &p->scratch, 1, str(p, t->type));
    put_int(p, &p->scratch, 2, str(p, t->unit));
    put_scratch(p, b, field);
}

struct pprof *pprof_new(const struct pprof_type *types, int ntypes,
                        const struct pprof_type *period_type, int64_t period,
                        uint64_t text_lo, uint64_t text_hi, const char *image,
                        pprof_symbolizer sym)
{
    struct pprof *p = calloc(1, sizeof *p);

    if (!p || ntypes < 1 || ntypes > 8) {
        free(p);
        return NULL;
    }
    p->ntypes = ntypes;
    p->sym = sym;
    p->text_lo = text_lo;
    p->text_hi = text_hi;
    p->nstr = 1;                /* "" is string 0 */
    p->strcap = 64;
    if (!(p->stroff = calloc(p->strcap, sizeof *p->stroff)))
        p->oom = true;
    put(p, &p->strtext, "", 1);
    put_field(p, &p->strings, 6, "", 0);
    for (int i = 0; i < ntypes; i++)
        value_type(p, &p->head, 1, &types[i]);
    put_int(p, &p->scratch, 1, 1);
    put_int(p, &p->scratch, 2, text_lo);
    put_int(p, &p->scratch, 3, text_hi);
    put_int(p, &p->scratch, 5, str(p, image));
    put_int(p, &p->scratch, 7, 1);
    put_scratch(p, &p->head, 3);
    if (period_type) {
        value_type(p, &p->tail, 11, period_type);
        put_int(p, &p->tail, 12, (uint64_t)period);
    }
    if (p->oom) {
        pprof_free(p);
        return NULL;
    }
    return p;
}

int pprof_finish(struct pprof *p, int64_t time_ns, int64_t duration_ns,
                 sp_profile_writer w, void *arg)
{
    struct bytes all = { 0 };
    int rc;

    put(p, &all, p->head.b, p->head.n);
    put(p, &all, p->samples.b, p->samples.n);
    put(p, &all, p->locations.b, p->locations.n);
    put(p, &all, p->functions.b, p->functions.n);
    put(p, &all, p->strings.b, p->strings.n);
    put_int(p, &all, 9, (uint64_t)time_ns);
    put_int(p, &all, 10, (uint64_t)duration_ns);
    put(p, &all, p->tail.b, p->tail.n);
    rc = p->oom ? -ENOMEM : gzip_stored(all.b, all.n, w, arg);
    free(all.b);
    return rc;
}

void pprof_free(struct pprof *p)
{
    if (!p)
        return;
    free(p->head.b);
    free(p->samples.b);
    free(p->locations.b);
    free(p->functions.b);
    free(p->strings.b);
    free(p->tail.b);
    free(p->scratch.b);
    free(p->strtext.b);
    free(p->stroff);
    idmap_free(&p->strmap);
    idmap_free(&p->locmap);
    idmap_free(&p->funcmap);
    free(p);
}

/* ---- gzip (RFC 1952) of stored deflate blocks (RFC 1951 3.2.4) --------- */

static void le32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> 8 * i);
}

int gzip_stored(const void *buf, size_t n, sp_profile_writer w, void *arg)
{
    /* Magic, deflate, no flags, no time, no extra flags, unknown OS. */
    static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0,
                                        255 };
    const uint8_t *s = buf;
    uint8_t trailer[8];
    int rc;

    if ((rc = w(arg, header, sizeof header)) < 0)
        return rc;
    do {
        size_t k = n < 65535 ? n : 65535;
        /* BFINAL on the last block, BTYPE 00; LEN and its complement. */
        uint8_t h[5] = { k == n, (uint8_t)k, (uint8_t)(k >> 8),
                         (uint8_t)~k, (uint8_t)(~k >> 8) };

        if ((rc = w(arg, h, sizeof h)) < 0 || (k && (rc = w(arg, s, k)) < 0))
            return rc;
        s += k;
        n -= k;
    } while (n);
    le32(trailer, crc32_update(0, buf, s - (const uint8_t *)buf));
    le32(trailer + 4, (uint32_t)(s - (const uint8_t *)buf));
    return w(arg, trailer, sizeof trailer);
}
