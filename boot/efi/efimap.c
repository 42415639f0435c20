/*
 * efimap.c - the UEFI memory map turned into struct bootinfo (efimap.h).
 *
 * Three passes over the map, each O(entries x pieces), which is nothing
 * for the few hundred entries firmware reports: collect the usable
 * entries as page-aligned pieces, cut every non-usable entry out of
 * them, then sort, merge and cut out the claimed ranges.
 */
#include <stdarg.h>
#include "boot/efi/efimap.h"

#define PAGE_MASK (EFIMAP_PAGE - 1)

static struct memrange piece[EFIMAP_MAXPIECE];  /* [base, base + len) */
static int npiece;
static int lost;                /* pieces dropped for want of room */

/* Notes: lines appended to a caller's buffer, always NUL terminated. */
struct notes {
    char *buf;
    size_t size, len;
};

static void put_char(struct notes *n, char c)
{
    if (n->len + 1 < n->size) {
        n->buf[n->len++] = c;
        n->buf[n->len] = 0;
    }
}

static void put_num(struct notes *n, uint64_t v, unsigned base)
{
    char d[24];
    int i = 0;

    do {
        d[i++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (base == 16) {
        put_char(n, '0');
        put_char(n, 'x');
    }
    while (i)
        put_char(n, d[--i]);
}

/* "efi: " + fmt + "\n"; fmt knows %x and %u (uint64_t) and %s. */
static void note(struct notes *n, const char *fmt, ...)
{
    va_list ap;

    if (!n->buf || !n->size)
        return;
    va_start(ap, fmt);
    for (const char *p = "efi: "; *p; p++)
        put_char(n, *p);
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put_char(n, *fmt);
            continue;
        }
        switch (*++fmt) {
        case 'x': put_num(n, va_arg(ap, uint64_t), 16); break;
        case 'u': put_num(n, va_arg(ap, uint64_t), 10); break;
        case 's':
            for (const char *s = va_arg(ap, const char *); *s; s++)
                put_char(n, *s);
            break;
        default: put_char(n, '?'); break;
        }
    }
    put_char(n, '\n');
    va_end(ap);
}

int efimap_usable_type(uint32_t type)
{
    switch (type) {
    case EFIMT_LOADER_CODE: case EFIMT_LOADER_DATA:
    case EFIMT_BS_CODE: case EFIMT_BS_DATA: case EFIMT_CONVENTIONAL:
        return 1;
    default:
        return 0;
    }
}

static const char *type_name(uint32_t type)
{
    static const char *const names[] = {
        "reserved", "loader code", "loader data", "boot-services code",
        "boot-services data", "runtime-services code",
        "runtime-services data", "conventional", "unusable",
        "ACPI reclaim", "ACPI NVS", "MMIO", "MMIO port space", "PAL code",
        "persistent", "unaccepted",
    };

    return type < sizeof names / sizeof names[0] ? names[type] : "unknown type";
}

static void add_piece(uint64_t base, uint64_t end)
{
    if (base >= end)
        return;
    if (npiece == EFIMAP_MAXPIECE) {
        lost++;
        return;
    }
    piece[npiece].base = base;
    piece[npiece].len = end - base;
    npiece++;
}

/* Removes [lo, hi) from every piece; returns true if any page went. */
static int cut(uint64_t lo, uint64_t hi)
{
    int hit = 0;

    for (int i = 0; i < npiece; i++) {
        uint64_t b = piece[i].base, e = b + piece[i].len;

        if (hi <= b || lo >= e)
            continue;
        hit = 1;
        /* Keep [b, lo) in place and add [hi, e) at the end (which this
           loop then visits too, harmlessly: it no longer overlaps). */
        if (lo > b) {
            piece[i].len = lo - b;
        } else {
            piece[i] = piece[--npiece];
            i--;
        }
        if (hi < e)
            add_piece(hi, e);
    }
    return hit;
}

/* Sorts the pieces by base (insertion sort: they arrive almost sorted)
   and merges touching or overlapping ones; true if any overlapped. */
static int sort_merge(void)
{
    int overlap = 0, n = 0;

    for (int i = 1; i < npiece; i++) {
        struct memrange r = piece[i];
        int j = i;

        for (; j > 0 && piece[j - 1].base > r.base; j--)
            piece[j] = piece[j - 1];
        piece[j] = r;
    }
    for (int i = 0; i < npiece; i++) {
        if (n && piece[i].base <= piece[n - 1].base + piece[n - 1].len) {
            uint64_t e = piece[i].base + piece[i].len;
            uint64_t pe = piece[n - 1].base + piece[n - 1].len;

            if (piece[i].base < pe)
                overlap = 1;
            if (e > pe)
                piece[n - 1].len = e - piece[n - 1].base;
            continue;
        }
        piece[n++] = piece[i];
    }
    npiece = n;
    return overlap;
}

/* The entry's page-aligned extent: inward for usable entries (*lo > *hi
   if nothing is left), outward for the rest.  Returns 1 if the entry was
   unaligned, 2 if its end wraps (usable: empty; else clipped), else 0. */
static int extent(const struct efimap_desc *d, int usable, uint64_t *lo,
                  uint64_t *hi)
{
    uint64_t top = ~0ull & ~PAGE_MASK;
    int why = (d->phys & PAGE_MASK) ? 1 : 0;

    if (d->npages > (~0ull - d->phys) / EFIMAP_PAGE) {
        *lo = d->phys & ~PAGE_MASK;
        *hi = usable ? 0 : top;
        if (usable)
            *lo = 1;
        return 2;
    }
    *hi = d->phys + d->npages * EFIMAP_PAGE;
    if (usable) {
        *lo = (d->phys + PAGE_MASK) & ~PAGE_MASK;
        *hi &= ~PAGE_MASK;
    } else {
        *lo = d->phys & ~PAGE_MASK;
        *hi = *hi > top ? top : (*hi + PAGE_MASK) & ~PAGE_MASK;
    }
    return why;
}

static const struct efimap_desc *desc(const void *map, size_t i, size_t size)
{
    return (const struct efimap_desc *)((const char *)map + i * size);
}

int efimap_to_bootinfo(const void *map, size_t map_size, size_t desc_size,
                       const struct memrange *claimed, int nclaimed,
                       struct bootinfo *bi, char *notes, size_t notes_size)
{
    struct notes nt = { notes, notes_size, 0 };
    size_t n;
    int unaligned = 0, wrapped = 0, overlap = 0;

    if (notes && notes_size)
        notes[0] = 0;
    npiece = lost = 0;
    bi->nusable = 0;
    if (desc_size < sizeof(struct efimap_desc)) {
        note(&nt, "memory map descriptors of %u bytes are too small (need %u); no usable memory",
             (uint64_t)desc_size, (uint64_t)sizeof(struct efimap_desc));
        return -1;
    }
    n = map ? map_size / desc_size : 0;

    for (size_t i = 0; i < n; i++) {
        const struct efimap_desc *d = desc(map, i, desc_size);
        uint64_t lo, hi;
        int u = efimap_usable_type(d->type), why;

        if (!d->npages)
            continue;
        why = extent(d, u, &lo, &hi);
        if (why == 1 && !unaligned++)
            note(&nt, "unaligned map entry at %x (%s, %u pages): usable entries shrink to whole pages, others grow",
                 d->phys, type_name(d->type), d->npages);
        if (why == 2 && !wrapped++)
            note(&nt, "map entry at %x (%s, %u pages) wraps past 2^64: ignored if usable, else clipped",
                 d->phys, type_name(d->type), d->npages);
        if (u && lo < hi)
            add_piece(lo, hi);
    }
    for (size_t i = 0; i < n; i++) {
        const struct efimap_desc *d = desc(map, i, desc_size);
        uint64_t lo, hi;

        if (!d->npages || efimap_usable_type(d->type))
            continue;
        extent(d, 0, &lo, &hi);
        if (cut(lo, hi) && !overlap++)
            note(&nt, "map entry %x-%x (%s) overlaps usable memory: kept from the kernel",
                 lo, hi, type_name(d->type));
    }
    if (sort_merge())
        note(&nt, "usable map entries overlap each other: merged");
    for (int i = 0; i < nclaimed; i++) {
        uint64_t lo = claimed[i].base & ~PAGE_MASK;
        uint64_t hi = (claimed[i].base + claimed[i].len + PAGE_MASK) & ~PAGE_MASK;

        cut(lo, hi);
        if (bi->nreserved < BOOT_MAXMEM) {
            bi->reserved[bi->nreserved].base = lo;
            bi->reserved[bi->nreserved].len = hi - lo;
            bi->nreserved++;
        }
    }
    sort_merge();
    if (lost)
        note(&nt, "%u usable pieces did not fit the converter's table: left unused",
             (uint64_t)lost);
    if (npiece > BOOT_MAXMEM)
        note(&nt, "%u usable ranges, bootinfo holds %u: the highest %u are left unused",
             (uint64_t)npiece, (uint64_t)BOOT_MAXMEM, (uint64_t)(npiece - BOOT_MAXMEM));
    for (int i = 0; i < npiece && i < BOOT_MAXMEM; i++)
        bi->usable[bi->nusable++] = piece[i];
    if (!bi->nusable) {
        note(&nt, "the memory map has no usable memory");
        return -1;
    }
    return bi->nusable;
}

void efimap_ram_gib(const void *map, size_t map_size, size_t desc_size,
                    uint64_t gib[8])
{
    const uint64_t top = 512ull << 30;

    if (desc_size < sizeof(struct efimap_desc))
        return;
    for (size_t off = 0; off + desc_size <= map_size; off += desc_size) {
        const struct efimap_desc *d = (const void *)((const char *)map + off);
        uint64_t end;

        switch (d->type) {
        case EFIMT_RT_CODE: case EFIMT_RT_DATA: case EFIMT_ACPI_RECLAIM:
        case EFIMT_ACPI_NVS: case EFIMT_PERSISTENT:
            break;
        default:
            if (!efimap_usable_type(d->type))
                continue;
        }
        if (!d->npages || d->phys >= top)
            continue;
        end = d->npages > (top - d->phys) / EFIMAP_PAGE ? top
                                                        : d->phys + d->npages * EFIMAP_PAGE;
        for (uint64_t g = d->phys >> 30; g <= (end - 1) >> 30; g++)
            gib[g / 64] |= 1ull << (g % 64);
    }
}

uint64_t efimap_slots(const void *map, size_t map_size, size_t desc_size,
                      uint64_t size, uint64_t align, uint64_t limit, uint64_t pick,
                      uint64_t *at)
{
    uint64_t n = 0;

    if (desc_size < sizeof(struct efimap_desc) || !size || !align || (align & (align - 1)))
        return 0;
    for (size_t off = 0; off + desc_size <= map_size; off += desc_size) {
        const struct efimap_desc *d = (const void *)((const char *)map + off);
        uint64_t b, e, k;

        if (d->type != EFIMT_CONVENTIONAL || d->npages > (~0ull - d->phys) / EFIMAP_PAGE)
            continue;
        e = d->phys + d->npages * EFIMAP_PAGE;
        if (e > limit)
            e = limit;
        b = (d->phys + align - 1) & ~(align - 1);
        if (b < d->phys || b >= e || e - b < size)
            continue;
        k = (e - b - size) / align + 1;     /* bases b, b + align, ... */
        if (pick >= n && pick - n < k)
            *at = b + (pick - n) * align;
        n += k;
    }
    return n;
}
