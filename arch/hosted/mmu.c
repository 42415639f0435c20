/*
 * mmu.c (hosted) - memory: "physical" RAM, the kernel's virtual areas
 * and their page tables, on mmap.
 *
 * RAM is one anonymous mapping (MEM MiB, default 1024) handed to the page
 * allocator as the boot memory map; its addresses serve as physical
 * addresses, so the direct map is the identity, as on bare metal.
 *
 * The four areas of kernel/vm.h are reserved at their fixed place.  The
 * heap, stack and G table areas start inaccessible, and arch_map_page
 * opens one page at a time (mprotect), so the unmapped page below each
 * stack stays a guard.  The mapped page gets fresh host memory, not an
 * alias of its frame (an alias needs a shared file mapping and one VMA
 * per page): the frame stays allocated, as the page's account in the
 * page allocator, and its host memory is handed back.
 *
 * G slots are the exception.  100,000 parked Gs would need 200,000 VMAs
 * with a PROT_NONE guard between slots (Linux allows 65,530), so the slot
 * area is one read-write mapping the host backs on first touch, and each
 * slot's guard page is a guard region (MADV_GUARD_INSTALL, Linux 6.13),
 * which faults like an unmapped page but splits no VMA.  On older kernels
 * the guard falls back to mprotect, and the VMA limit caps the Gs.  The
 * host's lazy backing also replaces kernel/vm.c's lazily mapped stack
 * pages: no page of a slot but the guard ever faults, so a fault in the
 * middle of libc or a sanitizer runtime never needs fixing up.
 *
 * A small software page table answers arch_virt_to_phys: one entry per
 * page of the heap and stack areas and per slot's top page, in a reserved
 * array the host backs only where it is written.
 */
#include <string.h>
#include <sys/mman.h>
#include "arch.h"
#include "bootinfo.h"
#include "cpu.h"
#include "mem.h"
#include "hosted.h"
#include "panic.h"
#include "printk.h"
#include "vm.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define NPAGES (ARCH_VM_AREA / PAGE_SIZE)

static uint64_t *pte[4];        /* per area: frame | 1, or 0 */
static bool guard_regions = true;
static uintptr_t ram_lo, ram_hi;

void *hosted_reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        panic("hosted_reserve: cannot reserve %zu MiB", bytes >> 20);
    return p;
}

static void reserve_at(uintptr_t base, int prot)
{
    void *p = mmap((void *)base, ARCH_VM_AREA, prot,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                   MAP_FIXED_NOREPLACE, -1, 0);

    if (p != (void *)base)
        panic("arch_paging_init: cannot reserve the area at 0x%lx", base);
}

void hosted_ram_init(struct bootinfo *bi, size_t bytes)
{
    void *p = hosted_reserve(bytes);

    ram_lo = (uintptr_t)p;
    ram_hi = ram_lo + bytes;
    bootinfo_add_usable(bi, ram_lo, bytes);
}

void arch_paging_init(struct bootinfo *bi)
{
    (void)bi;
    reserve_at(VM_HEAP_BASE, PROT_NONE);
    reserve_at(VM_STACK_BASE, PROT_NONE);
    reserve_at(VM_GSLOT_BASE, PROT_READ | PROT_WRITE);
    reserve_at(VM_GTAB_AREA, PROT_NONE);
    for (int i = 0; i < 4; i++)
        pte[i] = hosted_reserve(NPAGES * sizeof(uint64_t));
}

/* Which area va is in (0 heap, 1 stacks, 2 G slots, 3 the G table), or
   -1. */
static int area_of(uintptr_t va)
{
    if (va < VM_HEAP_BASE || va >= VM_GTAB_AREA + ARCH_VM_AREA)
        return -1;
    if ((va - VM_HEAP_BASE) % ARCH_VM_STRIDE >= ARCH_VM_AREA)
        return -1;
    return (va - VM_HEAP_BASE) / ARCH_VM_STRIDE;
}

static uint64_t *pte_of(int area, uintptr_t va)
{
    return &pte[area][(va - VM_HEAP_BASE - area * ARCH_VM_STRIDE) /
                      PAGE_SIZE];
}

static void guard(uintptr_t page)
{
    if (guard_regions &&
        !madvise((void *)page, PAGE_SIZE, MADV_GUARD_INSTALL))
        return;
    if (guard_regions) {
        guard_regions = false;
        printk("mmu: no guard regions (Linux < 6.13); G stack guards use "
               "mprotect, and the host's VMA limit caps the Gs\n");
    }
    if (mprotect((void *)page, PAGE_SIZE, PROT_NONE))
        panic("arch_map_page: cannot protect the guard page 0x%lx", page);
}

int arch_map_page(uintptr_t va, uint64_t pa, int flags)
{
    int area = area_of(va);

    if (area < 0)
        panic("arch_map_page: 0x%lx is outside the kernel's areas", va);
    if (area == 2) {
        uintptr_t slot = vm_gslot_of(va);

        /* A slot's first mapping is its top page (vm_gslot_alloc). */
        if (va == slot + VM_GSLOT_SIZE - PAGE_SIZE)
            guard(slot);
    } else if (mprotect((void *)va, PAGE_SIZE,
                        PROT_READ | (flags & MAP_WRITE ? PROT_WRITE : 0))) {
        return -12;
    }
    *pte_of(area, va) = pa | 1;
    madvise(phys_to_virt(pa), PAGE_SIZE, MADV_DONTNEED);
    return 0;
}

void arch_unmap_page(uintptr_t va)
{
    int area = area_of(va);

    if (area < 0)
        return;
    *pte_of(area, va) = 0;
    if (area == 2)
        guard(va);
    else
        mprotect((void *)va, PAGE_SIZE, PROT_NONE);
}

bool arch_virt_to_phys(uintptr_t va, uint64_t *pa)
{
    int area = area_of(va);
    uint64_t e;

    if (va >= ram_lo && va < ram_hi) {
        *pa = va;
        return true;
    }
    if (area < 0)
        return false;
    if (area == 2) {
        uintptr_t slot = vm_gslot_of(va);

        /* A slot in use: all but its guard is host-backed memory. */
        if (va - slot < PAGE_SIZE ||
            !*pte_of(2, slot + VM_GSLOT_SIZE - PAGE_SIZE))
            return false;
        e = *pte_of(2, va & ~(PAGE_SIZE - 1));
        *pa = e ? (e & ~1UL) | (va & (PAGE_SIZE - 1)) : va;
        return true;
    }
    e = *pte_of(area, va & ~(PAGE_SIZE - 1));
    if (!e)
        return false;
    *pa = (e & ~1UL) | (va & (PAGE_SIZE - 1));
    return true;
}

/* Never needed: ARCH_KEEPS_GSLOT_PAGES (arch_impl.h). */
void arch_tlb_flush_local(void)
{
}

size_t arch_page_table_pages(void)
{
    return 0;                   /* the tables are host memory */
}
