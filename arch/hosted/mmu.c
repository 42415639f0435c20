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
 * pages: a G's slot faults only on its guard and on pages given back
 * (below), whose fault trap.c fixes up wherever it comes from, libc's
 * memcpy included.  Only the top page has a frame, as the slot's account.
 *
 * The slot area is shared memory (a memfd), mapped a second time at
 * slot_view, so that a parked G's pages can be given back (vm.c, through
 * arch.h's arch_gslot_* hooks): arch_unmap_page makes a slot page a
 * guard region, which drops it from the slot but not from the memfd; vm.c
 * copies what it keeps out of the view, and arch_gslot_drop punches the
 * pages out of the memfd.  The first touch of the slot faults on the
 * guard, and vm_fault maps the pages back (arch_map_page removes the
 * guards) and fills them through the view.  Guard regions in shared
 * memory are newer than in private memory: without them the slot area is
 * private memory, as it was, and slots keep their pages
 * (arch_gslot_releasable).
 *
 * A small software page table answers arch_virt_to_phys: one entry per
 * page of the heap and stack areas and of the slots (a frame, GUARDED for
 * a slot page given back, or 0: a slot page without a frame of its own),
 * in a reserved array the host backs only where it is written.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

#define GUARDED 2               /* a slot page's entry once given back */
#define SIGFRAME_MAX (8 * 1024) /* a signal frame, with AVX-512 state */

#define NPAGES (ARCH_VM_AREA / PAGE_SIZE)

static uint64_t *pte[4];        /* per area: frame | 1, or 0 */
static bool guard_regions = true;
static uintptr_t ram_lo, ram_hi;
static int slot_fd = -1;        /* the slot area's memory, if shared */
static char *slot_view;         /* all of it again, never guarded */

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

/*
 * The slot area and its view: the same memfd, mapped twice, if the host
 * has guard regions in shared memory (probed on slot 0's guard page);
 * else private memory, whose pages a slot keeps.  False in that case.
 */
static bool slots_shared(void)
{
    void *p;

    slot_fd = memfd_create("spindle-gslots", MFD_CLOEXEC);
    if (slot_fd < 0 || ftruncate(slot_fd, ARCH_VM_AREA))
        return false;
    p = mmap((void *)VM_GSLOT_BASE, ARCH_VM_AREA, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, slot_fd, 0);
    if (p != (void *)VM_GSLOT_BASE)
        return false;
    if (madvise(p, PAGE_SIZE, MADV_GUARD_INSTALL)) {
        munmap(p, ARCH_VM_AREA);
        return false;
    }
    p = mmap(NULL, ARCH_VM_AREA, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_NORESERVE, slot_fd, 0);
    if (p == MAP_FAILED) {
        munmap((void *)VM_GSLOT_BASE, ARCH_VM_AREA);
        return false;
    }
    slot_view = p;
    return true;
}

static void guard(uintptr_t page);

void arch_paging_init(struct bootinfo *bi)
{
    (void)bi;
    reserve_at(VM_HEAP_BASE, PROT_NONE);
    reserve_at(VM_STACK_BASE, PROT_NONE);
    if (!slots_shared()) {
        if (slot_fd >= 0)
            close(slot_fd);
        slot_fd = -1;
        printk("mmu: no guard regions in shared memory on this host; "
               "parked Gs keep their stack pages\n");
        reserve_at(VM_GSLOT_BASE, PROT_READ | PROT_WRITE);
        guard(VM_GSLOT_BASE);   /* slot 0's; learns guard_regions */
    }
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

/*
 * Maps back all of a slot whose pages were given back, not just the page
 * asked for: the pages vm.c leaves unmapped (below what it kept) would
 * fault in a G's code, but not when the host pushes a signal frame there,
 * which it cannot then deliver.
 */
static bool unguard_slot(uintptr_t slot)
{
    if (madvise((void *)(slot + PAGE_SIZE), VM_GSLOT_SIZE - PAGE_SIZE,
                MADV_GUARD_REMOVE))
        return false;
    for (uintptr_t va = slot + PAGE_SIZE; va < slot + VM_GSLOT_SIZE;
         va += PAGE_SIZE)
        if (*pte_of(2, va) == GUARDED)
            *pte_of(2, va) = 0;
    return true;
}

static bool in_ram(uint64_t pa)
{
    return pa >= ram_lo && pa < ram_hi;
}

int arch_map_page(uintptr_t va, uint64_t pa, int flags)
{
    int area = area_of(va);
    uint64_t *e;

    if (area < 0)
        panic("arch_map_page: 0x%lx is outside the kernel's areas", va);
    e = pte_of(area, va);
    if (area == 2) {
        uintptr_t slot = vm_gslot_of(va);

        if (*e == GUARDED) {
            if (!unguard_slot(slot))
                return -12;
        } else if (va == slot + VM_GSLOT_SIZE - PAGE_SIZE) {
            /* A new slot: its top page comes first, and the G's first
               frame goes there at once.  Populating it costs one system
               call, less than the fault it saves (Linux 5.14; an older
               host faults as before). */
            guard(slot);
            if (slot_fd >= 0)
                madvise((void *)va, PAGE_SIZE, MADV_POPULATE_WRITE);
        }
    } else if (mprotect((void *)va, PAGE_SIZE,
                        PROT_READ | (flags & MAP_WRITE ? PROT_WRITE : 0))) {
        return -12;
    }
    *e = in_ram(pa) ? pa | 1 : 0;
    /* The page's bytes are the host's at va, not the frame's: a frame
       vm.c zeroed goes back to the host.  A slot page's frame was never
       touched (vm.c's map_fresh), and the call would cost a TLB
       shootdown per G on a host that emulates them. */
    if (in_ram(pa) && area != 2)
        madvise(phys_to_virt(pa), PAGE_SIZE, MADV_DONTNEED);
    return 0;
}

void arch_unmap_page(uintptr_t va)
{
    int area = area_of(va);

    if (area < 0)
        return;
    if (area == 2) {
        /* Only with slots_shared, whose probe found guard regions. */
        if (madvise((void *)va, PAGE_SIZE, MADV_GUARD_INSTALL))
            panic("arch_unmap_page: the host refused a guard region at "
                  "0x%lx", va);
        *pte_of(area, va) = GUARDED;
        return;
    }
    *pte_of(area, va) = 0;
    mprotect((void *)va, PAGE_SIZE, PROT_NONE);
}

bool arch_virt_to_phys(uintptr_t va, uint64_t *pa)
{
    int area = area_of(va);
    uintptr_t lo, hi;
    uint64_t e;

    if (va >= ram_lo && va < ram_hi) {
        *pa = va;
        return true;
    }
    if (area < 0)
        return false;
    /* A big stack in use is host memory opened whole, at its own
       address (arch_bigstack_open). */
    if (vm_bigstack_of(va) && vm_bigstack_bounds(va, &lo, &hi)) {
        *pa = va;
        return true;
    }
    e = *pte_of(area, va & ~(PAGE_SIZE - 1));
    if (area == 2) {
        uintptr_t slot = vm_gslot_of(va);

        /* A slot in use: all but its guard and the pages given back is
           host-backed memory, at its own address unless it has a frame. */
        if (va - slot < PAGE_SIZE || e == GUARDED ||
            !*pte_of(2, slot + VM_GSLOT_SIZE - PAGE_SIZE))
            return false;
        *pa = e ? (e & ~1UL) | (va & (PAGE_SIZE - 1)) : va;
        return true;
    }
    if (!e)
        return false;
    *pa = (e & ~1UL) | (va & (PAGE_SIZE - 1));
    return true;
}

/*
 * Through the memfd rather than slot_view: a page read or written through
 * the view is a fault there, and the punch that frees the page later a
 * TLB shootdown to take it out again, on every release.  slot_view is
 * the fallback if the host refuses the call.
 */
const void *arch_gslot_read(uintptr_t va, uint64_t pa, void *buf)
{
    off_t off = (off_t)(va - VM_GSLOT_BASE);

    (void)pa;
    if (pread(slot_fd, buf, PAGE_SIZE, off) == PAGE_SIZE)
        return buf;
    return slot_view + off;
}

void arch_gslot_write(uintptr_t va, uint64_t pa, const void *src, size_t n)
{
    off_t off = (off_t)(va - VM_GSLOT_BASE);

    (void)pa;
    if (pwrite(slot_fd, src, n, off) != (ssize_t)n)
        memcpy(slot_view + off, src, n);
}

bool arch_gslot_frame(uint64_t pa)
{
    return in_ram(pa);
}

/* One guard region over the whole run: each madvise on the shared slot
   area costs a TLB shootdown across the process's threads, which is most
   of a release's time on a host that emulates them. */
void arch_gslot_unmap(uintptr_t lo, uintptr_t hi)
{
    if (madvise((void *)lo, hi - lo, MADV_GUARD_INSTALL))
        panic("arch_gslot_unmap: the host refused a guard region at "
              "[0x%lx, 0x%lx)", lo, hi);
    for (uintptr_t va = lo; va < hi; va += PAGE_SIZE)
        *pte_of(2, va) = GUARDED;
}

void arch_gslot_drop(uintptr_t lo, uintptr_t hi)
{
    static bool told;

    if (fallocate(slot_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)(lo - VM_GSLOT_BASE), (off_t)(hi - lo)) && !told) {
        told = true;
        printk("mmu: cannot free given-back G stack pages (fallocate); "
               "the host keeps them\n");
    }
}

/*
 * A signal frame the host could not push below sp: if sp is a G's, well
 * above its guard page, its slot must have had pages given back (the
 * G's own code would have faulted on them first, unless it ran in
 * registers only since); they are mapped back.  If none are given back
 * any more, another core may just have mapped them back, which is worth
 * one retry; the same report at the same place again is something else
 * (a general protection fault reads the same: SI_KERNEL, no address).
 */
bool hosted_gslot_refault(uintptr_t sp)
{
    static __thread uintptr_t blind;    /* the last retry's sp */
    uintptr_t va = sp - 1;

    if (area_of(va) != 2 || va - vm_gslot_of(va) < PAGE_SIZE + SIGFRAME_MAX)
        return false;
    if (vm_gslot_restore(va)) {
        blind = 0;
        return true;
    }
    if (blind == sp)
        return false;
    blind = sp;
    return true;
}

bool arch_gslot_releasable(void)
{
    return slot_fd >= 0;
}

/* Nothing to drop: madvise has shot down every thread's entries. */
void arch_tlb_flush_local(void)
{
}

size_t arch_page_table_pages(void)
{
    return 0;                   /* the tables are host memory */
}

/* Big G stacks (arch_impl.h): the stack area's pages, opened whole. */
int arch_bigstack_open(uintptr_t lo, uintptr_t hi)
{
    return mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) ? -12 : 0;
}

void arch_bigstack_close(uintptr_t lo, uintptr_t hi)
{
    if (madvise((void *)lo, hi - lo, MADV_DONTNEED) ||
        mprotect((void *)lo, hi - lo, PROT_NONE))
        panic("arch_bigstack_close: the host refused [0x%lx, 0x%lx)",
              lo, hi);
}
