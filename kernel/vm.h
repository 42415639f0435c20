/*
 * vm.h - kernel virtual areas outside the direct map: the newlib heap
 * and stacks with guard pages.  Pages are mapped on demand from mem.c.
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VM_HEAP_BASE    0x100000000000UL    /* 16 TiB: newlib's sbrk */
#define VM_HEAP_MAX     0x010000000000UL    /* 1 TiB of address space */
#define VM_STACK_BASE   0x200000000000UL    /* 32 TiB: stacks */
#define VM_STACK_MAX    0x010000000000UL

/*
 * Maps a stack of `bytes` (rounded up to pages) with an unmapped guard
 * page below it; returns its lowest address, NULL when out of memory.
 */
void *vm_stack_alloc(size_t bytes);

/* True if va lies in a stack guard page (a stack overflowed into it). */
bool vm_is_stack_guard(uintptr_t va);

/* Grows the heap by incr bytes (sbrk); returns the old end or NULL. */
void *vm_heap_grow(ptrdiff_t incr);

/* Pages mapped for the heap so far. */
size_t vm_heap_pages(void);

#endif
