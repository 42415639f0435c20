/*
 * page.h - the physical page allocator: 4 KiB pages (arch.h's PAGE_SIZE),
 * contiguous and aligned runs, built from the boot memory map.
 *
 * Unlocked: the caller serialises every call (kernel/mem.c wraps it in
 * mem_lock).  Addresses are physical; the allocator never touches the
 * pages it hands out, only its own metadata, which it carves out of the
 * usable memory and reaches through page_phys_to_virt.
 *
 * Physical page 0 is never handed out, so 0 can mean "no page".
 */
#ifndef KERNEL_PAGE_H
#define KERNEL_PAGE_H

#include <stddef.h>
#include <stdint.h>

struct memrange {
    uint64_t base, len;
};

/*
 * Two bitmaps over the pages [base, base + npages * 4 KiB), one bit per
 * page.  used: set if the page cannot be handed out now (allocated, or
 * never allocatable).  fixed: set if the page is never allocatable (a hole
 * in the map, reserved, page 0, or the bitmaps themselves), which is what
 * lets page_free tell a double free from a free of memory it never owned.
 */
struct page_alloc {
    uint64_t base;              /* physical address of page index 0 */
    size_t npages;              /* pages the bitmaps cover */
    size_t nwords;              /* 64-bit words per bitmap */
    uint64_t *used;
    uint64_t *fixed;
    size_t nfree;               /* clear bits in used; atomic stores
                                   (page_free_count reads it unlocked) */
    size_t ntotal;              /* clear bits in fixed */
    size_t hint;                /* page index where the next search starts */
    uint64_t meta;              /* physical address of the bitmaps */
    size_t nmeta;               /* pages they occupy */
};

/*
 * Builds the allocator from the boot memory map.  usable ranges may be
 * unaligned (each is rounded inward to whole pages on its own), unsorted,
 * overlapping or empty; reserved ranges (kernel image, boot data) are
 * rounded outward and win over usable ones.  The bitmaps go at the highest
 * place that fits below meta_limit (0: anywhere), keeping low memory for
 * whatever needs low addresses; the limit is for a boot path whose early
 * page tables do not reach all RAM.  Returns 0, -1 if no page is usable,
 * -2 if no room is left for the bitmaps.  On failure *pa manages nothing:
 * page_alloc returns 0.
 */
int page_init(struct page_alloc *pa, const struct memrange *usable,
              int nusable, const struct memrange *reserved, int nreserved,
              uint64_t meta_limit);

/*
 * npages contiguous pages; returns the physical address of the first, or
 * 0 if there is no such run (or npages is 0).  Next-fit: the search starts
 * where the last allocation ended.
 */
uint64_t page_alloc(struct page_alloc *pa, size_t npages);

/*
 * Like page_alloc, with the address a multiple of align_pages pages (512
 * for a 2 MiB block).  align_pages must be a power of two, else 0.
 */
uint64_t page_alloc_aligned(struct page_alloc *pa, size_t npages,
                            size_t align_pages);

/*
 * Gives back npages pages at addr.  All of them must be allocated: an
 * unaligned address, a range outside managed memory, a page never
 * allocatable or already free (double free), or npages == 0 is reported
 * through page_bug, and nothing changes.
 */
void page_free(struct page_alloc *pa, uint64_t addr, size_t npages);

size_t page_free_count(const struct page_alloc *pa);
size_t page_total_count(const struct page_alloc *pa);

/* Supplied by the user of this file (the kernel, or a host test). */

/* Pointer through which physical address pa can be accessed. */
void *page_phys_to_virt(uint64_t pa);

/* A broken invariant at addr; the kernel panics, a host test records. */
void page_bug(const char *msg, uint64_t addr);

#endif
