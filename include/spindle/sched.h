/*
 * spindle/sched.h - goroutines, as an app sees them.
 *
 *   sp_go(worker, arg);   starts worker(arg) as a new G (Go's `go`)
 *   sp_yield();           lets this core's other runnable Gs run first
 *
 * Every blocking call in Spindle parks the calling G, never the core.
 * When main() returns, the machine exits with its status, whatever other
 * Gs are still running (as in Go).
 */
#ifndef SPINDLE_SCHED_H
#define SPINDLE_SCHED_H

#include <stddef.h>
#include <stdint.h>

/*
 * Starts fn(arg) in a new G.  Returns its id (> 1; main is 1).  A caller
 * that has filled its core's run queue (256 Gs) yields first, so the Gs
 * it made run, here or on other cores, before it makes more.
 */
uint64_t sp_go(void (*fn)(void *), void *arg);

/*
 * Puts the caller at the back of its core's run queue: the Gs queued on
 * this core run first (Go's goyield; runtime.Gosched, which goes through
 * the global queue, costs a shared lock on every call).  Gs queued
 * elsewhere run on their own cores or are stolen, and the global queue is
 * checked at least every 61 turns.  A caller alone on its core first
 * takes work from the global queue or another core, so a G polling in a
 * yield loop does not keep its core from helping the others.
 */
void sp_yield(void);

/* The calling G's id. */
uint64_t sp_goid(void);

/* How many times the calling G was preempted by the timer so far. */
uint64_t sp_preempted(void);

/*
 * The scheduler's state for a person, into buf: Go's schedtrace line
 * (ms since boot), then one line per P (its schedule ticks, Gs run, run
 * queue length, Gs preempted on its core).  Returns the length as
 * snprintf does.
 */
int sp_sched_report(char *buf, size_t len);

/* Ends the calling G (as returning from its function does). */
__attribute__((noreturn)) void sp_goexit(void);

#endif
