/*
 * mem.h - physical pages for the whole kernel: the locked front of the
 * page allocator (kernel/page.c), and the direct map.
 *
 * All RAM is identity-mapped, so a physical address is also a pointer.
 */
#ifndef KERNEL_MEM_H
#define KERNEL_MEM_H

#include <stddef.h>
#include <stdint.h>

struct bootinfo;

void mem_setup(struct bootinfo *bi);

/* n contiguous, zeroed pages; returns the physical address, 0 if none. */
uint64_t mem_alloc_pages(size_t n);
/* The same, the address a multiple of align pages (a power of two). */
uint64_t mem_alloc_pages_aligned(size_t n, size_t align);
/* n contiguous pages holding whatever they held: for a caller that never
   reads them (a frame that only counts a page the arch backs itself). */
uint64_t mem_alloc_pages_unzeroed(size_t n);
void mem_free_pages(uint64_t pa, size_t n);
size_t mem_free_count(void);
size_t mem_total_count(void);

static inline void *phys_to_virt(uint64_t pa)
{
    return (void *)(uintptr_t)pa;
}

#endif
