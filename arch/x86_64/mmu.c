/*
 * mmu.c - the kernel's page tables (4-level, shared by every core).
 *
 * Layout: identity map of all RAM and of the 32-bit device window below
 * 4 GiB, with 2 MiB pages; write-back for chunks that hold RAM, uncached
 * otherwise (LAPIC, IOAPIC, PCIe ECAM live there), and of the boot
 * framebuffer (bi->fb) uncached wherever it is.  The first 2 MiB are
 * 4 KiB pages so that page 0 can stay unmapped and NULL faults.  Areas
 * above the direct map (heap, stacks) are mapped page by page via
 * arch_map_page; a 2 MiB page is split when a single page inside it
 * changes.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/bootinfo.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

#define ENTRIES     512
#define ADDR_MASK   0x000FFFFFFFFFF000UL
#define GIB         (1UL << 30)
#define MIB2        (1UL << 21)
#define VA_LIMIT    (1UL << 47)     /* the lower canonical half */

static uint64_t kernel_pml4[ENTRIES] __attribute__((aligned(4096)));
static size_t table_pages;      /* page-table pages taken from mem.c */

static uint64_t *table(uint64_t e)
{
    return phys_to_virt(e & ADDR_MASK);
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

/* Returns the entry for va at the given level (3 = PDPT .. 1 = PT),
   creating tables on the way when create is set. */
static uint64_t *walk(uintptr_t va, int level, bool create)
{
    uint64_t *t = kernel_pml4;

    for (int l = 4; l > level; l--) {
        uint64_t *e = &t[(va >> (12 + 9 * (l - 1))) & 511];

        if (!(*e & PTE_P)) {
            uint64_t *n;

            if (!create || !(n = new_table()))
                return 0;
            *e = (uint64_t)n | PTE_P | PTE_W;
        } else if (*e & PTE_PS) {
            return 0;           /* large page above the wanted level */
        }
        t = table(*e);
    }
    return &t[(va >> (12 + 9 * (level - 1))) & 511];
}

/* Replaces the 2 MiB page holding va by a table of 512 small pages. */
static int split(uintptr_t va)
{
    uint64_t *pde = walk(va, 2, true);
    uint64_t *pt;

    if (!pde)
        return -12;
    if (!(*pde & PTE_PS))
        return 0;
    if (!(pt = new_table()))
        return -12;
    for (int i = 0; i < ENTRIES; i++)
        pt[i] = ((*pde & ADDR_MASK) + i * PAGE_SIZE) |
                (*pde & (PTE_P | PTE_W | PTE_PWT | PTE_PCD));
    *pde = (uint64_t)pt | PTE_P | PTE_W;
    return 0;
}

int arch_map_page(uintptr_t va, uint64_t pa, int flags)
{
    uint64_t *pte;
    int err = split(va);

    if (err)
        return err;
    if (!(pte = walk(va, 1, true)))
        return -12;
    *pte = pa | PTE_P | (flags & MAP_WRITE ? PTE_W : 0) |
           (flags & MAP_NOCACHE ? PTE_PCD | PTE_PWT : 0);
    invlpg(va);
    return 0;
}

void arch_unmap_page(uintptr_t va)
{
    uint64_t *pte;

    if (split(va) || !(pte = walk(va, 1, false)))
        return;
    *pte = 0;
    invlpg(va);
}

void arch_tlb_flush_local(void)
{
    write_cr3(read_cr3());      /* G slots' pages are not global */
}

bool arch_virt_to_phys(uintptr_t va, uint64_t *pa)
{
    uint64_t *t = kernel_pml4;

    for (int l = 4; l >= 1; l--) {
        int shift = 12 + 9 * (l - 1);
        uint64_t e = t[(va >> shift) & 511];

        if (!(e & PTE_P))
            return false;
        if (l == 1 || (e & PTE_PS)) {
            *pa = (e & ADDR_MASK & ~((1UL << shift) - 1)) |
                  (va & ((1UL << shift) - 1));
            return true;
        }
        t = table(e);
    }
    return false;
}

/* Whether [lo, hi) holds RAM: usable memory, or the initrd, which a
   boot path may have cut out of the usable ranges (initrd_setup left it
   in bi only if it lies in RAM). */
static bool has_ram(const struct bootinfo *bi, uint64_t lo, uint64_t hi)
{
    for (int i = 0; i < bi->nusable; i++) {
        const struct memrange *r = &bi->usable[i];

        if (r->base < hi && r->base + r->len > lo)
            return true;
    }
    return bi->initrd_size && bi->initrd < hi && bi->initrd + bi->initrd_size > lo;
}

void arch_paging_init(struct bootinfo *bi)
{
    uint64_t top = 4 * GIB;

    for (int i = 0; i < bi->nusable; i++)
        if (bi->usable[i].base + bi->usable[i].len > top)
            top = bi->usable[i].base + bi->usable[i].len;
    for (uint64_t a = 0; a < top; a += MIB2) {
        bool ram = has_ram(bi, a, a + MIB2);
        uint64_t *pde;

        if (!ram && a >= 4 * GIB)
            continue;
        if (!(pde = walk(a, 2, true)))
            panic("arch_paging_init: out of memory for page tables");
        *pde = a | PTE_P | PTE_W | PTE_PS | (ram ? 0 : PTE_PCD | PTE_PWT);
    }
    /* A framebuffer above 4 GiB (a 64-bit BAR); below, the loop mapped it. */
    for (uint64_t a = bi->fb.base & ~(MIB2 - 1); a < bi->fb.base + bi->fb.size;
         a += MIB2) {
        uint64_t *pde;

        if (a >= VA_LIMIT) {
            printk("mmu: the framebuffer at 0x%lx lies beyond the identity map; "
                   "not mapped\n", bi->fb.base);
            break;
        }
        if (!(pde = walk(a, 2, true)))
            panic("arch_paging_init: out of memory for page tables");
        if (!(*pde & PTE_P))
            *pde = a | PTE_P | PTE_W | PTE_PS | PTE_PCD | PTE_PWT;
    }
    if (split(0))
        panic("arch_paging_init: out of memory for page tables");
    *walk(0, 1, false) = 0;     /* NULL dereferences fault */
    write_cr3((uint64_t)kernel_pml4);
}
