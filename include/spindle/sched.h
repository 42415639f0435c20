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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Starts fn(arg) in a new G.  Returns its id (> 1; main is 1).  A caller
 * that has filled its core's run queue (256 Gs) yields first, so the Gs
 * it made run, here or on other cores, before it makes more.
 */
uint64_t sp_go(void (*fn)(void *), void *arg);

/*
 * What a G started by sp_go_attr has beyond sp_go's.
 *
 * stack_size: 0, or not more than fits its slot (64 KiB less the newlib
 * state and, with tls, the TLS block): an ordinary G.  More: the G runs
 * on a stack of its own of that many bytes (rounded up to pages) with an
 * unmapped guard page below it, as a thread's stack on Linux; a page
 * gets memory when first touched, and all of it is given back after the
 * G exits (by the next sp_go_attr that wants a big stack, or the next
 * core that idles).  Running off its bottom panics as a stack overflow
 * of that G.  At most SP_GO_STACK_MAX.
 *
 * tls: the G has its own copy of the program's __thread
 * (_Thread_local) variables, as a thread does: initial values as
 * declared, zero where none is.  A G without it shares its core's copy
 * (on the hosted build, where glibc owns the thread pointer, every G
 * does: tls is ignored there).
 */
struct sp_go_attr {
    size_t stack_size;
    bool tls;
};

#define SP_GO_STACK_MAX (32UL << 20)

/*
 * sp_go with attributes; a NULL a is sp_go.  Returns the G's id, or 0
 * (no G started) if a->stack_size is over SP_GO_STACK_MAX or every big
 * stack (2048) is in use.
 */
uint64_t sp_go_attr(void (*fn)(void *), void *arg,
                    const struct sp_go_attr *a);

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
 * queue length, Gs preempted on its core), then a line of memory: pages
 * in use, and of them those held on purpose (G slots' stacks, the heap,
 * whose pages stay at its high-water mark, the run queues' chunks), Gs
 * alive and G slots made.  Returns the length as snprintf does.
 */
int sp_sched_report(char *buf, size_t len);

/* Ends the calling G (as returning from its function does). */
__attribute__((noreturn)) void sp_goexit(void);

#endif
