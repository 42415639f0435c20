/*
 * mmu.c - the kernel's translation tables (4 KiB granule, 48-bit VAs,
 * four levels, TTBR0 only; shared by every core).
 *
 * Layout: identity map of every RAM range of the device tree, normal
 * write-back memory, and of every device the kernel knows of (UART, GIC,
 * RTC, virtio-mmio, PCIe ECAM), device-nGnRnE, both with 2 MiB blocks.
 * Nothing else is mapped, so a stray pointer faults; page 0 stays
 * unmapped even where RAM starts at 0 (Raspberry Pi), so NULL faults.
 * Areas above the direct map (heap, stacks) are mapped page by page via
 * arch_map_page; a 2 MiB block is split when a page inside it changes.
 *
 * Every table change that could be cached in a TLB goes through
 * break-before-make (ARM ARM D8.14.1): invalid entry, TLB invalidate,
 * then the new entry.  A new entry over an invalid one needs no TLB
 * maintenance (invalid entries are never cached), only a DSB so the
 * table walker sees it before the access that needs it.
 */
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/mem.h"
#include "kernel/panic.h"

#define ENTRIES     512
#define MIB2        (1UL << 21)

#define PAGE_NORMAL (PTE_VALID | PTE_TABLE | PTE_ATTR(ATTR_NORMAL) | \
                     PTE_ISH | PTE_AF | PTE_UXN)
#define BLK_NORMAL  (PTE_VALID | PTE_ATTR(ATTR_NORMAL) | PTE_ISH | PTE_AF | \
                     PTE_UXN)
#define BLK_DEVICE  (PTE_VALID | PTE_ATTR(ATTR_DEVICE) | PTE_AF | PTE_UXN | \
                     PTE_PXN)

static void mmu_switch(uint64_t ttbr0);

static uint64_t kernel_l0[ENTRIES] __attribute__((aligned(4096)));
static size_t table_pages;      /* table pages taken from mem.c */

static inline void tlb_flush_va(uintptr_t va)
{
    __asm__ volatile("dsb ishst\n\ttlbi vaae1is, %0\n\tdsb ish\n\tisb"
                     : : "r"(va >> 12) : "memory");
}

static inline void table_sync(void)
{
    __asm__ volatile("dsb ishst\n\tisb" : : : "memory");
}

static uint64_t *table(uint64_t e)
{
    return phys_to_virt(e & PTE_ADDR_MASK);
}

static uint64_t *new_table(void)
{
    uint64_t pa = mem_alloc_pages(1);   /* zeroed */

    if (!pa)
        return 0;
    table_pages++;
    return phys_to_virt(pa);
}

size_t arch_page_table_pages(void)
{
    return table_pages;
}

static int index_at(uintptr_t va, int level)
{
    return (va >> (12 + 9 * (3 - level))) & 511;
}

/* Returns the entry for va at level (1 = 1 GiB .. 3 = 4 KiB), creating
   tables on the way when create is set; NULL if a block is in the way. */
static uint64_t *walk(uintptr_t va, int level, bool create)
{
    uint64_t *t = kernel_l0;

    for (int l = 0; l < level; l++) {
        uint64_t *e = &t[index_at(va, l)];

        if (!(*e & PTE_VALID)) {
            uint64_t *n;

            if (!create || !(n = new_table()))
                return 0;
            table_sync();       /* zeroed table visible before linked */
            *e = (uint64_t)n | PTE_VALID | PTE_TABLE;
        } else if (!(*e & PTE_TABLE)) {
            return 0;           /* a block above the wanted level */
        }
        t = table(*e);
    }
    return &t[index_at(va, level)];
}

/* Replaces the 2 MiB block holding va by a table of 512 pages. */
static int split(uintptr_t va)
{
    uint64_t *pde = walk(va, 2, true), old;
    uint64_t *pt;

    if (!pde)
        return -12;
    old = *pde;
    if (!(old & PTE_VALID) || (old & PTE_TABLE))
        return 0;
    if (!(pt = new_table()))
        return -12;
    for (int i = 0; i < ENTRIES; i++)
        pt[i] = ((old & PTE_ADDR_MASK) + i * PAGE_SIZE) | (old & ~PTE_ADDR_MASK) |
                PTE_TABLE;
    *pde = 0;
    tlb_flush_va(va & ~(MIB2 - 1));
    *pde = (uint64_t)pt | PTE_VALID | PTE_TABLE;
    table_sync();
    return 0;
}

int arch_map_page(uintptr_t va, uint64_t pa, int flags)
{
    uint64_t *pte, e;
    int err = split(va);

    if (err)
        return err;
    if (!(pte = walk(va, 3, true)))
        return -12;
    e = pa | PTE_VALID | PTE_TABLE | PTE_AF | PTE_UXN |
        (flags & MAP_WRITE ? 0 : PTE_RDONLY) |
        (flags & MAP_EXEC ? 0 : PTE_PXN) |
        (flags & MAP_NOCACHE ? PTE_ATTR(ATTR_DEVICE) :
         PTE_ATTR(ATTR_NORMAL) | PTE_ISH);
    if (*pte & PTE_VALID) {
        *pte = 0;
        tlb_flush_va(va);
    }
    *pte = e;
    table_sync();
    return 0;
}

void arch_unmap_page(uintptr_t va)
{
    uint64_t *pte;

    if (split(va) || !(pte = walk(va, 3, false)))
        return;
    *pte = 0;
    tlb_flush_va(va);
}

/* Nothing left to drop: arch_unmap_page's TLBI is broadcast (inner
   shareable) and waited for. */
void arch_tlb_flush_local(void)
{
}

bool arch_virt_to_phys(uintptr_t va, uint64_t *pa)
{
    uint64_t *t = kernel_l0;

    if (va >> 48)
        return false;
    for (int l = 0; l <= 3; l++) {
        int shift = 12 + 9 * (3 - l);
        uint64_t e = t[index_at(va, l)];

        if (!(e & PTE_VALID))
            return false;
        if (l == 3 || !(e & PTE_TABLE)) {
            *pa = (e & PTE_ADDR_MASK & ~((1UL << shift) - 1)) |
                  (va & ((1UL << shift) - 1));
            return true;
        }
        t = table(e);
    }
    return false;
}

/* Maps [base, base + size) with 2 MiB blocks of attributes attr, leaving
   blocks that are already mapped as they are (RAM wins over devices). */
static void map_blocks(uint64_t base, uint64_t size, uint64_t attr)
{
    if (!size)
        return;
    for (uint64_t a = base & ~(MIB2 - 1); a < base + size; a += MIB2) {
        uint64_t *pde = walk(a, 2, true);

        if (!pde)
            panic("arch_paging_init: out of memory for page tables");
        if (!(*pde & PTE_VALID))
            *pde = a | attr;
    }
}

static void map_device(const struct mach_range *r)
{
    map_blocks(r->base, r->size, BLK_DEVICE);
}

void arch_paging_init(struct bootinfo *bi)
{
    const struct machine *m = bi->machine;
    const struct mach_gic *g = &m->gic;
    uint64_t *pte;

    /* RAM: what the allocator hands out, and what the boot path keeps
       from it (the kernel image, the device tree): an EFI memory map
       lists the image apart from the usable RAM around it.  The boot
       framebuffer is among the reserved ranges but is device memory, so
       it is mapped first (map_blocks keeps the first mapping). */
    for (int i = 0; i < bi->nusable; i++)
        map_blocks(bi->usable[i].base, bi->usable[i].len, BLK_NORMAL);
    map_device(&(struct mach_range){ bi->fb.base, bi->fb.size });
    for (int i = 0; i < bi->nreserved; i++)
        map_blocks(bi->reserved[i].base, bi->reserved[i].len, BLK_NORMAL);
    map_device(&m->uart);
    map_device(&g->dist);
    map_device(&g->cpuif);
    for (uint32_t i = 0; i < g->nredist; i++)
        map_device(&g->redist[i]);
    map_device(&g->its);
    map_device(&m->rtc);
    for (uint32_t i = 0; i < m->nvirtio; i++)
        map_device(&(struct mach_range){ m->virtio[i].base,
                                        m->virtio[i].size });
    map_device(&m->pci.ecam);
    /* NULL dereferences fault, wherever RAM starts. */
    if (split(0))
        panic("arch_paging_init: out of memory for page tables");
    if ((pte = walk(0, 3, false)))
        *pte = 0;
    table_sync();
    mmu_switch((uint64_t)kernel_l0);
}

/*
 * Moves this core from the boot map to the kernel's tables.  Both map
 * the running code and stack the same way, so the switch is seamless;
 * the TLB flush drops the boot map's entries.
 */
static void mmu_switch(uint64_t ttbr0)
{
    __asm__ volatile("dsb ish\n\tmsr ttbr0_el1, %0\n\tisb\n\t"
                     "tlbi vmalle1\n\tdsb nsh\n\tisb" : : "r"(ttbr0) :
                     "memory");
}

uint64_t mmu_kernel_ttbr(void)
{
    return (uint64_t)kernel_l0;
}

/*
 * A new core's TTBR1: its two tables and its core-local page
 * (corelocal.h), which starts as entry.S starts the boot core's, with
 * interrupts masked and PSTATE.I set.  The core reads the tables only
 * with its MMU on, coherently with this core's caches.  Returns 0 when
 * memory is short.
 */
uint64_t mmu_local_ttbr(void)
{
    uint64_t *l2 = new_table(), *l3 = new_table();
    uint64_t pa = mem_alloc_pages(1);   /* zeroed */
    uint8_t *local;

    if (!l2 || !l3 || !pa)
        return 0;
    local = phys_to_virt(pa);
    local[LOCAL_IRQ_OFF] = 1;
    local[LOCAL_IRQ_SLOW] = IRQ_HARD_OFF;
    l3[LOCAL_L3_INDEX] = pa | LOCAL_PAGE;
    l2[LOCAL_L2_INDEX] = (uint64_t)l3 | PTE_VALID | PTE_TABLE;
    table_sync();
    return (uint64_t)l2;
}
