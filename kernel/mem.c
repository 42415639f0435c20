/*
 * mem.c - the kernel's page allocator: kernel/page.c under one lock,
 * built from the boot memory map.
 */
#include <string.h>
#include "kernel/bootinfo.h"
#include "kernel/faultinject.h"
#include "kernel/mem.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/vm.h"

static struct page_alloc pages;
static struct spinlock mem_lock = SPINLOCK_INIT(LOCK_MEM);

void *page_phys_to_virt(uint64_t pa)
{
    return phys_to_virt(pa);
}

void page_bug(const char *msg, uint64_t addr)
{
    panic("%s (address 0x%lx)", msg, addr);
}

void mem_setup(struct bootinfo *bi)
{
    /* The allocator's own bitmaps are written before arch_paging_init
       maps all RAM: keep them where the boot page tables reach.  (Page
       tables built meanwhile come from low memory: allocation is
       next-fit from the bottom.) */
    int err = page_init(&pages, bi->usable, bi->nusable, bi->reserved,
                        bi->nreserved, bi->mapped);

    if (err)
        panic("mem_setup: no usable memory in the boot memory map (%d)", err);
    printk("mem: %lu MiB usable, %lu MiB free\n",
           page_total_count(&pages) * PAGE_SIZE >> 20,
           page_free_count(&pages) * PAGE_SIZE >> 20);
}

static uint64_t alloc(size_t n, size_t align, bool zero)
{
    unsigned long f;
    uint64_t pa;

    if (fault_alloc_fails())
        return 0;
    vm_stack_probe(MEM_PROBE_BYTES);
    f = spin_lock(&mem_lock);
    pa = align > 1 ? page_alloc_aligned(&pages, n, align) :
                     page_alloc(&pages, n);
    spin_unlock(&mem_lock, f);
    if (pa && zero)
        memset(phys_to_virt(pa), 0, n * PAGE_SIZE);
    return pa;
}

uint64_t mem_alloc_pages(size_t n)
{
    return alloc(n, 1, true);
}

uint64_t mem_alloc_pages_aligned(size_t n, size_t align)
{
    return align ? alloc(n, align, true) : 0;
}

uint64_t mem_alloc_pages_unzeroed(size_t n)
{
    return alloc(n, 1, false);
}

void mem_free_pages(uint64_t pa, size_t n)
{
    unsigned long f;

    vm_stack_probe(MEM_PROBE_BYTES);
    f = spin_lock(&mem_lock);
    page_free(&pages, pa, n);
    spin_unlock(&mem_lock, f);
}

size_t mem_free_count(void)
{
    return page_free_count(&pages);
}

size_t mem_total_count(void)
{
    return page_total_count(&pages);
}
