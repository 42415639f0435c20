/*
 * exectrace_buf_test.c - host unit test for sched/exectrace_buf.c: stop and wrap
 * modes with their lost counts and the first loss reported once, cores
 * sharing a pool of blocks (stop) or each going round its own share
 * (wrap), the size that would have kept the lost events, the chunk lines' base64 and CRC-32 (by
 * decoding them here), and trace= / trace_buf= through the command-line
 * parser.  Writes a dump of a known event sequence to
 * build/host/test-logs/tracebuf.dump, which tests/host/tracepy_test.py
 * decodes and damages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "kernel/cmdline.h"
#include "kernel/crc32.h"
#include "sched/exectrace_buf.h"

#define CAP 16                  /* events in the pool */

static struct trace_ev ev[CAP];
static struct tracepool pool;
static uint32_t blk[2][CAP];
static struct tracebuf b, b1;

/* b (and b1), cores 0 and 1 of ncores, on a pool of CAP events in
   blocks of `block`. */
static void setup(uint64_t block, int ncores, bool wrap)
{
    tracepool_init(&pool, ev, block, CAP / block);
    tracebuf_init(&b, &pool, blk[0], 0, ncores, wrap);
    if (ncores > 1)
        tracebuf_init(&b1, &pool, blk[1], 1, ncores, wrap);
}

/* Puts events i = from .. from + n - 1 into t: ts = 100 + i, type =
   1 + i % 15, g = i, arg = ~i; returns how many of the puts said they
   were the first loss. */
static int put_to(struct tracebuf *t, uint64_t from, uint64_t n)
{
    int first = 0;

    for (uint64_t i = from; i < from + n; i++)
        first += tracebuf_put(t, 100 + i, 1 + i % 15, i, ~(uint32_t)i);
    return first;
}

static int put(uint64_t n)
{
    return put_to(&b, 0, n);
}

/* Event i as put_to made it, held by t as its event k? */
static bool holds_in(const struct tracebuf *t, uint64_t k, uint64_t i)
{
    const struct trace_ev *e = tracebuf_at(t, k);

    return e >= ev && e < ev + CAP && e->tsk == ((100 + i) << 8 |
           (1 + i % 15)) && e->g == i && e->arg == ~(uint32_t)i;
}

static bool holds(uint64_t i)
{
    return holds_in(&b, i, i);
}

TEST(stop_mode_keeps_the_first)
{
    setup(4, 1, false);
    CHECK(put(CAP - 1) == 0);
    CHECK(tracebuf_first(&b) == 0 && tracebuf_lost(&b) == 0);
    tracebuf_reset(&b);
    tracepool_reset(&pool);
    CHECK(put(CAP) == 0);
    CHECK(b.n == CAP && tracebuf_lost(&b) == 0 && tracebuf_seen(&b) == CAP);
    CHECK(tracebuf_cap(&b) == CAP && b.nblk == CAP / 4);
    /* The first drop says so, the next ones do not. */
    CHECK(tracebuf_put(&b, 7, TEV_START, 1, 2));
    CHECK(!tracebuf_put(&b, 8, TEV_START, 1, 2));
    CHECK(b.n == CAP && tracebuf_lost(&b) == 2 && tracebuf_seen(&b) == CAP + 2);
    for (uint64_t i = 0; i < CAP; i++)
        CHECK(holds(i));
    tracebuf_reset(&b);
    tracepool_reset(&pool);
    CHECK(b.n == 0 && tracebuf_lost(&b) == 0 && tracebuf_chunks(&b) == 0);
    /* Emptied, it says so again. */
    CHECK(put(3 * CAP) == 1 && tracebuf_lost(&b) == 2 * CAP);
}

/* Stop mode: the cores take blocks as they fill them, a busy one more
   than its share, until the pool is empty. */
TEST(stop_mode_shares_the_pool)
{
    setup(4, 2, false);
    CHECK(put_to(&b, 0, 10) == 0 && b.nblk == 3);
    CHECK(put_to(&b1, 500, 6) == 1 && b1.nblk == 1);
    CHECK(tracebuf_lost(&b1) == 2 && tracebuf_seen(&b1) == 6);
    CHECK(put_to(&b, 10, 5) == 1 && tracebuf_lost(&b) == 3 && b.n == 12);
    for (uint64_t i = 0; i < 12; i++)
        CHECK(holds_in(&b, i, i));
    for (uint64_t i = 0; i < 4; i++)
        CHECK(holds_in(&b1, i, 500 + i));
    /* Their blocks are their own. */
    CHECK(b1.blk[0] != b.blk[0] && b1.blk[0] != b.blk[1] &&
          b1.blk[0] != b.blk[2]);
    tracebuf_reset(&b);
    tracebuf_reset(&b1);
    tracepool_reset(&pool);
    CHECK(put_to(&b1, 0, CAP) == 0 && put_to(&b, 0, 1) == 1);
}

TEST(wrap_mode_keeps_the_last)
{
    setup(4, 1, true);
    CHECK(put(CAP) == 0);
    CHECK(tracebuf_first(&b) == 0 && tracebuf_lost(&b) == 0);
    /* The first overwrite says so, the next ones do not. */
    CHECK(put(1) == 1 && put(CAP) == 0);
    tracebuf_reset(&b);
    CHECK(put(3 * CAP + 5) == 1);
    CHECK(b.n == 3 * CAP + 5 && tracebuf_seen(&b) == 3 * CAP + 5);
    CHECK(tracebuf_first(&b) == 2 * CAP + 5);
    CHECK(tracebuf_lost(&b) == 2 * CAP + 5);
    for (uint64_t i = tracebuf_first(&b); i < b.n; i++)
        CHECK(holds(i));
}

/* Wrap mode: each core goes round its own share of the blocks. */
TEST(wrap_mode_keeps_to_its_share)
{
    setup(4, 2, true);
    CHECK(tracebuf_cap(&b) == CAP / 2 && tracebuf_cap(&b1) == CAP / 2);
    CHECK(put_to(&b, 0, 3 * CAP) == 1 && put_to(&b1, 500, 5) == 0);
    CHECK(tracebuf_first(&b) == 3 * CAP - CAP / 2 && tracebuf_lost(&b1) == 0);
    for (uint64_t i = tracebuf_first(&b); i < b.n; i++)
        CHECK(holds_in(&b, i, i) && tracebuf_at(&b, i) < ev + CAP / 2);
    for (uint64_t i = 0; i < 5; i++)
        CHECK(holds_in(&b1, i, 500 + i) && tracebuf_at(&b1, i) >= ev + CAP / 2);
}

static int b64val(char c)
{
    const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789+/";
    const char *p = c ? strchr(a, c) : NULL;

    return p ? (int)(p - a) : -1;
}

/* Decodes a chunk line of core `core`, index `idx`, into out; returns
   the bytes, or -1 if the line is malformed or fails its CRC. */
static int decode(const char *line, int core, uint64_t idx, uint8_t *out)
{
    char pre[64], b64[TRACE_LINE_MAX];
    unsigned crc;
    int n = 0, len;

    snprintf(pre, sizeof pre, "TRACE D %d %lu ", core, (unsigned long)idx);
    if (strncmp(line, pre, strlen(pre)))
        return -1;
    if (sscanf(line + strlen(pre), "%190s %x", b64, &crc) != 2)
        return -1;
    len = strlen(b64);
    if (len % 4)
        return -1;
    for (int i = 0; i < len; i += 4) {
        int v[4];

        for (int k = 0; k < 4; k++)
            v[k] = b64[i + k] == '=' ? 0 : b64val(b64[i + k]);
        if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0)
            return -1;
        out[n++] = v[0] << 2 | v[1] >> 4;
        if (b64[i + 2] != '=')
            out[n++] = (v[1] & 15) << 4 | v[2] >> 2;
        if (b64[i + 3] != '=')
            out[n++] = (v[2] & 3) << 6 | v[3];
    }
    return crc32_update(0, out, n) == crc ? n : -1;
}

TEST(crc32_is_zlibs)
{
    CHECK(crc32_update(0, "123456789", 9) == 0xCBF43926u);
    CHECK(crc32_update(0, "", 0) == 0);
}

TEST(chunk_lines_decode)
{
    char line[TRACE_LINE_MAX];
    uint8_t raw[TRACE_CHUNK_EVENTS * sizeof(struct trace_ev)];
    uint64_t got = 0;

    setup(4, 1, true);
    put(CAP + 7);               /* wrapped: chunks cross blocks and the end */
    CHECK(tracebuf_chunks(&b) == (CAP + TRACE_CHUNK_EVENTS - 1) /
                                 TRACE_CHUNK_EVENTS);
    for (uint64_t i = 0; i < tracebuf_chunks(&b); i++) {
        size_t len = tracebuf_chunk_line(&b, 3, i, line);
        int n;

        CHECK(len < TRACE_LINE_MAX && line[len - 1] == '\n' &&
              strlen(line) == len);
        n = decode(line, 3, i, raw);
        if (!CHECK(n > 0 && n % sizeof(struct trace_ev) == 0))
            return;
        for (int k = 0; k < n / (int)sizeof(struct trace_ev); k++) {
            struct trace_ev e;
            uint64_t want = tracebuf_first(&b) + got++;

            memcpy(&e, raw + k * sizeof e, sizeof e);
            CHECK(e.tsk == ((100 + want) << 8 | (1 + want % 15)) &&
                  e.g == want);
        }
        line[20] ^= 1;          /* a damaged line fails its CRC */
        CHECK(decode(line, 3, i, raw) < 0);
    }
    CHECK(got == CAP);
}

TEST(cmdline_values)
{
    struct tracecfg c;
    char err[128];
    const char *t, *s;

    cmdline_parse("trace=1 trace_buf=64");
    CHECK(cmdline_get("trace", &t) && cmdline_get("trace_buf", &s));
    CHECK(tracecfg_parse(t, s, 1024, &c, err, sizeof err) == 0 && !err[0]);
    CHECK(c.mode == TRACE_STOP && c.cap == 64 * 1024 / 16);
    CHECK(tracecfg_parse("wrap", "100", 1024, &c, err, sizeof err) == 0);
    CHECK(c.mode == TRACE_WRAP && c.cap == 4096);     /* 6400 rounded down */
    CHECK(tracecfg_parse(NULL, NULL, 1024, &c, err, sizeof err) == 0);
    CHECK(c.mode == TRACE_OFF &&
          c.cap == 1024 * 1024 / 16);
    CHECK(tracecfg_parse("off", NULL, 1024, &c, err, sizeof err) == 0 &&
          c.mode == TRACE_OFF);
    CHECK(tracecfg_parse("on", NULL, 1024, &c, err, sizeof err) == 0 &&
          c.mode == TRACE_STOP);
    CHECK(tracecfg_parse("yes", "64", 1024, &c, err, sizeof err) < 0);
    CHECK(c.mode == TRACE_OFF && strstr(err, "trace=yes"));
    CHECK(tracecfg_parse("1", "3", 1024, &c, err, sizeof err) < 0);
    CHECK(c.mode == TRACE_STOP && strstr(err, "trace_buf=3") &&
          c.cap == 1024 * 1024 / 16);
    CHECK(tracecfg_parse("1", "99999999999999999999", 1024, &c, err, sizeof err) < 0);
    CHECK(tracecfg_parse("1", "-5", 1024, &c, err, sizeof err) < 0);
    CHECK(tracecfg_parse("1", "", 1024, &c, err, sizeof err) < 0);
    CHECK(tracecfg_parse("", NULL, 1024, &c, err, 8) < 0 && strlen(err) < 8);
    /* The default, rounded down to a power of two of events, and kept
       within the bounds whatever the caller passes. */
    CHECK(tracecfg_parse("1", NULL, 100, &c, err, sizeof err) == 0 &&
          c.cap == 4096);
    CHECK(tracecfg_parse("1", NULL, 1, &c, err, sizeof err) == 0 &&
          c.cap == TRACE_BUF_MIN_KIB * 1024 / 16);
    CHECK(tracecfg_parse("1", NULL, 1ULL << 40, &c, err, sizeof err) == 0 &&
          c.cap == (uint64_t)TRACE_BUF_MAX_KIB * 1024 / 16);
    CHECK(tracecfg_parse("1", "2", 16384, &c, err, sizeof err) < 0 &&
          strstr(err, "16384 KiB per core") && c.cap == 16384 * 1024 / 16);
}

/* An eighth of memory, 64 MiB at most, shared evenly by the cores. */
TEST(default_size)
{
    const uint64_t gib = 1024 * 1024;   /* in KiB */

    CHECK(tracecfg_default_kib(gib, 1) == 65536);
    CHECK(tracecfg_default_kib(gib, 2) == 32768);
    CHECK(tracecfg_default_kib(gib, 4) == 16384);
    CHECK(tracecfg_default_kib(gib - 2048, 4) == 16384);
    CHECK(tracecfg_default_kib(gib, 8) == 8192);
    CHECK(tracecfg_default_kib(gib, 64) == 1024);
    CHECK(tracecfg_default_kib(16 * gib, 4) == 16384);
    CHECK(tracecfg_default_kib(gib / 4, 4) == 8192);
    CHECK(tracecfg_default_kib(1024, 8) == 16);
    CHECK(tracecfg_default_kib(128, 8) == TRACE_BUF_MIN_KIB);
    CHECK(tracecfg_default_kib(gib, 0) == 65536);
}

/* The size an overflow message proposes: the least that would have kept
   the events, in whole blocks of a shared pool (stop) or in each core's
   own share (wrap). */
TEST(size_that_keeps_them)
{
    const uint64_t max = (uint64_t)TRACE_BUF_MAX_KIB * 1024 / 16;
    uint64_t one[1] = { 256 }, four[4] = { 700000, 500000, 450000, 400000 };
    uint64_t skew[2] = { 257, 0 }, blocks[2] = { 4097, 4097 };

    CHECK(tracecfg_block(256) == 256 && tracecfg_block(1 << 20) == 4096);
    CHECK(tracecfg_kib_to_keep(one, 1, false) == 4);
    one[0] = 257;
    CHECK(tracecfg_kib_to_keep(one, 1, false) == 8);
    CHECK(tracecfg_kib_to_keep(one, 1, true) == 8);
    /* 2.05 million events over 4 cores: 8 MiB a core holds them pooled,
       wrapping each core needs 16 MiB for its 700,000. */
    CHECK(tracecfg_kib_to_keep(four, 4, false) == 8192);
    CHECK(tracecfg_kib_to_keep(four, 4, true) == 16384);
    /* One busy core draws on the idle one's share. */
    CHECK(tracecfg_kib_to_keep(skew, 2, false) == 4);
    CHECK(tracecfg_kib_to_keep(skew, 2, true) == 8);
    /* Partial blocks count whole: 2 x 4,097 events take 4 blocks of
       4,096, which 2 shares of 64 KiB (a block each) do not have. */
    CHECK(tracecfg_kib_to_keep(blocks, 2, false) == 128);
    one[0] = max;
    CHECK(tracecfg_kib_to_keep(one, 1, true) == TRACE_BUF_MAX_KIB);
    one[0] = max + 1;
    CHECK(tracecfg_kib_to_keep(one, 1, false) == 0);
    one[0] = UINT64_MAX / 2;
    CHECK(tracecfg_kib_to_keep(one, 1, true) == 0);
}

/* The dump the Python decoder's test reads: 2 cores, core 0 stopped
   full (lost 3), core 1 wrapped; a known event sequence on each. */
TEST(write_dump_for_the_decoder)
{
    static struct trace_ev e0[CAP], e1[CAP];
    static uint32_t k0[1], k1[1];
    struct tracepool p0, p1;
    struct tracebuf b0, b1;
    char line[TRACE_LINE_MAX];
    FILE *f = fopen("build/host/test-logs/tracebuf.dump", "w");

    if (!CHECK(f))
        return;
    tracepool_init(&p0, e0, CAP, 1);
    tracepool_init(&p1, e1, CAP, 1);
    tracebuf_init(&b0, &p0, k0, 0, 1, false);
    tracebuf_init(&b1, &p1, k1, 0, 1, true);
    /* Core 0: G 5 created by G 1, started, parks on reason 2; core 1:
       readies it, and after its wrap only the tail is kept. */
    tracebuf_put(&b0, 1000, TEV_CREATE, 5, 1);
    tracebuf_put(&b0, 1010, TEV_START, 5, 0);
    tracebuf_put(&b0, 1020, TEV_STOP_PARK, 5, 2);
    for (int i = 0; i < CAP; i++)
        tracebuf_put(&b0, 1100 + i, TEV_MARK, 0, i);
    for (int i = 0; i < 2 * CAP; i++)
        tracebuf_put(&b1, 900 + i, TEV_MARK, 0, i);
    tracebuf_put(&b1, 1030, TEV_READY, 5, 0);
    fprintf(f, "noise before\r\nTRACE BEGIN v=1 seg=0 cores=2 hz=1000000 "
            "mode=stop cap=%d\nTRACE REASONS ;a;b\n", CAP);
    fprintf(f, "TRACE CORE 0 events=%lu lost=%lu chunks=%lu\n",
            (unsigned long)b0.n, (unsigned long)tracebuf_lost(&b0),
            (unsigned long)tracebuf_chunks(&b0));
    for (uint64_t i = 0; i < tracebuf_chunks(&b0); i++) {
        tracebuf_chunk_line(&b0, 0, i, line);
        fputs(line, f);
    }
    fprintf(f, "a console line between\n");
    fprintf(f, "TRACE CORE 1 events=%lu lost=%lu chunks=%lu\n",
            (unsigned long)(b1.n - tracebuf_first(&b1)),
            (unsigned long)tracebuf_lost(&b1),
            (unsigned long)tracebuf_chunks(&b1));
    for (uint64_t i = 0; i < tracebuf_chunks(&b1); i++) {
        tracebuf_chunk_line(&b1, 1, i, line);
        fputs(line, f);
    }
    fprintf(f, "TRACE END seg=0 lines=%lu\n",
            (unsigned long)(tracebuf_chunks(&b0) + tracebuf_chunks(&b1)));
    CHECK(fclose(f) == 0);
    CHECK(tracebuf_lost(&b0) == 3 && tracebuf_lost(&b1) == CAP + 1);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
