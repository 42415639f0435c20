/*
 * page_test.c - host unit test for kernel/page.c.
 *
 * "Physical memory" is a 128 MiB arena: page_phys_to_virt maps physical
 * address pa to arena + pa, so the allocator's bitmaps live inside the
 * memory it manages, as in the kernel.  page_bug records instead of
 * panicking.  A shadow model (one state byte per page, built from the map
 * by brute force) checks every answer: no page handed out twice, none
 * outside usable memory or inside reserved memory or the bitmaps, counts
 * exact, and an allocation fails only if no fitting run exists.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "kernel/page.h"

#define PG 4096ull
#define ARENA (128ull << 20)
#define NPG (ARENA / PG)
#define MIB (1ull << 20)

static uint8_t *arena;

void *page_phys_to_virt(uint64_t pa)
{
    if (pa >= ARENA) {
        fprintf(stderr, "page_phys_to_virt(%#llx): outside the arena\n",
                (unsigned long long)pa);
        abort();
    }
    return arena + pa;
}

static int nbug;
static const char *bug_msg;
static uint64_t bug_addr;

void page_bug(const char *msg, uint64_t addr)
{
    nbug++;
    bug_msg = msg;
    bug_addr = addr;
}

/* Shadow states of a page. */
enum { NEVER, FREE, TAKEN };

static uint8_t model[NPG];
static size_t model_free;

static bool inside(const struct memrange *r, uint64_t a, uint64_t b)
{
    unsigned __int128 end = (unsigned __int128)r->base + r->len;

    return r->base <= a && b <= end;
}

static bool touches(const struct memrange *r, uint64_t a, uint64_t b)
{
    unsigned __int128 end = (unsigned __int128)r->base + r->len;

    return r->len > 0 && r->base < b && a < end;
}

/*
 * The model of what page_init should manage, page by page: inside one
 * usable range, touching no reserved byte, not page 0, not the bitmaps.
 */
static void build_model(const struct memrange *u, int nu,
                        const struct memrange *r, int nr,
                        const struct page_alloc *pa)
{
    memset(model, NEVER, sizeof(model));
    model_free = 0;
    for (uint64_t p = 1; p < NPG; p++) {
        bool ok = false;

        for (int i = 0; i < nu && !ok; i++)
            ok = inside(&u[i], p * PG, p * PG + PG);
        for (int i = 0; i < nr && ok; i++)
            ok = !touches(&r[i], p * PG, p * PG + PG);
        if (!ok)
            continue;
        if (p * PG >= pa->meta && p * PG < pa->meta + pa->nmeta * PG)
            continue;
        model[p] = FREE;
        model_free++;
    }
}

/* The bitmaps must sit on usable, unreserved pages, and be what pa uses. */
static bool meta_ok(const struct memrange *u, int nu,
                    const struct memrange *r, int nr,
                    const struct page_alloc *pa)
{
    for (uint64_t a = pa->meta; a < pa->meta + pa->nmeta * PG; a += PG) {
        bool in = false;

        for (int i = 0; i < nu; i++)
            in = in || inside(&u[i], a, a + PG);
        for (int i = 0; i < nr; i++)
            in = in && !touches(&r[i], a, a + PG);
        if (a == 0 || !in)
            return false;
    }
    return pa->nmeta > 0 && (void *)pa->used == (void *)(arena + pa->meta);
}

/* Marks an allocation in the model; false if any page was not FREE. */
static bool take(uint64_t addr, size_t n)
{
    if (addr % PG != 0 || addr / PG + n > NPG)
        return false;
    for (size_t i = 0; i < n; i++)
        if (model[addr / PG + i] != FREE)
            return false;
    memset(&model[addr / PG], TAKEN, n);
    model_free -= n;
    return true;
}

static void give(uint64_t addr, size_t n)
{
    memset(&model[addr / PG], FREE, n);
    model_free += n;
}

/* Does the model hold n FREE pages in a row at an aligned frame? */
static bool model_fits(size_t n, size_t align)
{
    for (uint64_t p = 0; p + n <= NPG; p += align) {
        size_t k = 0;

        while (k < n && model[p + k] == FREE)
            k++;
        if (k == n)
            return true;
    }
    return false;
}

static void fresh_arena(void)
{
    /* A pattern, so stray writes by the allocator can be seen. */
    memset(arena, 0xa5, 32 * MIB);
    nbug = 0;
    bug_msg = NULL;
}

/* Every byte of the first 32 MiB except the bitmaps still holds 0xa5. */
static bool untouched(const struct page_alloc *pa)
{
    for (uint64_t a = 0; a < 32 * MIB; a++) {
        if (a >= pa->meta && a < pa->meta + pa->nmeta * PG)
            continue;
        if (arena[a] != 0xa5)
            return false;
    }
    return true;
}

/*
 * A messy map inside the first 32 MiB: unsorted, overlapping, unaligned,
 * empty ranges; reserved pieces unaligned and straddling usable edges.
 */
static const struct memrange mess_u[] = {
    { 0x1800123, 0x2000000 - 0x1800123 },   /* unaligned start */
    { 0x100000, 0xf00000 },                 /* 1..16 MiB */
    { 0x0, 0x9fc00 },                       /* low memory, page 0 too */
    { 0x1f00000, 0 },                       /* empty */
    { 0x800000, 0xa00000 },                 /* overlaps, extends to 18 MiB */
    { 0x1400800, 0x1000 },                  /* under one whole page */
    { 0x1500800, 0x1800 },                  /* holds exactly one page */
};
static const struct memrange mess_r[] = {
    { 0x100000, 0x80000 },                  /* kernel image */
    { 0x7000, 0x100 },                      /* boot data, unaligned */
    { 0x9f000, 0x2000 },                    /* straddles the low end */
    { 0x1fffff0, 0x20 },                    /* straddles the top */
    { 0x1000000, 0 },                       /* empty */
    { 0x1800000, 0x200 },                   /* before the unaligned start */
};
#define NMU ((int)(sizeof(mess_u) / sizeof(mess_u[0])))
#define NMR ((int)(sizeof(mess_r) / sizeof(mess_r[0])))

static struct page_alloc pa;

static bool init_mess(void)
{
    fresh_arena();
    if (!CHECK(page_init(&pa, mess_u, NMU, mess_r, NMR, 0) == 0))
        return false;
    build_model(mess_u, NMU, mess_r, NMR, &pa);
    return true;
}

/* Allocates single pages until none is left; checks each against model. */
static size_t drain(uint64_t *out, size_t max)
{
    size_t n = 0;
    uint64_t a;

    while ((a = page_alloc(&pa, 1)) != 0) {
        if (!CHECK(take(a, 1)) || !CHECK(n < max))
            break;
        out[n++] = a;
    }
    return n;
}

TEST(init_messy_map)
{
    static uint64_t got[NPG];
    size_t n;

    if (!init_mess())
        return;
    CHECK(meta_ok(mess_u, NMU, mess_r, NMR, &pa));
    CHECK(untouched(&pa));
    CHECK(page_total_count(&pa) == model_free);
    CHECK(page_free_count(&pa) == model_free);
    /* Highest fit: just below the reserved page at the top. */
    CHECK(pa.meta == 0x1ffe000 && pa.nmeta == 1);
    /* Draining must yield exactly the model's pages (take() checks). */
    n = drain(got, NPG);
    CHECK(n == page_total_count(&pa));
    CHECK(model_free == 0);
    CHECK(page_free_count(&pa) == 0);
    CHECK(model[0x1501] == TAKEN && model[0x1500] == NEVER);
    CHECK(model[0x1400] == NEVER && model[0x1401] == NEVER);
    CHECK(model[0x1800] == NEVER && model[0x1801] == TAKEN);
    CHECK(nbug == 0);
}

TEST(page_zero_never)
{
    const struct memrange u[] = { { 0, 64 * PG } };
    const struct memrange only0[] = { { 0, PG } };
    static uint64_t got[64];
    size_t n;

    fresh_arena();
    if (!CHECK(page_init(&pa, u, 1, NULL, 0, 0) == 0))
        return;
    build_model(u, 1, NULL, 0, &pa);
    CHECK(page_total_count(&pa) == 63 - pa.nmeta);
    n = drain(got, 64);
    CHECK(n == 63 - pa.nmeta);
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] != 0);
    CHECK(page_init(&pa, only0, 1, NULL, 0, 0) == -1);
}

TEST(init_errors)
{
    const struct memrange empty[] = { { 0x10000, 0 }, { 0x20000, 0 } };
    const struct memrange tiny[] = { { 0x10001, PG }, { 0x20800, 0x7ff } };
    const struct memrange one[] = { { 0x10000, PG } };
    const struct memrange two[] = { { 0x10000, PG }, { 0x40000, PG } };
    const struct memrange all[] = { { 0, 0x40000 } };
    const struct memrange wrap[] = { { UINT64_MAX - 100, 1000 },
                                     { UINT64_MAX - PG + 1, PG } };
    /* Bitmaps for a 1 TiB span need 2^23 bytes; no room in 2 pages. */
    const struct memrange sparse[] = { { PG, PG }, { 1ull << 40, PG } };
    uint64_t a;

    fresh_arena();
    CHECK(page_init(&pa, NULL, 0, NULL, 0, 0) == -1);
    CHECK(page_init(&pa, NULL, 5, NULL, 0, 0) == -1);
    CHECK(page_init(&pa, empty, -1, NULL, 0, 0) == -1);
    CHECK(page_init(&pa, empty, 2, NULL, 0, 0) == -1);
    CHECK(page_init(&pa, tiny, 2, NULL, 0, 0) == -1);
    CHECK(page_init(&pa, wrap, 2, NULL, 0, 0) == -1);
    CHECK(page_init(&pa, all, 1, all, 1, 0) == -1);        /* all reserved */
    CHECK(page_init(&pa, one, 1, NULL, 0, 0) == -2);       /* bitmap eats it */
    CHECK(page_init(&pa, two, 2, NULL, 0, 0) == 0);        /* one page left */
    CHECK(page_total_count(&pa) == 1);
    CHECK(page_init(&pa, sparse, 2, NULL, 0, 0) == -2);
    /* A failed init manages nothing, and says so. */
    CHECK(page_alloc(&pa, 1) == 0);
    CHECK(page_free_count(&pa) == 0 && page_total_count(&pa) == 0);
    page_free(&pa, 0x10000, 1);
    CHECK(nbug == 1);
    a = page_alloc_aligned(&pa, 1, 1);
    CHECK(a == 0);
}

TEST(meta_spans_ranges)
{
    /* Only A+B together hold the two bitmap pages a 128 MiB span needs. */
    const struct memrange u[] = { { 0x7fff000, PG }, { 0x2000, PG },
                                  { 0x1000, 0x1800 } };
    const struct memrange u2[] = { { 0x7fff000, PG }, { 0x1000, PG },
                                   { 0x3000, PG } };

    fresh_arena();
    if (!CHECK(page_init(&pa, u, 3, NULL, 0, 0) == 0))
        return;
    CHECK(pa.meta == 0x1000 && pa.nmeta == 2);
    CHECK(meta_ok(u, 3, NULL, 0, &pa));
    CHECK(page_total_count(&pa) == 1);
    CHECK(page_alloc(&pa, 1) == 0x7fff000);
    CHECK(page_alloc(&pa, 1) == 0);
    CHECK(page_init(&pa, u2, 3, NULL, 0, 0) == -2);
}

/* A boot path that maps only low memory: the bitmaps must go below it. */
TEST(meta_below_limit)
{
    /* A 1 MiB range low and another at 64 MiB: a 65 MiB span, 2 bitmap
       pages, which would go at the top of the high range. */
    const struct memrange u[] = { { 0x4000000, 0x100000 },
                                  { 0x1000, 0x100000 } };

    fresh_arena();
    if (!CHECK(page_init(&pa, u, 2, NULL, 0, 0) == 0))
        return;
    CHECK(pa.meta == 0x40fe000 && pa.nmeta == 2);
    fresh_arena();
    if (!CHECK(page_init(&pa, u, 2, NULL, 0, 0x200000) == 0))
        return;
    CHECK(pa.meta == 0xff000);
    CHECK(meta_ok(u, 2, NULL, 0, &pa));
    /* A limit inside a range cuts it. */
    fresh_arena();
    if (!CHECK(page_init(&pa, u, 2, NULL, 0, 0x80000) == 0))
        return;
    CHECK(pa.meta == 0x7e000);
    CHECK(meta_ok(u, 2, NULL, 0, &pa));
    CHECK(page_total_count(&pa) == 0x200 - 2);
    /* Nothing usable below the limit. */
    CHECK(page_init(&pa, u, 2, NULL, 0, 0x2000) == -2);
}

/* xv6's countfree, in effect: take everything, give it back, compare. */
TEST(leak_check)
{
    static uint64_t got[NPG];
    size_t total, n;

    if (!init_mess())
        return;
    total = page_total_count(&pa);
    for (int round = 0; round < 3; round++) {
        n = drain(got, NPG);
        CHECK(n == total);
        /* Scribble over every page handed out: the bitmaps must survive. */
        for (size_t i = 0; i < n; i++)
            memset(arena + got[i], 0x5c, PG);
        for (size_t i = 0; i < n; i++)
            page_free(&pa, got[i], 1);
        CHECK(page_free_count(&pa) == total);
        CHECK(page_total_count(&pa) == total);
        build_model(mess_u, NMU, mess_r, NMR, &pa);
    }
    CHECK(nbug == 0);
}

TEST(contiguous)
{
    uint64_t a, b, c;

    if (!init_mess())
        return;
    for (size_t n = 1; n <= 200; n += 13) {
        a = page_alloc(&pa, n);
        if (!CHECK(a != 0 && take(a, n)))
            return;
    }
    /* A run bigger than any free stretch fails though pages are free. */
    CHECK(page_alloc(&pa, 0x1100) == 0);
    CHECK(page_alloc(&pa, 0) == 0);
    CHECK(page_alloc(&pa, (size_t)-1) == 0);
    /* Fragment: take all, free every other page of one stretch. */
    a = page_alloc(&pa, 64);
    if (!CHECK(a != 0 && take(a, 64)))
        return;
    while ((b = page_alloc(&pa, 1)) != 0)
        CHECK(take(b, 1));
    for (int i = 0; i < 64; i += 2)
        page_free(&pa, a + i * PG, 1);
    CHECK(page_free_count(&pa) == 32);
    CHECK(page_alloc(&pa, 2) == 0);
    page_free(&pa, a + 9 * PG, 1);      /* frees 8, 9, 10 as one run */
    c = page_alloc(&pa, 3);
    CHECK(c == a + 8 * PG);
    /* Freeing part of a run is fine: pages are tracked one by one. */
    page_free(&pa, c + PG, 2);
    CHECK(page_alloc(&pa, 2) == c + PG);
    CHECK(nbug == 0);
}

TEST(aligned)
{
    static const size_t aligns[] = { 1, 2, 8, 64, 512 };
    uint64_t a;

    if (!init_mess())
        return;
    a = page_alloc(&pa, 3);             /* knock the hint off alignment */
    CHECK(take(a, 3));
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
            size_t al = aligns[i];

            a = page_alloc_aligned(&pa, 1 + k * 5, al);
            if (!CHECK(a != 0))
                return;
            CHECK(a % (al * PG) == 0);
            CHECK(take(a, 1 + k * 5));
        }
    }
    a = page_alloc_aligned(&pa, 512, 512);      /* a 2 MiB page */
    CHECK(a != 0 && a % (2 * MIB) == 0 && take(a, 512));
    CHECK(page_alloc_aligned(&pa, 1, 0) == 0);
    CHECK(page_alloc_aligned(&pa, 1, 3) == 0);
    CHECK(page_alloc_aligned(&pa, 1, 6) == 0);
    CHECK(page_alloc_aligned(&pa, 1, (size_t)1 << 40) == 0);
    CHECK(page_alloc_aligned(&pa, 1, (size_t)1 << 63) == 0);
    CHECK(page_alloc_aligned(&pa, 0, 1) == 0);
    /* 32 MiB alignment: only frame 0 qualifies, and it is never free. */
    CHECK(page_alloc_aligned(&pa, 1, 8192) == 0);
    CHECK(page_free_count(&pa) == model_free);
}

TEST(oom)
{
    static uint64_t got[NPG];
    size_t n;

    if (!init_mess())
        return;
    n = drain(got, NPG);
    CHECK(n == page_total_count(&pa));
    for (int i = 0; i < 3; i++) {
        CHECK(page_alloc(&pa, 1) == 0);
        CHECK(page_alloc(&pa, 5) == 0);
        CHECK(page_alloc_aligned(&pa, 1, 512) == 0);
    }
    page_free(&pa, got[n / 2], 1);
    CHECK(page_alloc(&pa, 1) == got[n / 2]);
    CHECK(page_alloc(&pa, 1) == 0);
}

TEST(next_fit)
{
    uint64_t a, b;

    if (!init_mess())
        return;
    a = page_alloc(&pa, 1);
    page_free(&pa, a, 1);
    b = page_alloc(&pa, 1);
    CHECK(a != 0 && b == a + PG);
}

/* Runs one bad page_free; it must be reported once and change nothing. */
static void bad(uint64_t addr, size_t n, const char *want_msg, uint64_t at)
{
    size_t before = page_free_count(&pa);

    nbug = 0;
    bug_msg = NULL;
    page_free(&pa, addr, n);
    if (nbug != 1 || bug_msg == NULL || strcmp(bug_msg, want_msg) != 0 ||
        bug_addr != at)
        FAIL("page_free(%#llx, %zu): %d bugs, last \"%s\" at %#llx; "
             "want \"%s\" at %#llx", (unsigned long long)addr, n, nbug,
             bug_msg ? bug_msg : "", (unsigned long long)bug_addr, want_msg,
             (unsigned long long)at);
    CHECK(page_free_count(&pa) == before);
}

TEST(bad_free)
{
    const char *notalloc = "page_free: page not allocated (double free?)";
    const char *never = "page_free: page was never allocatable";
    const char *outside = "page_free: outside managed memory";
    uint64_t a, b, end;

    if (!init_mess())
        return;
    end = pa.base + pa.npages * PG;
    a = page_alloc(&pa, 4);
    b = page_alloc(&pa, 1);
    if (!CHECK(a == 0x1000 && b == 0x5000 && take(a, 4) && take(b, 1)))
        return;
    page_free(&pa, a + 2 * PG, 2);
    give(a + 2 * PG, 2);
    bad(a + 2 * PG, 1, notalloc, a + 2 * PG);       /* double free */
    bad(a, 4, notalloc, a + 2 * PG);                /* partly double */
    bad(a + 1, 1, "page_free: unaligned address", a + 1);
    bad(a + PG - 1, 1, "page_free: unaligned address", a + PG - 1);
    bad(a, 0, "page_free: zero pages", a);
    bad(0, 1, outside, 0);
    bad(end, 1, outside, end);
    bad(end - PG, 2, outside, end - PG);            /* runs off the end */
    bad(a, (size_t)-1, outside, a);                 /* count overflows */
    bad(UINT64_MAX & ~(PG - 1), 1, outside, UINT64_MAX & ~(PG - 1));
    bad(0x100000, 1, never, 0x100000);              /* kernel image */
    bad(0xa0000, 1, never, 0xa0000);                /* a hole */
    bad(pa.meta, 1, never, pa.meta);                /* the bitmaps */
    bad(a, 8, never, 0x7000);                       /* runs into boot data */
    /* Nothing changed: a's first half and b are still allocated. */
    nbug = 0;
    page_free(&pa, a, 2);
    page_free(&pa, b, 1);
    CHECK(nbug == 0);
    give(a, 2);
    give(b, 1);
    CHECK(page_free_count(&pa) == model_free);
    CHECK(page_free_count(&pa) == page_total_count(&pa));
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct live {
    uint64_t addr;
    size_t n;
    uint64_t stamp;
};

static struct live lives[NPG];
static size_t nlive;

/* Stamps the first and last words of each page with the owner's stamp. */
static void stamp(const struct live *l, bool check)
{
    for (size_t i = 0; i < l->n; i++) {
        uint64_t *p = (uint64_t *)(arena + l->addr + i * PG);

        if (check && (p[0] != l->stamp || p[PG / 8 - 1] != l->stamp)) {
            FAIL("page %#llx: stamp overwritten, page shared?",
                 (unsigned long long)(l->addr + i * PG));
            return;
        }
        p[0] = p[PG / 8 - 1] = l->stamp;
    }
}

static void stress_alloc(uint64_t op)
{
    uint64_t r = rnd() % 100;
    size_t n = r < 70 ? 1 : r < 95 ? 2 + rnd() % 15 : 17 + rnd() % 300;
    size_t al = rnd() % 5 == 0 ? (size_t)1 << (1 + rnd() % 9) : 1;
    uint64_t a = page_alloc_aligned(&pa, n, al);

    if (a == 0) {
        if (model_fits(n, al))
            FAIL("op %llu: alloc(%zu, align %zu) failed, model has room",
                 (unsigned long long)op, n, al);
        return;
    }
    if (a % (al * PG) != 0 || !take(a, n)) {
        FAIL("op %llu: alloc(%zu, align %zu) = %#llx: misaligned or "
             "not free", (unsigned long long)op, n, al,
             (unsigned long long)a);
        return;
    }
    lives[nlive] = (struct live){ a, n, op * 2 + 1 };
    stamp(&lives[nlive++], false);
}

/* Frees a random allocation, sometimes only its front part. */
static void stress_free(void)
{
    size_t k = rnd() % nlive;
    struct live *l = &lives[k];
    size_t n = l->n > 1 && rnd() % 4 == 0 ? 1 + rnd() % (l->n - 1) : l->n;

    stamp(l, true);
    page_free(&pa, l->addr, n);
    give(l->addr, n);
    l->addr += n * PG;
    l->n -= n;
    if (l->n == 0)
        *l = lives[--nlive];
}

/* A free of a page the model says is FREE must be refused. */
static void stress_bad_free(void)
{
    uint64_t p = 1 + rnd() % (NPG - 1);

    while (p < NPG && model[p] != FREE)
        p++;
    if (p == NPG)
        return;
    nbug = 0;
    page_free(&pa, p * PG, 1);
    if (nbug != 1)
        FAIL("free of free page %#llx not reported",
             (unsigned long long)(p * PG));
    nbug = 0;
}

TEST(stress)
{
    if (!init_mess())
        return;
    nlive = 0;
    for (uint64_t op = 0; op < 100000 && !h_failed(); op++) {
        uint64_t r = rnd() % 100;

        if (r < 2)
            stress_bad_free();
        else if (nlive == 0 || r < 55)
            stress_alloc(op);
        else
            stress_free();
        if (page_free_count(&pa) != model_free)
            FAIL("op %llu: free count %zu, model %zu",
                 (unsigned long long)op, page_free_count(&pa), model_free);
    }
    while (nlive > 0 && !h_failed())
        stress_free();
    CHECK(page_free_count(&pa) == page_total_count(&pa));
    CHECK(nbug == 0);
}

int main(int argc, char **argv)
{
    /* calloc: the kernel does not promise zeroed RAM, but untouched
       zero pages cost the host nothing until written. */
    arena = calloc(1, ARENA);
    if (arena == NULL) {
        fprintf(stderr, "page_test: no memory for the arena\n");
        return 1;
    }
    int rc = h_run(argc, argv);

    free(arena);
    return rc;
}
