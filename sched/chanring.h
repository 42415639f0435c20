/*
 * chanring.h - the ring of a buffered channel (chan.c): a lock-free
 * bounded queue (Vyukov's) of cap cells, so that senders and receivers on
 * different cores meet only on the ring's cells, never on a lock.
 *
 * Each cell has a sequence number: cell i is free for the sender at
 * position pos (pos % cap == i) when seq == 2 pos, and holds the value
 * for the receiver at pos when seq == 2 pos + 1 (doubled, so that with
 * cap 1 "full at pos" and "free at pos + 1" differ).  A sender claims pos
 * by a CAS on enq, writes the value and publishes it with a store-release
 * of seq = 2 pos + 1; a receiver claims by a CAS on deq, reads, and frees
 * the cell for the next lap with seq = 2 (pos + cap).  close sets
 * ENQ_CLOSED in enq, so every send either claimed its cell before the
 * close or fails; a receiver that finds the ring empty, closed, and
 * deq == enq knows no value can come any more.
 *
 * Between its claim and its publication (or freeing) a push or a pop
 * does the ringer's half of the wake-up handshake with the channel's
 * wait queues; the handshake and the waiter's half are chan.c's.
 * Nothing here takes a lock but ring_ringer, which takes the channel's
 * unless its caller holds it.
 *
 * A header of chan.c alone, inline into its buffered send and receive:
 * under QEMU's TCG every return from a call costs a lookup of the next
 * translated block, and a message through the ring made six of them.
 * Other files reach the ring through chan_ring_op (chanimpl.h).
 */
#ifndef SCHED_CHANRING_H
#define SCHED_CHANRING_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/spinlock.h"
#include "sched/chanimpl.h"
#include "sched/sched.h"
#include <spindle/chan.h>

static inline struct cell *cellat(sp_chan *c, uint64_t pos)
{
    uint64_t i = c->pow2 ? pos & c->mask : pos % c->cap;

    return (struct cell *)(c->cells + i * c->cellsize);
}

/*
 * The ringer's half of the handshake, right after the seq-cst CAS that
 * claimed a cell for a push (q = recvq) or a pop (q = sendq): takes one
 * waiter of q to wake, if its bit says there may be one.  The read is
 * seq-cst, so either it sees the waiter's bit or the waiter's
 * ring_claimable sees the claim.  Done before the cell is published (or
 * freed): after that this G must not touch c, which the G that takes the
 * last value may free at once.  `locked`: the caller holds c->lock.
 * Inline up to the bit: with nobody waiting it is one load.
 */
static inline struct g *ring_ringer(sp_chan *c, struct waitq *q, int bit,
                                    bool locked)
{
    if (!(__atomic_load_n(&c->waiting, __ATOMIC_SEQ_CST) & bit))
        return NULL;
    return chan_notify_locking(c, q, locked);
}

/*
 * One send attempt: RING_OK, RING_WAIT (full) or RING_CLOSED.  *wake: a
 * receiver to ready after RING_OK (ring_ringer), or NULL.
 */
static inline __attribute__((always_inline)) enum ring
chan_ring_push(sp_chan *c, const void *elem, bool locked, struct g **wake)
{
    /* Relaxed: the CAS below checks the position; the cell's seq,
       acquired, says whether its last receiver is done with it. */
    uint64_t pos = __atomic_load_n(&c->enq, __ATOMIC_RELAXED);

    for (;;) {
        struct cell *cl;
        uint64_t seq;

        if (pos & ENQ_CLOSED)
            return RING_CLOSED;
        cl = cellat(c, pos);
        seq = __atomic_load_n(&cl->seq, __ATOMIC_ACQUIRE);
        if (seq == 2 * pos) {
            /* Seq-cst: the claim is what a waiter's handshake reads
               (ring_claimable); see the handshake in chan.c. */
            if (__atomic_compare_exchange_n(&c->enq, &pos, pos + 1, false,
                                            __ATOMIC_SEQ_CST,
                                            __ATOMIC_RELAXED)) {
                *wake = ring_ringer(c, &c->recvq, WAITING_RECV, locked);
                copyelem(c, cl->val, elem);
                /* Release: the value before the receiver's acquire. */
                __atomic_store_n(&cl->seq, 2 * pos + 1, __ATOMIC_RELEASE);
                return RING_OK;
            }
        } else if ((int64_t)(seq - 2 * pos) < 0) {
            return RING_WAIT;   /* last lap's value is still in it */
        } else {
            pos = __atomic_load_n(&c->enq, __ATOMIC_RELAXED);
        }
    }
}

/* One receive attempt: RING_OK, RING_WAIT (empty) or RING_CLOSED (closed
   and drained, elem zeroed).  *wake: a sender to ready after RING_OK. */
static inline __attribute__((always_inline)) enum ring
chan_ring_pop(sp_chan *c, void *elem, bool locked, struct g **wake)
{
    uint64_t pos = __atomic_load_n(&c->deq, __ATOMIC_RELAXED);
    uint64_t enq;

    for (;;) {
        struct cell *cl = cellat(c, pos);
        uint64_t seq = __atomic_load_n(&cl->seq, __ATOMIC_ACQUIRE);

        if (seq == 2 * pos + 1) {
            if (__atomic_compare_exchange_n(&c->deq, &pos, pos + 1, false,
                                            __ATOMIC_SEQ_CST,
                                            __ATOMIC_RELAXED)) {
                *wake = ring_ringer(c, &c->sendq, WAITING_SEND, locked);
                copyelem(c, elem, cl->val);
                /* Release: our read before the next sender's write. */
                __atomic_store_n(&cl->seq, 2 * (pos + c->cap),
                                 __ATOMIC_RELEASE);
                return RING_OK;
            }
        } else if ((int64_t)(seq - (2 * pos + 1)) < 0) {
            break;              /* empty, or its sender has not published */
        } else {
            pos = __atomic_load_n(&c->deq, __ATOMIC_RELAXED);
        }
    }
    /* Closed, and every claimed cell taken: nothing can come any more.
       Acquire: a close seen here comes after the sends it ended. */
    enq = __atomic_load_n(&c->enq, __ATOMIC_ACQUIRE);
    if ((enq & ENQ_CLOSED) &&
        __atomic_load_n(&c->deq, __ATOMIC_RELAXED) == (enq & ~ENQ_CLOSED)) {
        copyelem(c, elem, NULL);
        return RING_CLOSED;
    }
    return RING_WAIT;
}

#endif
