/*
 * vm.c - the heap and stack areas above the direct map.
 *
 * Both grow upward by bump allocation and are never given back to the
 * page allocator (big G stacks, in the stack area's upper half, are
 * vmbig.c's): newlib's malloc keeps what sbrk gave it, and stacks are
 * reused through free lists by their owners.  Stacks are separated by one
 * unmapped page each, so running off the bottom of a stack faults on a
 * page nobody owns instead of corrupting the stack below.
 */
#include <stddef.h>
#include <string.h>
#include "arch/arch.h"
#include "kernel/faultinject.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "kernel/vm.h"
#include "kernel/vmimpl.h"

/* The G table's upper half is this file's: a word per slot, saves[]. */
#define VM_SAVES_BASE   (VM_GTAB_AREA + ARCH_VM_AREA / 2)

struct gsave;
static struct gsave **const saves = (struct gsave **)VM_SAVES_BASE;

struct spinlock vm_lock = SPINLOCK_INIT(LOCK_VM);
static uintptr_t heap_end = VM_HEAP_BASE;      /* sbrk's break */
static uintptr_t heap_mapped = VM_HEAP_BASE;   /* end of mapped pages */
static uintptr_t stack_next = VM_STACK_BASE;
static uintptr_t gslot_next = VM_GSLOT_BASE;
static uintptr_t gtab_mapped = VM_GTAB_BASE;    /* end of the G table */
static uintptr_t saves_mapped = VM_SAVES_BASE;  /* end of saves[] */
static size_t gslot_pages;      /* pages of G slots and the G table;
                                   under vm_lock */

/* A frame for page va, zeroed, or 0 if memory ran out.  Where the arch
   backs slot pages itself, their frames only count them, and zeroing one
   would cost its memory for nothing. */
static uint64_t fresh_frame(uintptr_t va)
{
#ifdef ARCH_GSLOT_BACKING
    if (va >= VM_GSLOT_BASE && va < VM_GSLOT_BASE + VM_GSLOT_MAX)
        return mem_alloc_pages_unzeroed(1);
#endif
    (void)va;
    return mem_alloc_pages(1);
}

size_t vm_map_fresh(uintptr_t va, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t pa = fresh_frame(va + i * PAGE_SIZE);

        if (!pa || arch_map_page(va + i * PAGE_SIZE, pa, MAP_WRITE)) {
            if (pa)
                mem_free_pages(pa, 1);
            return i;
        }
    }
    return n;
}

/* Maps fresh pages at *end until it reaches want; under vm_lock. */
static void grow(uintptr_t *end, uintptr_t want)
{
    while (*end < want && vm_map_fresh(*end, 1) == 1) {
        *end += PAGE_SIZE;
        gslot_pages++;
    }
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
        size_t got = vm_map_fresh(lo, n);

        /* A short stack is useless, but its pages stay mapped and the
           area moves past them, so nothing is mapped twice. */
        stack_next = lo + got * PAGE_SIZE;
        if (got < n)
            lo = 0;
    }
    spin_unlock(&vm_lock, f);
    return (void *)lo;
}

void *vm_gslot_alloc(size_t entry)
{
    unsigned long f;
    uintptr_t base, tab_end, saves_end;

    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    base = gslot_next;
    tab_end = VM_GTAB_BASE + (vm_gslot_index(base) + 1) * entry;
    saves_end = (uintptr_t)&saves[vm_gslot_index(base) + 1];

    /* The tables grow in whole pages, ahead of the slots they describe. */
    if (base + VM_GSLOT_SIZE <= VM_GSLOT_BASE + VM_GSLOT_MAX) {
        grow(&gtab_mapped, tab_end);
        grow(&saves_mapped, saves_end);
    }
    if (base + VM_GSLOT_SIZE > VM_GSLOT_BASE + VM_GSLOT_MAX ||
        gtab_mapped < tab_end || saves_mapped < saves_end ||
        vm_map_fresh(base + VM_GSLOT_SIZE - PAGE_SIZE, 1) != 1) {
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

/* ---- Giving back a parked G's pages ------------------------------------ */

/*
 * A slot whose pages are given back has a record in saves[index], in
 * three states.  UNMAPPING: its releaser is unmapping its pages, without
 * vm_lock (on the hosted build each run of pages is a system call and a
 * TLB shootdown, which every other slot's fault, release and allocation
 * would otherwise wait for); a touch of the slot waits for the next
 * state (restore_given_back).  UNMAPPED: its pages are unmapped but their
 * frames held (frames[page]), until every core's TLB has dropped them; a
 * touch maps the same frames back.  SAVED: the frames are free and the
 * bytes of [lo, top of the slot) are kept compacted, the CHUNK-byte pieces
 * that are not zero in address order (bitmap says which); a touch maps
 * fresh pages and fills them.  Either way the slot is whole again before
 * the touching code goes on.  Records come from a small allocator of
 * 64-byte multiples carved from pages (rec_alloc).  Records and saves[]
 * under vm_lock; an UNMAPPING slot's page table entries are its
 * releaser's.
 */
#define SLOT_PAGES      (VM_GSLOT_SIZE / PAGE_SIZE)
#define CHUNK           32
#define SAVE_SPAN       (2 * PAGE_SIZE)     /* the most bytes a record keeps */
#define REC_UNIT        64
#define REC_MAX         2048
#define REC_CLASSES     (REC_MAX / REC_UNIT)

enum { REC_UNMAPPING = 1, REC_UNMAPPED, REC_SAVED };

struct gsave {
    uint32_t state;
    uint32_t bytes;             /* this record's allocation */
    uintptr_t lo;               /* lowest byte kept, CHUNK-aligned */
    union {
        uint64_t frames[SLOT_PAGES];            /* UNMAPPED; 0: none */
        struct {
            uint64_t bitmap[SAVE_SPAN / CHUNK / 64];
            char data[];
        } saved;                                /* SAVED */
    };
};

static struct {
    void *free[REC_CLASSES];    /* freed records by class, linked */
    char *next[REC_CLASSES];    /* the class's page being carved */
    char *end[REC_CLASSES];
} recs;

static size_t released;         /* slots UNMAPPED or SAVED; atomic stores
                                   under vm_lock */
static uint64_t nreleases;      /* finished releases since boot */

/*
 * UNMAPPED records come from a pool of their own, not rec_alloc: between
 * the unmap and the record's finish a G may run on the slot (readied at
 * once), and if it holds mem_lock when it touches its stack, its fault
 * waits for vm_lock; a release that took mem_lock under vm_lock then
 * would wait for it in turn.
 */
#define HELD_MAX 64
static struct gsave held[HELD_MAX];
static struct gsave *held_free;         /* linked through lo */
static bool held_ready;

static void *rec_alloc(size_t bytes)
{
    size_t c = (bytes + REC_UNIT - 1) / REC_UNIT - 1;
    size_t size = (c + 1) * REC_UNIT;
    void *r = recs.free[c];
    uint64_t pa;

    if (r) {
        recs.free[c] = *(void **)r;
        return r;
    }
    if (recs.next[c] + size > recs.end[c]) {
        if (!(pa = mem_alloc_pages(1)))
            return NULL;
        gslot_pages++;
        recs.next[c] = phys_to_virt(pa);
        recs.end[c] = recs.next[c] + PAGE_SIZE;
    }
    r = recs.next[c];
    recs.next[c] += size;
    return r;
}

static void rec_free(void *r, size_t bytes)
{
    size_t c = (bytes + REC_UNIT - 1) / REC_UNIT - 1;

    *(void **)r = recs.free[c];
    recs.free[c] = r;
}

static struct gsave *held_get(void)
{
    struct gsave *s;

    if (!held_ready) {
        for (int i = 0; i < HELD_MAX; i++) {
            held[i].lo = (uintptr_t)held_free;
            held_free = &held[i];
        }
        held_ready = true;
    }
    if ((s = held_free))
        held_free = (struct gsave *)s->lo;
    return s;
}

/* Frees a record of any kind. */
static void gsave_free(struct gsave *s)
{
    if (s->state != REC_SAVED) {
        s->lo = (uintptr_t)held_free;
        held_free = s;
    } else {
        rec_free(s, s->bytes);
    }
}

#ifndef ARCH_GSLOT_BACKING
/* Bare metal: a slot page is its frame (arch.h). */
static inline const void *arch_gslot_read(uintptr_t va, uint64_t pa,
                                          void *buf)
{
    (void)va;
    (void)buf;
    return pa ? phys_to_virt(pa) : NULL;
}

static inline void arch_gslot_write(uintptr_t va, uint64_t pa,
                                    const void *src, size_t n)
{
    memcpy((char *)phys_to_virt(pa) + (va & (PAGE_SIZE - 1)), src, n);
}

static inline bool arch_gslot_frame(uint64_t pa)
{
    return pa != 0;
}

static inline void arch_gslot_unmap(uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t va = lo; va < hi; va += PAGE_SIZE)
        arch_unmap_page(va);
}

static inline void arch_gslot_drop(uintptr_t lo, uintptr_t hi)
{
    (void)lo;
    (void)hi;
}
#endif

/* Copies of slot pages where the arch gives them no address of their
   own (arch_gslot_read), and the page a restore fills; under vm_lock. */
static char span_copy[SAVE_SPAN], page_copy[PAGE_SIZE];

/* The unmapped slot's pages from s->lo's up, as arch_gslot_read gives
   them: pages[0] is s->lo's page.  Under vm_lock. */
static void read_span(const struct gsave *s, uintptr_t slot,
                      const char *pages[SAVE_SPAN / PAGE_SIZE])
{
    uintptr_t first = s->lo & ~(PAGE_SIZE - 1);

    for (size_t i = 0; first + i * PAGE_SIZE < slot + VM_GSLOT_SIZE; i++) {
        uintptr_t va = first + i * PAGE_SIZE;

        pages[i] = arch_gslot_read(va, s->frames[(va - slot) / PAGE_SIZE],
                                   span_copy + i * PAGE_SIZE);
    }
}

/* The byte at va in what read_span gave, NULL if it reads as zero. */
static const char *span_byte(const char *const *pages, uintptr_t lo,
                             uintptr_t va)
{
    const char *p = pages[(va - (lo & ~(PAGE_SIZE - 1))) / PAGE_SIZE];

    return p ? p + (va & (PAGE_SIZE - 1)) : NULL;
}

static bool chunk_zero(const char *p)
{
    const uint64_t *w = (const uint64_t *)p;

    for (size_t i = 0; i < CHUNK / 8; i++)
        if (w[i])
            return false;
    return true;
}

/* Maps the slot's pages back as its record says and drops the record. */
static void restore(uintptr_t slot, struct gsave *s)
{
    uintptr_t top = slot + VM_GSLOT_SIZE;

    if (s->state == REC_UNMAPPED) {
        for (size_t k = 1; k < SLOT_PAGES; k++)
            if (s->frames[k] &&
                arch_map_page(slot + k * PAGE_SIZE, s->frames[k], MAP_WRITE))
                panic("vm_fault: no page table to map back 0x%lx",
                      (unsigned long)(slot + k * PAGE_SIZE));
    } else {
        uintptr_t first = s->lo & ~(PAGE_SIZE - 1);
        size_t n = (top - first) / PAGE_SIZE, i = 0;
        const char *from = s->saved.data;
        uint64_t pa[SAVE_SPAN / PAGE_SIZE];

        /*
         * Filled, then mapped: another core reaches the slot without a
         * fault as soon as a page is mapped (and on the hosted build the
         * whole slot), and must find the kept bytes there.  A page at a
         * time, through arch_gslot_write rather than va: a sanitizer
         * build would check writes to the G's poisoned frames, and the
         * hosted build writes a page in one call.  The pages are fresh,
         * so the pieces not kept are zero already.
         */
        for (size_t k = 0; k < n; k++) {
            uintptr_t page = first + k * PAGE_SIZE;
            uintptr_t lo = page < s->lo ? s->lo : page;
            bool any = false;

            if (!(pa[k] = fresh_frame(page)))
                panic("vm_fault: out of memory to give back the stack of "
                      "the slot at 0x%lx", (unsigned long)slot);
            memset(page_copy, 0, PAGE_SIZE);
            for (uintptr_t va = lo; va < page + PAGE_SIZE; va += CHUNK, i++)
                if (s->saved.bitmap[i / 64] & (1UL << (i % 64))) {
                    memcpy(page_copy + (va - page), from, CHUNK);
                    from += CHUNK;
                    any = true;
                }
            if (any)
                arch_gslot_write(lo, pa[k], page_copy + (lo - page),
                                 page + PAGE_SIZE - lo);
        }
        for (size_t k = 0; k < n; k++)
            if (arch_map_page(first + k * PAGE_SIZE, pa[k], MAP_WRITE))
                panic("vm_fault: no page table to map back 0x%lx",
                      (unsigned long)(first + k * PAGE_SIZE));
        gslot_pages += n;
    }
    saves[vm_gslot_index(slot)] = NULL;
    __atomic_store_n(&released, released - 1, __ATOMIC_RELAXED);
    gsave_free(s);
}

/*
 * Maps back the slot that holds va if it has a record; under vm_lock,
 * whose flags *f holds.  A slot being unmapped is waited for with the
 * lock dropped: its releaser takes the lock again to finish.
 */
static bool restore_given_back(uintptr_t va, unsigned long *f)
{
    struct gsave *s;

    while ((s = saves[vm_gslot_index(va)]) && s->state == REC_UNMAPPING) {
        spin_unlock(&vm_lock, *f);
        cpu_pause();
        *f = spin_lock(&vm_lock);
    }
    if (s)
        restore(vm_gslot_of(va), s);
    return s != NULL;
}

bool vm_gslot_release(uintptr_t slot, uintptr_t lo)
{
    uintptr_t top = slot + VM_GSLOT_SIZE, run = 0;
    struct gsave *s = NULL;
    unsigned long irq, f;
    uint64_t pa;
    bool any = false;

    if (lo < top - SAVE_SPAN || lo > top)
        return false;
    vm_stack_probe(VM_PROBE_BYTES);
    /* Interrupts off until the record is UNMAPPED, the lock or not: an
       interrupt here that touched the slot (a timer function starting a
       G on a dead one) would wait for this very unmapping. */
    irq = arch_irq_save();
    f = spin_lock(&vm_lock);
    if (saves[vm_gslot_index(slot)] || !(s = held_get()))
        goto out;
    s->state = REC_UNMAPPING;
    s->bytes = sizeof *s;
    s->lo = lo & ~(uintptr_t)(CHUNK - 1);
    s->frames[0] = 0;
    for (size_t k = 1; k < SLOT_PAGES; k++) {
        s->frames[k] = 0;
        if (arch_virt_to_phys(slot + k * PAGE_SIZE, &pa)) {
            s->frames[k] = pa & ~(PAGE_SIZE - 1);
            any = true;
        }
    }
    if (!any) {
        gsave_free(s);
        goto out;
    }
    saves[vm_gslot_index(slot)] = s;
    spin_unlock(&vm_lock, f);

    /* Each run of mapped pages is unmapped in one step: the hosted
       build's is a system call, whose cost is per call.  The G may run
       meanwhile on another core; what it writes lands in the frames
       held. */
    for (size_t k = 1; k < SLOT_PAGES; k++) {
        uintptr_t va = slot + k * PAGE_SIZE;

        if (s->frames[k] && !run) {
            run = va;
        } else if (!s->frames[k] && run) {
            arch_gslot_unmap(run, va);
            run = 0;
        }
    }
    if (run)
        arch_gslot_unmap(run, top);

    f = spin_lock(&vm_lock);
    s->state = REC_UNMAPPED;
    __atomic_store_n(&released, released + 1, __ATOMIC_RELAXED);
out:
    spin_unlock(&vm_lock, f);
    arch_irq_restore(irq);
    return any;
}

int vm_gslot_release_finish(uintptr_t slot, bool keep)
{
    uintptr_t top = slot + VM_GSLOT_SIZE;
    uint64_t bitmap[SAVE_SPAN / CHUNK / 64] = { 0 };
    const char *pages[SAVE_SPAN / PAGE_SIZE];
    struct gsave *s, *d = NULL;
    size_t n = 0, i = 0, bytes;
    unsigned long f;
    char *to;

    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    s = saves[vm_gslot_index(slot)];
    if (!s || s->state != REC_UNMAPPED) {
        spin_unlock(&vm_lock, f);
        return 0;               /* touched meanwhile: mapped back */
    }
    if (!keep) {                /* the caller saw the G run meanwhile */
        restore(slot, s);
        spin_unlock(&vm_lock, f);
        return 0;
    }
    read_span(s, slot, pages);
    for (uintptr_t va = s->lo; va < top; va += CHUNK, i++) {
        const char *p = span_byte(pages, s->lo, va);

        if (p && !chunk_zero(p)) {
            bitmap[i / 64] |= 1UL << (i % 64);
            n++;
        }
    }
    bytes = offsetof(struct gsave, saved.data) + n * CHUNK;
    if (bytes > REC_MAX || !(d = rec_alloc(bytes))) {
        restore(slot, s);
        spin_unlock(&vm_lock, f);
        return -1;
    }
    d->state = REC_SAVED;
    d->bytes = bytes;
    d->lo = s->lo;
    memcpy(d->saved.bitmap, bitmap, sizeof bitmap);
    to = d->saved.data;
    i = 0;
    for (uintptr_t va = s->lo; va < top; va += CHUNK, i++)
        if (bitmap[i / 64] & (1UL << (i % 64))) {
            memcpy(to, span_byte(pages, s->lo, va), CHUNK);
            to += CHUNK;
        }
    arch_gslot_drop(slot + PAGE_SIZE, top);
    for (size_t k = 1; k < SLOT_PAGES; k++)
        if (arch_gslot_frame(s->frames[k])) {
            mem_free_pages(s->frames[k], 1);
            gslot_pages--;
        }
    saves[vm_gslot_index(slot)] = d;
    gsave_free(s);
    __atomic_store_n(&nreleases, nreleases + 1, __ATOMIC_RELAXED);
    spin_unlock(&vm_lock, f);
    return 1;
}

void vm_page_accounts(size_t *mem_free, size_t *gslot)
{
    unsigned long f;

    vm_stack_probe(VM_PROBE_BYTES);
    f = spin_lock(&vm_lock);
    *mem_free = mem_free_count();
    *gslot = gslot_pages;
    spin_unlock(&vm_lock, f);
}

size_t vm_gslots_released(void)
{
    return __atomic_load_n(&released, __ATOMIC_RELAXED);
}

uint64_t vm_gslot_releases(void)
{
    return __atomic_load_n(&nreleases, __ATOMIC_RELAXED);
}

bool vm_fault(uintptr_t va)
{
    uintptr_t page = va & ~(PAGE_SIZE - 1);
    uint64_t pa;
    bool ok;
    unsigned long f;

    if (va - VM_BIGSTACK_BASE < VM_BIGSTACK_AREA)
        return vm_bigstack_fault(va);
    if (!in_gslot(va) || va - vm_gslot_of(va) < PAGE_SIZE)
        return false;
    fault_hold();
    f = spin_lock(&vm_lock);
    restore_given_back(va, &f);
    /* Another core may have mapped it meanwhile (a G's stack touched by
       another G, a channel partner say, while its pages were given
       back). */
    ok = arch_virt_to_phys(page, &pa);
    if (!ok && vm_map_fresh(page, 1) == 1) {
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

bool vm_gslot_restore(uintptr_t va)
{
    unsigned long f;
    bool given_back;

    if (!in_gslot(va) || va - vm_gslot_of(va) < PAGE_SIZE)
        return false;
    fault_hold();
    f = spin_lock(&vm_lock);
    given_back = restore_given_back(va, &f);
    spin_unlock(&vm_lock, f);
    fault_release();
    return given_back;
}

bool vm_is_stack_guard(uintptr_t va, size_t *size)
{
    uint64_t pa;

    if (size)
        *size = 0;
    if (va - VM_BIGSTACK_BASE < VM_BIGSTACK_AREA)
        return vm_bigstack_guard(va, size);
    if (in_gslot(va)) {
        if (size)
            *size = VM_GSLOT_SIZE - PAGE_SIZE;
        return va - vm_gslot_of(va) < PAGE_SIZE;
    }
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
        size_t got = vm_map_fresh(heap_mapped, n);

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
