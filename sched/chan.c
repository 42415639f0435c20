/*
 * chan.c - channels (Go's runtime/chan.go); the ring of a buffered channel
 * is in chanring.h, select in select.c.
 *
 * A channel is one malloc'd block: the header below and, for a buffered
 * channel, a ring of cap cells.  A G that cannot complete an operation
 * waits on one of two queues (recvq, sendq) as a sudog: a record on the
 * waiting G's own stack naming the G and, for an unbuffered channel, the
 * buffer its value comes from or goes to.
 *
 * Unbuffered channels (cap 0) are Go's: everything happens under c->lock.
 *   waiter: lock c; nothing to do at once -> enqueue its sudog;
 *           gopark_unlock(&c->lock).  The lock is dropped only once the G
 *           is off its stack, so the sudog stays valid and no waker can
 *           ready the G before it has stopped running.
 *   waker:  lock c; dequeue a sudog; move the value straight between the
 *           two Gs' buffers; set success; unlock; goready(sg->g).  After
 *           goready the sudog's stack frame may be gone: nothing touches
 *           it again.
 *
 * Buffered channels are not Go's: their ring (chanring.h) is a lock-free
 * bounded queue, so senders and receivers on different cores meet only on
 * the ring's cells, never on a lock.  A sender claims a position by a CAS
 * on enq, then publishes its value in the position's cell; a receiver
 * claims one by a CAS on deq, then frees the cell.  close sets ENQ_CLOSED
 * in enq, after which no send claims a cell.
 *   The queues only hold Gs that found the ring full (senders) or empty
 * (receivers).  Waking them is a notice, not a hand-off: the woken G
 * tries again.  The rule that no wakeup is lost is a Dekker handshake
 * between the claim and c->waiting, which says which queues may hold a
 * sudog, all of it in seq-cst atomics:
 *   waiter:  lock; enqueue; set its bit in waiting; read enq and deq: a
 *            cell claimed for it (or closed) -> unlink and try again,
 *            else park (as above).
 *   ringer:  claim a cell (the CAS); read waiting: the other side's bit
 *            set -> lock, dequeue one, unlock; publish (or free) the
 *            cell; goready the one dequeued.  After the publish the
 *            ringer no longer touches the channel: the G that takes the
 *            last value may free it at once.
 * Either the waiter's reads see the ringer's claim or the ringer's read
 * sees the bit.  A waiter that saw a claim whose cell is not yet
 * published (or freed) yields before it tries again: the claimer may be
 * a G preempted between the two steps.  x86 pays nothing for this: the
 * CAS is a locked instruction, and seq-cst loads are plain loads.
 *   A blocking operation that finds the ring full or empty first tries
 * again a few times (CHAN_SPIN) when there are other cores: a producer
 * and a consumer on two cores then rarely park at all.
 *
 * gopark returns with interrupts as they were when it was called (off:
 * the lock was held), so every park is followed by arch_irq_restore(flags)
 * with the state spin_lock saved.
 *
 * Lock order (kernel/lockrank.h ranks every class):
 *   1. channel locks; a select takes those of its channels in address
 *      order (select.c)
 *   2. scheduler locks (goready may take them; here it is called only
 *      after the channel locks are dropped, as sched.h asks)
 * No newlib lock is taken under a channel lock.  A channel lock is held
 * with interrupts off, so a G is never preempted while holding one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "sched/chanimpl.h"
#include "sched/chanring.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"
#include <spindle/chan.h>

/* ---- wait queues (caller holds the channel lock) -------------------- */

void waitq_enqueue(struct waitq *q, struct sudog *sg)
{
    sg->next = NULL;
    sg->prev = q->last;
    if (q->last)
        q->last->next = sg;
    else
        q->first = sg;
    q->last = sg;
}

/*
 * Takes the first sudog that may still be woken.  A select's sudog whose
 * select another case already won is unlinked and skipped: its G will
 * find it gone when it unlinks its losing cases.
 */
static struct sudog *waitq_dequeue(struct waitq *q)
{
    struct sudog *sg;

    while ((sg = q->first)) {
        struct sudog *none = NULL;

        q->first = sg->next;
        if (q->first)
            q->first->prev = NULL;
        else
            q->last = NULL;
        sg->next = NULL;
        /* acq_rel: pairs with the CAS of a waker on another channel of
           the same select, and with the load of done in selwait. */
        if (sg->done && !__atomic_compare_exchange_n(sg->done, &none, sg,
                false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        return sg;
    }
    return NULL;
}

/* A woken buffered waiter that lost the ring again goes first in line. */
static void waitq_push_front(struct waitq *q, struct sudog *sg)
{
    sg->prev = NULL;
    sg->next = q->first;
    if (q->first)
        q->first->prev = sg;
    else
        q->last = sg;
    q->first = sg;
}

void waitq_remove(struct waitq *q, struct sudog *sg)
{
    if (sg->prev)
        sg->prev->next = sg->next;
    else if (q->first == sg)
        q->first = sg->next;
    else
        return;                 /* a waker dequeued it already */
    if (sg->next)
        sg->next->prev = sg->prev;
    else
        q->last = sg->prev;
    sg->next = sg->prev = NULL;
}

void sudog_init(struct sudog *sg, void *elem, struct sudog **done)
{
    sg->g = getg();
    if (!sg->g)
        panic("chan: blocking outside a G");
    sg->elem = elem;
    sg->next = sg->prev = sg->readylink = NULL;
    sg->done = done;
    sg->success = false;
}

/* ---- buffered waiters (the handshake; see the top of the file) ------ */

/* Caller holds the lock, after a change to a queue of a buffered c. */
void chan_set_waiting(sp_chan *c)
{
    /* Seq-cst: a select's ring_claimable follows it (the handshake). */
    if (c->cap)
        __atomic_store_n(&c->waiting,
                         (c->recvq.first ? WAITING_RECV : 0) |
                         (c->sendq.first ? WAITING_SEND : 0),
                         __ATOMIC_SEQ_CST);
}

/* Caller holds the lock: takes a waiter of q (buffered c) to wake after
   unlocking, or NULL.  It will try the ring again. */
struct g *chan_notify(sp_chan *c, struct waitq *q)
{
    struct sudog *sg = waitq_dequeue(q);

    chan_set_waiting(c);
    if (!sg)
        return NULL;
    sg->success = true;
    sg->g->param = sg;
    return sg->g;
}

struct g *chan_notify_locking(sp_chan *c, struct waitq *q, bool locked)
{
    unsigned long flags;
    struct g *wake;

    if (locked)
        return chan_notify(c, q);
    flags = spin_lock(&c->lock);
    wake = chan_notify(c, q);
    spin_unlock(&c->lock, flags);
    return wake;
}

/*
 * The waiter's half of the handshake, after it set its bit in waiting:
 * is a cell claimed for receivers (recv), or free to claim (send), or the
 * channel closed?  Claims, not publications: a claim is the seq-cst CAS
 * that the ringer's read of waiting follows.  deq first, so that enq
 * (read later, no smaller) never trails it.
 */
bool ring_claimable(sp_chan *c, bool send)
{
    uint64_t deq = __atomic_load_n(&c->deq, __ATOMIC_SEQ_CST);
    uint64_t enq = __atomic_load_n(&c->enq, __ATOMIC_SEQ_CST);

    if (enq & ENQ_CLOSED)
        return true;
    return send ? enq - deq < c->cap : deq < enq;
}

/* ---- unbuffered hand-offs (caller holds the channel lock) ------------ */

/* Hands elem to a waiting receiver; returns its G to ready after unlock. */
static struct g *send_direct(sp_chan *c, struct sudog *sg, const void *elem)
{
    copyelem(c, sg->elem, elem);
    sg->success = true;
    sg->g->param = sg;
    return sg->g;
}

/* Takes a waiting sender's value. */
static struct g *recv_direct(sp_chan *c, struct sudog *sg, void *elem)
{
    copyelem(c, elem, sg->elem);
    sg->success = true;
    sg->g->param = sg;
    return sg->g;
}

/*
 * An unbuffered send that needs no waiting, on an open channel.  Returns
 * false if it would block; *wake is a G to ready once the lock is
 * dropped, or NULL.  Inline in this file's hot paths; select.c calls
 * chan_send_now.
 */
static inline bool send_now(sp_chan *c, const void *elem, struct g **wake)
{
    struct sudog *sg = waitq_dequeue(&c->recvq);

    *wake = NULL;
    if (!sg)
        return false;
    *wake = send_direct(c, sg, elem);
    return true;
}

/*
 * An unbuffered receive that needs no waiting: a waiting sender, or the
 * close (*ok false, elem zeroed).
 */
static inline bool recv_now(sp_chan *c, void *elem, bool *ok,
                            struct g **wake)
{
    struct sudog *sg = waitq_dequeue(&c->sendq);

    *wake = NULL;
    *ok = true;
    if (sg) {
        *wake = recv_direct(c, sg, elem);
        return true;
    }
    if (c->closed) {
        copyelem(c, elem, NULL);
        *ok = false;
        return true;
    }
    return false;
}

bool chan_send_now(sp_chan *c, const void *elem, struct g **wake)
{
    return send_now(c, elem, wake);
}

bool chan_recv_now(sp_chan *c, void *elem, bool *ok, struct g **wake)
{
    return recv_now(c, elem, ok, wake);
}

/* ---- send, receive, close -------------------------------------------- */

/* Unlocks l and readies wake (if any) before interrupts come back on:
   one enable instead of two (spin_release). */
static inline __attribute__((always_inline)) void
unlock_ready(struct spinlock *l, unsigned long flags, struct g *wake)
{
    spin_release(l);
    if (wake)
        goready(wake);
    arch_irq_restore(flags);
}

static bool commit_nothing(struct g *gp, void *arg)
{
    return true;
}

void chan_park_forever(enum waitreason why)
{
    gopark(commit_nothing, NULL, why);
    panic("chan: a G parked forever was woken (%s)", waitreason_string(why));
}

/*
 * The waiter's half, for a send (q = sendq) or a receive (q = recvq) on
 * buffered c that found the ring full or empty: queue, set the bit, look
 * at the claims, and park unless the ring moved.  Returns whether it
 * parked (and was woken since).  Either way the caller tries again.
 * `again`: the G was woken before and lost the ring to another; it
 * waits first in line.
 */
static bool ring_wait(sp_chan *c, struct waitq *q, int bit,
                      enum waitreason why, bool again)
{
    unsigned long flags = spin_lock(&c->lock);
    struct sudog me;

    sudog_init(&me, NULL, NULL);
    if (again)
        waitq_push_front(q, &me);
    else
        waitq_enqueue(q, &me);
    __atomic_fetch_or(&c->waiting, bit, __ATOMIC_SEQ_CST);
    if (ring_claimable(c, bit == WAITING_SEND)) {
        waitq_remove(q, &me);
        chan_set_waiting(c);
        spin_unlock(&c->lock, flags);
        return false;
    }
    gopark_unlock(&c->lock, why);
    arch_irq_restore(flags);
    return true;
}

/*
 * How many times a blocking send (receive) on a buffered channel tries
 * the ring again before it queues, when there is another core whose G
 * may be about to free (fill) a cell: a producer and a consumer on two
 * cores then meet only on the ring.  Between two tries it waits one x86
 * pause's worth (cpu_pause), on every arch.  With Gs waiting behind it,
 * it stops early when the ring does not move (ring_spin).
 */
#ifndef CHAN_SPIN
#define CHAN_SPIN 64
#endif
#define CHAN_SPIN_LOOK 4

/* Inlined so that each caller's constant send picks one side at compile
   time: the buffered fast path is a few nanoseconds long. */
#define RING_INLINE static inline __attribute__((always_inline))

RING_INLINE enum ring ring_op(sp_chan *c, void *elem, bool send, bool locked,
                              struct g **wake)
{
    *wake = NULL;
    return send ? chan_ring_push(c, elem, locked, wake)
                : chan_ring_pop(c, elem, locked, wake);
}

enum ring chan_ring_op(sp_chan *c, void *elem, bool send, bool locked,
                       struct g **wake)
{
    return ring_op(c, elem, send, locked, wake);
}

/*
 * Whether a G that found the ring full (empty) tries again after a pause
 * rather than queue (bop).  A G with others waiting behind it on its core
 * holds them up while it spins, and the G it waits for may be one of
 * them: every CHAN_SPIN_LOOK tries it looks at its own side's position
 * (enq for a sender, deq for a receiver: a line its tries read anyway,
 * which moves only when the other side does), and stops when that has
 * not moved and others wait.  *seen is the position at the last look,
 * UINT64_MAX before the first.
 */
RING_INLINE bool ring_spin(sp_chan *c, bool send, int *spins, uint64_t *seen)
{
    if (ncpu == 1 || *spins >= CHAN_SPIN)
        return false;
    if (*spins % CHAN_SPIN_LOOK == 0) {
        uint64_t pos = __atomic_load_n(send ? &c->enq : &c->deq,
                                       __ATOMIC_RELAXED);
        bool moved = pos != *seen;

        *seen = pos;
        if (!moved && others_waiting())
            return false;
    }
    (*spins)++;
    cpu_pause();
    return true;
}

/*
 * One send or receive on a buffered channel: spin, then wait in line.
 * Returns RING_WAIT only when !block and the ring is full (empty).
 */
RING_INLINE enum ring bop(sp_chan *c, void *elem, bool send, bool block)
{
    struct waitq *q = send ? &c->sendq : &c->recvq;
    struct g *wake;
    enum ring r;
    bool again = false;
    int spins = 0;
    uint64_t seen = UINT64_MAX;

    /* One call site of ring_op, so that the ring is inlined once. */
    while ((r = ring_op(c, elem, send, false, &wake)) == RING_WAIT && block) {
        if (ring_spin(c, send, &spins, &seen))
            continue;
        if (ring_wait(c, q, send ? WAITING_SEND : WAITING_RECV,
                      send ? WAIT_CHAN_SEND : WAIT_CHAN_RECV, again))
            again = true;
        else
            goyield();          /* the other side is between claim and
                                   publish (free) */
    }
    if (r != RING_WAIT && wake)
        goready(wake);
    return r;
}

/* Inlined into each API function, whose constant block leaves one of
   the paths: a G that sends or receives returns straight to its code. */
RING_INLINE bool chan_send(sp_chan *c, const void *elem, bool block)
{
    unsigned long flags;
    struct sudog me;
    struct g *wake;

    if (!c) {
        if (!block)
            return false;
        chan_park_forever(WAIT_CHAN_SEND_NIL);
    }
    if (c->cap) {
        enum ring r = bop(c, (void *)elem, true, block);

        if (r == RING_CLOSED)
            panic("send on closed channel");
        return r != RING_WAIT;
    }
    flags = spin_lock(&c->lock);
    if (c->closed) {
        spin_unlock(&c->lock, flags);
        panic("send on closed channel");
    }
    if (send_now(c, elem, &wake)) {
        unlock_ready(&c->lock, flags, wake);
        return true;
    }
    if (!block) {
        spin_unlock(&c->lock, flags);
        return false;
    }
    sudog_init(&me, (void *)elem, NULL);
    waitq_enqueue(&c->sendq, &me);
    gopark_unlock(&c->lock, WAIT_CHAN_SEND);
    arch_irq_restore(flags);    /* whatever state gopark returned in */
    if (!me.success)
        panic("send on closed channel");    /* woken by close */
    return true;
}

/* Returns whether it received; *ok is Go's ok for what it received. */
RING_INLINE bool chan_recv(sp_chan *c, void *elem, bool block, bool *ok)
{
    unsigned long flags;
    struct sudog me;
    struct g *wake;

    if (!c) {
        if (!block)
            return false;
        chan_park_forever(WAIT_CHAN_RECV_NIL);
    }
    if (c->cap) {
        enum ring r = bop(c, elem, false, block);

        *ok = r == RING_OK;
        return r != RING_WAIT;
    }
    flags = spin_lock(&c->lock);
    if (recv_now(c, elem, ok, &wake)) {
        unlock_ready(&c->lock, flags, wake);
        return true;
    }
    if (!block) {
        spin_unlock(&c->lock, flags);
        return false;
    }
    sudog_init(&me, elem, NULL);
    waitq_enqueue(&c->recvq, &me);
    gopark_unlock(&c->lock, WAIT_CHAN_RECV);
    arch_irq_restore(flags);
    *ok = me.success;           /* false: woken by close, elem zeroed */
    return true;
}

SP_HOT_PAGE void sp_chan_send(sp_chan *c, const void *elem)
{
    chan_send(c, elem, true);
}

bool sp_chan_trysend(sp_chan *c, const void *elem)
{
    return chan_send(c, elem, false);
}

SP_HOT_PAGE bool sp_chan_recv(sp_chan *c, void *elem)
{
    bool ok;

    chan_recv(c, elem, true, &ok);
    return ok;
}

int sp_chan_tryrecv(sp_chan *c, void *elem, bool *ok)
{
    bool got_ok;

    if (!chan_recv(c, elem, false, &got_ok))
        return 0;
    if (ok)
        *ok = got_ok;
    return 1;
}

/*
 * Moves every sudog of q, marked unsuccessful, to the tail of a list of
 * Gs to ready; unbuffered receivers get the zero value (a buffered
 * waiter's elem is NULL: it tries the ring again and finds the close).
 */
static void wake_all(sp_chan *c, struct waitq *q, bool zero,
                     struct sudog ***tail)
{
    struct sudog *sg;

    while ((sg = waitq_dequeue(q))) {
        if (zero)
            copyelem(c, sg->elem, NULL);
        sg->success = false;
        sg->g->param = sg;
        sg->readylink = NULL;
        **tail = sg;
        *tail = &sg->readylink;
    }
}

void sp_chan_close(sp_chan *c)
{
    struct sudog *list = NULL, **tail = &list;
    unsigned long flags;

    if (!c)
        panic("close of nil channel");
    flags = spin_lock(&c->lock);
    if (c->closed) {
        spin_unlock(&c->lock, flags);
        panic("close of closed channel");
    }
    c->closed = true;
    /* Release: pairs with chan_ring_pop's acquire of enq. */
    __atomic_fetch_or(&c->enq, ENQ_CLOSED, __ATOMIC_RELEASE);
    wake_all(c, &c->recvq, true, &tail);    /* they return ok == false */
    wake_all(c, &c->sendq, false, &tail);   /* they panic */
    chan_set_waiting(c);
    spin_unlock(&c->lock, flags);
    while (list) {
        struct sudog *sg = list;
        struct g *gp = sg->g;

        /* Read everything first: once readied, sg's frame can vanish. */
        list = sg->readylink;
        goready(gp);
    }
}

/* ---- making and inspecting ------------------------------------------ */

sp_chan *sp_chan_make(size_t elemsize, size_t cap)
{
    size_t cellsize = (sizeof(struct cell) + elemsize + 7) & ~(size_t)7;
    void *mem;
    sp_chan *c;

    if (elemsize > SIZE_MAX / 2 ||
        (cap && cellsize > (SIZE_MAX - sizeof *c - CACHE_LINE) / cap))
        return NULL;
    /* The header's lines are aligned: over-allocate by one. */
    mem = malloc(sizeof *c + CACHE_LINE + (cap ? cellsize * cap : 0));
    if (!mem)
        return NULL;
    c = (sp_chan *)(((uintptr_t)mem + CACHE_LINE - 1) &
                    ~(uintptr_t)(CACHE_LINE - 1));
    memset(c, 0, sizeof *c);
    c->lock = (struct spinlock)SPINLOCK_INIT(LOCK_CHAN);
    c->elemsize = elemsize;
    c->cap = cap;
    c->cellsize = cellsize;
    c->mask = cap - 1;
    c->pow2 = cap && !(cap & (cap - 1));
    c->cells = (unsigned char *)(c + 1);
    c->mem = mem;
    for (size_t i = 0; i < cap; i++)
        ((struct cell *)(c->cells + i * cellsize))->seq = 2 * i;
    return c;
}

void sp_chan_free(sp_chan *c)
{
    unsigned long flags;
    bool waiters;

    if (!c)
        return;
    flags = spin_lock(&c->lock);
    waiters = c->recvq.first || c->sendq.first;
    spin_unlock(&c->lock, flags);
    if (waiters)
        panic("sp_chan_free: Gs are still waiting on the channel");
    free(c->mem);
}

size_t sp_chan_len(sp_chan *c)
{
    uint64_t deq, enq;

    if (!c || !c->cap)
        return 0;
    /* A snapshot, as Go's len(c).  deq first: enq read later is no
       smaller than it was then, so the difference is never negative;
       it can exceed cap by the values taken in between. */
    deq = __atomic_load_n(&c->deq, __ATOMIC_ACQUIRE);
    enq = __atomic_load_n(&c->enq, __ATOMIC_ACQUIRE) & ~ENQ_CLOSED;
    return enq - deq < c->cap ? enq - deq : c->cap;
}

size_t sp_chan_cap(sp_chan *c)
{
    return c ? c->cap : 0;
}
