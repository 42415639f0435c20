/*
 * timers.h - per-P timers (Go's runtime/time.go, the 1.14 design).
 *
 * A timer lives on the heap of the P it was started on: a 4-ary min-heap
 * ordered by `when`, guarded by that P's timer lock.  Its function runs on
 * that P's core, or on another core if it is overdue there (a thief's in
 * the last steal round, an idle core's, or any core passing through the
 * scheduler: proc.c), with interrupts off and no lock held: it must not
 * block, and should only ready a G, send without blocking or start a G.
 *
 * Stop marks a timer deleted and leaves it in the heap; the heap drops
 * marked timers when they reach the top, and sweeps them all out once they
 * are a quarter of it (Go's cleantimers and adjusttimers).  Reset moves a
 * timer still in a heap in place.  Times are arch_cycles() values.
 */
#ifndef SCHED_TIMERS_H
#define SCHED_TIMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct p;

enum timer_status {
    T_IDLE,         /* not in any heap */
    T_WAITING,      /* in pp's heap, will fire at when */
    T_DELETED,      /* in pp's heap but stopped: will be dropped */
    T_RUNNING,      /* a periodic timer's function is running now; pp
                       stays set (h -1) so stop/reset lock its P (a
                       one-shot timer is T_IDLE once its function starts) */
};

struct timer {
    uint64_t when;              /* arch_cycles() deadline */
    uint64_t period;            /* cycles; 0 = one shot */
    void (*f)(void *arg);
    void *arg;
    /* Under pp->timerlock when pp is set: */
    struct p *pp;               /* heap it is in, NULL when T_IDLE */
    int h;                      /* its handle in that heap, -1 if none
                                   (timers.c) */
    int status;                 /* enum timer_status */
    bool stop_while_running;    /* stopped during f: do not re-arm */
    bool reset_while_running;   /* reset during f: re-arm at when as set */
};

/* A heap slot: the timer and a copy of its when (timers.c says why). */
struct timerslot {
    uint64_t when;
    struct timer *t;
};

void timer_init(struct timer *t, void (*f)(void *), void *arg);

/* Arms t at `when` (and every `period` after, if not 0) on this P. */
void timer_start(struct timer *t, uint64_t when, uint64_t period);

/* True if t was waiting and now will not fire (Go's Timer.Stop). */
bool timer_stop(struct timer *t);

/* Re-arms t; true if it was waiting (Go's Timer.Reset). */
bool timer_reset(struct timer *t, uint64_t when, uint64_t period);

/* Waits until no core runs t's function (a one-shot's run goes on after
   timer_stop finds it idle).  From a G, not from t's own function. */
void timer_wait(struct timer *t);

/*
 * Stops t and takes it out of its heap now, so its memory may be freed;
 * waits if its function is running on another core.  Not from t's own
 * function.
 */
void timer_destroy(struct timer *t);

/*
 * Runs p's timers that are due at `now`; returns the earliest `when` still
 * in the heap (0 if none).  Any core, interrupts off, no spinlock held.
 */
uint64_t timers_run(struct p *p, uint64_t now);

/* The earliest `when` in p's heap, 0 if empty (a lock-free hint):
   timers_next(p), inline in schedimpl.h, loads p->timer0. */

/* Timers waiting or running on any P (deadlock check: a sleeper is not
   stuck). */
long timers_pending(void);

/* Bytes the Ps' heap arrays hold (they keep their largest size), for
   the soak's leak check; exact only while no timer starts. */
size_t timers_heap_bytes(void);

#endif
