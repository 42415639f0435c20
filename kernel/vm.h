/*
 * vm.h - kernel virtual areas outside the direct map: the newlib heap,
 * stacks with guard pages, G slots and big G stacks.  Pages are mapped on
 * demand from mem.c.
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/arch.h"

/*
 * Where the four areas lie: 16, 32, 48 and 64 TiB, 1 TiB each, unless the
 * arch's address space wants them elsewhere (arch_impl.h then defines all
 * three: ARCH_VM_BASE, ARCH_VM_STRIDE between areas, ARCH_VM_AREA size).
 * The fourth is the G table: slot i's struct g is its entry i, so that a
 * G's header stays mapped while its slot's pages are given back
 * (vm_gslot_release).
 */
#ifndef ARCH_VM_BASE
#define ARCH_VM_BASE    0x100000000000UL
#define ARCH_VM_STRIDE  0x100000000000UL
#define ARCH_VM_AREA    0x010000000000UL
#endif

#define VM_HEAP_BASE    ARCH_VM_BASE                        /* sbrk */
#define VM_HEAP_MAX     ARCH_VM_AREA
#define VM_STACK_BASE   (ARCH_VM_BASE + ARCH_VM_STRIDE)     /* stacks */
#define VM_STACK_MAX    (ARCH_VM_AREA / 2)      /* then the big stacks */
#define VM_GSLOT_BASE   (ARCH_VM_BASE + 2 * ARCH_VM_STRIDE) /* G stacks */
#define VM_GSLOT_MAX    ARCH_VM_AREA
#define VM_GTAB_AREA    (ARCH_VM_BASE + 3 * ARCH_VM_STRIDE) /* struct g */
#define VM_GTAB_BASE    (VM_GTAB_AREA + VM_GTAB_COLOR)
#define VM_GTAB_MAX     (ARCH_VM_AREA / 2 - VM_GTAB_COLOR)  /* then vm.c's */
/*
 * The G table starts 192 pages into its area.  A direct-mapped TLB
 * indexed by the low bits of the page number (QEMU's soft TLB, of 256
 * entries or more) puts the first page of every area, and of the kernel
 * image, at index 0, the second at 1 and so on: the G table's first
 * pages, which hold the struct g of every G a program starts with, would
 * evict and be evicted by the first heap, stack and code pages on every
 * switch.  192 is an index none of those reach early.
 */
#define VM_GTAB_COLOR   (192 * 4096UL)
/*
 * A slot is a guard page and 16 pages of stack and struct g: 17 pages,
 * not a power of two, on purpose.  Slots 16 pages apart put every G's
 * top page (its struct g and its stack's top) at one of 16 indexes of a
 * direct-mapped TLB, QEMU's soft TLB among them, and in the same few sets
 * of a physically indexed cache; with hundreds of Gs alive they evicted
 * each other.  17 pages apart they use every index in turn.  The price:
 * finding a slot from an address takes a division by a constant, not a
 * mask (vm_gslot_of).
 */
#define VM_GSLOT_SIZE   (17 * 4096UL)

/*
 * Big G stacks (sp_go_attr with a stack_size over a slot's): the upper
 * half of the stack area, cut into VM_BIGSTACK_N regions of
 * VM_BIGSTACK_REGION bytes.  A region holds one stack at its top, of at
 * most VM_BIGSTACK_MAXSIZE bytes; everything below it in the region is
 * unmapped and never mapped, so the page under the stack is its guard.
 * The stack's pages are mapped when first touched (vm_fault).  The
 * region's owner (a struct g, which vm.c does not look into) names the G
 * running on it (getg, sched.h).
 */
#define VM_BIGSTACK_BASE    (VM_STACK_BASE + ARCH_VM_AREA / 2)
#define VM_BIGSTACK_SHIFT   26
#define VM_BIGSTACK_REGION  (1UL << VM_BIGSTACK_SHIFT)     /* 64 MiB */
#define VM_BIGSTACK_N       2048UL
#define VM_BIGSTACK_AREA    (VM_BIGSTACK_N * VM_BIGSTACK_REGION)
#define VM_BIGSTACK_MAXSIZE (VM_BIGSTACK_REGION - 4096UL)
_Static_assert(VM_BIGSTACK_AREA <= ARCH_VM_AREA / 2,
               "the big stacks fit the upper half of the stack area");

/* Owner of each region while its stack is in use, else NULL; written
   under vm.c's lock, read by the code running on the stack. */
extern void *vm_bigstack_owner[VM_BIGSTACK_N];

/* The owner of the big stack that holds va, NULL if va lies on none. */
static inline void *vm_bigstack_of(uintptr_t va)
{
    if (va - VM_BIGSTACK_BASE >= VM_BIGSTACK_AREA)
        return NULL;
    return vm_bigstack_owner[(va - VM_BIGSTACK_BASE) >> VM_BIGSTACK_SHIFT];
}

/* The base of the G slot that holds va, which must lie in the area. */
static inline uintptr_t vm_gslot_of(uintptr_t va)
{
    return va - (va - VM_GSLOT_BASE) % VM_GSLOT_SIZE;
}

/* The index of the G slot that holds va (same condition). */
static inline size_t vm_gslot_index(uintptr_t va)
{
    return (va - VM_GSLOT_BASE) / VM_GSLOT_SIZE;
}

/*
 * Touches the stack `bytes` below the caller's frame.  Code that takes
 * vm_lock or mem_lock calls it first: a G's stack page that is not
 * mapped yet then faults in before the lock is held, not while it is (the
 * fault handler needs both locks).  MEM_PROBE_BYTES is for mem.c, whose
 * critical sections use far less stack.  vm.c's call the page allocator
 * under vm_lock, and its probe then reaches MEM_PROBE_BYTES below a frame
 * deeper than vm.c's: VM_PROBE_BYTES covers that reach.
 */
#define MEM_PROBE_BYTES 2048
#define VM_PROBE_BYTES (2 * MEM_PROBE_BYTES)

static inline void vm_stack_probe(size_t bytes)
{
    (void)*(volatile char *)((char *)__builtin_frame_address(0) - bytes);
}

/*
 * Maps a stack of `bytes` (rounded up to pages) with an unmapped guard
 * page below it; returns its lowest address, NULL when out of memory.
 */
void *vm_stack_alloc(size_t bytes);

/*
 * A G slot: VM_GSLOT_SIZE bytes, the lowest page an unmapped guard, only
 * the top page mapped; the rest is mapped when first touched (vm_fault).
 * Its entry in the G table, VM_GTAB_BASE + index * entry bytes, is mapped
 * too (entry must be the same at every call and divide PAGE_SIZE or be a
 * multiple of it).  Returns the slot's base (the guard page), NULL when
 * out of memory.
 */
void *vm_gslot_alloc(size_t entry);

/*
 * Called on a not-present page fault at va: maps a page if va is in the
 * lazily mapped part of a G slot, and first the slot's given-back pages
 * if it has any (vm_gslot_release).  Returns false when the fault is not
 * such a page (a guard page, say); panics when no memory is left for it
 * (a G's stack cannot grow; injected allocation failures do not apply).
 * Interrupts off.
 */
bool vm_fault(uintptr_t va);

/*
 * A big stack of `bytes` (a multiple of PAGE_SIZE, at most
 * VM_BIGSTACK_MAXSIZE) for owner: [*lo, *hi) with an unmapped guard page
 * below; only its top page is mapped, the rest when touched.  False when
 * every region is in use (or being given back) or no memory is left.
 * From a G or g0, no spinlock held.
 */
bool vm_bigstack_alloc(size_t bytes, void *owner, uintptr_t *lo,
                       uintptr_t *hi);

/*
 * Ends the use of the big stack that holds va: it has no owner from now
 * on, and its pages and region are given back by the next
 * vm_bigstack_reap.  Nothing may run on it any more (the caller is g0,
 * after the G switched off it for good).  Interrupts off.
 */
void vm_bigstack_free(uintptr_t va);

/* Big stacks freed and not yet given back (or being given back). */
size_t vm_bigstacks_dead(void);

/*
 * Gives back the pages and regions of the freed big stacks: unmaps them,
 * has every core drop them from its TLB (smp_call_all_irq), then frees
 * the frames.  Returns how many stacks it gave back; 0 at once when
 * another core is reaping.  From a G or the idle path, no spinlock held.
 */
size_t vm_bigstack_reap(void);

/* Pages mapped for big stacks now. */
size_t vm_bigstack_pages(void);

/* The bounds of the big stack that holds va (ASan's fiber switches);
   false if va lies on none in use. */
bool vm_bigstack_bounds(uintptr_t va, uintptr_t *lo, uintptr_t *hi);

/* Maps back the pages of the slot that holds va if they were given
   back; false if they were not.  Interrupts off. */
bool vm_gslot_restore(uintptr_t va);

/*
 * Gives back the pages of a parked or dead G's slot, keeping the bytes
 * of [lo, top of the slot) (at most two pages, none if lo is the top;
 * lo is a parked G's saved stack pointer, say).  Two steps, because another core may
 * still reach the pages through its TLB:
 *   vm_gslot_release unmaps them, holding their frames; false if the
 *   slot has no record free or nothing mapped, or lo is out of range.
 *   Then every core drops them from its TLB (arch_tlb_flush_local,
 *   between Gs: sched/release.c), after which no core can reach them.
 *   vm_gslot_release_finish keeps the bytes that are not zero and frees
 *   the frames (1); or the slot was touched meanwhile and is whole again,
 *   or keep is false (the caller saw that the G ran meanwhile) and the
 *   frames are mapped back (0); or they are mapped back because the
 *   bytes do not fit a record, or no memory is left for one (-1).
 * Any touch of the slot afterwards, by its G or another, faults and maps
 * it back first (vm_fault).  The caller checks after the TLB drop that
 * the G did not run in between (keep), and sees that one core at a time
 * releases and that at most 64 slots are between the two steps.  From a
 * G or the idle path, no spinlock held.
 */
bool vm_gslot_release(uintptr_t slot, uintptr_t lo);
int vm_gslot_release_finish(uintptr_t slot, bool keep);
/* Slots whose pages are given back now; releases finished since boot. */
size_t vm_gslots_released(void);
uint64_t vm_gslot_releases(void);
/* The page allocator's free pages and vm_gslot_pages, read together: a
   release (in the background, on an idle core) changes both at once. */
void vm_page_accounts(size_t *mem_free, size_t *gslot);
/* True if va lies in a stack guard page (a stack overflowed into it);
   *size, if not NULL, is then the bytes of the stack it guards when
   known (a G's), else 0. */
bool vm_is_stack_guard(uintptr_t va, size_t *size);

/* Grows the heap by incr bytes (sbrk); returns the old end or NULL. */
void *vm_heap_grow(ptrdiff_t incr);

/*
 * Makes the device registers at [pa, pa + len) reachable, uncached, at
 * the same virtual address (the direct map's rule); pages the boot map
 * already covers are left as they are.  Returns the address, or NULL if
 * a page table could not be allocated.  From a G or the boot path.
 */
void *vm_map_device(uint64_t pa, size_t len);

/* Pages held for G slots: their mapped pages and G table. */
size_t vm_gslot_pages(void);

/* Pages mapped for the heap so far. */
size_t vm_heap_pages(void);

#endif
