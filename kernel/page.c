/*
 * page.c - the physical page allocator; the contract is in page.h.
 *
 * Why bitmaps: the allocator must be built before any other memory
 * exists, must hand out contiguous and 2 MiB-aligned runs, and must know
 * for every page whether freeing it is legal.  Two bits per page (1/16384
 * of RAM) give all of that from one carve-out of usable memory.  A free
 * list would need its metadata in the free pages themselves, so a stray
 * write after free would corrupt the allocator rather than the data.
 *
 * Searches scan 64 pages per word and start at a next-fit hint (where the
 * last allocation ended), so the common single-page allocation touches a
 * word or two instead of rescanning the full low end of memory every time.
 * The price is that a just-freed page is not reused at once (no cache-warm
 * LIFO reuse); a per-CPU page cache in front of this would be the place.
 *
 * All checks happen before any state changes, so a reported bug leaves
 * the allocator exactly as it was.
 */
#include <stdbool.h>
#include <string.h>
#include "kernel/page.h"

#define PGSHIFT 12
#define PGSIZE ((uint64_t)1 << PGSHIFT)
#define PGMASK (PGSIZE - 1)
#define TOPPAGE (~PGMASK)           /* highest page-aligned address */
#define NONE ((size_t)-1)

/* The boot memory map, as handed to page_init. */
struct map {
    const struct memrange *u, *r;
    int nu, nr;
};

/* ---- Bitmaps ------------------------------------------------------- */

static void setbits(uint64_t *bm, size_t from, size_t to, bool v)
{
    while (from < to) {
        size_t b = from % 64;
        size_t k = to - from < 64 - b ? to - from : 64 - b;
        uint64_t m = (k == 64 ? ~(uint64_t)0 : ((uint64_t)1 << k) - 1) << b;

        if (v)
            bm[from / 64] |= m;
        else
            bm[from / 64] &= ~m;
        from += k;
    }
}

/* First index in [from, to) whose bit equals v, or to. */
static size_t find(const uint64_t *bm, size_t from, size_t to, bool v)
{
    while (from < to) {
        size_t b = from % 64;
        uint64_t x = (v ? bm[from / 64] : ~bm[from / 64]) >> b;

        if (x != 0) {
            size_t i = from + __builtin_ctzll(x);

            return i < to ? i : to;
        }
        from += 64 - b;
    }
    return to;
}

/* ---- The memory map ------------------------------------------------ */

/*
 * Whole pages inside usable range r, page 0 excluded.  Each range is
 * rounded on its own: two unaligned halves of a page are not trusted to
 * make a whole one.
 */
static bool inward(const struct memrange *r, uint64_t *lo, uint64_t *hi)
{
    uint64_t end = r->base + r->len;

    if (end < r->base)                  /* wrapped: clamp to the top */
        end = UINT64_MAX;
    if (r->len == 0 || r->base > TOPPAGE)
        return false;
    *lo = (r->base + PGMASK) & TOPPAGE;
    *hi = end & TOPPAGE;
    if (*lo < PGSIZE)
        *lo = PGSIZE;
    return *lo < *hi;
}

/* Every page that reserved range r touches. */
static bool outward(const struct memrange *r, uint64_t *lo, uint64_t *hi)
{
    uint64_t end = r->base + r->len;

    if (end < r->base || end > TOPPAGE)
        end = TOPPAGE;
    else
        end = (end + PGMASK) & TOPPAGE;
    *lo = r->base & TOPPAGE;
    *hi = end;
    return r->len != 0 && *lo < *hi;
}

/* Is [a, b) inside the union of the usable ranges? */
static bool covered(const struct map *m, uint64_t a, uint64_t b)
{
    while (a < b) {
        uint64_t lo, hi, next = a;

        for (int i = 0; i < m->nu; i++)
            if (inward(&m->u[i], &lo, &hi) && lo <= a && hi > next)
                next = hi;
        if (next == a)
            return false;
        a = next;
    }
    return true;
}

static bool clear_of_reserved(const struct map *m, uint64_t a, uint64_t b)
{
    uint64_t lo, hi;

    for (int i = 0; i < m->nr; i++)
        if (outward(&m->r[i], &lo, &hi) && lo < b && a < hi)
            return false;
    return true;
}

static bool fits(const struct map *m, uint64_t a, uint64_t size)
{
    return a >= PGSIZE && covered(m, a, a + size) &&
           clear_of_reserved(m, a, a + size);
}

/* The candidate start below `end` (clipped to the limit), or 0. */
static uint64_t below(const struct map *m, uint64_t end, uint64_t size,
                      uint64_t limit)
{
    if (end > limit)
        end = limit;
    return end >= size && fits(m, end - size, size) ? end - size : 0;
}

/*
 * Highest address where npages allocatable pages start and end by limit,
 * or 0.  Sliding a fitting run upward stops only at the end of a usable
 * range, the start of a reserved one or the limit, so those, less the
 * size, are the only candidates.
 */
static uint64_t place(const struct map *m, uint64_t npages, uint64_t limit)
{
    uint64_t size = npages << PGSHIFT, best, a, lo, hi;

    if (npages == 0 || npages > (TOPPAGE >> PGSHIFT))
        return 0;
    best = below(m, limit, size, limit);
    for (int i = 0; i < m->nu; i++)
        if (inward(&m->u[i], &lo, &hi) &&
            (a = below(m, hi, size, limit)) > best)
            best = a;
    for (int i = 0; i < m->nr; i++)
        if (outward(&m->r[i], &lo, &hi) &&
            (a = below(m, lo, size, limit)) > best)
            best = a;
    return best;
}

/* ---- Building ------------------------------------------------------ */

/* Marks [lo, hi) with v in both bitmaps, clipped to the managed span. */
static void mark(struct page_alloc *pa, uint64_t lo, uint64_t hi, bool v)
{
    uint64_t end = pa->base + ((uint64_t)pa->npages << PGSHIFT);
    size_t from, to;

    if (lo < pa->base)
        lo = pa->base;
    if (hi > end)
        hi = end;
    if (lo >= hi)
        return;
    from = (lo - pa->base) >> PGSHIFT;
    to = (hi - pa->base) >> PGSHIFT;
    setbits(pa->used, from, to, v);
    setbits(pa->fixed, from, to, v);
}

static size_t count_clear(const uint64_t *bm, size_t nwords)
{
    size_t n = 0;

    for (size_t i = 0; i < nwords; i++)
        n += 64 - __builtin_popcountll(bm[i]);
    return n;
}

int page_init(struct page_alloc *pa, const struct memrange *usable,
              int nusable, const struct memrange *reserved, int nreserved,
              uint64_t meta_limit)
{
    struct map m = { usable, reserved, usable ? nusable : 0,
                     reserved ? nreserved : 0 };
    uint64_t lo = TOPPAGE, hi = 0, l, h, npages, nwords;

    memset(pa, 0, sizeof(*pa));
    for (int i = 0; i < m.nu; i++) {
        if (inward(&m.u[i], &l, &h)) {
            lo = l < lo ? l : lo;
            hi = h > hi ? h : hi;
        }
    }
    if (lo >= hi || place(&m, 1, TOPPAGE) == 0)
        return -1;
    npages = (hi - lo) >> PGSHIFT;
    nwords = (npages + 63) / 64;
    pa->nmeta = (2 * nwords * sizeof(uint64_t) + PGMASK) >> PGSHIFT;
    pa->meta = place(&m, pa->nmeta, meta_limit ? meta_limit : TOPPAGE);
    if (pa->meta == 0)
        goto nometa;

    pa->base = lo;
    pa->npages = npages;
    pa->nwords = nwords;
    pa->used = page_phys_to_virt(pa->meta);
    pa->fixed = pa->used + nwords;
    /* Everything starts never-allocatable, including the tail bits of the
       last word, so searches need no bounds beyond the bitmap itself. */
    memset(pa->used, 0xff, 2 * nwords * sizeof(uint64_t));
    for (int i = 0; i < m.nu; i++)
        if (inward(&m.u[i], &l, &h))
            mark(pa, l, h, false);
    for (int i = 0; i < m.nr; i++)
        if (outward(&m.r[i], &l, &h))
            mark(pa, l, h, true);
    mark(pa, pa->meta, pa->meta + (pa->nmeta << PGSHIFT), true);

    pa->nfree = pa->ntotal = count_clear(pa->used, nwords);
    if (pa->ntotal == 0)
        goto nometa;            /* the bitmaps took the last free pages */
    return 0;

nometa:
    memset(pa, 0, sizeof(*pa));
    return -2;
}

/* ---- Allocating and freeing ---------------------------------------- */

/*
 * First index i in [from, to - n] where n free pages start and the page's
 * frame number is a multiple of align, or NONE.  Jumps from each blocker
 * to the next free page, so a full stretch costs one test per 64 pages.
 */
static size_t search(const struct page_alloc *pa, size_t from, size_t to,
                     size_t n, size_t align)
{
    uint64_t pfn0 = pa->base >> PGSHIFT;
    size_t i = from, j, skew;

    while (i < to && to - i >= n) {
        i = find(pa->used, i, to, false);
        skew = (pfn0 + i) & (align - 1);
        if (skew != 0) {
            if (align - skew > to - i)
                break;
            i += align - skew;
        }
        if (i >= to || to - i < n)
            break;
        j = find(pa->used, i, i + n, true);
        if (j == i + n)
            return i;
        i = j + 1;
    }
    return NONE;
}

uint64_t page_alloc_aligned(struct page_alloc *pa, size_t npages,
                            size_t align_pages)
{
    size_t i;

    if (npages == 0 || npages > pa->nfree || align_pages == 0 ||
        (align_pages & (align_pages - 1)) != 0)
        return 0;
    i = search(pa, pa->hint, pa->npages, npages, align_pages);
    if (i == NONE) {
        /* Wrap: only runs starting before the hint are left to try. */
        size_t to = pa->hint + npages - 1;

        i = search(pa, 0, to < pa->npages ? to : pa->npages, npages,
                   align_pages);
    }
    if (i == NONE)
        return 0;
    setbits(pa->used, i, i + npages, true);
    __atomic_store_n(&pa->nfree, pa->nfree - npages, __ATOMIC_RELAXED);
    pa->hint = i + npages < pa->npages ? i + npages : 0;
    return pa->base + ((uint64_t)i << PGSHIFT);
}

uint64_t page_alloc(struct page_alloc *pa, size_t npages)
{
    return page_alloc_aligned(pa, npages, 1);
}

void page_free(struct page_alloc *pa, uint64_t addr, size_t npages)
{
    size_t i, j;

    if ((addr & PGMASK) != 0) {
        page_bug("page_free: unaligned address", addr);
        return;
    }
    if (npages == 0) {
        page_bug("page_free: zero pages", addr);
        return;
    }
    i = (addr - pa->base) >> PGSHIFT;
    if (addr < pa->base || i >= pa->npages || npages > pa->npages - i) {
        page_bug("page_free: outside managed memory", addr);
        return;
    }
    j = find(pa->fixed, i, i + npages, true);
    if (j < i + npages) {
        page_bug("page_free: page was never allocatable",
                 pa->base + ((uint64_t)j << PGSHIFT));
        return;
    }
    j = find(pa->used, i, i + npages, false);
    if (j < i + npages) {
        page_bug("page_free: page not allocated (double free?)",
                 pa->base + ((uint64_t)j << PGSHIFT));
        return;
    }
    setbits(pa->used, i, i + npages, false);
    __atomic_store_n(&pa->nfree, pa->nfree + npages, __ATOMIC_RELAXED);
}

size_t page_free_count(const struct page_alloc *pa)
{
    return __atomic_load_n(&pa->nfree, __ATOMIC_RELAXED);
}

size_t page_total_count(const struct page_alloc *pa)
{
    return pa->ntotal;
}
