/*
 * runq.c - the per-P local run queue; the contract is in runq.h.
 *
 * Why this shape (Go's, see runtime/proc.go): a single-producer,
 * multi-consumer ring.  Only the owner P adds Gs, so the tail needs no CAS:
 * the owner writes the slot and then publishes it with a store-release of
 * tail.  Gs leave from the head, and there the owner competes with
 * thieves, so every removal is a CAS on head.  A thief copies the Gs it
 * wants out of the ring first and then tries the CAS: success means
 * nobody took those slots meanwhile, so the copies are good; failure means
 * it reloads and starts over.  No lock is held anywhere, so a thief that
 * is interrupted (or a vCPU that is descheduled) never blocks the owner.
 *
 * runnext holds the G that the running G just readied (the other end of a
 * channel operation, say).  Running it next keeps a producer/consumer pair
 * on one core in one time slice instead of sending the pair to the back of
 * the queue.  Thieves take it only when the ring is empty, and only after
 * the pause hook, since the owner is probably about to run it.
 *
 * Memory ordering, every access below names its partner:
 *   R1. Owner: store slot (relaxed), then store-release tail.  A thief
 *       load-acquires tail and only then reads slots below it, so it sees
 *       the slot and everything the owner wrote to the G before queueing.
 *   R2. Consumer (owner or thief): read slots (relaxed), then CAS-release
 *       head.  The owner load-acquires head before reusing a slot, so the
 *       consumer's read of the old G happens before the slot is rewritten.
 *       A thief whose head is stale may read a slot while it is being
 *       rewritten; its CAS then fails and the value is dropped.  That
 *       read is still a race in C11 terms, which is why slots are
 *       accessed with relaxed atomics rather than plain loads and stores.
 *   R3. runnext: every CAS is acq_rel.  Release on the owner's CAS that
 *       sets it publishes the G to a thief's acquiring CAS that takes it;
 *       release on the CAS that clears it orders the owner's earlier tail
 *       store before it, which runq_empty relies on.
 * head and tail are 32-bit counters that wrap; RUNQ_SIZE divides 2^32, so
 * "index % RUNQ_SIZE" and "tail - head" stay right across the wrap.
 */
#include <stddef.h>
#include "sched/runq.h"

/* kernel/panic.h's fail-stop, declared here so that this file builds on
 * the host without kernel headers; a host test supplies its own. */
__attribute__((noreturn, format(printf, 1, 2)))
void panic(const char *fmt, ...);

_Static_assert((RUNQ_SIZE & (RUNQ_SIZE - 1)) == 0,
               "RUNQ_SIZE must be a power of two");

#define HALF (RUNQ_SIZE / 2)

static inline struct g *slot_load(struct g *const *ring, uint32_t i)
{
    return __atomic_load_n(&ring[i % RUNQ_SIZE], __ATOMIC_RELAXED);
}

static inline void slot_store(struct g **ring, uint32_t i, struct g *gp)
{
    __atomic_store_n(&ring[i % RUNQ_SIZE], gp, __ATOMIC_RELAXED);
}

/* CAS-release on head (R2); failure just means reload and retry. */
static inline bool head_cas(struct runq *q, uint32_t h, uint32_t nh)
{
    return __atomic_compare_exchange_n(&q->head, &h, nh, false,
                                       __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

void runq_init(struct runq *q)
{
    q->head = 0;
    q->tail = 0;
    for (int i = 0; i < RUNQ_SIZE; i++)
        q->ring[i] = NULL;
    q->runnext = NULL;
    q->pause = NULL;
}

/*
 * The ring holds RUNQ_SIZE Gs [h, t): try to move its older half plus gp
 * to overflow.  Fails if a consumer moved head meanwhile, in which case
 * there is room again and the caller retries the ordinary put.
 */
static bool put_slow(struct runq *q, struct g *gp, uint32_t h, uint32_t t,
                     struct g **overflow, uint32_t *noverflow)
{
    uint32_t n = (t - h) / 2;

    if (n != HALF)
        panic("runqputslow: queue is not full (head %u, tail %u)", h, t);
    for (uint32_t i = 0; i < n; i++)
        overflow[i] = slot_load(q->ring, h + i);
    if (!head_cas(q, h, h + n))
        return false;
    overflow[n] = gp;
    *noverflow = n + 1;
    return true;
}

bool runq_push(struct runq *q, struct g *gp, bool next, struct g **overflow,
              uint32_t *noverflow)
{
    *noverflow = 0;
    /* The displaced G, if any, goes to the tail. */
    if (next && !(gp = runq_swap_next(q, gp)))
        return true;
    for (;;) {
        /* load-acquire (R2): pairs with the CAS-release of head by the
         * consumer that emptied the slot we are about to reuse. */
        uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
        uint32_t t = q->tail;   /* only we write it */

        if (t - h < RUNQ_SIZE) {
            slot_store(q->ring, t, gp);
            /* store-release (R1): pairs with the load-acquire of tail in
             * runq_grab. */
            __atomic_store_n(&q->tail, t + 1, __ATOMIC_RELEASE);
            return true;
        }
        if (put_slow(q, gp, h, t, overflow, noverflow))
            return false;
    }
}

uint32_t runq_push_batch(struct runq *q, struct g *const *gs, uint32_t n)
{
    /* load-acquire (R2), as in runq_push: the free slots are really free. */
    uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
    uint32_t t = q->tail;
    uint32_t room = RUNQ_SIZE - (t - h);
    uint32_t k = n < room ? n : room;

    for (uint32_t i = 0; i < k; i++)
        slot_store(q->ring, t + i, gs[i]);
    /* store-release (R1): pairs with the load-acquire in runq_grab. */
    __atomic_store_n(&q->tail, t + k, __ATOMIC_RELEASE);
    return k;
}

struct g *runq_get(struct runq *q, bool *inherit_time)
{
    struct g *next = runq_get_next(q);

    *inherit_time = next != NULL;
    return next ? next : runq_get_ring(q);
}

struct g *runq_get_ring(struct runq *q)
{
    for (;;) {
        /* load-acquire: pairs with thieves' CAS-release of head (R2). */
        uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
        uint32_t t = q->tail;   /* only we write it */
        struct g *gp;

        if (t == h)
            return NULL;
        gp = slot_load(q->ring, h);
        if (head_cas(q, h, h + 1))  /* CAS-release (R2) */
            return gp;
    }
}

/* The ring is empty: take runnext, if there is one and steal is allowed. */
static uint32_t grab_runnext(struct runq *q, struct g **batch,
                             uint32_t batch_head, bool *retry)
{
    /* load-acquire: pairs with the owner's acq_rel CAS that set it (R3);
     * the CAS below re-validates it anyway. */
    struct g *next = __atomic_load_n(&q->runnext, __ATOMIC_ACQUIRE);

    *retry = false;
    if (next == NULL)
        return 0;
    /* The owner readied next a moment ago and is likely to run it as soon
     * as its current G blocks; give it that moment, or we pay for moving
     * a G between cores only for the owner to go idle and steal back.  An
     * owner that switched Gs meanwhile keeps what runnext holds now. */
    if (q->pause != NULL && !q->pause(q))
        return 0;
    /* acq_rel (R3): acquire pairs with the owner's CAS that set runnext,
     * so the G's contents are visible to us. */
    if (!__atomic_compare_exchange_n(&q->runnext, &next, NULL, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        *retry = true;  /* the owner took it, or replaced it */
        return 0;
    }
    slot_store(batch, batch_head, next);
    return 1;
}

uint32_t runq_grab(struct runq *q, struct g **batch, uint32_t batch_head,
                   bool steal_runnext)
{
    for (;;) {
        /* load-acquire: pairs with other consumers' CAS-release (R2). */
        uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
        /* load-acquire: pairs with the owner's store-release (R1). */
        uint32_t t = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
        uint32_t n = t - h;
        bool retry;

        n -= n / 2;
        if (n == 0) {
            if (!steal_runnext)
                return 0;
            n = grab_runnext(q, batch, batch_head, &retry);
            if (retry)
                continue;
            return n;
        }
        /* h went stale before t was read, so [h, t) was never the
         * queue's content; read both again. */
        if (n > HALF)
            continue;
        for (uint32_t i = 0; i < n; i++)
            slot_store(batch, batch_head + i, slot_load(q->ring, h + i));
        if (head_cas(q, h, h + n))  /* CAS-release (R2) */
            return n;
    }
}

struct g *runq_steal(struct runq *thief, struct runq *victim,
                     bool steal_runnext)
{
    uint32_t t = thief->tail;   /* only we write it */
    /* load-acquire: pairs with the CAS-release of thief's head (R2);
     * the slots we are about to write must be free. */
    uint32_t h = __atomic_load_n(&thief->head, __ATOMIC_ACQUIRE);
    uint32_t n;
    struct g *gp;

    if (t - h > RUNQ_SIZE - HALF)
        panic("runqsteal: thief's queue has %u Gs, no room to steal",
              t - h);
    n = runq_grab(victim, thief->ring, t, steal_runnext);
    if (n == 0)
        return NULL;
    n--;
    gp = slot_load(thief->ring, t + n);
    if (n == 0)
        return gp;
    /* store-release (R1): publishes the rest to thieves of thief. */
    __atomic_store_n(&thief->tail, t + n, __ATOMIC_RELEASE);
    return gp;
}

uint32_t runq_len(const struct runq *q)
{
    /* Acquire keeps the two loads in this order, so h <= t; a long stall
     * between them can still make t - h too large, hence the clamp. */
    uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
    uint32_t t = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
    uint32_t n = t - h;

    return n > RUNQ_SIZE ? RUNQ_SIZE : n;
}

/*
 * Seeing head == tail and then runnext == NULL is not enough: between the
 * two reads the owner may have put a new G in runnext, pushing the old
 * one to the ring, and then run the new one.  Each read then saw "empty"
 * though the old G was queued all along.  The owner's tail store comes
 * before the clearing of runnext (release, R3), so if runnext read NULL
 * after that, a second read of tail sees the change and we read again.
 */
bool runq_empty(const struct runq *q)
{
    for (;;) {
        /* All loads acquire, so they happen in program order; runnext's
         * pairs with the owner's acq_rel CASes on it (R3), tail's with
         * its store-release (R1). */
        uint32_t h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
        uint32_t t = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
        struct g *next = __atomic_load_n(&q->runnext, __ATOMIC_ACQUIRE);

        if (t == __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE))
            return h == t && next == NULL;
    }
}
