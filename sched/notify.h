/*
 * notify.h - the notify list under sp_cond (notify.c), for the layers
 * that build their own waits on it (posix/: condition variables on
 * pthread mutexes, timed mutex and rwlock waits).
 *
 * A wait has two halves, so that the caller can drop its own lock in
 * between:
 *
 *   struct notifywaiter w;
 *   notifylist_add(c, &w);          queued: a notify from now on finds w
 *   ...unlock the caller's lock...
 *   woken = notifylist_wait(c, &w, deadline);
 *
 * Every waiter that notifylist_add queued must then be taken off by
 * notifylist_wait or notifylist_cancel before w goes out of scope.
 */
#ifndef SCHED_NOTIFY_H
#define SCHED_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <spindle/sync.h>

struct g;

enum notifystate {
    NW_QUEUED,                  /* on the list */
    NW_WOKEN,                   /* taken off by a signal or broadcast */
    NW_TIMEDOUT,                /* taken off by its deadline's timer */
    NW_CANCELLED,               /* taken off by notifylist_cancel */
};

/* A waiter: on the waiting G's stack.  Under its list's root lock. */
struct notifywaiter {
    struct notifywaiter *next, *prev;
    struct g *g;
    sp_cond *c;
    int state;                  /* enum notifystate */
    bool parked;                /* the G parked: whoever takes w off
                                   the list readies it */
};

/* Queues the calling G's w at c's tail.  From a G. */
void notifylist_add(sp_cond *c, struct notifywaiter *w);

/*
 * Parks until w is taken off c by a notify, or until sp_nanotime()
 * reaches deadline (0: no deadline).  Returns true if a notify took it,
 * false if the deadline did (never before deadline).  Returns at once if
 * w was taken off already.  From the G that queued w, holding no
 * spinlock.
 */
bool notifylist_wait(sp_cond *c, struct notifywaiter *w, uint64_t deadline);

/*
 * Takes w off c if it is still queued, for a caller that no longer
 * wants to wait.  Returns true if a notify had taken it off first (the
 * caller consumed that wake-up).
 */
bool notifylist_cancel(sp_cond *c, struct notifywaiter *w);

#endif
