/*
 * fmt.h - the kernel's printf engine, used by the console and the panic
 * path, so it never allocates, keeps all state on the caller's stack
 * (reentrant: a panic inside a printk may format again) and has no
 * floating point.
 *
 * Supported: flags '-' and '0', a width (digits or '*'), a precision
 * (digits or '*'; for %s the maximum length, for integers the minimum
 * number of digits, as in C), length modifiers h/hh (ignored: the
 * argument is read as an int), l, ll and z, and the conversions
 * d i u x X o p s c %.  Where these overlap with C99 the output is
 * identical to the host's snprintf, except:
 *   %p     always "0x" and 16 hex digits, NULL included;
 *   %s     NULL prints "(null)", cut by the precision like any string;
 *   other  an unsupported conversion or flag ('+', '#', %f, %n, ...) is
 *          copied to the output verbatim, so the mistake shows on the
 *          console instead of eating an argument silently (but a '*'
 *          before it has consumed its int).
 *
 * Like C99 snprintf: writes at most n bytes, always NUL-terminates when
 * n > 0, and returns the length the full output would have had (without
 * the NUL), or -1 if that exceeds INT_MAX.  buf may be NULL when n is 0.
 */
#ifndef KERNEL_FMT_H
#define KERNEL_FMT_H

#include <stdarg.h>
#include <stddef.h>

int fmt_vsnprintf(char *buf, size_t n, const char *f, va_list ap);
int fmt_snprintf(char *buf, size_t n, const char *f, ...)
    __attribute__((format(printf, 3, 4)));

#endif
