/*
 * sync.c - mutex, rwmutex, once, wait group and counting semaphore
 * (Go's sync package over runtime/sema.go).
 *
 * Every object is a few words of lock-free state plus semaphore words
 * (uint32 counts); nothing in them needs a constructor, so zeroed memory
 * is a valid object.  Gs that must wait park on a semaphore word.
 *
 * Semaphores.  The waiters do not live in the object: as in Go, a fixed
 * table of SEMTAB_SIZE roots, picked by hashing the word's address, each
 * hold a spinlock and a queue of semwaiters (records on the waiting G's
 * stack) for every word that hashes there.  The protocol:
 *   acquire: take a unit by CAS if count > 0.  Else lock the root, add
 *            one to root->nwait, try the CAS again (a release may have
 *            come in between), queue, gopark_unlock(&root->lock).  When
 *            woken, either the releaser handed us its unit (ticket) or we
 *            retry from the top (a running G may have taken it first).
 *   release: add one to count; if root->nwait is 0 nobody can be queued
 *            for it, and we are done without the lock.  Else lock, dequeue
 *            the first waiter for this word, unlock, goready it.
 * The two sides form a Dekker pair: acquire writes nwait and then reads
 * count, release writes count and then reads nwait, all seq_cst, so at
 * least one of them sees the other and a unit is never left unclaimed
 * while a waiter sleeps.
 *
 * Mutex (Go's sync.Mutex).  state = LOCKED | WOKEN | STARVING | waiters
 * << WAITER_SHIFT.  Normal mode: unlock wakes one waiter, which then
 * competes with newly arriving Gs (which are running and usually win: good
 * for throughput); a woken waiter that loses goes back to the head of the
 * queue.  A waiter that has waited over STARVATION_NS sets STARVING: from
 * then on unlock hands the mutex straight to the first waiter and
 * newcomers queue at the tail, until a waiter that waited less than the
 * threshold, or the last waiter, gets it and switches back.  WOKEN tells
 * unlock that a waiter is already awake (spinning or just woken), so it
 * need not wake another.  Spinning: only with more than one core, only
 * while the holder may be running (LOCKED and not STARVING), a few rounds.
 *
 * RWMutex (Go's sync.RWMutex): readercount counts readers in; a writer
 * (holding w) subtracts RW_MAX_READERS from it, which makes it negative,
 * so new readers park on readersem, and waits on writersem for the
 * readerwait readers still inside to leave.
 *
 * Lock order (kernel/lockrank.h ranks every class):
 *   1. a semaphore root lock (one at a time; nothing else taken under it)
 *   2. scheduler locks (goready; called only after the root lock is
 *      dropped, as sched.h asks)
 * The objects themselves have no locks, so they can be taken in any order
 * by the app (a deadlock between them is the app's, as in Go).
 */
#include <stdint.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "sched/sched.h"
#include <spindle/cpu.h>
#include <spindle/sync.h>

/* ---- semaphore words (runtime/sema.go) ------------------------------ */

#define SEMTAB_SIZE 251         /* prime, as Go's */

struct semwaiter {
    struct g *g;
    uint32_t *addr;             /* the word waited on */
    struct semwaiter *next, *prev;  /* the root's queue; under its lock */
    bool ticket;                /* the releaser gave us its unit: written
                                   before goready, read after the park */
};

struct semaroot {
    struct spinlock lock;
    struct semwaiter *first, *last;     /* under lock */
    uint32_t nwait;             /* queued waiters: changed under lock,
                                   read without it by semrelease (seq_cst,
                                   the Dekker pair above) */
} __attribute__((aligned(64)));         /* one root per cache line */

static struct semaroot semtable[SEMTAB_SIZE] = {
    [0 ... SEMTAB_SIZE - 1] = { .lock = SPINLOCK_INIT(LOCK_SEMAROOT) },
};

static struct semaroot *semroot(uint32_t *addr)
{
    return &semtable[((uintptr_t)addr >> 3) % SEMTAB_SIZE];
}

/* Takes one unit if there is one.  Acquire: pairs with the releasing
   add in semrelease, so what the releaser did before is visible. */
static bool cansemacquire(uint32_t *addr)
{
    uint32_t v = __atomic_load_n(addr, __ATOMIC_SEQ_CST);

    while (v != 0)
        if (__atomic_compare_exchange_n(addr, &v, v - 1, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return true;
    return false;
}

/* lifo: at the head, for a waiter that was woken and lost the race. */
static void semqueue(struct semaroot *root, struct semwaiter *w, bool lifo)
{
    if (lifo) {
        w->prev = NULL;
        w->next = root->first;
        if (root->first)
            root->first->prev = w;
        else
            root->last = w;
        root->first = w;
    } else {
        w->next = NULL;
        w->prev = root->last;
        if (root->last)
            root->last->next = w;
        else
            root->first = w;
        root->last = w;
    }
}

/* The first waiter on addr, unlinked; NULL if only other words wait. */
static struct semwaiter *semdequeue(struct semaroot *root, uint32_t *addr)
{
    struct semwaiter *w;

    for (w = root->first; w && w->addr != addr; w = w->next)
        ;
    if (!w)
        return NULL;
    if (w->prev)
        w->prev->next = w->next;
    else
        root->first = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        root->last = w->prev;
    w->next = w->prev = NULL;
    return w;
}

static void semacquire(uint32_t *addr, bool lifo, enum waitreason why)
{
    struct semaroot *root = semroot(addr);
    struct semwaiter w;
    unsigned long flags;

    if (cansemacquire(addr))
        return;
    w = (struct semwaiter){ .g = getg(), .addr = addr };
    if (!w.g)
        panic("semacquire: blocking outside a G");
    for (;;) {
        flags = spin_lock(&root->lock);
        /* Count ourselves before the re-check (the Dekker pair). */
        __atomic_add_fetch(&root->nwait, 1, __ATOMIC_SEQ_CST);
        if (cansemacquire(addr)) {
            __atomic_sub_fetch(&root->nwait, 1, __ATOMIC_SEQ_CST);
            spin_unlock(&root->lock, flags);
            return;
        }
        w.ticket = false;
        semqueue(root, &w, lifo);
        gopark_unlock(&root->lock, why);
        arch_irq_restore(flags);    /* whatever state gopark returned in */
        if (w.ticket || cansemacquire(addr))
            return;
    }
}

/*
 * Adds a unit and wakes the first waiter on addr.  With handoff the unit
 * goes to that waiter directly (if no running G took it first) and the
 * caller yields so the waiter runs at once (mutex starvation mode).
 */
static void semrelease(uint32_t *addr, bool handoff)
{
    struct semaroot *root = semroot(addr);
    struct semwaiter *w;
    unsigned long flags;
    struct g *gp;
    bool ticket = false;

    __atomic_add_fetch(addr, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&root->nwait, __ATOMIC_SEQ_CST) == 0)
        return;
    flags = spin_lock(&root->lock);
    w = semdequeue(root, addr);
    if (w)
        __atomic_sub_fetch(&root->nwait, 1, __ATOMIC_SEQ_CST);
    /* Interrupts come back on after goready, not before: one enable
       instead of two (spin_release). */
    spin_release(&root->lock);
    if (!w) {
        arch_irq_restore(flags);
        return;
    }
    /* w is ours until goready: only we dequeued it, and it is parked. */
    if (handoff && cansemacquire(addr))
        w->ticket = ticket = true;
    gp = w->g;
    goready(gp);
    arch_irq_restore(flags);
    if (ticket && spin_depth() == 0)
        goyield();              /* as Go: the waiter runs next, here */
}

/* ---- counting semaphore --------------------------------------------- */

void sp_sema_init(sp_sema *s, uint32_t count)
{
    __atomic_store_n(&s->count, count, __ATOMIC_RELEASE);
}

void sp_sema_acquire(sp_sema *s)
{
    semacquire(&s->count, false, WAIT_SEMA);
}

bool sp_sema_tryacquire(sp_sema *s)
{
    return cansemacquire(&s->count);
}

void sp_sema_release(sp_sema *s)
{
    semrelease(&s->count, false);
}

/* ---- mutex ----------------------------------------------------------- */

#define STARVATION_NS   1000000ULL  /* 1 ms, as Go */
#define SPIN_ROUNDS     4           /* Go's active_spin */
#define SPIN_PAUSES     30          /* Go's active_spin_cnt */

static int32_t mutex_waiters(int32_t state)
{
    return state >> SP_MUTEX_WAITER_SHIFT;
}

/* Spinning pays only if the holder runs on another core and will soon
   unlock; in starvation mode the mutex goes to the queue anyway. */
static bool mutex_can_spin(int32_t old, int round)
{
    return (old & (SP_MUTEX_LOCKED | SP_MUTEX_STARVING)) == SP_MUTEX_LOCKED &&
           round < SPIN_ROUNDS && ncpu > 1;
}

/* Go's procyield(active_spin_cnt): 30 pauses on x86, and as long on
   other arches (cpu_pause), not 30 of their cheaper hints. */
static void mutex_spin(void)
{
    for (int i = 0; i < SPIN_PAUSES; i++)
        cpu_pause();
}

/* The state a locker tries to install over old. */
static int32_t mutex_next(int32_t old, bool starving, bool awoke)
{
    int32_t new = old;

    /* A starving mutex belongs to its queue: newcomers only queue. */
    if (!(old & SP_MUTEX_STARVING))
        new |= SP_MUTEX_LOCKED;
    if (old & (SP_MUTEX_LOCKED | SP_MUTEX_STARVING))
        new += 1 << SP_MUTEX_WAITER_SHIFT;
    /* Starve only a held mutex: unlock of a starving mutex expects a
       waiter to hand it to. */
    if (starving && (old & SP_MUTEX_LOCKED))
        new |= SP_MUTEX_STARVING;
    if (awoke) {
        /* We are the awake waiter WOKEN stands for; give the flag up. */
        if (!(new & SP_MUTEX_WOKEN))
            panic("sync: inconsistent mutex state");
        new &= ~SP_MUTEX_WOKEN;
    }
    return new;
}

/*
 * Starvation mode: unlock handed the mutex to us without setting LOCKED
 * and still counting us as a waiter.  Leave starvation mode if we did not
 * wait long or nobody else waits: handing off costs a switch per unlock.
 */
static void mutex_take_handoff(sp_mutex *m, int32_t old, bool starving)
{
    int32_t delta = SP_MUTEX_LOCKED - (1 << SP_MUTEX_WAITER_SHIFT);

    if ((old & (SP_MUTEX_LOCKED | SP_MUTEX_WOKEN)) || mutex_waiters(old) == 0)
        panic("sync: inconsistent mutex state");
    if (!starving || mutex_waiters(old) == 1)
        delta -= SP_MUTEX_STARVING;
    __atomic_add_fetch(&m->state, delta, __ATOMIC_ACQ_REL);
}

/* Starts a cache line: how fast its spin runs, and so how a contended
   mutex's holders interleave, must not depend on where the link puts
   this file (docs/benchmarks.md, "The rooms' link order"). */
static __attribute__((aligned(64))) void mutex_lock_slow(sp_mutex *m,
                                                         enum waitreason why)
{
    uint64_t wait_start = 0;
    bool starving = false, awoke = false, requeue;
    int round = 0;
    int32_t old = __atomic_load_n(&m->state, __ATOMIC_RELAXED);

    for (;;) {
        if (mutex_can_spin(old, round)) {
            /* Claim WOKEN so the unlock does not wake a sleeper for a
               mutex we are about to take. */
            if (!awoke && !(old & SP_MUTEX_WOKEN) && mutex_waiters(old) &&
                __atomic_compare_exchange_n(&m->state, &old,
                        old | SP_MUTEX_WOKEN, false, __ATOMIC_RELAXED,
                        __ATOMIC_RELAXED))
                awoke = true;
            mutex_spin();
            round++;
            old = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
            continue;
        }
        /* Acquire: pairs with the release in sp_mutex_unlock. */
        if (!__atomic_compare_exchange_n(&m->state, &old,
                mutex_next(old, starving, awoke), false,
                __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            continue;
        if (!(old & (SP_MUTEX_LOCKED | SP_MUTEX_STARVING)))
            return;             /* the CAS took it */
        /* Waited before: back to the head of the line (lifo). */
        requeue = wait_start != 0;
        if (!requeue)
            wait_start = sp_nanotime();
        semacquire(&m->sema, requeue, why);
        starving = starving ||
                   (int64_t)(sp_nanotime() - wait_start) > (int64_t)STARVATION_NS;
        old = __atomic_load_n(&m->state, __ATOMIC_ACQUIRE);
        if (old & SP_MUTEX_STARVING) {
            mutex_take_handoff(m, old, starving);
            return;
        }
        awoke = true;
        round = 0;
    }
}

void sp_mutex_lock_slow(sp_mutex *m)
{
    mutex_lock_slow(m, WAIT_MUTEX);
}

void sp_mutex_unlock_slow(sp_mutex *m, int32_t new)
{
    int32_t old = new;

    if (!((new + SP_MUTEX_LOCKED) & SP_MUTEX_LOCKED))
        panic("sync: unlock of unlocked mutex");
    if (new & SP_MUTEX_STARVING) {
        /* Ownership goes to the first waiter; STARVING keeps newcomers
           out until it sets LOCKED itself. */
        semrelease(&m->sema, true);
        return;
    }
    for (;;) {
        /* Nobody waits, or someone else already took it, is awake to
           take it, or gets it by handoff: nobody to wake. */
        if (mutex_waiters(old) == 0 ||
            (old & (SP_MUTEX_LOCKED | SP_MUTEX_WOKEN | SP_MUTEX_STARVING)))
            return;
        new = (old - (1 << SP_MUTEX_WAITER_SHIFT)) | SP_MUTEX_WOKEN;
        if (__atomic_compare_exchange_n(&m->state, &old, new, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            semrelease(&m->sema, false);
            return;
        }
    }
}

/* ---- rwmutex ---------------------------------------------------------- */

#define RW_MAX_READERS (1 << 30)

void sp_rwmutex_rlock(sp_rwmutex *rw)
{
    /* Negative: a writer holds or waits for rw; queue behind it.  The
       acq_rel add pairs with the writer's in sp_rwmutex_unlock. */
    if (__atomic_add_fetch(&rw->readercount, 1, __ATOMIC_ACQ_REL) < 0)
        semacquire(&rw->readersem, false, WAIT_RWMUTEX_R);
}

void sp_rwmutex_runlock(sp_rwmutex *rw)
{
    int32_t r = __atomic_sub_fetch(&rw->readercount, 1, __ATOMIC_ACQ_REL);

    if (r >= 0)
        return;
    if (r + 1 == 0 || r + 1 == -RW_MAX_READERS)
        panic("sync: RUnlock of unlocked RWMutex");
    /* A writer waits: the last reader it waits for lets it in. */
    if (__atomic_sub_fetch(&rw->readerwait, 1, __ATOMIC_ACQ_REL) == 0)
        semrelease(&rw->writersem, false);
}

void sp_rwmutex_lock(sp_rwmutex *rw)
{
    int32_t r;

    /* First beat other writers, then announce ourselves to readers.
       (sp_mutex_lock, but a writer waits as "sync.RWMutex.Lock".) */
    if (!sp_mutex_trylock(&rw->w))
        mutex_lock_slow(&rw->w, WAIT_RWMUTEX_W);
    r = __atomic_add_fetch(&rw->readercount, -RW_MAX_READERS,
                           __ATOMIC_ACQ_REL) + RW_MAX_READERS;
    /* r readers were inside; wait for those that have not left yet
       (each leaving one subtracts from readerwait). */
    if (r != 0 &&
        __atomic_add_fetch(&rw->readerwait, r, __ATOMIC_ACQ_REL) != 0)
        semacquire(&rw->writersem, false, WAIT_RWMUTEX_W);
}

void sp_rwmutex_unlock(sp_rwmutex *rw)
{
    int32_t r = __atomic_add_fetch(&rw->readercount, RW_MAX_READERS,
                                   __ATOMIC_ACQ_REL);

    if (r >= RW_MAX_READERS)
        panic("sync: Unlock of unlocked RWMutex");
    /* r readers queued behind us; let every one of them in. */
    for (int32_t i = 0; i < r; i++)
        semrelease(&rw->readersem, false);
    sp_mutex_unlock(&rw->w);
}

/* ---- once -------------------------------------------------------------- */

void sp_once_do(sp_once *o, void (*fn)(void *), void *arg)
{
    /* Acquire: pairs with the store-release below, so what fn did is
       visible to every caller that returns. */
    if (__atomic_load_n(&o->done, __ATOMIC_ACQUIRE))
        return;
    sp_mutex_lock(&o->m);       /* later callers wait here for fn */
    if (!o->done) {
        fn(arg);
        __atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
    }
    sp_mutex_unlock(&o->m);
}

/* ---- wait group ------------------------------------------------------- */

void sp_waitgroup_add(sp_waitgroup *wg, int delta)
{
    /* acq_rel: the Gs' work before done() is visible to the waiters
       (via the release here and the acquire in sp_waitgroup_wait). */
    uint64_t st = __atomic_add_fetch(&wg->state,
                                     (uint64_t)(int64_t)delta << 32,
                                     __ATOMIC_ACQ_REL);
    int32_t v = (int32_t)(st >> 32);
    uint32_t w = (uint32_t)st;

    if (v < 0)
        panic("sync: negative WaitGroup counter");
    if (w != 0 && delta > 0 && v == delta)
        panic("sync: WaitGroup misuse: Add called concurrently with Wait");
    if (v > 0 || w == 0)
        return;
    /* Zero with waiters: no Add may race now, and new Waits return at
       once; reset the waiter count and wake them all. */
    if (__atomic_load_n(&wg->state, __ATOMIC_ACQUIRE) != st)
        panic("sync: WaitGroup misuse: Add called concurrently with Wait");
    __atomic_store_n(&wg->state, 0, __ATOMIC_RELEASE);
    for (; w != 0; w--)
        semrelease(&wg->sema, false);
}

void sp_waitgroup_done(sp_waitgroup *wg)
{
    sp_waitgroup_add(wg, -1);
}

void sp_waitgroup_wait(sp_waitgroup *wg)
{
    uint64_t st = __atomic_load_n(&wg->state, __ATOMIC_ACQUIRE);

    for (;;) {
        if ((st >> 32) == 0)
            return;
        /* Count ourselves as a waiter, unless the counter moved. */
        if (__atomic_compare_exchange_n(&wg->state, &st, st + 1, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            semacquire(&wg->sema, false, WAIT_WAITGROUP);
            if (__atomic_load_n(&wg->state, __ATOMIC_ACQUIRE) != 0)
                panic("sync: WaitGroup is reused before previous Wait "
                      "has returned");
            return;
        }
    }
}
