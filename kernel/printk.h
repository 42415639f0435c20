/*
 * printk.h - the kernel's console output.
 *
 * printk formats into a buffer first and writes each line under the
 * console lock, so lines from different cores never interleave.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include <stddef.h>

__attribute__((format(printf, 1, 2))) void printk(const char *fmt, ...);
void vprintk(const char *fmt, va_list ap);

/* Writes n bytes of text as whole lines, atomically with other writers. */
void console_write(const char *s, size_t n);

/*
 * Tests: from now on, also copy console output into buf (up to cap bytes;
 * NULL stops copying).  Returns how many bytes the previous tap got.
 */
size_t console_tap(char *buf, size_t cap);

/* console_tap whose copy replaces the output: nothing reaches the
   console until console_tap(NULL, 0) or another tap. */
size_t console_capture(char *buf, size_t cap);

/*
 * For the panic path only: takes the console even if another core holds
 * its lock (that core is about to be stopped).
 */
void console_break_lock(void);

#endif
