/*
 * vm.h - kernel virtual areas outside the direct map: the newlib heap
 * and stacks with guard pages.  Pages are mapped on demand from mem.c.
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
#define VM_STACK_MAX    ARCH_VM_AREA
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
