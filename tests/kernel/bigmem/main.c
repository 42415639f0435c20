/*
 * bigmem - a machine with RAM above 4 GiB (`mem 6144` in `test.conf`).
 *
 * The boot page tables reach only part of RAM; the page allocator's own
 * bitmaps, written before the final page tables exist, must stay inside
 * that part, and the final tables must then map the rest.  Before this
 * was handled such a boot died silently in page_init.
 *
 *   all_ram_managed   the allocator manages more than 5 GiB
 *   high_pages_work   pages above 4 GiB can be allocated, written and
 *                     read back (their mapping works), and all are freed
 */
#include <spindle/test.h>
#include "kernel/export_test.h"

#define GIB (1ULL << 30)
#define CHUNK_PAGES 16384       /* 64 MiB at a time */
#define MAXCHUNKS 128

TEST(all_ram_managed)
{
    CHECKF(mem_total_count() * 4096 > 5 * GIB, "only %zu MiB managed",
           mem_total_count() * 4096 >> 20);
}

TEST(high_pages_work)
{
    static uint64_t chunk[MAXCHUNKS];
    size_t free0;
    int n = 0;
    uint64_t high = 0;

    /* One round first: this G's stack is mapped a page at a time as it
       deepens, and those pages must not count as a leak. */
    mem_free_pages(mem_alloc_pages(1), 1);
    free0 = mem_free_count();

    /* Allocation is next-fit from low memory: take chunks until one lies
       above 4 GiB. */
    while (n < MAXCHUNKS && !high) {
        uint64_t pa = mem_alloc_pages(CHUNK_PAGES);

        if (!pa)
            break;
        chunk[n++] = pa;
        if (pa >= 4 * GIB)
            high = pa;
    }
    CHECKF(high, "no page above 4 GiB after %d chunks of 64 MiB", n);
    for (uint64_t off = 0; off < CHUNK_PAGES * 4096ULL; off += 4096) {
        volatile uint64_t *w = phys_to_virt(high + off);

        CHECK(*w == 0);     /* mem_alloc_pages zeroes */
        *w = high + off;
    }
    for (uint64_t off = 0; off < CHUNK_PAGES * 4096ULL; off += 4096)
        CHECK(*(volatile uint64_t *)phys_to_virt(high + off) == high + off);
    while (n > 0)
        mem_free_pages(chunk[--n], CHUNK_PAGES);
    CHECKF(mem_free_count() == free0, "%zu pages free before, %zu after",
           free0, mem_free_count());
}

int main(void)
{
    return sp_test_main();
}
