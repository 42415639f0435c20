/*
 * runq.h - a P's local run queue: a 256-slot lock-free ring plus the
 * runnext slot (Go's p.runq, p.runqhead, p.runqtail and p.runnext).
 *
 * Ownership:
 *   - tail and the ring slots are written only by the owner P.
 *   - head is advanced by CAS, by the owner (runq_get, runq_get_ring,
 *     and the overflow in runq_push) and by thieves (runq_grab /
 *     runq_steal).
 *   - runnext is set to a G only by the owner; the owner and thieves CAS
 *     it back to NULL to take the G it holds.
 * runq_push, runq_push_batch, runq_get and runq_get_ring are owner-only;
 * runq_grab and runq_steal may run on any P (the thief), concurrently
 * with the owner and with other thieves; runq_len and runq_empty may run
 * anywhere.
 *
 * The queue only stores and compares struct g pointers: it never looks
 * inside a G and needs no link field.  An overflow is handed back to the
 * caller as an array, to be put on the global queue under its lock.
 *
 * A broken invariant calls panic() (kernel/panic.h), which a host test
 * supplies itself.
 */
#ifndef SCHED_RUNQ_H
#define SCHED_RUNQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUNQ_SIZE 256

struct g;

struct runq {
    /* Gs live in ring[head % RUNQ_SIZE .. tail % RUNQ_SIZE); the indices
     * only grow and wrap at 2^32, which RUNQ_SIZE divides. */
    uint32_t head;              /* CAS by the owner and by thieves */
    uint32_t tail;              /* written only by the owner, store-release */
    struct g *ring[RUNQ_SIZE];  /* written only by the owner (relaxed
                                   atomics: thieves may read a slot
                                   speculatively while it is rewritten) */
    struct g *runnext;          /* set by the owner; CAS to NULL by anyone */

    /*
     * Called by a thief just before it takes this queue's runnext, so that
     * a G the owner readied and is about to run is not snatched from it
     * (Go sleeps ~3 us there).  Returns false if the owner switched Gs
     * during the pause: it is running what it readies as it readies it,
     * and the thief leaves runnext alone, whatever it holds now.  (Go
     * retries instead, and two Gs handing work back and forth on one core
     * get split across two sooner or later, as the same G is back in
     * runnext at the end of a pause often enough.)  NULL means no pause.
     * Set once, after runq_init and before any other core can see the
     * queue; read as a plain field.  Go pauses only if the victim P is
     * running; here a P sets runnext only while its core runs, so the
     * kernel can point this at a plain short delay (steal.c, steal_pause).
     */
    bool (*pause)(struct runq *q);
};

/* Empties q and clears its pause hook; q must not be shared yet. */
void runq_init(struct runq *q);

/*
 * Owner: puts gp in runnext and returns the G it displaced, or NULL
 * (runq_push then puts a displaced G at the tail).  Inline: it is on the
 * path of every goready.
 */
static inline struct g *runq_swap_next(struct runq *q, struct g *gp)
{
    /* Relaxed: only this P ever stores a G here, so the value is ours or
     * a thief's NULL, and the CAS below settles which. */
    struct g *old = __atomic_load_n(&q->runnext, __ATOMIC_RELAXED);

    /* Seq-cst, stronger than R3 asks (release publishes gp to a thief's
     * CAS): goready's wakep relies on it as the full fence between
     * publishing gp and reading nmspinning. */
    while (!__atomic_compare_exchange_n(&q->runnext, &old, gp, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        ;   /* a thief took old; old is now NULL and the CAS succeeds */
    return old;
}

/*
 * Owner: queues gp.  With next, gp goes to runnext and the G it displaces
 * (if any) goes to the tail in its place.  Returns true if everything went
 * into q.  If the ring was full, returns false and hands back in overflow
 * (room for RUNQ_SIZE/2 + 1) the oldest half of the ring followed by the G
 * that did not fit (gp, or the displaced runnext), *noverflow of them in
 * queue order; the caller must put them on the global queue.  *noverflow
 * is 0 when true is returned.
 */
bool runq_push(struct runq *q, struct g *gp, bool next, struct g **overflow,
              uint32_t *noverflow);

/*
 * Owner: puts gs[0..n) at the tail in order, as many as there is room
 * for, and returns how many it put (the rest stay with the caller).
 */
uint32_t runq_push_batch(struct runq *q, struct g *const *gs, uint32_t n);

/*
 * Owner: takes the G in runnext, or NULL if there is none (a thief may
 * just have taken it).
 */
static inline struct g *runq_get_next(struct runq *q)
{
    /* Relaxed: only we set runnext to a G; the CAS decides against a
     * thief clearing it at the same time. */
    struct g *next = __atomic_load_n(&q->runnext, __ATOMIC_RELAXED);

    /* acq_rel (R3): release orders our earlier tail stores before the
     * clear, for runq_empty. */
    if (next != NULL &&
        __atomic_compare_exchange_n(&q->runnext, &next, NULL, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return next;
    return NULL;
}

/*
 * Owner: the next G to run, or NULL.  runnext comes first; *inherit_time
 * tells whether the G came from runnext and so shares the current time
 * slice (Go's inheritTime).
 */
struct g *runq_get(struct runq *q, bool *inherit_time);

/* Owner: runq_get without runnext: the G at the ring's head, or NULL. */
struct g *runq_get_ring(struct runq *q);

/*
 * Any P: moves n - n/2 of the n Gs in q's ring into batch, the ring of the
 * calling thief, at slots batch_head, batch_head + 1, ... (mod RUNQ_SIZE),
 * without publishing them, and returns how many it moved.  If the ring is
 * empty and steal_runnext is set, takes q's runnext instead (after q's
 * pause hook).  The slots written must be free in the thief's ring.
 */
uint32_t runq_grab(struct runq *q, struct g **batch, uint32_t batch_head,
                   bool steal_runnext);

/*
 * The owner of thief: steals half of victim's ring (or its runnext, see
 * runq_grab) and returns the newest stolen G to run now, the older ones
 * queued on thief in order; NULL if there was nothing to steal.  thief's
 * ring must have room for RUNQ_SIZE/2 Gs (in practice it is empty: one
 * steals only when runq_get found nothing); panics otherwise.
 */
struct g *runq_steal(struct runq *thief, struct runq *victim,
                     bool steal_runnext);

/*
 * Gs in q's ring, not counting runnext, as Go's schedtrace prints it.
 * A snapshot that may be stale at once; never above RUNQ_SIZE.
 */
uint32_t runq_len(const struct runq *q);

/* True if q had neither a G in its ring nor in runnext at one instant. */
bool runq_empty(const struct runq *q);

/* The owner's cheaper runq_empty: only it adds Gs, so what it sees empty
   stays empty (thieves only take). */
static inline bool runq_owner_empty(const struct runq *q)
{
    return __atomic_load_n(&q->head, __ATOMIC_RELAXED) == q->tail &&
           !__atomic_load_n(&q->runnext, __ATOMIC_RELAXED);
}

#endif
