/*
 * profbuf_test.c - host unit test for sched/profbuf.c: records in and
 * out of the buffer, a full one's lost count, the folding of equal
 * samples, the sample lines and their CRC-32 (kernel/crc32.c, checked
 * against zlib's known values), and profile= / profile_buf=.  Writes a
 * dump of samples that name this program's own functions to
 * build/host/test-logs/profbuf.dump, which tests/host/pprof_test.py turns
 * into a pprof profile with this program as the image.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "kernel/crc32.h"
#include "sched/profbuf.h"

#define WORDS 64
#define STARTS(s, lit) (!strncmp((s), (lit), strlen(lit)))

static uint64_t w[WORDS];
static struct profbuf b;

TEST(crc32_is_zlibs)
{
    CHECK(crc32_update(0, "123456789", 9) == 0xCBF43926u);
    CHECK(crc32_update(0, "", 0) == 0);
    CHECK(crc32_update(crc32_update(0, "1234", 4), "56789", 5) ==
          0xCBF43926u);
    CHECK(crc32_update(0, "The quick brown fox jumps over the lazy dog",
                       43) == 0x414FA339u);
}

TEST(records_in_and_out)
{
    uint64_t pcs[3] = { 0x1000, 0x2000, 0x3000 }, at;
    const uint64_t *r;

    profbuf_init(&b, w, WORDS);
    CHECK(profbuf_put(&b, 2, PROF_G, PROF_IRQOFF, 7, 0x500, 0x2004, pcs, 3));
    CHECK(profbuf_put(&b, 1, PROF_HALT, 0, 0, 0, 0, pcs, 0));
    CHECK(b.records == 2 && b.weight == 3 && b.lost == 0);
    CHECK(b.n == 2 * PROF_HDR + 3);
    r = b.w;
    CHECK(prof_weight(r) == 2 && prof_depth(r) == 3 &&
          prof_kind_of(r) == PROF_G && prof_flags(r) == PROF_IRQOFF);
    CHECK(r[1] == 7 && r[2] == 0x500 && r[3] == 0x2004 &&
          r[PROF_HDR + 2] == 0x3000);
    at = profbuf_next(&b, 0);
    CHECK(at == PROF_HDR + 3 && prof_kind_of(b.w + at) == PROF_HALT &&
          prof_depth(b.w + at) == 0);
    CHECK(profbuf_next(&b, at) == b.n);
    profbuf_reset(&b);
    CHECK(b.n == 0 && b.records == 0 && b.weight == 0);
}

TEST(full_buffer_counts_lost)
{
    uint64_t pcs[PROF_DEPTH] = { 0 };
    int put = 0;

    profbuf_init(&b, w, WORDS);
    while (profbuf_put(&b, 3, PROF_G, 0, 1, 0, 0, pcs, 10))
        put++;
    CHECK(put == WORDS / (PROF_HDR + 10));
    CHECK(b.lost == 3 && b.records == (uint64_t)put);
    /* What still fits goes in: a smaller record after a refused one. */
    CHECK(b.cap - b.n >= PROF_HDR || !profbuf_put(&b, 1, PROF_HALT, 0, 0,
                                                 0, 0, pcs, 0));
}

TEST(merge_folds_equal_samples)
{
    uint64_t a[2] = { 0x10, 0x20 }, c[2] = { 0x10, 0x21 };
    uint32_t table[16];
    uint64_t left, sum = 0;

    profbuf_init(&b, w, WORDS);
    profbuf_put(&b, 1, PROF_G, 0, 4, 0x99, 0, a, 2);
    profbuf_put(&b, 2, PROF_G, 0, 4, 0x99, 0, c, 2);       /* other pc */
    profbuf_put(&b, 3, PROF_G, 0, 4, 0x99, 0, a, 2);       /* = first */
    profbuf_put(&b, 4, PROF_G, 0, 5, 0x99, 0, a, 2);       /* other G */
    profbuf_put(&b, 5, PROF_G, PROF_IRQOFF, 4, 0x99, 0, a, 2);
    profbuf_put(&b, 6, PROF_G, 0, 4, 0x99, 0, a, 2);       /* = first */
    profbuf_put(&b, 7, PROF_G, 0, 4, 0x99, 0x30, a, 2);    /* other link */
    left = profbuf_merge(&b, table, 16);
    CHECK(left == 5);
    CHECK(prof_weight(b.w) == 1 + 3 + 6);
    for (uint64_t at = 0; at < b.n; at = profbuf_next(&b, at))
        sum += prof_weight(b.w + at);
    CHECK(sum == b.weight && b.weight == 28);
}

/* The parts of a sample line, checked by reading them back. */
TEST(sample_lines)
{
    uint64_t pcs[2] = { 0x40123a, 0xffffffff81000000 };
    char line[PROF_LINE_MAX], body[PROF_LINE_MAX];
    unsigned crc;
    size_t len;
    char *sp;

    profbuf_init(&b, w, WORDS);
    profbuf_put(&b, 12, PROF_G, PROF_IRQOFF, 42, 0x4000f0, 0x401000, pcs, 2);
    len = profbuf_line(b.w, 3, 9, line);
    CHECK(len == strlen(line) && line[len - 1] == '\n');
    CHECK(STARTS(line, "PROF S 3 9 g-off 12 42 4000f0 401000 40123a "
                       "ffffffff81000000 "));
    sp = strrchr(line, ' ');
    if (!CHECK(sp && sscanf(sp + 1, "%8x", &crc) == 1))
        return;
    memcpy(body, line, sp - line);
    CHECK(crc32_update(0, body, sp - line) == crc);
    profbuf_reset(&b);
    profbuf_put(&b, 1, PROF_HALT, 0, 0, 0, 0, pcs, 0);
    len = profbuf_line(b.w, 0, 0, line);
    CHECK(STARTS(line, "PROF S 0 0 halt 1 0 0 0 ") && len == 33);
}

TEST(deepest_line_fits)
{
    uint64_t pcs[PROF_DEPTH];
    static uint64_t big[PROF_HDR + PROF_DEPTH];
    char line[PROF_LINE_MAX];

    for (int i = 0; i < PROF_DEPTH; i++)
        pcs[i] = ~0ULL - i;
    profbuf_init(&b, big, PROF_HDR + PROF_DEPTH);
    profbuf_put(&b, 0xffffffffu, PROF_IRQ, PROF_IRQOFF, ~0ULL, ~0ULL, ~0ULL,
                pcs, PROF_DEPTH);
    CHECK(profbuf_line(b.w, 63, ~0ULL >> 1, line) < PROF_LINE_MAX - 1);
}

TEST(cmdline_values)
{
    struct profcfg c;
    char err[160];

    CHECK(profcfg_parse(NULL, NULL, &c, err, sizeof err) == 0 && !err[0]);
    CHECK(c.hz == 0 && c.words == PROF_BUF_DEFAULT_KIB * 1024 / 8);
    CHECK(profcfg_parse("250", "64", &c, err, sizeof err) == 0);
    CHECK(c.hz == 250 && c.words == 64 * 1024 / 8);
    CHECK(profcfg_parse("on", NULL, &c, err, sizeof err) == 0 &&
          c.hz == PROF_HZ_DEFAULT);
    CHECK(profcfg_parse("off", NULL, &c, err, sizeof err) == 0 && !c.hz);
    CHECK(profcfg_parse("0", NULL, &c, err, sizeof err) == 0 && !c.hz);
    CHECK(profcfg_parse("1000", NULL, &c, err, sizeof err) == 0 &&
          c.hz == 1000);
    CHECK(profcfg_parse("10001", NULL, &c, err, sizeof err) < 0);
    CHECK(c.hz == PROF_HZ_MAX && strstr(err, "profile=10001"));
    CHECK(profcfg_parse("fast", NULL, &c, err, sizeof err) < 0);
    CHECK(c.hz == PROF_HZ_DEFAULT && strstr(err, "profile=fast"));
    CHECK(profcfg_parse("-5", NULL, &c, err, sizeof err) < 0 &&
          c.hz == PROF_HZ_DEFAULT);
    CHECK(profcfg_parse(" 5", NULL, &c, err, sizeof err) < 0);
    CHECK(profcfg_parse("5x", NULL, &c, err, sizeof err) < 0);
    CHECK(profcfg_parse("", NULL, &c, err, sizeof err) < 0);
    CHECK(profcfg_parse("99999999999999999999999", NULL, &c, err,
                        sizeof err) < 0 && c.hz == PROF_HZ_DEFAULT);
    CHECK(profcfg_parse("100", "8", &c, err, sizeof err) < 0);
    CHECK(c.hz == 100 && strstr(err, "profile_buf=8") &&
          c.words == PROF_BUF_DEFAULT_KIB * 1024 / 8);
    CHECK(profcfg_parse("100", "big", &c, err, sizeof err) < 0);
    CHECK(profcfg_parse("x", "y", &c, err, sizeof err) < 0 &&
          strstr(err, "profile=x"));
    CHECK(profcfg_parse("x", NULL, &c, err, 8) < 0 && strlen(err) < 8);
}

/* Functions whose addresses the dump below uses: a loop that keeps no
   frame record (the leaf), one it is called from, and a G's entry. */
__attribute__((noinline, optimize("omit-frame-pointer")))
unsigned long prof_leaf(unsigned long n)
{
    unsigned long x = n;

    for (unsigned long i = 0; i < n; i++) {
        x = x * 3 + 1;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

__attribute__((noinline)) unsigned long prof_caller(unsigned long n)
{
    unsigned long x = prof_leaf(n);

    __asm__ volatile("" : "+r"(x));
    return x;
}

__attribute__((noinline)) void prof_gentry(void)
{
    prof_caller(3);
}

/*
 * The dump the Python side reads: 2 cores at 1000 Hz.  Core 0: 30
 * samples in prof_leaf whose link is in prof_caller (the leaf keeps no
 * frame, so pprof.py splices it in), and 10 in prof_caller with the frame
 * chain up to prof_gentry, G 7 of start function prof_gentry; core 1:
 * 5 halted, 2 idle-spinning in prof_caller, 3 of an interrupt handler
 * with interrupts masked.
 */
TEST(write_dump_for_the_decoder)
{
    static uint64_t w0[256], w1[256];
    struct profbuf b0, b1;
    uintptr_t leaf = (uintptr_t)prof_leaf, caller = (uintptr_t)prof_caller,
              entry = (uintptr_t)prof_gentry;
    uint64_t deep[2] = { caller + 4, entry + 5 }, one[1] = { leaf + 8 };
    uint64_t two[2] = { leaf + 8, entry + 5 };
    char line[PROF_LINE_MAX];
    FILE *f = fopen("build/host/test-logs/profbuf.dump", "w");

    if (!CHECK(f))
        return;
    profbuf_init(&b0, w0, 256);
    profbuf_init(&b1, w1, 256);
    for (int i = 0; i < 10; i++)
        profbuf_put(&b0, 3, PROF_G, 0, 7, entry, caller + 4, two, 2);
    profbuf_put(&b0, 10, PROF_G, 0, 7, entry, 0, deep, 2);
    profbuf_put(&b1, 5, PROF_HALT, 0, 0, 0, 0, one, 0);
    profbuf_put(&b1, 2, PROF_IDLE, 0, 0, 0, 0, deep, 1);
    profbuf_put(&b1, 3, PROF_IRQ, PROF_IRQOFF, 7, entry, 0, one, 1);
    fprintf(f, "boot noise\nPROF BEGIN v=1 seg=0 cores=2 hz=1000 "
               "period_ns=1000000\n");
    for (int c = 0; c < 2; c++) {
        struct profbuf *p = c ? &b1 : &b0;
        uint32_t table[64];
        uint64_t left = profbuf_merge(p, table, 64), i = 0;

        fprintf(f, "PROF CORE %d records=%lu weight=%lu lost=%lu\n", c,
                (unsigned long)left, (unsigned long)p->weight,
                (unsigned long)p->lost);
        for (uint64_t at = 0; at < p->n; at = profbuf_next(p, at))
            if (prof_weight(p->w + at)) {
                profbuf_line(p->w + at, c, i++, line);
                fputs(line, f);
            }
    }
    fprintf(f, "PROF END seg=0 records=5\n");
    fclose(f);
    CHECK(b0.weight == 40 && b1.weight == 10);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
