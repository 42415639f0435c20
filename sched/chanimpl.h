/*
 * chanimpl.h - what chan.c, chanring.h and select.c share: the channel
 * and its wait records, the buffered channel's ring (chanring.h), and
 * chan.c's operations that select builds on.  The design is at the top of
 * chan.c, the ring's at the top of chanring.h; callers of the functions
 * below hold the channel's lock unless a comment says otherwise.
 */
#ifndef CHANIMPL_H
#define CHANIMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "kernel/spinlock.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"
#include <spindle/chan.h>

struct sudog {
    struct g *g;
    void *elem;                 /* unbuffered: value to send / where to
                                   receive (NULL: discard); owned by g,
                                   used by the waker under the channel
                                   lock.  Buffered: NULL */
    struct sudog *next, *prev;  /* the channel's wait queue; under its lock */
    struct sudog **done;        /* select only, else NULL: the select's
                                   winner, CAS NULL -> sudog by a waker */
    struct sudog *readylink;    /* close's list of Gs to ready */
    bool success;               /* written by the waker under the lock
                                   before goready; read by g afterwards */
};

struct waitq {
    struct sudog *first, *last;
};

/* c->waiting: which queues may hold a sudog. */
#define WAITING_RECV 1
#define WAITING_SEND 2

/* In c->enq once the channel is closed; positions (and twice them, in
   cells) never get near it. */
#define ENQ_CLOSED (1ULL << 62)

/* A ring cell: the sequence number, then the value. */
struct cell {
    uint64_t seq;
    unsigned char val[];
};

enum ring { RING_OK, RING_WAIT, RING_CLOSED };

struct sp_chan {
    struct spinlock lock;
    /* Under lock. */
    bool closed;
    struct waitq recvq, sendq;
    /* Buffered: written under lock, read by everyone (atomic). */
    int waiting;
    /* Fixed by sp_chan_make; the line is read-only from then on. */
    _Alignas(CACHE_LINE) size_t elemsize, cap;
    size_t cellsize;            /* bytes per ring cell */
    uint64_t mask;              /* cap - 1 when cap is a power of two */
    bool pow2;
    unsigned char *cells;
    void *mem;                  /* what malloc returned */
    /* The ring's positions, each on a line of its own (atomic). */
    _Alignas(CACHE_LINE) uint64_t enq;  /* next to claim by senders */
    _Alignas(CACHE_LINE) uint64_t deq;  /* next to claim by receivers */
};

/* Copies one element of c: a NULL source sends the zero value, a NULL
   destination discards.  Inline: it is on every fast path. */
static inline __attribute__((always_inline)) void
copyelem(sp_chan *c, void *dst, const void *src)
{
    if (!dst || !c->elemsize)
        return;
    if (!src) {
        memset(dst, 0, c->elemsize);
        return;
    }
    /* Word-sized elements (most channels carry ints and pointers) are
       one move, not a call to newlib's memcpy. */
    switch (c->elemsize) {
    case 4:
        __builtin_memcpy(dst, src, 4);
        break;
    case 8:
        __builtin_memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, c->elemsize);
    }
}

void waitq_enqueue(struct waitq *q, struct sudog *sg);
/* Unlinks sg if it is still queued on q (a losing case of a select). */
void waitq_remove(struct waitq *q, struct sudog *sg);
/* A sudog for the running G; done is a select's winner word, or NULL. */
void sudog_init(struct sudog *sg, void *elem, struct sudog **done);

/* Buffered c: recomputes c->waiting from its queues (seq-cst). */
void chan_set_waiting(sp_chan *c);
/* Buffered c: takes a waiter of q to ready after unlocking (a notice:
   it will try the ring again), or NULL. */
struct g *chan_notify(sp_chan *c, struct waitq *q);
/* Buffered c, the waiter's half of the handshake (no lock needed): is a
   cell claimed for receivers (!send) or free for senders, or c closed? */
bool ring_claimable(sp_chan *c, bool send);
/* Buffered c: chan_notify under c->lock, taking it unless the caller
   holds it (`locked`); the ring's out-of-line half (chanring.h). */
struct g *chan_notify_locking(sp_chan *c, struct waitq *q, bool locked);
/* Buffered c: one send (push) or receive (pop) attempt on the ring
   (chanring.h), no lock needed.  RING_OK; RING_WAIT, the ring full
   (empty); RING_CLOSED, c closed (a pop: closed and drained, elem
   zeroed).  `locked`: the caller holds c->lock.  On RING_OK *wake is a G
   to ready after unlocking, or NULL; otherwise it is left alone. */
enum ring chan_ring_op(sp_chan *c, void *elem, bool send, bool locked,
                       struct g **wake);

/* Unbuffered c, open: hands elem to a waiting receiver.  False if none;
   else *wake is the receiver, to ready after unlocking. */
bool chan_send_now(sp_chan *c, const void *elem, struct g **wake);
/* Unbuffered c: takes a waiting sender's value, or the close (*ok false,
   elem zeroed).  False if neither. */
bool chan_recv_now(sp_chan *c, void *elem, bool *ok, struct g **wake);

/* A nil channel, or a select with nothing to wait for: parks for good. */
__attribute__((noreturn)) void chan_park_forever(enum waitreason why);

#endif
