/*
 * console_in.h - the console's receive side, which knows one key:
 * Ctrl-\ (byte 0x1c, what a terminal turns into SIGQUIT).  There is no
 * console input API otherwise: every other byte received is read and
 * dropped, and so is a Ctrl-\ while no handler is registered.
 *
 * Each arch feeds it from an interrupt, never from a periodic poll (a
 * perpetual timer would keep idle cores awake and hide a deadlock from
 * the scheduler): x86_64 from COM1's receive interrupt through the I/O
 * APIC, aarch64 from the PL011's through the GIC, the hosted build from
 * SIGQUIT (arch.h's arch_console_in_start).  A machine without the
 * UART or a route for its interrupt gets no console input and says so
 * in one line at boot.
 */
#ifndef KERNEL_CONSOLE_IN_H
#define KERNEL_CONSOLE_IN_H

#include <stddef.h>
#include <stdint.h>

#define CONSOLE_QUIT_KEY 0x1c   /* Ctrl-\ */

/*
 * Makes fn the quit handler: called once per Ctrl-\ received from now
 * on, in interrupt context (interrupts off, on the stack of whatever the
 * receiving core was running; hosted: from the signal path, under the
 * same rules), so as kernel/irq.h's handlers: it must not block, park or
 * allocate; it may set a flag or ready a G.  NULL drops the key again.
 * Any context; a later call replaces the handler.
 */
void console_on_quit(void (*fn)(void));

/*
 * The arch's receive handler hands over the n bytes it read (arch.h).
 * Interrupt context.
 */
void console_input(const char *s, size_t n);

/* Ctrl-\ received since boot, handled or dropped (for tests).  Any
   context. */
uint64_t console_quit_count(void);

#endif
