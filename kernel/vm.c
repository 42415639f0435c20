/*
 * vm.c - the heap and stack areas above the direct map.
 *
 * Both grow upward by bump allocation and are never given back to the
 * page allocator: newlib's malloc keeps what sbrk gave it, and stacks are
 * reused through free lists by their owners.  Stacks are separated by one
 * unmapped page each, so running off the bottom of a stack faults on a
 * page nobody owns instead of corrupting the stack below.
 */
#include "arch.h"
#include "mem.h"
#include "spinlock.h"
#include "vm.h"

static struct spinlock vm_lock = SPINLOCK_INIT("vm");
static uintptr_t heap_end = VM_HEAP_BASE;      /* sbrk's break */
static uintptr_t heap_mapped = VM_HEAP_BASE;   /* end of mapped pages */
static uintptr_t stack_next = VM_STACK_BASE;

/* Maps fresh pages over [va, va + n pages); returns how many it mapped
   (fewer than n when memory ran out). */
static size_t map_fresh(uintptr_t va, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t pa = mem_alloc_pages(1);

        if (!pa || arch_map_page(va + i * PAGE_SIZE, pa, MAP_WRITE)) {
            if (pa)
                mem_free_pages(pa, 1);
            return i;
        }
    }
    return n;
}

void *vm_stack_alloc(size_t bytes)
{
    size_t n = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
    unsigned long f = spin_lock(&vm_lock);
    uintptr_t lo = stack_next + PAGE_SIZE;     /* skip the guard page */

    if (lo + n * PAGE_SIZE > VM_STACK_BASE + VM_STACK_MAX) {
        lo = 0;
    } else {
        size_t got = map_fresh(lo, n);

        /* A short stack is useless, but its pages stay mapped and the
           area moves past them, so nothing is mapped twice. */
        stack_next = lo + got * PAGE_SIZE;
        if (got < n)
            lo = 0;
    }
    spin_unlock(&vm_lock, f);
    return (void *)lo;
}

bool vm_is_stack_guard(uintptr_t va)
{
    uint64_t pa;

    return va >= VM_STACK_BASE && va < stack_next &&
           !arch_virt_to_phys(va, &pa);
}

void *vm_heap_grow(ptrdiff_t incr)
{
    unsigned long f = spin_lock(&vm_lock);
    uintptr_t old = heap_end, end = heap_end + incr;
    void *ret = (void *)old;

    if (end < VM_HEAP_BASE || end > VM_HEAP_BASE + VM_HEAP_MAX) {
        ret = 0;
    } else if (end > heap_mapped) {
        size_t n = (end - heap_mapped + PAGE_SIZE - 1) / PAGE_SIZE;
        size_t got = map_fresh(heap_mapped, n);

        heap_mapped += got * PAGE_SIZE;
        if (got < n)
            ret = 0;
    }
    if (ret)
        heap_end = end;
    spin_unlock(&vm_lock, f);
    return ret;
}

size_t vm_heap_pages(void)
{
    return (heap_mapped - VM_HEAP_BASE) / PAGE_SIZE;
}
