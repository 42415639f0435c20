/*
 * polldesc.h - a socket's readiness, for Gs that wait on it (Go's
 * pollDesc, runtime/netpoll.go).
 *
 * One struct polldesc per socket.  Each direction, read ('r') and write
 * ('w'), has one slot (rg, wg) that is a tiny binary semaphore between
 * the G that waits and whoever reports readiness:
 *
 *   PD_NIL    nothing to report, nobody waits.
 *   PD_READY  readiness came while nobody waited; the next waiter takes
 *             it (sets PD_NIL) instead of parking.  Sticky: reporting
 *             again changes nothing.
 *   PD_WAIT   a G is on its way to park: it set PD_WAIT, then parks, and
 *             from gopark's unlock callback - once it is off its stack -
 *             swaps PD_WAIT for itself.  Until that swap, readiness turns
 *             the slot into PD_READY and a timeout or close into PD_NIL,
 *             the swap then fails, and the G does not sleep.
 *   a G       that G sleeps here; readiness sets PD_READY, a timeout or
 *             close sets PD_NIL, and the one that changed the slot makes
 *             the G runnable.
 *
 * A socket layer uses it like this (Go's internal/poll does the same):
 *
 *   err = pd_prepare(pd, 'r');     forget readiness left from before
 *   for (;;) {
 *       take the stack lock; try the operation; drop the lock;
 *       if it worked (or failed for good): done;
 *       if ((err = pd_wait(pd, 'r')) != PD_OK): PD_ECLOSED/PD_ETIMEOUT;
 *   }
 *
 * and reports readiness from wherever the stack learns of it (a receive
 * or sent callback, the driver's poll function) with pd_ready.  Readiness
 * reported after pd_prepare is never lost: if it comes between the
 * failed try and pd_wait it is sticky and pd_wait returns at once; if it
 * comes while pd_wait is on its way to sleep the slot is PD_WAIT and the
 * park is cancelled.  pd_wait may also return PD_OK when nothing is ready
 * yet (readiness consumed by an earlier operation, say): the caller just
 * tries again.
 *
 * One G per direction may wait at a time (the socket layer serializes
 * readers, and writers, of one socket); a second one is a panic.
 *
 * Contexts and locks (lock order: the socket layer's stack lock, then
 * pd->lock, then a P's timerlock; goready after all three are dropped
 * or with only the stack lock held):
 *   pd_wait                      a G holding no spinlock: it parks
 *                                (it panics if the G holds one).
 *   pd_prepare                   a G, lock-free: any locks held.
 *   pd_ready, pd_ready_push      anywhere: lock-free, never parks or
 *                                readies anything itself - interrupt
 *                                handlers included, any locks held.
 *   pd_set_deadline, pd_close    a G; may hold the stack lock.  They take
 *                                pd->lock and may goready a G.
 *   pd_init                      anywhere (it only fills in pd).
 *   pd_fini                      a G, once nothing can reach pd any more:
 *                                it waits out a deadline timer whose
 *                                function runs on another core.
 */
#ifndef SCHED_POLLDESC_H
#define SCHED_POLLDESC_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/spinlock.h"
#include "sched/timers.h"

struct g;

/* What rg and wg hold when they hold no G. */
#define PD_NIL   ((uintptr_t)0)
#define PD_READY ((uintptr_t)1)
#define PD_WAIT  ((uintptr_t)2)

/* Results of pd_prepare and pd_wait. */
#define PD_OK       0   /* go ahead: try the operation (again) */
#define PD_ECLOSED  1   /* pd_close was called */
#define PD_ETIMEOUT 2   /* this direction's deadline has passed */

/* One direction's deadline; under pd->lock. */
struct pd_deadline {
    int64_t ns;         /* 0: none; -1: passed; else an sp_nanotime() */
    struct timer t;     /* one-shot, armed for ns while `armed` */
    bool armed;         /* t was armed for ns, and that arming was
                           neither cancelled nor has its function acted */
    uint32_t firings;   /* armings of t neither cancelled by a stop or
                           reset nor yet seen by its function
                           (polldesc.c: "Stale timers") */
};

struct polldesc {
    uintptr_t rg, wg;   /* PD_NIL, PD_READY, PD_WAIT or a struct g *;
                           atomic (polldesc.c says which orderings) */
    uint32_t info;      /* PDI_* bits: closing and the deadlines that
                           passed, for lock-free checks; written under
                           lock (seq-cst), read anywhere */
    struct spinlock lock;   /* guards what follows */
    bool closing;
    struct pd_deadline rd, wd;
};

/* Makes pd ready for use: open, no deadlines, nothing ready. */
void pd_init(struct polldesc *pd);

/*
 * Deletes pd's deadline timers (waiting out one whose function runs on
 * another core), so that pd's memory may be freed or reused.  Panics if
 * a G still waits on pd.  The caller makes sure nobody calls pd_ready,
 * pd_set_deadline or pd_close on it any more (unhook it from the stack
 * first).
 */
void pd_fini(struct polldesc *pd);

/*
 * Starts an operation in direction mode ('r' or 'w'): forgets readiness
 * reported before now (Go's pollReset).  Call it before the first try,
 * not between a try and pd_wait.  Returns PD_OK, PD_ECLOSED or
 * PD_ETIMEOUT.
 */
int pd_prepare(struct polldesc *pd, int mode);

/*
 * Waits until mode ('r' or 'w') is reported ready, the deadline passes
 * or pd is closed (Go's pollWait).  Returns PD_OK (take readiness as a
 * hint: try the operation again), PD_ECLOSED or PD_ETIMEOUT.  Returns at
 * once if readiness is already there, taking it.  While parked (WAIT_IO)
 * the G counts in netpoll_wait_add, so the scheduler polls the network
 * and the deadlock check knows the G waits for it.
 */
int pd_wait(struct polldesc *pd, int mode);

/*
 * Reports mode ('r' or 'w') ready (Go's netpollunblock with ioready).
 * Returns the G that waited for it, still G_WAITING, for the caller to
 * make runnable: linked through g->schedlink into the list a driver's
 * poll function returns, or goready()'d from a G.  NULL if nobody slept
 * there; then the readiness stays for the next pd_wait (PD_READY).
 */
struct g *pd_ready(struct polldesc *pd, int mode);

/*
 * pd_ready for a driver's poll function (Go's netpollready): mode is
 * 'r', 'w' or 'r' + 'w'; each G readied is pushed onto `list` through
 * g->schedlink.  Returns the new head.
 */
struct g *pd_ready_push(struct polldesc *pd, int mode, struct g *list);

/*
 * Sets the deadline of mode ('r', 'w' or 'r' + 'w') to deadline_ns, an
 * sp_nanotime() value; 0 removes it (Go's SetDeadline semantics).  A
 * deadline not after now (or negative) has passed already: waits in that
 * direction fail with PD_ETIMEOUT until the deadline is set again, and a
 * G waiting now is woken with it.  A later deadline arms a timer on this
 * P that does the same when it comes.  Nothing once pd is closed.
 */
void pd_set_deadline(struct polldesc *pd, int64_t deadline_ns, int mode);

/*
 * Closes pd for waiting (Go's pollUnblock): the Gs waiting in either
 * direction return PD_ECLOSED, and so does every pd_prepare and pd_wait
 * after; the deadline timers are stopped.  Once only.
 */
void pd_close(struct polldesc *pd);

#endif
