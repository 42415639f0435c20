/*
 * release.c - Gs parked for a while give back their stack pages, and so
 * do dead ones on the free lists.
 *
 * A parked G holds its slot's top page (gfree.c), most of it unused: a G
 * blocked in a receive has a few hundred bytes of frames.  Go shrinks the
 * stacks of idle goroutines by copying them (shrinkstack, at GC); a C
 * stack cannot move, so here its pages go instead and its bytes are kept
 * aside, compacted (kernel/vm.c, vm_gslot_release): the first touch of
 * the slot, by the G when it runs again or by a channel partner reaching
 * its sudog, maps it back.  An overflow still faults on the guard page,
 * as the slot is whole whenever anything runs on it.
 *
 * When: a core about to halt for want of work runs one batch (up to
 * RELEASE_BATCH G table entries; one core at a time).  A pass over the
 * whole table starts at most every `stackrelease` ms (command line; 0
 * turns it off) and takes the Gs parked or dead since before the
 * previous pass began: park_m and goexit_m stamp each G with the number
 * of the pass then running (release_epoch), so only Gs parked or dead a
 * whole interval are taken.  A dead G keeps only its newlib state, which
 * the slot's next G inherits (gfree.c); a G that reuses the slot maps it
 * back with its first touch, as a parked one does.
 *
 * Why a G's bytes stay right (see vm.h for the two steps):
 *   - The G is parked (G_WAITING, set by park_m after the G left its
 *     stack) or dead when the batch unmaps its pages.  It may be readied
 *     (or reused) and run at once; a core whose TLB still holds the pages
 *     then works on them until it runs between_gs, and those writes land
 *     in the frames.
 *   - After every core has, no core reaches the pages without a fault, and
 *     the fault maps them back (vm_fault) before the code goes on.  The
 *     batch then checks again that the G is as it was (parked with its
 *     stack pointer inside what the release keeps, or dead with no newlib
 *     state below it): if it ran meanwhile and parked deeper, or runs, or
 *     waits preempted, the pages are mapped back.  If it is readied after
 *     the check, its first touch faults and waits for vm_lock, which the
 *     copy holds.
 */
#include "arch/arch.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/vm.h"
#include "sched/schedimpl.h"

#define RELEASE_DEFAULT_MS  1000
#define RELEASE_MAX_MS      3600000
#define RELEASE_BATCH       64

uint32_t release_epoch;         /* passes started; atomic */

static struct {
    int busy;                   /* a core runs a batch; atomic exchange */
    uint64_t interval;          /* cycles between passes, 0: never */
    long ms;                    /* the same in ms */
    uint64_t pass_start;        /* arch_cycles() at the last pass's start */
    size_t cursor, end;         /* G table entries left in this pass */
    size_t taken[RELEASE_BATCH];        /* this batch's entries, */
    int state[RELEASE_BATCH];           /* their status then, */
    uintptr_t lo[RELEASE_BATCH];        /* and what was to be kept */
} rel;

void release_init(void)
{
    long ms = sched_setting("stackrelease", 0, RELEASE_MAX_MS,
                            RELEASE_DEFAULT_MS, "ms");

    if (ms && !arch_gslot_releasable()) {
        printk("sched: stackrelease=0: this host cannot give G stack "
               "pages back (no guard regions in shared memory)\n");
        ms = 0;
    }
    rel.ms = ms;
    rel.interval = ms ? us_cycles((uint64_t)ms * 1000) : 0;
}

/*
 * What of gp's slot must be kept: from the stack pointer up for a parked
 * G; for a dead one only its newlib state, if it has any (the next G of
 * the slot keeps it, gfree.c), else nothing.  0 if gp is neither, or has
 * not been so for long enough (a pass and a whole interval).  Read
 * without a lock; release_batch checks again after the TLBs drop.
 */
static uintptr_t keep_from(const struct g *gp, int *st, uint32_t epoch)
{
    *st = __atomic_load_n(&gp->status, __ATOMIC_ACQUIRE);
    if ((*st != G_WAITING && *st != G_DEAD) ||
        (int32_t)(epoch - __atomic_load_n(&gp->parkepoch,
                                          __ATOMIC_RELAXED)) < 2)
        return 0;
    if (*st == G_WAITING)
        return (uintptr_t)__atomic_load_n(&gp->sp, __ATOMIC_RELAXED);
    return gp->reent ? (uintptr_t)gp->reent : g_slot(gp) + VM_GSLOT_SIZE;
}

/*
 * Run on every core after a batch's unmaps (smp_call_all_irq: between
 * two Gs, or in the IPI handler where the core had interrupts on): it
 * drops what its TLB still holds of the pages (x86_64 flushes only the
 * unmapping core's), and since every write to a G's slot that comes
 * with a change of its status (newproc starting a G on a dead slot, a
 * park, a channel partner's) is made with interrupts off, none is then
 * half done: a G that the core was starting meanwhile (its first frame
 * written, its status not yet runnable) is seen as started by the check
 * that follows.
 */
static void between_gs(void *arg)
{
    (void)arg;
    arch_tlb_flush_local();
}

/* One batch of the current pass; the caller holds rel.busy. */
static void release_batch(void)
{
    uint32_t epoch = __atomic_load_n(&release_epoch, __ATOMIC_RELAXED);
    size_t n = 0, stop = rel.cursor + RELEASE_BATCH;
    int st;

    if (stop > rel.end)
        stop = rel.end;
    for (; rel.cursor < stop; rel.cursor++) {
        struct g *gp = GTAB + rel.cursor;
        uintptr_t lo = keep_from(gp, &st, epoch);

        if (lo && vm_gslot_release(g_slot(gp), lo)) {
            rel.taken[n] = rel.cursor;
            rel.state[n] = st;
            rel.lo[n++] = lo;
        }
    }
    if (!n)
        return;
    smp_call_all_irq(between_gs, NULL);
    /* Keep only if the G is as it was, and what it needs is above lo
       (a G that ran meanwhile may have parked deeper, or died and left a
       newlib state that was not there). */
    for (size_t i = 0; i < n; i++) {
        struct g *gp = GTAB + rel.taken[i];
        bool keep = __atomic_load_n(&gp->status, __ATOMIC_ACQUIRE) ==
                        rel.state[i] &&
                    (rel.state[i] != G_WAITING ||
                     (uintptr_t)gp->sp >= rel.lo[i]) &&
                    (!gp->reent || (uintptr_t)gp->reent >= rel.lo[i]);

        /* Too much to keep (or no memory for it): not again until the G
           parks or dies again, which stamps it anew. */
        if (vm_gslot_release_finish(g_slot(gp), keep) < 0)
            __atomic_store_n(&gp->parkepoch, epoch + INT32_MAX,
                             __ATOMIC_RELAXED);
    }
}

bool release_step(struct m *m)
{
    uint64_t now;

    if (!rel.interval || __atomic_load_n(&rel.busy, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&rel.busy, 1, __ATOMIC_ACQUIRE))
        return false;
    if (rel.cursor >= rel.end) {
        now = arch_cycles();
        if (rel.pass_start && now - rel.pass_start < rel.interval) {
            __atomic_store_n(&rel.busy, 0, __ATOMIC_RELEASE);
            return false;
        }
        rel.pass_start = now;
        rel.cursor = 0;
        rel.end = (size_t)sched_all_gs();
        __atomic_add_fetch(&release_epoch, 1, __ATOMIC_RELAXED);
    }
    /* Not a spinner while at it: a G readied meanwhile wakes another
       core (wakep sees none spinning), or this one finds it when it
       looks again, as the caller does next (idle.c's step 4). */
    if (m->spinning) {
        __atomic_store_n(&m->spinning, false, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
    }
    release_batch();
    __atomic_store_n(&rel.busy, 0, __ATOMIC_RELEASE);
    return true;
}

long sched_stackrelease_ms(void)
{
    return rel.ms;
}
