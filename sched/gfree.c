/*
 * gfree.c - where Gs come from and go back to (Go's malg, gfget, gfput).
 *
 * A G is an entry of the G table and a slot (kernel/vm.h): one guard
 * page, then the stack growing down toward it, then room for newlib's
 * state, which the G sets up when it first asks for it (__getreent).
 * Only the top page is mapped at first; deeper stack pages are mapped
 * when touched.  A G parked or dead for a while gives them back
 * (release.c).  Dead Gs keep their slot and go to
 * their P's free list; past 64 the P moves a batch of 32 to the global
 * list, and an empty P takes one batch back, so cores that only spawn and
 * cores that only finish Gs do not starve each other.
 *
 * The global list is a stack of batches, each a schedlink chain whose
 * first G links to the next batch (batchlink): under the lock a batch
 * moves whole, in O(1).  (Go moves Gs one at a time under sched.gFree's
 * lock; walking 32 Gs whose lines sit in another core's cache kept the
 * lock held for microseconds while spawning cores spun on it.)
 *
 * Locks: gfree.lock guards the global free list; allg.lock the list of all
 * Gs.  Both are taken after sched.lock, never before.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/panic.h"
#include "kernel/vm.h"
#include "sched/schedimpl.h"

#define GFREE_MAX   64
#define GFREE_BATCH 32

static struct {
    struct spinlock lock;
    struct g *batches;          /* first G of each batch, by batchlink */
    long n;                     /* Gs in all batches; atomic stores */
} gfree = { .lock = SPINLOCK_INIT(LOCK_GFREE) };

static struct {
    struct spinlock lock;
    struct g *head;
    long n;
} allg = { .lock = SPINLOCK_INIT(LOCK_ALLG) };

/* A new G in a fresh slot, or NULL when memory ran out. */
static struct g *malg(void)
{
    char *slot = vm_gslot_alloc(sizeof(struct g));
    struct g *gp;
    unsigned long f;

    if (!slot)
        return NULL;
    gp = gslot_g((uintptr_t)slot);
    memset(gp, 0, sizeof *gp);
    gp->stack_lo = (uintptr_t)slot + PAGE_SIZE;
    gp->stack_hi = (uintptr_t)gslot_reent((uintptr_t)slot) & ~15UL;
    f = spin_lock(&allg.lock);
    gp->allnext = allg.head;
    allg.head = gp;
    /* Release: pairs with sched_all_gs, whose callers (release.c) read
       the entries below the count. */
    __atomic_store_n(&allg.n, allg.n + 1, __ATOMIC_RELEASE);
    spin_unlock(&allg.lock, f);
    return gp;
}

SP_UNSPLIT void gfput(struct p *p, struct g *gp)
{
    struct g *batch, *last;
    unsigned long f;

    gp->schedlink = p->gfree;
    p->gfree = gp;
    /* ngfree: atomic stores, as sched_free_gs reads it from any core. */
    __atomic_store_n(&p->ngfree, p->ngfree + 1, __ATOMIC_RELAXED);
    if (p->ngfree < GFREE_MAX)
        return;
    /* The most recently freed (cache-warm) Gs go; the walk is lock-free. */
    batch = last = p->gfree;
    for (int i = 1; i < GFREE_BATCH; i++)
        last = last->schedlink;
    p->gfree = last->schedlink;
    last->schedlink = NULL;
    __atomic_store_n(&p->ngfree, p->ngfree - GFREE_BATCH, __ATOMIC_RELAXED);
    f = spin_lock(&gfree.lock);
    batch->batchlink = gfree.batches;
    gfree.batches = batch;
    /* Atomic: gfget and sched_free_gs peek at it unlocked. */
    __atomic_store_n(&gfree.n, gfree.n + GFREE_BATCH, __ATOMIC_RELAXED);
    spin_unlock(&gfree.lock, f);
}

SP_UNSPLIT struct g *gfget(struct p *p)
{
    struct g *gp;

    if (!p->gfree && __atomic_load_n(&gfree.n, __ATOMIC_RELAXED)) {
        unsigned long f = spin_lock(&gfree.lock);

        if ((gp = gfree.batches)) {
            gfree.batches = gp->batchlink;
            __atomic_store_n(&gfree.n, gfree.n - GFREE_BATCH,
                             __ATOMIC_RELAXED);
        }
        spin_unlock(&gfree.lock, f);
        if (gp) {
            p->gfree = gp;
            __atomic_store_n(&p->ngfree, GFREE_BATCH, __ATOMIC_RELAXED);
        }
    }
    if (!(gp = p->gfree))
        return malg();
    p->gfree = gp->schedlink;
    __atomic_store_n(&p->ngfree, p->ngfree - 1, __ATOMIC_RELAXED);
    return gp;
}

long sched_all_gs(void)
{
    return __atomic_load_n(&allg.n, __ATOMIC_ACQUIRE);
}

long sched_free_gs(void)
{
    long n = __atomic_load_n(&gfree.n, __ATOMIC_RELAXED);

    for (int i = 0; i < ncpu; i++)
        n += __atomic_load_n(&sched.allp[i]->ngfree, __ATOMIC_RELAXED);
    return n;
}

long sched_live_gs(void)
{
    unsigned long f = spin_lock(&allg.lock);
    long n = 0;

    for (struct g *gp = allg.head; gp; gp = gp->allnext)
        n += __atomic_load_n(&gp->status, __ATOMIC_RELAXED) != G_DEAD;
    spin_unlock(&allg.lock, f);
    return n;
}

void sched_census(struct gcensus *c)
{
    unsigned long f;

    memset(c, 0, sizeof *c);
    for (int i = 0; i < ncpu; i++) {
        c->created += __atomic_load_n(&sched.allp[i]->ncreated,
                                      __ATOMIC_RELAXED);
        c->exited += __atomic_load_n(&sched.allp[i]->nexited,
                                     __ATOMIC_RELAXED);
        c->switches += __atomic_load_n(&sched.allp[i]->nsched,
                                       __ATOMIC_RELAXED);
    }
    c->free = sched_free_gs();
    f = spin_lock(&allg.lock);
    c->all = allg.n;
    for (struct g *gp = allg.head; gp; gp = gp->allnext) {
        switch (__atomic_load_n(&gp->status, __ATOMIC_RELAXED)) {
        case G_RUNNING:  c->running++;  break;
        case G_RUNNABLE: c->runnable++; break;
        case G_WAITING:  c->waiting++;  break;
        default:         c->dead++;     break;
        }
    }
    spin_unlock(&allg.lock, f);
}

void for_each_g(void (*fn)(struct g *, void *), void *arg)
{
    unsigned long f = spin_lock(&allg.lock);

    for (struct g *gp = allg.head; gp; gp = gp->allnext)
        fn(gp, arg);
    spin_unlock(&allg.lock, f);
}

/* For the deadlock report: calls fn on every G that is parked. */
void for_each_waiting_g(void (*fn)(struct g *))
{
    for (struct g *gp = allg.head; gp; gp = gp->allnext)
        if (gp->status == G_WAITING)
            fn(gp);
}
