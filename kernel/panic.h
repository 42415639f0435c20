/*
 * panic.h - fail-stop for broken invariants.
 *
 * panic() prints "panic: <message>", the core, a backtrace with symbol
 * names, stops every other core and ends the machine with a failure
 * status.  Messages start with the function that found the problem:
 * panic("runqput: queue full").
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdint.h>

__attribute__((noreturn, format(printf, 1, 2)))
void panic(const char *fmt, ...);

/* Status the machine exits with after a panic. */
#define PANIC_EXIT_STATUS 112

#define assert(e) \
    ((e) ? (void)0 : panic("assertion failed: %s (%s:%d)", #e, __FILE__, __LINE__))

/*
 * Stops every other core for good and takes the console, for a fatal
 * report that is not a panic (the deadlock report).  Returns this core's
 * id; if another core is already stopping the machine, never returns.
 */
int stop_machine(void);

/* Prints a frame-pointer backtrace starting at frame fp. */
void backtrace_from(uintptr_t fp, uintptr_t pc);

/* Resolves addr to the name of the function containing it, and the offset. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *off);

#endif
