/*
 * vmbig.c - big G stacks: regions of the stack area's upper half
 * (kernel/vm.h), one stack each, mapped a page at a time as the G
 * touches them and given back whole when it exits.
 *
 * A region is FREE, LIVE (a G's stack: [lo, top of the region), the page
 * under lo its guard, nothing below mapped ever) or DEAD (its G exited;
 * its pages wait for vm_bigstack_reap).  Giving the pages back takes
 * three steps, because another core that ran the G may still hold the
 * pages in its TLB: unmap them, have every core drop its translations
 * (smp_call_all_irq), and only then free the frames and the region.  A
 * frame is freed only after no core can reach it through the old
 * address, and a region is reused only after no core can reach its old
 * frames.  The exiting G's g0 cannot wait for the other cores
 * (interrupts off): it marks the region DEAD, and the reap runs from a
 * G (the next sp_go_attr asking for a big stack) or from an idle core.
 *
 * Where the arch backs the area itself (ARCH_BIGSTACK_BACKING: the
 * hosted build, whose host pages on first touch), opening a stack makes
 * the range accessible and the reap hands the memory back to the host
 * (arch_bigstack_open, arch_bigstack_close), which shoots down every
 * thread's TLB itself.
 *
 * Locks: vm_lock (vmimpl.h) guards the regions' state, their lists and
 * the page tables; reap is one core at a time (reaping).
 */
#include <stddef.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/vm.h"
#include "kernel/vmimpl.h"

#ifndef ARCH_BIGSTACK_BACKING
/* Bare metal: vm_bigstack_fault maps the pages, the reap unmaps them. */
#define ARCH_BIGSTACK_BACKING 0

static inline int arch_bigstack_open(uintptr_t lo, uintptr_t hi)
{
    (void)lo;
    (void)hi;
    return 0;
}

static inline void arch_bigstack_close(uintptr_t lo, uintptr_t hi)
{
    (void)lo;
    (void)hi;
}
#endif

enum { BIG_FREE, BIG_LIVE, BIG_DEAD };

/* How many DEAD stacks one reap gives back at most. */
#define REAP_MAX 64

void *vm_bigstack_owner[VM_BIGSTACK_N];

/* Under vm_lock. */
static struct {
    uint8_t state;
    uintptr_t lo;               /* lowest byte of the stack */
    uintptr_t mapped;           /* lowest page mapped (bare metal) */
} big[VM_BIGSTACK_N];
static uint16_t freeq[VM_BIGSTACK_N];  /* FREE regions, a stack */
static size_t nfree;
static bool ready;
static uint16_t deadq[VM_BIGSTACK_N];  /* DEAD regions */
static size_t ndead;            /* atomic stores: read unlocked */
static size_t nreaping;         /* taken by the reap running; same */
static size_t bigpages;         /* pages mapped; atomic stores */
static int reaping;             /* a reap is running; exchange */

static inline uintptr_t region_base(size_t i)
{
    return VM_BIGSTACK_BASE + i * VM_BIGSTACK_REGION;
}

static inline uintptr_t region_top(size_t i)
{
    return region_base(i) + VM_BIGSTACK_REGION;
}

static inline size_t region_of(uintptr_t va)
{
    return (va - VM_BIGSTACK_BASE) >> VM_BIGSTACK_SHIFT;
}

bool vm_bigstack_alloc(size_t bytes, void *owner, uintptr_t *lo,
                       uintptr_t *hi)
{
    unsigned long f;
    size_t i;
    bool ok = false;

    if (!bytes || bytes % PAGE_SIZE || bytes > VM_BIGSTACK_MAXSIZE)
        return false;
    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    if (!ready) {
        /* Region 0 on top: the first stacks take the lowest regions. */
        for (i = 0; i < VM_BIGSTACK_N; i++)
            freeq[i] = VM_BIGSTACK_N - 1 - i;
        nfree = VM_BIGSTACK_N;
        ready = true;
    }
    if (!nfree)
        goto out;
    i = freeq[nfree - 1];
    *hi = region_top(i);
    *lo = *hi - bytes;
    if (ARCH_BIGSTACK_BACKING) {
        if (arch_bigstack_open(*lo, *hi))
            goto out;
    } else if (vm_map_fresh(*hi - PAGE_SIZE, 1) != 1) {
        goto out;       /* the first frame goes on the top page at once */
    } else {
        __atomic_store_n(&bigpages, bigpages + 1, __ATOMIC_RELAXED);
    }
    nfree--;
    big[i].state = BIG_LIVE;
    big[i].lo = *lo;
    big[i].mapped = *hi - PAGE_SIZE;
    /* Before the stack's first frame is written: the G finds itself
       through it (getg). */
    __atomic_store_n(&vm_bigstack_owner[i], owner, __ATOMIC_RELEASE);
    ok = true;
out:
    spin_unlock(&vm_lock, f);
    return ok;
}

void vm_bigstack_free(uintptr_t va)
{
    size_t i = region_of(va);
    unsigned long f;

    f = spin_lock(&vm_lock);
    if (va - VM_BIGSTACK_BASE >= VM_BIGSTACK_AREA || big[i].state != BIG_LIVE)
        panic("vm_bigstack_free: 0x%lx is on no big stack in use",
              (unsigned long)va);
    big[i].state = BIG_DEAD;
    __atomic_store_n(&vm_bigstack_owner[i], NULL, __ATOMIC_RELAXED);
    deadq[ndead] = i;
    __atomic_store_n(&ndead, ndead + 1, __ATOMIC_RELAXED);
    spin_unlock(&vm_lock, f);
}

size_t vm_bigstacks_dead(void)
{
    return __atomic_load_n(&ndead, __ATOMIC_RELAXED) +
           __atomic_load_n(&nreaping, __ATOMIC_RELAXED);
}

size_t vm_bigstack_pages(void)
{
    return __atomic_load_n(&bigpages, __ATOMIC_RELAXED);
}

/*
 * Unmaps region i's pages, chaining their frames through their first
 * word (no code reaches them by their old address any more: the G is
 * dead) onto *chain; returns how many.  Under vm_lock.
 */
static size_t unmap_region(size_t i, uint64_t *chain)
{
    uintptr_t top = region_top(i);
    size_t n = 0;
    uint64_t pa;

    for (uintptr_t va = big[i].mapped; va < top; va += PAGE_SIZE) {
        if (!arch_virt_to_phys(va, &pa))
            continue;
        arch_unmap_page(va);
        pa &= ~(uint64_t)(PAGE_SIZE - 1);
        *(uint64_t *)phys_to_virt(pa) = *chain;
        *chain = pa;
        n++;
    }
    return n;
}

static void drop_tlb(void *arg)
{
    (void)arg;
    arch_tlb_flush_local();
}

size_t vm_bigstack_reap(void)
{
    uint16_t taken[REAP_MAX];
    uint64_t chain = 0;
    size_t n, pages = 0;
    unsigned long f;

    if (!__atomic_load_n(&ndead, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&reaping, 1, __ATOMIC_ACQUIRE))
        return 0;
    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    n = ndead < REAP_MAX ? ndead : REAP_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t i = taken[k] = deadq[ndead - 1 - k];

        if (ARCH_BIGSTACK_BACKING)
            arch_bigstack_close(big[i].lo, region_top(i));
        else
            pages += unmap_region(i, &chain);
    }
    __atomic_store_n(&nreaping, n, __ATOMIC_RELAXED);
    __atomic_store_n(&ndead, ndead - n, __ATOMIC_RELAXED);
    spin_unlock(&vm_lock, f);

    if (pages)
        smp_call_all_irq(drop_tlb, NULL);
    while (chain) {
        uint64_t next = *(uint64_t *)phys_to_virt(chain);

        mem_free_pages(chain, 1);
        chain = next;
    }

    f = spin_lock(&vm_lock);
    for (size_t k = 0; k < n; k++) {
        big[taken[k]].state = BIG_FREE;
        freeq[nfree++] = taken[k];
    }
    __atomic_store_n(&bigpages, bigpages - pages, __ATOMIC_RELAXED);
    __atomic_store_n(&nreaping, 0, __ATOMIC_RELAXED);
    spin_unlock(&vm_lock, f);
    __atomic_store_n(&reaping, 0, __ATOMIC_RELEASE);
    return n;
}

bool vm_bigstack_fault(uintptr_t va)
{
    uintptr_t page = va & ~(uintptr_t)(PAGE_SIZE - 1);
    size_t i = region_of(va);
    unsigned long f;
    uint64_t pa;
    bool ok = true;

    fault_hold();
    f = spin_lock(&vm_lock);
    if (big[i].state != BIG_LIVE || va < big[i].lo) {
        ok = false;             /* a guard, or no stack there */
    } else if (!arch_virt_to_phys(page, &pa)) {
        if (vm_map_fresh(page, 1) != 1) {
            spin_unlock(&vm_lock, f);
            fault_release();
            panic("vm_fault: out of memory for a stack page at 0x%lx",
                  (unsigned long)page);
        }
        if (page < big[i].mapped)
            big[i].mapped = page;
        __atomic_store_n(&bigpages, bigpages + 1, __ATOMIC_RELAXED);
    }
    spin_unlock(&vm_lock, f);
    fault_release();
    return ok;
}

/* Read without the lock: the panic path's, on a machine stopped. */
bool vm_bigstack_guard(uintptr_t va, size_t *size)
{
    size_t i = region_of(va);

    if (big[i].state != BIG_LIVE || va >= big[i].lo)
        return false;
    if (size)
        *size = region_top(i) - big[i].lo;
    return true;
}

bool vm_bigstack_bounds(uintptr_t va, uintptr_t *lo, uintptr_t *hi)
{
    size_t i = region_of(va);

    if (va - VM_BIGSTACK_BASE >= VM_BIGSTACK_AREA ||
        !__atomic_load_n(&vm_bigstack_owner[i], __ATOMIC_ACQUIRE))
        return false;
    *lo = big[i].lo;
    *hi = region_top(i);
    return true;
}
