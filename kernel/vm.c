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
#include "fault.h"
#include "mem.h"
#include "panic.h"
#include "spinlock.h"
#include "vm.h"

static struct spinlock vm_lock = SPINLOCK_INIT(LOCK_VM);
static uintptr_t heap_end = VM_HEAP_BASE;      /* sbrk's break */
static uintptr_t heap_mapped = VM_HEAP_BASE;   /* end of mapped pages */
static uintptr_t stack_next = VM_STACK_BASE;
static uintptr_t gslot_next = VM_GSLOT_BASE;
static size_t gslot_pages;      /* pages mapped in G slots; under vm_lock */

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
    unsigned long f;
    uintptr_t lo;

    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    lo = stack_next + PAGE_SIZE;               /* skip the guard page */

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

void *vm_gslot_alloc(void)
{
    unsigned long f;
    uintptr_t base;

    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    base = gslot_next;

    if (base + VM_GSLOT_SIZE > VM_GSLOT_BASE + VM_GSLOT_MAX ||
        map_fresh(base + VM_GSLOT_SIZE - PAGE_SIZE, 1) != 1) {
        base = 0;
    } else {
        /* Pairs with the load-acquire in in_gslot (no lock there). */
        __atomic_store_n(&gslot_next, gslot_next + VM_GSLOT_SIZE,
                         __ATOMIC_RELEASE);
        gslot_pages++;
    }
    spin_unlock(&vm_lock, f);
    return (void *)base;
}

static bool in_gslot(uintptr_t va)
{
    return va >= VM_GSLOT_BASE &&
           va < __atomic_load_n(&gslot_next, __ATOMIC_ACQUIRE);
}

bool vm_fault(uintptr_t va)
{
    uintptr_t page = va & ~(PAGE_SIZE - 1);
    uint64_t pa;
    bool ok;
    unsigned long f;

    if (!in_gslot(va) || va - vm_gslot_of(va) < PAGE_SIZE)
        return false;
    fault_hold();
    f = spin_lock(&vm_lock);
    /* Another core may have mapped it meanwhile (not for stacks, which
       have one owner, but cheap to allow). */
    ok = arch_virt_to_phys(page, &pa);
    if (!ok && map_fresh(page, 1) == 1) {
        gslot_pages++;
        ok = true;
    }
    spin_unlock(&vm_lock, f);
    fault_release();
    if (!ok)
        panic("vm_fault: out of memory for a stack page at 0x%lx",
              (unsigned long)page);
    return true;
}

bool vm_is_stack_guard(uintptr_t va)
{
    uint64_t pa;

    if (in_gslot(va))
        return va - vm_gslot_of(va) < PAGE_SIZE;
    return va >= VM_STACK_BASE && va < stack_next &&
           !arch_virt_to_phys(va, &pa);
}

void *vm_heap_grow(ptrdiff_t incr)
{
    unsigned long f;
    uintptr_t old, end;
    void *ret;

    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    old = heap_end;
    end = heap_end + incr;
    ret = (void *)old;

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

size_t vm_gslot_pages(void)
{
    return __atomic_load_n(&gslot_pages, __ATOMIC_RELAXED);
}

void *vm_map_device(uint64_t pa, size_t len)
{
    uint64_t first = pa & ~(PAGE_SIZE - 1), end = pa + len, phys;
    unsigned long f;
    bool ok = true;

    if (!len || end < pa)
        return NULL;
    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    for (uint64_t a = first; a < end && ok; a += PAGE_SIZE)
        if (!arch_virt_to_phys(a, &phys))
            ok = !arch_map_page(a, a, MAP_WRITE | MAP_NOCACHE);
    spin_unlock(&vm_lock, f);
    return ok ? (void *)(uintptr_t)pa : NULL;
}
