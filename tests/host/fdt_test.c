/*
 * fdt_test.c - host unit test for firmware/fdt.c.
 *
 * Real blobs come from tests/host/fdt/ (read at run time, relative to the
 * project root): QEMU virt trees dumped with -M virt,...,dumpdtb=, packed
 * to their used size, and board.dtb compiled from board.dts for what QEMU
 * does not produce.  Expected values were read off `dtc -I dtb -O dts`.
 * Synthetic blobs, valid and broken, come from a small builder below that
 * writes the format from the spec (v0.4 §5), not from fdt.c's code.
 *
 * Every blob under test sits in a malloc'd buffer of exactly its size, so
 * ASan flags any read past it.  The fuzz case mutates real blobs 20,000
 * times (bit flips, bytes, tokens, header words, truncations) and runs the
 * checker, the machine parser and a full walk on each, under an alarm that
 * turns a hang into a failure.  FDT_FUZZ_ITERS and FDT_FUZZ_SEED change
 * its length and seed for longer runs; FDT_TEST_VERBOSE prints its tally.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "firmware/fdt.h"
#include "harness.h"

/* Header word offsets (spec §5.2), independent of fdt.c's. */
enum {
    HW_MAGIC = 0, HW_TOTAL = 4, HW_STRUCT = 8, HW_STRINGS = 12, HW_RSV = 16,
    HW_VERSION = 20, HW_LASTCOMP = 24, HW_BOOTCPU = 28, HW_STRSIZE = 32,
    HW_STSIZE = 36,
};

static uint32_t rd32(const uint8_t *b, uint32_t off)
{
    return (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 |
           (uint32_t)b[off + 2] << 8 | b[off + 3];
}

static void wr32(uint8_t *b, uint32_t off, uint32_t v)
{
    b[off] = v >> 24;
    b[off + 1] = v >> 16;
    b[off + 2] = v >> 8;
    b[off + 3] = v;
}

static uint8_t *copy(const uint8_t *b, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);

    memcpy(p, b, n);
    return p;
}

/* ---- Real blobs ---- */

static uint8_t *load(const char *name, size_t *size)
{
    char path[256];
    uint8_t *b;
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "tests/host/fdt/%s", name);
    f = fopen(path, "rb");
    if (!f) {
        FAIL("cannot open %s (run from the project root)", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    b = malloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || fread(b, 1, (size_t)n, f) != (size_t)n) {
        FAIL("cannot read %s", path);
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* Node and property counts from an independent Python walk of each blob. */
static const struct blobinfo {
    const char *name;
    int nodes, props;
} blobs[] = {
    { "virt-gicv3-smp4.dtb", 62, 240 },
    { "virt-gicv2-smp2.dtb", 58, 226 },
    { "virt-gicv3-bootargs.dtb", 58, 229 },
    { "virt-gicv3-el2-smp8-4g.dtb", 70, 265 },
    { "virt-secure-smp2.dtb", 64, 259 },
    { "board.dtb", 27, 87 },
};
#define NBLOBS ((int)(sizeof(blobs) / sizeof(blobs[0])))

/* ---- A blob builder (spec §5): header, reservations, struct, strings ---- */

static struct {
    uint8_t st[64 * 1024];
    uint32_t nst;
    char str[4096];
    uint32_t nstr;
    uint64_t rsv[8][2];
    int nrsv;
} bl;

static void b_reset(void)
{
    memset(&bl, 0, sizeof(bl));
}

static void b32(uint32_t v)
{
    if (bl.nst + 4 > sizeof(bl.st)) {
        FAIL("builder: structure block full");
        return;
    }
    wr32(bl.st, bl.nst, v);
    bl.nst += 4;
}

static void b_bytes(const void *p, uint32_t n)
{
    if (bl.nst + n + 3 > sizeof(bl.st)) {
        FAIL("builder: structure block full");
        return;
    }
    if (n)
        memcpy(bl.st + bl.nst, p, n);
    bl.nst += n;
    while (bl.nst % 4)
        bl.st[bl.nst++] = 0;
}

static void b_begin(const char *name)
{
    b32(1);
    b_bytes(name, (uint32_t)strlen(name) + 1);
}

static void b_end(void)
{
    b32(2);
}

static void b_nop(void)
{
    b32(4);
}

static uint32_t b_name(const char *name)
{
    size_t n = strlen(name) + 1;

    for (uint32_t off = 0; off < bl.nstr; off += strlen(bl.str + off) + 1)
        if (strcmp(bl.str + off, name) == 0)
            return off;
    memcpy(bl.str + bl.nstr, name, n);
    bl.nstr += n;
    return bl.nstr - n;
}

static void b_prop(const char *name, const void *v, uint32_t len)
{
    b32(3);
    b32(len);
    b32(b_name(name));
    b_bytes(v, len);
}

static void b_str(const char *name, const char *s)
{
    b_prop(name, s, (uint32_t)strlen(s) + 1);
}

/* A property of n cells, given as unsigned ints. */
static void b_cells(const char *name, int n, ...)
{
    uint8_t buf[4 * 64];
    va_list ap;

    va_start(ap, n);
    for (int i = 0; i < n; i++)
        wr32(buf, 4 * i, va_arg(ap, unsigned));
    va_end(ap);
    b_prop(name, buf, 4 * n);
}

/* Appends FDT_END and lays the blob out in a buffer of exactly *size. */
static uint8_t *b_finish(size_t *size)
{
    uint32_t rsv = 40, st = rsv + 16 * (bl.nrsv + 1), str, total;
    uint8_t *b;

    b32(9);
    str = st + bl.nst;
    total = str + bl.nstr;
    b = calloc(1, total);
    wr32(b, HW_MAGIC, FDT_MAGIC);
    wr32(b, HW_TOTAL, total);
    wr32(b, HW_STRUCT, st);
    wr32(b, HW_STRINGS, str);
    wr32(b, HW_RSV, rsv);
    wr32(b, HW_VERSION, 17);
    wr32(b, HW_LASTCOMP, 16);
    wr32(b, HW_STRSIZE, bl.nstr);
    wr32(b, HW_STSIZE, bl.nst);
    for (int i = 0; i < bl.nrsv; i++) {
        wr32(b, rsv + 16 * i, bl.rsv[i][0] >> 32);
        wr32(b, rsv + 16 * i + 4, (uint32_t)bl.rsv[i][0]);
        wr32(b, rsv + 16 * i + 8, bl.rsv[i][1] >> 32);
        wr32(b, rsv + 16 * i + 12, (uint32_t)bl.rsv[i][1]);
    }
    memcpy(b + st, bl.st, bl.nst);
    memcpy(b + str, bl.str, bl.nstr);
    *size = total;
    return b;
}

/*
 * Starts a minimal machine and leaves the root open for more nodes: root
 * with 2/2 cells (and interrupt-parent irqph if not 0), memory@40000000
 * (128 MiB) unless !mem, and /cpus with ncpu PSCI CPUs unless ncpu < 0.
 */
static void b_machine(bool mem, int ncpu, uint32_t irqph)
{
    char name[32];

    b_reset();
    b_begin("");
    b_cells("#address-cells", 1, 2);
    b_cells("#size-cells", 1, 2);
    if (irqph)
        b_cells("interrupt-parent", 1, irqph);
    if (mem) {
        b_begin("memory@40000000");
        b_str("device_type", "memory");
        b_cells("reg", 4, 0, 0x40000000, 0, 0x8000000);
        b_end();
    }
    if (ncpu >= 0) {
        b_begin("cpus");
        b_cells("#address-cells", 1, 1);
        b_cells("#size-cells", 1, 0);
        for (int i = 0; i < ncpu; i++) {
            snprintf(name, sizeof(name), "cpu@%x", i);
            b_begin(name);
            b_str("device_type", "cpu");
            b_cells("reg", 1, i);
            b_str("enable-method", "psci");
            b_end();
        }
        b_end();
    }
}

/* A GICv3 at 0x8000000 with phandle ph, as QEMU's. */
static void b_gicv3(uint32_t ph)
{
    b_begin("intc@8000000");
    b_str("compatible", "arm,gic-v3");
    b_cells("#interrupt-cells", 1, 3);
    b_prop("interrupt-controller", NULL, 0);
    b_cells("reg", 8, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000);
    b_cells("phandle", 1, ph);
    b_end();
}

/* ---- Helpers over the API ---- */

static const char *errstr;

static int check(const uint8_t *b, size_t n)
{
    return fdt_check(b, n, &errstr);
}

/* fdt_check fails, with an error string holding want. */
static bool rejects(const uint8_t *b, size_t n, const char *want)
{
    int rc = check(b, n);

    if (rc != -FDT_ECORRUPT || !errstr || !strstr(errstr, want)) {
        FAIL("expected error \"%s\", got rc %d \"%s\"", want, rc,
             errstr ? errstr : "(none)");
        return false;
    }
    return true;
}

/* Builds the blob after root's open node(s) and checks it is rejected. */
static void built_rejects(const char *want)
{
    size_t n;
    uint8_t *b = b_finish(&n);

    rejects(b, n, want);
    free(b);
}

/*
 * Visits every node in blob order with fdt_first_child/fdt_next_sibling.
 * Returns the number of nodes and adds the properties seen to *nprops, or
 * -1 if a call fails or the walk takes more than limit steps.
 */
static int walk(const uint8_t *b, int *nprops, int limit)
{
    int up[FDT_MAX_DEPTH + 1], d = 0, n = 0, node = 0, c, steps = 0;

    for (;;) {
        if (++n > limit)
            return -1;
        for (int p = fdt_first_prop(b, node); p >= 0; p = fdt_next_prop(b, p)) {
            const char *name;
            int len;

            if (++steps > limit || !fdt_prop_value(b, p, &name, &len) ||
                len < 0 || !name)
                return -1;
            (*nprops)++;
        }
        c = fdt_first_child(b, node);
        if (c >= 0) {
            if (d == FDT_MAX_DEPTH || c <= node)
                return -1;
            up[d++] = node;
            node = c;
            continue;
        }
        if (c != -FDT_ENOTFOUND)
            return -1;
        for (;;) {
            if (d == 0)
                return n;
            c = fdt_next_sibling(b, node);
            if (c >= 0) {
                if (c <= node)
                    return -1;
                node = c;
                break;
            }
            if (c != -FDT_ENOTFOUND)
                return -1;
            node = up[--d];
        }
    }
}

static const char *name_at(const uint8_t *b, int node)
{
    const char *s = fdt_node_name(b, node);

    return s ? s : "(null)";
}

#define CHECK_NAME(b, node, want) \
    CHECK(strcmp(name_at(b, node), want) == 0)

static bool range_is(struct mach_range r, uint64_t base, uint64_t size)
{
    return r.base == base && r.size == size;
}

static struct machine mach;

/* ---- fdt_check: real blobs and a broken header ---- */

TEST(check_real_blobs)
{
    for (int i = 0; i < NBLOBS; i++) {
        size_t n;
        uint8_t *b = load(blobs[i].name, &n);

        if (!b)
            return;
        if (!CHECK(check(b, n) == 0 && errstr == NULL))
            FAIL("%s: %s", blobs[i].name, errstr);
        /* A larger buffer is fine: totalsize is what counts. */
        uint8_t *big = calloc(1, n + 100);
        memcpy(big, b, n);
        CHECK(check(big, n + 100) == 0);
        CHECK(fdt_check(b, n, NULL) == 0);
        free(big);
        free(b);
    }
}

TEST(check_bad_magic)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);

    if (!b)
        return;
    wr32(b, HW_MAGIC, 0xedfe0dd0);     /* byte-swapped */
    rejects(b, n, "magic");
    CHECK(fdt_parse_machine(b, n, &mach) == -FDT_ECORRUPT &&
          mach.error && strstr(mach.error, "magic"));
    free(b);
}

TEST(check_small_buffer)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n), *p;

    if (!b)
        return;
    for (size_t k = 0; k < 40; k++) {
        p = copy(b, k);
        CHECK(check(p, k) == -FDT_ECORRUPT && errstr);
        free(p);
    }
    rejects(NULL, 100, "no blob");
    free(b);
}

TEST(check_totalsize_past_buffer)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n), *p;

    if (!b)
        return;
    p = copy(b, n - 1);          /* the buffer is one byte short */
    rejects(p, n - 1, "totalsize is larger than the buffer");
    free(p);
    wr32(b, HW_TOTAL, 0xffffffff);
    rejects(b, n, "totalsize is larger than the buffer");
    wr32(b, HW_TOTAL, 0x40);
    rejects(b, n, "runs past totalsize");
    wr32(b, HW_TOTAL, 20);
    rejects(b, n, "smaller than the header");
    free(b);
}

TEST(check_version)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n);

    if (!b)
        return;
    wr32(b, HW_VERSION, 15);
    rejects(b, n, "version is older than 16");
    wr32(b, HW_VERSION, 17);
    wr32(b, HW_LASTCOMP, 18);
    rejects(b, n, "last_comp_version is newer than 17");
    /* Newer versions that stay compatible with 17 are fine. */
    wr32(b, HW_VERSION, 20);
    wr32(b, HW_LASTCOMP, 17);
    CHECK(check(b, n) == 0);
    free(b);
}

/* A version 16 blob has no size_dt_struct: the walk ends at FDT_END. */
TEST(check_version16)
{
    size_t n;
    uint8_t *b;

    b_machine(true, 1, 0);
    b_end();
    b = b_finish(&n);
    wr32(b, HW_VERSION, 16);
    wr32(b, HW_STSIZE, 0xdeadbeef);    /* garbage: not a v16 field */
    if (CHECK(check(b, n) == 0))
        CHECK(fdt_parse_machine(b, n, &mach) == 0 && mach.ncpus == 1);
    free(b);
}

TEST(check_alignment)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n);
    uint32_t st, rsv;

    if (!b)
        return;
    st = rd32(b, HW_STRUCT);
    rsv = rd32(b, HW_RSV);
    wr32(b, HW_STRUCT, st + 2);
    rejects(b, n, "structure block is not 4-byte aligned");
    wr32(b, HW_STRUCT, st);
    wr32(b, HW_RSV, rsv + 4);
    rejects(b, n, "memory reservation block is not 8-byte aligned");
    wr32(b, HW_RSV, rsv);
    CHECK(check(b, n) == 0);
    free(b);
}

TEST(check_blocks_outside)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n);
    uint32_t st, sts, str, strs;

    if (!b)
        return;
    st = rd32(b, HW_STRUCT);
    sts = rd32(b, HW_STSIZE);
    str = rd32(b, HW_STRINGS);
    strs = rd32(b, HW_STRSIZE);

    wr32(b, HW_STRUCT, ((uint32_t)n + 8) & ~3u);
    rejects(b, n, "structure block is outside the blob");
    wr32(b, HW_STRUCT, 8);             /* inside the header */
    rejects(b, n, "structure block is outside the blob");
    wr32(b, HW_STRUCT, st);
    wr32(b, HW_STSIZE, (uint32_t)n - st + 4);
    rejects(b, n, "structure block runs past totalsize");
    wr32(b, HW_STSIZE, 0xfffffffc);
    rejects(b, n, "structure block runs past totalsize");
    wr32(b, HW_STSIZE, sts);

    wr32(b, HW_STRSIZE, (uint32_t)n - str + 1);
    rejects(b, n, "strings block is outside the blob");
    wr32(b, HW_STRSIZE, strs);
    wr32(b, HW_STRINGS, 0xfffffff0);
    rejects(b, n, "strings block is outside the blob");
    wr32(b, HW_STRINGS, str);

    wr32(b, HW_RSV, 0x7ffffff8);
    rejects(b, n, "memory reservation block is outside the blob");
    wr32(b, HW_RSV, 0);
    rejects(b, n, "memory reservation block is outside the blob");
    free(b);
}

TEST(check_rsvmap_unterminated)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n);

    if (!b)
        return;
    /* Less than one entry left before totalsize. */
    wr32(b, HW_RSV, ((uint32_t)n - 8) & ~7u);
    rejects(b, n, "memory reservation block has no terminating entry");
    free(b);

    /* Entries all the way to the end, none zero. */
    b_reset();
    bl.nrsv = 2;
    bl.rsv[0][0] = 0x1000;
    bl.rsv[0][1] = 0x1000;
    bl.rsv[1][0] = 0x3000;
    bl.rsv[1][1] = 0x1000;
    b_begin("");
    b_end();
    b = b_finish(&n);
    CHECK(check(b, n) == 0);
    /* Without its terminator the list runs on through the structure
     * block, where no 16 zero bytes follow, to the end of the blob. */
    memset(b + 40 + 32, 0xff, 16);
    rejects(b, n, "memory reservation block has no terminating entry");
    free(b);
}

/* ---- fdt_check: the structure and strings blocks ---- */

TEST(check_truncated_struct)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n), *p;
    uint32_t sts;

    if (!b)
        return;
    sts = rd32(b, HW_STSIZE);
    wr32(b, HW_STSIZE, sts - 4);       /* drops FDT_END */
    rejects(b, n, "structure block ends before FDT_END");
    wr32(b, HW_STSIZE, sts / 2);       /* cuts the tree in half */
    rejects(b, n, "structure block");
    wr32(b, HW_STSIZE, 0);
    rejects(b, n, "structure block ends before FDT_END");
    wr32(b, HW_STSIZE, sts);

    /* The file itself cut short, with totalsize saying so. */
    for (size_t k = 64; k < n; k = k * 3 / 2) {
        p = copy(b, k);
        wr32(p, HW_TOTAL, (uint32_t)k);
        CHECK(check(p, k) == -FDT_ECORRUPT && errstr);
        free(p);
    }
    free(b);
}

TEST(check_unterminated_strings)
{
    size_t n;
    uint8_t *b;

    /* The last name in the strings block loses its NUL. */
    b_reset();
    b_begin("");
    b_cells("#address-cells", 1, 2);
    b_str("zzz-last", "x");
    b_end();
    b = b_finish(&n);
    CHECK(check(b, n) == 0);
    wr32(b, HW_STRSIZE, rd32(b, HW_STRSIZE) - 1);
    rejects(b, n, "property name is not terminated in the strings block");
    wr32(b, HW_STRSIZE, 0);
    rejects(b, n, "property name offset is outside the strings block");
    free(b);

    /* A nameoff past the strings block. */
    b_reset();
    b_begin("");
    b_str("model", "x");
    b_end();
    b = b_finish(&n);
    wr32(b, rd32(b, HW_STRUCT) + 8 + 8, 0x1000);
    rejects(b, n, "property name offset is outside the strings block");
    free(b);

    /* String values without a NUL are not strings. */
    b_reset();
    b_begin("");
    b_prop("model", "abc", 3);
    b_prop("empty", "", 0);
    b_str("ok", "yes");
    b_end();
    b = b_finish(&n);
    if (CHECK(check(b, n) == 0)) {
        int len;

        CHECK(fdt_getprop_str(b, 0, "model") == NULL);
        CHECK(fdt_getprop(b, 0, "model", &len) && len == 3);
        CHECK(fdt_getprop_str(b, 0, "empty") == NULL);
        CHECK(fdt_getprop_str(b, 0, "ok") &&
              strcmp(fdt_getprop_str(b, 0, "ok"), "yes") == 0);
    }
    free(b);
}

TEST(check_prop_past_end)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    uint32_t st, sts, len;

    if (!b)
        return;
    st = rd32(b, HW_STRUCT);
    sts = rd32(b, HW_STSIZE);
    /* The root's first property: token at st + 8 (after "" padded). */
    if (!CHECK(rd32(b, st) == 1 && rd32(b, st + 8) == 3))
        goto out;
    len = rd32(b, st + 12);
    wr32(b, st + 12, sts - 8 - 12 + 1);   /* one byte past the block */
    rejects(b, n, "property value runs past the structure block");
    wr32(b, st + 12, 0xfffffff0);
    rejects(b, n, "property value runs past the structure block");
    wr32(b, st + 12, 0x7fffffff);
    rejects(b, n, "property value runs past the structure block");
    wr32(b, st + 12, len);
    CHECK(check(b, n) == 0);

    free(b);

    /* A property header cut by the end of the block. */
    b_reset();
    b_begin("");
    b_end();
    b = b_finish(&n);
    st = rd32(b, HW_STRUCT);
    wr32(b, st + 8, 3);                /* FDT_PROP where FDT_END_NODE was */
    rejects(b, n, "property header runs past the structure block");
out:
    free(b);
}

TEST(check_node_name_past_end)
{
    size_t n;
    uint8_t *b;
    uint32_t st;

    b_reset();
    b_begin("");
    b_begin("abcdefg");
    b_end();
    b_end();
    b = b_finish(&n);
    st = rd32(b, HW_STRUCT);
    /* Structure block ends inside the child's name. */
    if (CHECK(rd32(b, st + 8) == 1))
        wr32(b, HW_STSIZE, 8 + 4 + 4);    /* "abcd" left, no NUL */
    rejects(b, n, "node name runs past the structure block");
    free(b);
}

TEST(check_depth_limit)
{
    size_t n;
    uint8_t *b;
    int node, d;

    /* FDT_MAX_DEPTH levels, root included, is fine. */
    b_reset();
    for (int i = 0; i < FDT_MAX_DEPTH; i++)
        b_begin(i ? "n" : "");
    for (int i = 0; i < FDT_MAX_DEPTH; i++)
        b_end();
    b = b_finish(&n);
    if (CHECK(check(b, n) == 0)) {
        for (node = 0, d = 1; (node = fdt_first_child(b, node)) >= 0; d++)
            ;
        CHECK(d == FDT_MAX_DEPTH);
        CHECK(fdt_path_offset(b, "/n/n/n/n") > 0);
    }
    free(b);

    b_reset();
    for (int i = 0; i <= FDT_MAX_DEPTH; i++)
        b_begin(i ? "n" : "");
    for (int i = 0; i <= FDT_MAX_DEPTH; i++)
        b_end();
    built_rejects("deeper than FDT_MAX_DEPTH");

    /* Thousands of BEGIN_NODEs that never end. */
    b_reset();
    for (int i = 0; i < 5000; i++)
        b_begin("");
    built_rejects("deeper than FDT_MAX_DEPTH");
}

TEST(check_token_structure)
{
    b_reset();
    b_begin("");
    b32(5);
    b_end();
    built_rejects("unknown token");

    b_reset();
    b_begin("");
    b_end();
    b_end();
    built_rejects("FDT_END_NODE without FDT_BEGIN_NODE");

    b_reset();
    b_begin("");
    b_end();
    b_begin("");
    b_end();
    built_rejects("more than one root node");

    b_reset();
    b_begin("");
    b_begin("child");
    b_end();
    b_str("late", "x");
    b_end();
    built_rejects("property after a subnode");

    b_reset();
    b_begin("");
    b_end();
    b_str("late", "x");
    built_rejects("property outside any node");

    b_reset();
    b_begin("");
    b_begin("child");
    b_end();
    built_rejects("FDT_END inside an open node");

    b_reset();
    b_nop();
    b_begin("");
    b_end();
    built_rejects("does not start with a node");

    /* NOPs anywhere after the root's FDT_BEGIN_NODE are fine. */
    b_reset();
    b_begin("");
    b_nop();
    b_str("a", "x");
    b_nop();
    b_begin("c");
    b_nop();
    b_end();
    b_nop();
    b_end();
    b_nop();
    {
        size_t n;
        uint8_t *b = b_finish(&n);
        int np = 0;

        CHECK(check(b, n) == 0);
        CHECK(fdt_path_offset(b, "/c") > 0);
        CHECK(walk(b, &np, 100) == 2 && np == 1);
        free(b);
    }
}

/* ---- The walker, on real blobs ---- */

TEST(walk_counts)
{
    for (int i = 0; i < NBLOBS; i++) {
        size_t n;
        uint8_t *b = load(blobs[i].name, &n);
        int np = 0, nn;

        if (!b)
            return;
        nn = walk(b, &np, 100000);
        if (nn != blobs[i].nodes || np != blobs[i].props)
            FAIL("%s: %d nodes, %d props; want %d, %d", blobs[i].name, nn,
                 np, blobs[i].nodes, blobs[i].props);
        free(b);
    }
}

TEST(walk_root_children)
{
    static const char *const want[] = {
        "psci", "memory@40000000", "platform-bus@c000000", "fw-cfg@9020000",
        "virtio_mmio@a000000",
    };
    static const char *const tail[] = {
        "gpio-keys", "pl061@9030000", "pcie@10000000", "pl031@9010000",
        "pl011@9000000", "pmu", "intc@8000000", "flash@0", "cpus", "timer",
        "apb-pclk", "chosen",
    };
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    const char *names[64];
    int k = 0;

    if (!b)
        return;
    CHECK(strcmp(name_at(b, 0), "") == 0);
    for (int c = fdt_first_child(b, 0); c >= 0 && k < 64;
         c = fdt_next_sibling(b, c))
        names[k++] = name_at(b, c);
    if (!CHECK(k == 48))
        goto out;
    for (int i = 0; i < 5; i++)
        CHECK(strcmp(names[i], want[i]) == 0);
    for (int i = 0; i < 12; i++)
        CHECK(strcmp(names[36 + i], tail[i]) == 0);
    CHECK(fdt_next_sibling(b, 0) == -FDT_ENOTFOUND);
out:
    free(b);
}

TEST(path_lookup)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    int cpus;

    if (!b)
        return;
    CHECK(fdt_path_offset(b, "/") == 0);
    cpus = fdt_path_offset(b, "/cpus");
    CHECK(cpus > 0);
    CHECK_NAME(b, cpus, "cpus");
    CHECK_NAME(b, fdt_path_offset(b, "/cpus/cpu@2"), "cpu@2");
    CHECK_NAME(b, fdt_path_offset(b, "/memory"), "memory@40000000");
    CHECK_NAME(b, fdt_path_offset(b, "/memory@40000000"), "memory@40000000");
    CHECK_NAME(b, fdt_path_offset(b, "/psci"), "psci");
    CHECK_NAME(b, fdt_path_offset(b, "/intc@8000000/its@8080000"),
               "its@8080000");
    CHECK_NAME(b, fdt_path_offset(b, "/intc/its"), "its@8080000");
    CHECK_NAME(b, fdt_path_offset(b, "//cpus//cpu@3/"), "cpu@3");
    CHECK_NAME(b, fdt_path_offset(b, "/cpus/cpu-map/socket0/cluster0/core1"),
               "core1");
    CHECK(fdt_path_offset(b, "/cpus/cpu@9") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "/nonexistent") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "/cpu") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "/memory@4") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "/memory@400000001") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "/psci/x") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "cpus") == -FDT_ENOTFOUND);  /* no /aliases */
    CHECK(fdt_path_offset_n(b, "/cpus/cpu@1:junk", 11) ==
          fdt_path_offset(b, "/cpus/cpu@1"));
    CHECK(fdt_path_offset_n(b, "/cpus/cpu@1", 5) == cpus);
    CHECK(fdt_path_offset(b, NULL) < 0);
    free(b);

    b = load("board.dtb", &n);
    if (!b)
        return;
    CHECK_NAME(b, fdt_path_offset(b, "serial0"), "serial@1c090000");
    CHECK_NAME(b, fdt_path_offset(b, "serial1"), "serial@1c0a0000");
    CHECK(fdt_path_offset(b, "serial1/") == fdt_path_offset(b, "serial1"));
    CHECK(fdt_path_offset(b, "serial2") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset(b, "serial1/child") == -FDT_ENOTFOUND);
    CHECK(fdt_path_offset_n(b, "serial1:115200n8", 7) ==
          fdt_path_offset(b, "/soc/serial@1c0a0000"));
    free(b);
}

TEST(getprop_values)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    const uint8_t *p;
    int len, node;

    if (!b)
        return;
    p = fdt_getprop(b, 0, "model", &len);
    CHECK(p && len == 17 && memcmp(p, "linux,dummy-virt", 17) == 0);
    CHECK(strcmp(fdt_getprop_str(b, 0, "model"), "linux,dummy-virt") == 0);
    p = fdt_getprop(b, 0, "#address-cells", &len);
    CHECK(p && len == 4 && fdt32(p) == 2);
    CHECK(fdt_getprop(b, 0, "nonexistent", &len) == NULL &&
          len == -FDT_ENOTFOUND);
    CHECK(fdt_getprop(b, 0, "model", NULL) != NULL);
    /* Properties of subnodes are not the node's own. */
    CHECK(fdt_getprop(b, 0, "reg", &len) == NULL);
    node = fdt_path_offset(b, "/intc@8000000");
    p = fdt_getprop(b, node, "interrupt-controller", &len);
    CHECK(p && len == 0);
    p = fdt_getprop(b, node, "reg", &len);
    CHECK(p && len == 32 && fdt64(p + 8) == 0x10000 &&
          fdt64(p + 16) == 0x80a0000);
    CHECK(fdt_cells(p + 16, 2) == 0x80a0000 && fdt_cells(p + 4, 1) ==
          0x8000000 && fdt_cells(p, 0) == 0);
    node = fdt_path_offset(b, "/chosen");
    CHECK(strcmp(fdt_getprop_str(b, node, "stdout-path"),
                 "/pl011@9000000") == 0);
    CHECK(fdt_getprop_str(b, node, "bootargs") == NULL);
    free(b);
}

TEST(prop_iteration)
{
    static const char *const want[] = {
        "migrate", "cpu_on", "cpu_off", "cpu_suspend", "method", "compatible",
    };
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    const char *name;
    const uint8_t *v;
    int k = 0, len, node;

    if (!b)
        return;
    node = fdt_path_offset(b, "/psci");
    for (int p = fdt_first_prop(b, node); p >= 0; p = fdt_next_prop(b, p)) {
        v = fdt_prop_value(b, p, &name, &len);
        if (!CHECK(k < 6 && v && strcmp(name, want[k]) == 0))
            break;
        if (k == 1)
            CHECK(len == 4 && fdt32(v) == 0xc4000003);
        k++;
    }
    CHECK(k == 6);
    /* A node with subnodes but no properties. */
    node = fdt_path_offset(b, "/cpus/cpu-map");
    CHECK(fdt_first_prop(b, node) == -FDT_ENOTFOUND);
    CHECK(fdt_first_child(b, node) > node);
    free(b);
}

TEST(compatible_and_find)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    int node, k = 0;
    uint64_t base;

    if (!b)
        return;
    node = fdt_path_offset(b, "/psci");
    CHECK(fdt_node_compatible(b, node, "arm,psci-1.0"));
    CHECK(fdt_node_compatible(b, node, "arm,psci-0.2"));
    CHECK(fdt_node_compatible(b, node, "arm,psci"));
    CHECK(!fdt_node_compatible(b, node, "arm,psci-"));
    CHECK(!fdt_node_compatible(b, node, "arm,psci-1.00"));
    CHECK(!fdt_node_compatible(b, node, ""));
    CHECK(!fdt_node_compatible(b, 0, "arm,psci"));
    CHECK(fdt_node_compatible(b, 0, "linux,dummy-virt"));

    for (node = fdt_find_compatible(b, -1, "virtio,mmio"); node >= 0;
         node = fdt_find_compatible(b, node, "virtio,mmio")) {
        if (!CHECK(fdt_reg(b, node, 0, &base, NULL) &&
                   base == 0xa000000 + 0x200u * k))
            break;
        k++;
    }
    CHECK(k == 32);
    CHECK_NAME(b, fdt_find_compatible(b, -1, "arm,pl011"), "pl011@9000000");
    CHECK_NAME(b, fdt_find_compatible(b, -1, "arm,primecell"),
               "pl061@9030000");
    CHECK(fdt_find_compatible(b, -1, "arm,gic-400") == -FDT_ENOTFOUND);
    /* Finds a subnode too. */
    CHECK_NAME(b, fdt_find_compatible(b, -1, "arm,gic-v3-its"),
               "its@8080000");
    CHECK(fdt_find_compatible(b, 5, "virtio,mmio") == -FDT_EBADOFFSET);
    free(b);
}

TEST(parent_and_cells)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    int cpus, intc, psci;

    if (!b)
        return;
    cpus = fdt_path_offset(b, "/cpus");
    intc = fdt_path_offset(b, "/intc@8000000");
    psci = fdt_path_offset(b, "/psci");
    CHECK(fdt_parent_offset(b, fdt_path_offset(b, "/cpus/cpu@2")) == cpus);
    CHECK(fdt_parent_offset(b, fdt_path_offset(b, "/intc/its")) == intc);
    CHECK(fdt_parent_offset(b, cpus) == 0);
    CHECK(fdt_parent_offset(b, 0) == -FDT_ENOTFOUND);
    CHECK(fdt_parent_offset(b, 4) == -FDT_EBADOFFSET);
    CHECK(fdt_parent_offset(b, 1 << 20) == -FDT_EBADOFFSET);
    CHECK(fdt_address_cells(b, 0) == 2 && fdt_size_cells(b, 0) == 2);
    CHECK(fdt_address_cells(b, cpus) == 1 && fdt_size_cells(b, cpus) == 0);
    CHECK(fdt_address_cells(b, psci) == 2 && fdt_size_cells(b, psci) == 1);
    CHECK(fdt_address_cells(b, fdt_path_offset(b, "/pcie")) == 3);
    CHECK(fdt_address_cells(b, 4) == -FDT_EBADOFFSET);
    free(b);

    /* Cells of a bad length or size are errors. */
    b_reset();
    b_begin("");
    b_cells("#address-cells", 1, 5);
    b_cells("#size-cells", 2, 1, 1);
    b_begin("dev");
    b_cells("reg", 2, 1, 2);
    b_end();
    b_end();
    b = b_finish(&n);
    if (CHECK(check(b, n) == 0)) {
        CHECK(fdt_address_cells(b, 0) == -FDT_ECORRUPT);
        CHECK(fdt_size_cells(b, 0) == -FDT_ECORRUPT);
        CHECK(!fdt_reg(b, fdt_path_offset(b, "/dev"), 0, NULL, NULL));
    }
    free(b);
}

TEST(reg_decode)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    uint64_t a, s;
    int node;

    if (!b)
        return;
    node = fdt_path_offset(b, "/memory");
    CHECK(fdt_reg(b, node, 0, &a, &s) && a == 0x40000000 && s == 0x20000000);
    CHECK(!fdt_reg(b, node, 1, &a, &s) && !fdt_reg(b, node, -1, &a, &s));
    node = fdt_path_offset(b, "/intc");
    CHECK(fdt_reg(b, node, 1, &a, &s) && a == 0x80a0000 && s == 0xf60000);
    CHECK(fdt_reg(b, fdt_path_offset(b, "/cpus/cpu@3"), 0, &a, &s) &&
          a == 3 && s == 0);
    CHECK(fdt_reg(b, fdt_path_offset(b, "/pcie"), 0, &a, &s) &&
          a == 0x4010000000ull && s == 0x10000000);
    CHECK(fdt_reg(b, fdt_path_offset(b, "/flash@0"), 1, &a, &s) &&
          a == 0x4000000 && s == 0x4000000);
    CHECK(fdt_reg(b, fdt_path_offset(b, "/intc/its"), 0, &a, NULL) &&
          a == 0x8080000);
    CHECK(!fdt_reg(b, fdt_path_offset(b, "/platform-bus"), 0, &a, &s));
    CHECK(!fdt_reg(b, 0, 0, &a, &s));
    free(b);

    /* 1-cell addresses under a bus, and a 3-cell (PCI) parent. */
    b = load("board.dtb", &n);
    if (!b)
        return;
    CHECK(fdt_reg(b, fdt_path_offset(b, "serial1"), 0, &a, &s) &&
          a == 0x1c0a0000 && s == 0x1000);
    CHECK(fdt_reg(b, fdt_path_offset(b, "/reserved-memory/firmware"), 0, &a,
                  &s) && a == 0x9ff00000 && s == 0x100000);
    CHECK(fdt_reg(b, fdt_path_offset(b, "/cpus/cpu@100000000"), 0, &a, &s) &&
          a == 0x100000000ull && s == 0);
    free(b);

    b_reset();
    b_begin("");
    b_begin("pci");
    b_cells("#address-cells", 1, 3);
    b_cells("#size-cells", 1, 2);
    b_begin("dev@0");
    b_cells("reg", 5, 0, 0, 0, 0, 0);
    b_end();
    b_end();
    b_begin("odd");
    b_cells("reg", 4, 0, 1, 0, 2);     /* root defaults: 2 + 1 cells */
    b_end();
    b_begin("ok");
    b_cells("reg", 6, 0, 1, 2, 0, 3, 4);
    b_end();
    b_end();
    b = b_finish(&n);
    if (CHECK(check(b, n) == 0)) {
        CHECK(!fdt_reg(b, fdt_path_offset(b, "/pci/dev@0"), 0, &a, &s));
        CHECK(!fdt_reg(b, fdt_path_offset(b, "/odd"), 0, &a, &s));
        CHECK(fdt_reg(b, fdt_path_offset(b, "/ok"), 1, &a, &s) &&
              a == 3 && s == 4);
        CHECK(!fdt_reg(b, fdt_path_offset(b, "/ok"), 2, &a, &s));
    }
    free(b);
}

TEST(phandles)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    int intc;

    if (!b)
        return;
    intc = fdt_path_offset(b, "/intc@8000000");
    CHECK(fdt_node_by_phandle(b, 0x8005) == intc);
    CHECK_NAME(b, fdt_node_by_phandle(b, 0x8004), "cpu@0");
    CHECK(fdt_node_by_phandle(b, 0x1234) == -FDT_ENOTFOUND);
    CHECK(fdt_node_by_phandle(b, 0) == -FDT_ENOTFOUND);
    CHECK(fdt_node_by_phandle(b, 0xffffffff) == -FDT_ENOTFOUND);
    /* Inherited from the root. */
    CHECK(fdt_interrupt_parent(b, fdt_path_offset(b, "/pl011")) == intc);
    CHECK(fdt_interrupt_parent(b, fdt_path_offset(b, "/cpus/cpu@0")) == intc);
    free(b);

    b = load("board.dtb", &n);
    if (!b)
        return;
    intc = fdt_path_offset(b, "/soc/interrupt-controller");
    CHECK(intc > 0 && fdt_interrupt_parent(b, fdt_path_offset(b, "serial0"))
          == intc);
    free(b);
}

TEST(bad_offsets)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n);
    uint32_t st;
    int len;

    if (!b)
        return;
    /*
     * Offsets not from the API: errors, except where the bytes happen to
     * read FDT_BEGIN_NODE (a cell <1> in a value): a wrong answer then, as
     * the contract allows, but never a read outside the blob.
     */
    st = rd32(b, HW_STRUCT);
    for (int off = -8; off < 64; off++) {
        if (off == 0 || (off > 0 && off % 4 == 0 && rd32(b, st + off) == 1))
            continue;
        CHECK(fdt_node_name(b, off) == NULL);
        CHECK(fdt_first_child(b, off) < 0);
        CHECK(fdt_next_sibling(b, off) < 0);
        CHECK(fdt_first_prop(b, off) < 0);
        CHECK(fdt_getprop(b, off, "reg", &len) == NULL && len < 0);
        CHECK(!fdt_node_compatible(b, off, "arm,pl011"));
        CHECK(!fdt_reg(b, off, 0, NULL, NULL));
        CHECK(!fdt_node_enabled(b, off));
    }
    CHECK(fdt_next_prop(b, 0) == -FDT_EBADOFFSET);
    CHECK(fdt_prop_value(b, 0, NULL, &len) == NULL && len < 0);
    CHECK(fdt_first_child(b, 1 << 24) < 0);
    CHECK(fdt_first_child(NULL, 0) == -FDT_ECORRUPT);
    CHECK(fdt_getprop(NULL, 0, "x", &len) == NULL);
    CHECK(fdt_getprop(b, 0, NULL, &len) == NULL);
    free(b);
}

TEST(mem_rsv_entries)
{
    size_t n;
    uint8_t *b = load("board.dtb", &n);
    uint64_t a, s;

    if (!b)
        return;
    CHECK(fdt_mem_rsv(b, 0, &a, &s) && a == 0x88000000 && s == 0x100000);
    CHECK(fdt_mem_rsv(b, 1, &a, &s) && a == 0xbfff0000 && s == 0x10000);
    CHECK(!fdt_mem_rsv(b, 2, &a, &s) && !fdt_mem_rsv(b, -1, &a, &s));
    free(b);
    b = load("virt-gicv3-smp4.dtb", &n);
    if (!b)
        return;
    CHECK(!fdt_mem_rsv(b, 0, &a, &s));
    free(b);
}

/* ---- fdt_parse_machine on real blobs ---- */

static bool parse_file(const char *name)
{
    static char bootargs[256], stdout_path[256];
    size_t n;
    uint8_t *b = load(name, &n);
    int rc;

    if (!b)
        return false;
    rc = fdt_parse_machine(b, n, &mach);
    if (rc != 0 || mach.error) {
        FAIL("%s: rc %d: %s", name, rc, mach.error ? mach.error : "");
        free(b);
        return false;
    }
    /* Strings point into the blob: copy what the checks need. */
    snprintf(bootargs, sizeof(bootargs), "%s",
             mach.bootargs ? mach.bootargs : "(null)");
    snprintf(stdout_path, sizeof(stdout_path), "%s",
             mach.stdout_path ? mach.stdout_path : "(null)");
    mach.bootargs = bootargs;
    mach.stdout_path = stdout_path;
    free(b);
    return true;
}

/* What every QEMU virt tree here has in common. */
static void virt_common(uint32_t ncpu)
{
    CHECK(mach.ncpus == ncpu && mach.dropped == 0);
    for (uint32_t i = 0; i < mach.ncpus; i++)
        CHECK(mach.cpus[i].mpidr == i &&
              mach.cpus[i].enable == MACH_ENABLE_PSCI &&
              mach.cpus[i].release_addr == 0);
    CHECK(mach.nreserved == 0);
    CHECK(range_is(mach.gic.dist, 0x8000000, 0x10000));
    CHECK(range_is(mach.uart, 0x9000000, 0x1000));
    CHECK(mach.uart_irq.intid == 33 && mach.uart_irq.flags == 4);  /* SPI 1 */
    CHECK(range_is(mach.rtc, 0x9010000, 0x1000));      /* pl031@9010000 */
    CHECK(mach.nvirtio == 32);
    for (uint32_t i = 0; i < mach.nvirtio; i++)
        CHECK(mach.virtio[i].base == 0xa000000 + 0x200 * i &&
              mach.virtio[i].size == 0x200 &&
              mach.virtio[i].intid == 32 + 16 + i);
    CHECK(range_is(mach.pci.ecam, 0x4010000000ull, 0x10000000));
    CHECK(mach.pci.bus_start == 0 && mach.pci.bus_end == 255);
    CHECK(strcmp(mach.stdout_path, "/pl011@9000000") == 0);
    /* <1 13 f>, <1 14 f>, <1 11 f>, <1 10 f>: PPIs 13, 14, 11, 10. */
    CHECK(mach.timer[MACH_TIMER_SEC].intid == 29);
    CHECK(mach.timer[MACH_TIMER_PHYS].intid == 30);
    CHECK(mach.timer[MACH_TIMER_VIRT].intid == 27);
    CHECK(mach.timer[MACH_TIMER_HYP].intid == 26);
}

TEST(virt_gicv3)
{
    const uint32_t flags = 4;  /* level high */

    if (!parse_file("virt-gicv3-smp4.dtb"))
        return;
    CHECK(mach.nmem == 1 && range_is(mach.mem[0], 0x40000000, 0x20000000));
    virt_common(4);
    CHECK(mach.psci_version == 0x10000);
    CHECK(mach.psci_conduit == MACH_CONDUIT_HVC);
    CHECK(mach.gic.version == 3 && mach.gic.nredist == 1);
    CHECK(range_is(mach.gic.redist[0], 0x80a0000, 0xf60000));
    CHECK(range_is(mach.gic.cpuif, 0, 0));
    /* its@8080000, and the host's msi-map <0 &its 0 0x10000>. */
    CHECK(range_is(mach.gic.its, 0x8080000, 0x20000));
    CHECK(mach.pci.nmsi == 1 && mach.pci.msi[0].rid == 0 &&
          mach.pci.msi[0].devid == 0 && mach.pci.msi[0].len == 0x10000);
    CHECK(mach.pci.msi_mask == 0xFFFF);
    for (int i = 0; i < MACH_NTIMER; i++)
        CHECK(mach.timer[i].flags == flags);
    CHECK(strcmp(mach.bootargs, "(null)") == 0);
}

TEST(virt_gicv2)
{
    if (!parse_file("virt-gicv2-smp2.dtb"))
        return;
    CHECK(mach.nmem == 1 && range_is(mach.mem[0], 0x40000000, 0x10000000));
    virt_common(2);
    CHECK(mach.psci_version == 0x10000);
    CHECK(mach.psci_conduit == MACH_CONDUIT_HVC);
    CHECK(mach.gic.version == 2 && mach.gic.nredist == 0);
    CHECK(range_is(mach.gic.cpuif, 0x8010000, 0x10000));
    CHECK(mach.gic.its.base == 0 && mach.pci.nmsi == 0);
    /* GICv2 PPIs: level high, CPU mask 0b11 for two CPUs. */
    for (int i = 0; i < MACH_NTIMER; i++)
        CHECK(mach.timer[i].flags == 0x304);
}

TEST(virt_bootargs)
{
    if (!parse_file("virt-gicv3-bootargs.dtb"))
        return;
    virt_common(2);
    CHECK(strcmp(mach.bootargs, "smp=2 quantum=5") == 0);
}

TEST(virt_el2_4g)
{
    if (!parse_file("virt-gicv3-el2-smp8-4g.dtb"))
        return;
    CHECK(mach.nmem == 1 &&
          range_is(mach.mem[0], 0x40000000, 0x100000000ull));
    virt_common(8);
    CHECK(mach.psci_version == 0x10000);
    CHECK(mach.psci_conduit == MACH_CONDUIT_SMC);
    CHECK(mach.gic.version == 3 && mach.gic.nredist == 1);
}

TEST(virt_secure)
{
    size_t n;
    uint8_t *b;
    int first;

    if (!parse_file("virt-secure-smp2.dtb"))
        return;
    /* secram@e000000 is device_type "memory" but status "disabled". */
    CHECK(mach.nmem == 1 && range_is(mach.mem[0], 0x40000000, 0x40000000));
    virt_common(2);
    /* Firmware provides PSCI to a secure guest: QEMU writes no node. */
    CHECK(mach.psci_version == 0 && mach.psci_conduit == MACH_CONDUIT_NONE);

    /* The first PL011 is the disabled secure one: the fallback skips it. */
    b = load("virt-secure-smp2.dtb", &n);
    if (!b)
        return;
    first = fdt_find_compatible(b, -1, "arm,pl011");
    CHECK_NAME(b, first, "pl011@9040000");
    CHECK(!fdt_node_enabled(b, first));
    {
        int ch = fdt_path_offset(b, "/chosen");
        char *sp = (char *)fdt_getprop_str(b, ch, "stdout-path");

        if (CHECK(sp && sp[1] == 'p')) {
            sp[1] = 'q';           /* "/ql011@9000000": names nothing */
            CHECK(fdt_parse_machine(b, n, &mach) == 0);
            CHECK(range_is(mach.uart, 0x9000000, 0x1000));
        }
    }
    free(b);
}

TEST(board)
{
    static const struct mach_cpu cpus[] = {
        { 0x0, 0x8000fff8, MACH_ENABLE_SPIN_TABLE },
        { 0x1, 0x8000fff8, MACH_ENABLE_SPIN_TABLE },  /* disabled: parked */
        { 0x100, 0, MACH_ENABLE_PSCI },
        { 0x100000000ull, 0, MACH_ENABLE_PSCI },
    };

    if (!parse_file("board.dtb"))
        return;
    CHECK(mach.nmem == 3);
    CHECK(range_is(mach.mem[0], 0x80000000, 0x20000000));
    CHECK(range_is(mach.mem[1], 0xa0000000, 0x10000000));
    CHECK(range_is(mach.mem[2], 0xc0000000, 0x30000000));
    CHECK(mach.nreserved == 3);
    CHECK(range_is(mach.reserved[0], 0x88000000, 0x100000));
    CHECK(range_is(mach.reserved[1], 0xbfff0000, 0x10000));
    CHECK(range_is(mach.reserved[2], 0x9ff00000, 0x100000));
    if (CHECK(mach.ncpus == 4))     /* cpu@2 "fail", l2-cache0 not a cpu */
        for (int i = 0; i < 4; i++)
            CHECK(mach.cpus[i].mpidr == cpus[i].mpidr &&
                  mach.cpus[i].release_addr == cpus[i].release_addr &&
                  mach.cpus[i].enable == cpus[i].enable);
    CHECK(mach.psci_version == 2 && mach.psci_conduit == MACH_CONDUIT_SMC);
    CHECK(mach.gic.version == 2);
    CHECK(range_is(mach.gic.dist, 0x2c001000, 0x1000));
    CHECK(range_is(mach.gic.cpuif, 0x2c002000, 0x2000));
    CHECK(mach.timer[MACH_TIMER_SEC].intid == 29 &&
          mach.timer[MACH_TIMER_PHYS].intid == 30 &&
          mach.timer[MACH_TIMER_VIRT].intid == 27 &&
          mach.timer[MACH_TIMER_HYP].intid == 26);
    CHECK(mach.timer[MACH_TIMER_PHYS].flags == 0xf08);
    /* stdout-path "serial1:115200n8" names the second PL011. */
    CHECK(range_is(mach.uart, 0x1c0a0000, 0x1000));
    CHECK(mach.uart_irq.intid == 38 && mach.uart_irq.flags == 4);  /* its own */
    CHECK(mach.rtc.base == 0 && mach.rtc.size == 0);   /* has no PL031 */
    if (CHECK(mach.nvirtio == 2)) {        /* the disabled one is skipped */
        CHECK(mach.virtio[0].base == 0x1c130000 &&
              mach.virtio[0].size == 0x200 && mach.virtio[0].intid == 74);
        CHECK(mach.virtio[1].base == 0x1c150000 &&
              mach.virtio[1].intid == 0);  /* a PPI: not a usable SPI */
    }
    CHECK(range_is(mach.pci.ecam, 0x40000000, 0x10000000));
    CHECK(mach.pci.bus_start == 0 && mach.pci.bus_end == 255);
    CHECK(strcmp(mach.bootargs, "console=ttyAMA1 smp=4 -- app arg") == 0);
    CHECK(strcmp(mach.stdout_path, "serial1:115200n8") == 0);
    CHECK(mach.dropped == 0);
}

/* ---- fdt_parse_machine on built trees ---- */

static int parse_built(void)
{
    size_t n;
    uint8_t *b = b_finish(&n);
    int rc = fdt_parse_machine(b, n, &mach);

    /* Drop the pointers into the blob before freeing it. */
    mach.bootargs = mach.bootargs ? "(set)" : NULL;
    mach.stdout_path = mach.stdout_path ? "(set)" : NULL;
    free(b);
    return rc;
}

TEST(machine_minimal)
{
    b_machine(true, 1, 0);
    b_end();
    CHECK(parse_built() == 0 && mach.error == NULL);
    CHECK(mach.nmem == 1 && mach.ncpus == 1);
    CHECK(mach.gic.version == 0 && mach.psci_version == 0 &&
          mach.uart.base == 0 && mach.nvirtio == 0 &&
          mach.pci.ecam.size == 0 && mach.timer[0].intid == 0 &&
          mach.bootargs == NULL && mach.stdout_path == NULL);
}

/* /chosen's linux,initrd-start and -end: one or two cells each, both
   needed; any other length, or one alone, gives no initrd.  The values
   are taken as given (the kernel checks them against RAM). */
TEST(machine_initrd)
{
    static const struct {
        int start_cells, end_cells;     /* 0: the property is absent */
        uint64_t start, end;            /* what fdt_parse_machine gives */
    } cases[] = {
        { 2, 2, 0x48000000, 0x48001000 },       /* QEMU virt: 2 cells */
        { 1, 1, 0x48000000, 0x48001000 },
        { 1, 2, 0x48000000, 0x48001000 },       /* mixed, as Linux takes */
        { 2, 0, 0, 0 },                         /* start alone */
        { 0, 1, 0, 0 },                         /* end alone */
        { 3, 2, 0, 0 },                         /* a 12-byte start */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        b_machine(true, 1, 0);
        b_begin("chosen");
        if (cases[i].start_cells == 1)
            b_cells("linux,initrd-start", 1, 0x48000000);
        else if (cases[i].start_cells == 2)
            b_cells("linux,initrd-start", 2, 0, 0x48000000);
        else if (cases[i].start_cells == 3)
            b_cells("linux,initrd-start", 3, 0, 0, 0x48000000);
        if (cases[i].end_cells == 1)
            b_cells("linux,initrd-end", 1, 0x48001000);
        else if (cases[i].end_cells == 2)
            b_cells("linux,initrd-end", 2, 0, 0x48001000);
        b_end();
        b_end();
        CHECK(parse_built() == 0);
        if (mach.initrd_start != cases[i].start || mach.initrd_end != cases[i].end)
            FAIL("case %zu: 0x%lx-0x%lx", i, (unsigned long)mach.initrd_start,
                 (unsigned long)mach.initrd_end);
    }
    /* 64-bit values, and an end before the start, pass as given. */
    b_machine(true, 1, 0);
    b_begin("chosen");
    b_cells("linux,initrd-start", 2, 1, 0x0);
    b_cells("linux,initrd-end", 2, 0, 0x1000);
    b_end();
    b_end();
    CHECK(parse_built() == 0);
    CHECK(mach.initrd_start == 0x100000000ull && mach.initrd_end == 0x1000);
}

TEST(machine_missing_memory)
{
    b_machine(false, 2, 0);
    b_end();
    CHECK(parse_built() == -FDT_ENOTFOUND);
    CHECK(mach.error && strstr(mach.error, "/memory"));
    CHECK(mach.ncpus == 2);            /* the rest is still filled */

    /* A memory node with nothing usable is as good as none. */
    b_machine(false, 1, 0);
    b_begin("memory@0");
    b_str("device_type", "memory");
    b_cells("reg", 4, 0, 0, 0, 0);
    b_end();
    b_end();
    CHECK(parse_built() == -FDT_ENOTFOUND && strstr(mach.error, "/memory"));
}

TEST(machine_missing_cpus)
{
    b_machine(true, -1, 0);
    b_end();
    CHECK(parse_built() == -FDT_ENOTFOUND);
    CHECK(mach.error && strstr(mach.error, "/cpus"));
    CHECK(mach.nmem == 1);

    b_machine(true, 0, 0);
    b_end();
    CHECK(parse_built() == -FDT_ENOTFOUND && strstr(mach.error, "cpu"));

    /* CPUs without device_type or reg do not count. */
    b_machine(true, -1, 0);
    b_begin("cpus");
    b_cells("#address-cells", 1, 1);
    b_cells("#size-cells", 1, 0);
    b_begin("cpu@0");
    b_cells("reg", 1, 0);
    b_end();
    b_begin("cpu@1");
    b_str("device_type", "cpu");
    b_end();
    b_end();
    b_end();
    CHECK(parse_built() == -FDT_ENOTFOUND && mach.ncpus == 0);
}

TEST(machine_caps)
{
    char name[32];

    b_machine(true, 300, 0x10);
    b_gicv3(0x10);
    b_begin("memory@100000000");
    b_str("device_type", "memory");
    {
        uint8_t reg[20 * 16];

        for (int i = 0; i < 20; i++) {
            wr32(reg, 16 * i, 1 + i);
            wr32(reg, 16 * i + 4, 0);
            wr32(reg, 16 * i + 8, 0);
            wr32(reg, 16 * i + 12, 0x1000);
        }
        b_prop("reg", reg, sizeof(reg));
    }
    b_end();
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "virtio@%x", 0x1000 * i);
        b_begin(name);
        b_str("compatible", "virtio,mmio");
        b_cells("reg", 4, 0, 0x1000 * i, 0, 0x200);
        b_cells("interrupts", 3, 0, i, 1);
        b_end();
    }
    b_end();
    CHECK(parse_built() == 0);
    CHECK(mach.ncpus == MACH_MAX_CPUS && mach.cpus[255].mpidr == 255);
    CHECK(mach.nmem == MACH_MAX_MEM);
    CHECK(mach.nvirtio == MACH_MAX_VIRTIO && mach.virtio[31].intid == 63);
    CHECK(mach.dropped == (300 - 256) + (21 - 16) + (40 - 32));
}

TEST(machine_bad_ranges)
{
    b_machine(false, 1, 0);
    b_begin("memory@0");
    b_str("device_type", "memory");
    b_cells("reg", 12,
            0, 0x1000, 0, 0,                    /* empty */
            0xffffffff, 0xfffff000, 0, 0x2000,  /* wraps past 2^64 */
            0xffffffff, 0xfffff000, 0, 0x1000); /* ends at 2^64 - 1 */
    b_end();
    b_begin("memory");                          /* no device_type */
    b_cells("reg", 4, 0, 0x80000000, 0, 0x1000);
    b_end();
    b_begin("memory@1");                        /* not memory */
    b_str("device_type", "cpu");
    b_cells("reg", 4, 0, 0x90000000, 0, 0x1000);
    b_end();
    b_begin("reserved-memory");
    b_cells("#address-cells", 1, 1);
    b_cells("#size-cells", 1, 1);
    b_begin("a@1000");
    b_cells("reg", 4, 0x1000, 0x100, 0x3000, 0x100);
    b_end();
    b_begin("b");
    b_cells("size", 1, 0x1000);
    b_end();
    b_end();
    b_end();
    CHECK(parse_built() == 0);
    CHECK(mach.nmem == 2 &&
          range_is(mach.mem[0], 0xfffffffffffff000ull, 0x1000) &&
          range_is(mach.mem[1], 0x80000000, 0x1000));
    CHECK(mach.nreserved == 2 && range_is(mach.reserved[0], 0x1000, 0x100) &&
          range_is(mach.reserved[1], 0x3000, 0x100));
}

TEST(machine_reserved_caps)
{
    b_machine(true, 1, 0);
    b_end();
    bl.nrsv = 8;
    for (int i = 0; i < 8; i++) {
        bl.rsv[i][0] = 0x100000000ull * (i + 1);
        bl.rsv[i][1] = i == 3 ? 0 : 0x1000;     /* a zero size is skipped */
    }
    CHECK(parse_built() == 0);
    CHECK(mach.nreserved == 7 &&
          range_is(mach.reserved[3], 0x500000000ull, 0x1000));
}

TEST(machine_uart_choice)
{
    static const char *const paths[] = {
        "/serial@2000", "/serial@2000:115200", "ser2", "ser2:9600n8",
        "/serial@1000", "/nothing", "/rtc", "/serial@3000",
    };
    static const uint64_t want[] = {
        0x2000, 0x2000, 0x2000, 0x2000, 0x1000, 0x1000, 0x1000, 0x1000,
    };

    for (int i = 0; i < 8; i++) {
        b_machine(true, 1, 0);
        b_begin("aliases");
        b_str("ser2", "/serial@2000");
        b_end();
        b_begin("chosen");
        b_str("stdout-path", paths[i]);
        b_end();
        b_begin("rtc");
        b_str("compatible", "arm,pl031");
        b_cells("reg", 4, 0, 0x500, 0, 0x100);
        b_end();
        b_begin("serial@1000");
        b_str("compatible", "arm,pl011");
        b_cells("reg", 4, 0, 0x1000, 0, 0x100);
        b_end();
        b_begin("serial@2000");
        b_str("compatible", "arm,pl011");
        b_cells("reg", 4, 0, 0x2000, 0, 0x100);
        b_end();
        b_begin("serial@3000");                 /* disabled: never chosen */
        b_str("compatible", "arm,pl011");
        b_str("status", "disabled");
        b_cells("reg", 4, 0, 0x3000, 0, 0x100);
        b_end();
        b_end();
        if (!CHECK(parse_built() == 0 && mach.uart.base == want[i]))
            FAIL("stdout-path %s: uart %#llx", paths[i],
                 (unsigned long long)mach.uart.base);
    }

    /* linux,stdout-path is the old name. */
    b_machine(true, 1, 0);
    b_begin("chosen");
    b_str("linux,stdout-path", "/s@2000");
    b_end();
    b_begin("s@1000");
    b_str("compatible", "arm,pl011");
    b_cells("reg", 4, 0, 0x1000, 0, 0x100);
    b_end();
    b_begin("s@2000");
    b_str("compatible", "arm,pl011");
    b_str("status", "okay");
    b_cells("reg", 4, 0, 0x2000, 0, 0x100);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.uart.base == 0x2000 && mach.stdout_path);
}

TEST(machine_gic_variants)
{
    /* Two redistributor regions, as QEMU has beyond 123 CPUs. */
    b_machine(true, 1, 0);
    b_begin("intc");
    b_str("compatible", "arm,gic-v3");
    b_cells("#redistributor-regions", 1, 2);
    b_cells("reg", 12, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000,
            0x40, 0, 0, 0x4000000);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.gic.version == 3 &&
          mach.gic.nredist == 2 &&
          range_is(mach.gic.redist[1], 0x4000000000ull, 0x4000000));

    /* More regions claimed than reg holds: the ones there are used. */
    b_machine(true, 1, 0);
    b_begin("intc");
    b_str("compatible", "arm,gic-v3");
    b_cells("#redistributor-regions", 1, 0xffffffff);
    b_cells("reg", 8, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.gic.nredist == 1);

    /* A v3 without redistributors, a v2 without GICC: no GIC. */
    b_machine(true, 1, 0);
    b_begin("intc");
    b_str("compatible", "arm,gic-v3");
    b_cells("reg", 4, 0, 0x8000000, 0, 0x10000);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.gic.version == 0 &&
          mach.gic.dist.base == 0);
    b_machine(true, 1, 0);
    b_begin("intc");
    b_str("compatible", "arm,cortex-a15-gic");
    b_cells("reg", 4, 0, 0x8000000, 0, 0x10000);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.gic.version == 0);

    /* A disabled v3 is passed over for an enabled v2. */
    b_machine(true, 1, 0);
    b_begin("intc@1");
    b_str("compatible", "arm,gic-v3");
    b_str("status", "disabled");
    b_cells("reg", 8, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000);
    b_end();
    b_begin("intc@2");
    b_str("compatible", "arm,gic-400");
    b_cells("reg", 8, 0, 0x2000, 0, 0x1000, 0, 0x3000, 0, 0x2000);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.gic.version == 2 &&
          mach.gic.dist.base == 0x2000 && mach.gic.cpuif.base == 0x3000);
}

TEST(machine_irq_cases)
{
    /* No interrupt-parent anywhere: nothing can be decoded. */
    b_machine(true, 1, 0);
    b_gicv3(0x10);
    b_begin("timer");
    b_str("compatible", "arm,armv8-timer");
    b_cells("interrupts", 12, 1, 13, 4, 1, 14, 4, 1, 11, 4, 1, 10, 4);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.gic.version == 3 &&
          mach.timer[MACH_TIMER_PHYS].intid == 0);

    /* Own interrupt-parent; SPIs and out-of-range PPIs are not timers. */
    b_machine(true, 1, 0);
    b_gicv3(0x10);
    b_begin("timer");
    b_str("compatible", "arm,armv8-timer");
    b_cells("interrupt-parent", 1, 0x10);
    b_cells("interrupts", 12, 0, 13, 4, 1, 14, 4, 1, 16, 4, 2, 10, 4);
    b_end();
    b_end();
    CHECK(parse_built() == 0);
    CHECK(mach.timer[MACH_TIMER_SEC].intid == 0 &&
          mach.timer[MACH_TIMER_PHYS].intid == 30 &&
          mach.timer[MACH_TIMER_VIRT].intid == 0 &&
          mach.timer[MACH_TIMER_HYP].intid == 0);

    /* Interrupt parent some other controller; partial specifier. */
    b_machine(true, 1, 0x10);
    b_gicv3(0x10);
    b_begin("other");
    b_prop("interrupt-controller", NULL, 0);
    b_cells("#interrupt-cells", 1, 3);
    b_cells("phandle", 1, 0x20);
    b_end();
    b_begin("virtio@1000");
    b_str("compatible", "virtio,mmio");
    b_cells("interrupt-parent", 1, 0x20);
    b_cells("reg", 4, 0, 0x1000, 0, 0x200);
    b_cells("interrupts", 3, 0, 5, 1);
    b_end();
    b_begin("virtio@2000");
    b_str("compatible", "virtio,mmio");
    b_cells("reg", 4, 0, 0x2000, 0, 0x200);
    b_cells("interrupts", 2, 0, 6);
    b_end();
    b_begin("virtio@3000");
    b_str("compatible", "virtio,mmio");
    b_cells("reg", 4, 0, 0x3000, 0, 0x200);
    b_cells("interrupts", 3, 0, 987, 1);        /* INTID 1019, the last */
    b_end();
    b_begin("virtio@4000");
    b_str("compatible", "virtio,mmio");
    b_cells("reg", 4, 0, 0x4000, 0, 0x200);
    b_cells("interrupts", 3, 0, 988, 1);        /* INTID 1020: special */
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.nvirtio == 4);
    CHECK(mach.virtio[0].intid == 0 && mach.virtio[1].intid == 0 &&
          mach.virtio[2].intid == 1019 && mach.virtio[3].intid == 0);

    /* The console PL011's interrupt, decoded the same way: only an SPI
       of the GIC counts, and only the chosen UART's. */
    static const struct {
        uint32_t parent, type, num, want;
    } uirq[] = {
        { 0, 0, 1, 33 }, { 0, 0, 987, 1019 }, { 0, 0, 988, 0 },
        { 0, 1, 1, 0 }, { 0x20, 0, 1, 0 },
    };
    for (int i = 0; i < 5; i++) {
        b_machine(true, 1, 0x10);
        b_gicv3(0x10);
        b_begin("other");
        b_prop("interrupt-controller", NULL, 0);
        b_cells("#interrupt-cells", 1, 3);
        b_cells("phandle", 1, 0x20);
        b_end();
        b_begin("chosen");
        b_str("stdout-path", "/serial@2000");
        b_end();
        b_begin("serial@1000");
        b_str("compatible", "arm,pl011");
        b_cells("reg", 4, 0, 0x1000, 0, 0x100);
        b_cells("interrupts", 3, 0, 7, 4);
        b_end();
        b_begin("serial@2000");
        b_str("compatible", "arm,pl011");
        if (uirq[i].parent)
            b_cells("interrupt-parent", 1, uirq[i].parent);
        b_cells("reg", 4, 0, 0x2000, 0, 0x100);
        b_cells("interrupts", 3, uirq[i].type, uirq[i].num, 4);
        b_end();
        b_end();
        if (!CHECK(parse_built() == 0 && mach.uart.base == 0x2000 &&
                   mach.uart_irq.intid == uirq[i].want))
            FAIL("case %d: uart %#llx intid %u", i,
                 (unsigned long long)mach.uart.base, mach.uart_irq.intid);
    }

    /* A 4-cell GICv3 (PPI partitions): the first 3 cells are the same. */
    b_machine(true, 1, 0x10);
    b_begin("intc");
    b_str("compatible", "arm,gic-v3");
    b_cells("#interrupt-cells", 1, 4);
    b_cells("reg", 8, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000);
    b_cells("linux,phandle", 1, 0x10);
    b_end();
    b_begin("timer");
    b_str("compatible", "arm,armv8-timer");
    b_cells("interrupts", 16, 1, 13, 8, 0, 1, 14, 8, 0, 1, 11, 8, 0,
            1, 10, 8, 0);
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.timer[MACH_TIMER_HYP].intid == 26 &&
          mach.timer[MACH_TIMER_HYP].flags == 8);
}

TEST(machine_psci_variants)
{
    static const struct {
        const char *compat, *method;
        uint32_t version, conduit;
    } t[] = {
        { "arm,psci-1.0", "smc", 0x10000, MACH_CONDUIT_SMC },
        { "arm,psci-0.2", "hvc", 2, MACH_CONDUIT_HVC },
        { "arm,psci", "smc", 1, MACH_CONDUIT_SMC },
        { "arm,psci-0.2", "svc", 2, MACH_CONDUIT_NONE },
        { "arm,psci-2.0", "smc", 0, MACH_CONDUIT_NONE },
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        b_machine(true, 1, 0);
        b_begin("psci");
        b_str("compatible", t[i].compat);
        b_str("method", t[i].method);
        b_cells("cpu_on", 1, 0x84000003);
        b_end();
        b_end();
        if (!CHECK(parse_built() == 0 && mach.psci_version == t[i].version &&
                   mach.psci_conduit == t[i].conduit))
            FAIL("%s %s", t[i].compat, t[i].method);
        if (t[i].version == 1)
            CHECK(mach.psci_cpu_on == 0x84000003);
    }

    /* enable-method: string lists, unknown methods, a bad release addr. */
    b_machine(true, -1, 0);
    b_begin("cpus");
    b_cells("#address-cells", 1, 2);
    b_cells("#size-cells", 1, 0);
    b_begin("cpu@0");
    b_str("device_type", "cpu");
    b_cells("reg", 2, 0, 0);
    b_prop("enable-method", "brcm,bcm2836\0psci", 18);
    b_end();
    b_begin("cpu@1");
    b_str("device_type", "cpu");
    b_cells("reg", 2, 0, 1);
    b_str("enable-method", "qcom,kpss-acc-v1");
    b_end();
    b_begin("cpu@2");
    b_str("device_type", "cpu");
    b_cells("reg", 2, 0, 2);
    b_str("enable-method", "spin-table");
    b_cells("cpu-release-addr", 1, 0x1000);
    b_end();
    b_end();
    b_end();
    CHECK(parse_built() == 0 && mach.ncpus == 3);
    CHECK(mach.cpus[0].enable == MACH_ENABLE_PSCI &&
          mach.cpus[1].enable == MACH_ENABLE_NONE &&
          mach.cpus[2].enable == MACH_ENABLE_SPIN_TABLE &&
          mach.cpus[2].release_addr == 0);
}

TEST(machine_pci_bus_range)
{
    static const struct {
        int len;
        uint32_t lo, hi;
        bool ok;
    } t[] = {
        { 8, 0x10, 0x1f, true }, { 8, 0, 0, true }, { 8, 5, 4, false },
        { 8, 0, 256, false }, { 4, 1, 0, true }, { 0, 0, 0, true },
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        uint8_t br[8];

        b_machine(true, 1, 0);
        b_begin("pcie@10000000");
        b_str("compatible", "pci-host-ecam-generic");
        b_cells("reg", 4, 0x40, 0x10000000, 0, 0x10000000);
        wr32(br, 0, t[i].lo);
        wr32(br, 4, t[i].hi);
        if (t[i].len)
            b_prop("bus-range", br, t[i].len);
        b_end();
        b_end();
        CHECK(parse_built() == 0);
        if (!t[i].ok) {
            CHECK(mach.pci.ecam.size == 0);
        } else if (t[i].len == 8) {
            CHECK(mach.pci.ecam.base == 0x4010000000ull &&
                  mach.pci.bus_start == t[i].lo &&
                  mach.pci.bus_end == t[i].hi);
        } else {                /* absent or malformed: the default */
            CHECK(mach.pci.ecam.size == 0x10000000 &&
                  mach.pci.bus_start == 0 && mach.pci.bus_end == 255);
        }
    }
}

/* A GICv3 with an ITS child (phandle 2) beside a host bridge whose MSIs
   are described by the property p (NULL: none) of len bytes. */
static void b_its_pci(const char *name, const uint32_t *p, int len,
                      bool its_on)
{
    uint8_t buf[64];

    b_machine(true, 1, 0);
    b_begin("intc@8000000");
    b_str("compatible", "arm,gic-v3");
    b_cells("#address-cells", 1, 2);
    b_cells("#size-cells", 1, 2);
    b_prop("ranges", NULL, 0);
    b_cells("reg", 8, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000);
    b_cells("phandle", 1, 1);
    b_begin("its@8080000");
    b_str("compatible", "arm,gic-v3-its");
    if (!its_on)
        b_str("status", "disabled");
    b_cells("#msi-cells", 1, 1);
    b_cells("reg", 4, 0, 0x8080000, 0, 0x20000);
    b_cells("phandle", 1, 2);
    b_end();
    b_end();
    b_begin("other-msi");
    b_cells("#msi-cells", 1, 0);
    b_cells("phandle", 1, 3);
    b_end();
    b_begin("pcie@10000000");
    b_str("compatible", "pci-host-ecam-generic");
    b_cells("reg", 4, 0x40, 0x10000000, 0, 0x10000000);
    for (int i = 0; p && i < len / 4; i++)
        wr32(buf, 4 * i, p[i]);
    if (p)
        b_prop(name, buf, len);
    b_end();
    b_end();
}

TEST(machine_its_msi_map)
{
    /* Entries toward another controller (no msi-base cell) are skipped. */
    static const uint32_t map[] = { 0, 2, 0x100, 0x800, 0x800, 3, 0x100,
                                    0x900, 2, 0x20, 0x10 };
    static const uint32_t parent[] = { 2 };

    b_its_pci("msi-map", map, sizeof(map), true);
    CHECK(parse_built() == 0 && range_is(mach.gic.its, 0x8080000, 0x20000));
    CHECK(mach.pci.nmsi == 2);
    CHECK(mach.pci.msi[0].rid == 0 && mach.pci.msi[0].devid == 0x100 &&
          mach.pci.msi[0].len == 0x800);
    CHECK(mach.pci.msi[1].rid == 0x900 && mach.pci.msi[1].devid == 0x20 &&
          mach.pci.msi[1].len == 0x10);

    /* A truncated last entry ends the walk after the whole ones. */
    b_its_pci("msi-map", map, 4 * 6, true);
    CHECK(parse_built() == 0 && mach.pci.nmsi == 1);

    /* msi-parent = the ITS: requester IDs pass through. */
    b_its_pci("msi-parent", parent, sizeof(parent), true);
    CHECK(parse_built() == 0 && mach.pci.nmsi == 1 &&
          mach.pci.msi[0].rid == 0 && mach.pci.msi[0].devid == 0 &&
          mach.pci.msi[0].len == 0x10000);

    /* No MSI property, or a disabled ITS: no way to the ITS. */
    b_its_pci("msi-parent", NULL, 0, true);
    CHECK(parse_built() == 0 && mach.gic.its.base == 0x8080000 &&
          mach.pci.nmsi == 0);
    b_its_pci("msi-parent", parent, sizeof(parent), false);
    CHECK(parse_built() == 0 && mach.gic.its.base == 0 &&
          mach.pci.nmsi == 0);
}

TEST(machine_corrupt_zeroes)
{
    size_t n;
    uint8_t *b = load("virt-gicv3-smp4.dtb", &n);
    const uint8_t *z;

    if (!b)
        return;
    memset(&mach, 0xa5, sizeof(mach));
    wr32(b, HW_VERSION, 3);
    CHECK(fdt_parse_machine(b, n, &mach) == -FDT_ECORRUPT);
    CHECK(mach.error && strstr(mach.error, "version"));
    mach.error = NULL;
    z = (const uint8_t *)&mach;
    for (size_t i = 0; i < sizeof(mach); i++)
        if (z[i]) {
            FAIL("byte %zu of the machine is not zero", i);
            break;
        }
    free(b);
}

/* ---- Fuzz ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void on_alarm(int sig)
{
    static const char msg[] = "TEST fuzz FAIL hang: no progress in time\n";

    (void)sig;
    if (write(1, msg, sizeof(msg) - 1) < 0)
        _exit(2);
    _exit(1);
}

/* One mutation of the blob in b[0..*n). */
static void mutate(uint8_t *b, size_t *n)
{
    static const uint32_t words[] = {
        0, 1, 2, 3, 4, 9, 0xffffffff, 0x7fffffff, 0x80000000, 16, 17, 40,
    };
    uint32_t st = rd32(b, HW_STRUCT), sts = rd32(b, HW_STSIZE), off;

    switch (rnd() % 8) {
    case 0:
    case 1:
    case 2:                     /* a bit anywhere */
        b[rnd() % *n] ^= 1u << rnd() % 8;
        break;
    case 3:                     /* a byte anywhere */
        b[rnd() % *n] = (uint8_t[]){ 0, 0xff, (uint8_t)rnd() }[rnd() % 3];
        break;
    case 4:                     /* a token-sized word in the struct block */
    case 5:
        if (st < *n && sts >= 4 && sts <= *n - st) {
            off = st + 4 * (rnd() % (sts / 4));
            if (rnd() % 2)
                wr32(b, off, words[rnd() % 12]);
            else
                wr32(b, off, rd32(b, off) + rnd() % 9 - 4);
        }
        break;
    case 6:                     /* a header word */
        off = 4 * (rnd() % 10);
        if (rnd() % 2)
            wr32(b, off, words[rnd() % 12]);
        else
            wr32(b, off, rd32(b, off) + rnd() % 33 - 16);
        break;
    case 7:                     /* truncation, totalsize following or not */
        *n = rnd() % *n;
        if (*n >= 8 && rnd() % 2)
            wr32(b, HW_TOTAL, (uint32_t)*n);
        break;
    }
}

/* The extras the walk does not cover, on a few nodes of a checked blob. */
static void poke_nodes(const uint8_t *b)
{
    static const char *const paths[] = {
        "/cpus", "/memory", "/chosen", "/psci", "serial1:x", "/a/b/c",
    };
    uint64_t a, s;
    int len;

    for (int i = 0; i < 6; i++)
        fdt_path_offset(b, paths[i]);
    for (int i = 0; i < 4; i++) {
        int node = fdt_path_offset(b, paths[i]);

        if (node < 0)
            continue;
        fdt_parent_offset(b, node);
        fdt_interrupt_parent(b, node);
        fdt_reg(b, node, rnd() % 3, &a, &s);
        fdt_getprop_str(b, node, "compatible");
        fdt_getprop(b, node, "reg", &len);
        fdt_address_cells(b, node);
        fdt_node_enabled(b, node);
    }
    for (int n = fdt_find_compatible(b, -1, "virtio,mmio"), k = 0;
         n >= 0 && k < 64; n = fdt_find_compatible(b, n, "virtio,mmio"), k++)
        fdt_node_compatible(b, n, "arm,pl011");
    fdt_mem_rsv(b, rnd() % 4, &a, &s);
}

static bool machine_sane(int rc, const uint8_t *b, size_t n)
{
    if (rc == 0 && (mach.error || mach.nmem == 0 || mach.ncpus == 0))
        return false;
    if (rc != 0 && (!mach.error || !mach.error[0]))
        return false;
    if (rc != 0 && rc != -FDT_ECORRUPT && rc != -FDT_ENOTFOUND)
        return false;
    if (mach.nmem > MACH_MAX_MEM || mach.nreserved > MACH_MAX_RESERVED ||
        mach.ncpus > MACH_MAX_CPUS || mach.nvirtio > MACH_MAX_VIRTIO ||
        mach.gic.nredist > MACH_MAX_REDIST)
        return false;
    if (mach.gic.version != 0 && mach.gic.version != 2 &&
        mach.gic.version != 3)
        return false;
    for (int i = 0; i < 2; i++) {
        const char *s = i ? mach.bootargs : mach.stdout_path;

        if (s && ((const uint8_t *)s < b || (const uint8_t *)s >= b + n ||
                  !memchr(s, '\0', (size_t)(b + n - (const uint8_t *)s))))
            return false;
    }
    return true;
}

TEST(fuzz)
{
    static const char *const names[] = {
        "virt-gicv3-smp4.dtb", "virt-gicv3-smp4.dtb", "virt-gicv2-smp2.dtb",
        "board.dtb", "board.dtb", "virt-gicv3-el2-smp8-4g.dtb",
    };
    const char *e_iters = getenv("FDT_FUZZ_ITERS");
    const char *e_seed = getenv("FDT_FUZZ_SEED");
    const int iters = e_iters ? atoi(e_iters) : 20000;
    uint8_t *orig[6], *b;
    size_t size[6], n;
    int checked = 0, parsed = 0;

    for (int i = 0; i < 6; i++) {
        orig[i] = load(names[i], &size[i]);
        if (!orig[i])
            return;
    }
    if (e_seed)                 /* xorshift state must not be zero */
        rng = strtoull(e_seed, NULL, 0) * 0x9e3779b97f4a7c15ull | 1;
    signal(SIGALRM, on_alarm);
    alarm(600);
    for (int it = 0; it < iters; it++) {
        int k = rnd() % 6, nm = 1 + rnd() % 4, rc, np = 0;
        uint8_t *work = copy(orig[k], size[k]);

        n = size[k];
        for (int i = 0; i < nm && n > 0; i++)
            mutate(work, &n);
        b = copy(work, n);       /* exactly n bytes: ASan sees overreads */
        free(work);

        rc = check(b, n);
        if (rc == 0) {
            checked++;
            if (walk(b, &np, 1 << 20) < 0) {
                FAIL("iteration %d (%s): walk failed on a checked blob", it,
                     names[k]);
                free(b);
                break;
            }
            poke_nodes(b);
        } else if (!errstr || !errstr[0]) {
            FAIL("iteration %d: check failed without a reason", it);
            free(b);
            break;
        }
        rc = fdt_parse_machine(b, n, &mach);
        parsed += rc == 0;
        if (!machine_sane(rc, b, n)) {
            FAIL("iteration %d (%s): rc %d, error %s", it, names[k], rc,
                 mach.error ? mach.error : "(none)");
            free(b);
            break;
        }
        free(b);
    }
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    /* The mutations must reach the parser, and must not all be harmless. */
    if (getenv("FDT_TEST_VERBOSE"))
        fprintf(stderr, "fuzz: %d of %d passed fdt_check, %d parsed\n",
                checked, iters, parsed);
    CHECK(checked > iters / 10 && checked < iters);
    CHECK(parsed > iters / 20);
    for (int i = 0; i < 6; i++)
        free(orig[i]);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
