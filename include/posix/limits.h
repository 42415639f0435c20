/*
 * limits.h - newlib's <limits.h> (and through it the compiler's), plus
 * POSIX's SSIZE_MAX, which newlib leaves out: the largest ssize_t, a
 * long on both arches.
 */
#ifndef SPINDLE_LIMITS_H
#define SPINDLE_LIMITS_H

#include_next <limits.h>

#ifndef SSIZE_MAX
#define SSIZE_MAX       __LONG_MAX__
#endif

#endif
