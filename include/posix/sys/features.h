/*
 * sys/features.h - newlib's feature macros, and the POSIX options that
 * Spindle's POSIX layer (posix/) provides on Gs.  newlib defines these
 * only for the systems it knows (RTEMS, Cygwin); without them its
 * <pthread.h> declares nothing and <time.h> has no clock_gettime.
 *
 * Found before newlib's own (include/posix comes first on the include
 * path, as in the sysroot of spindle-cc), which it includes.
 */
#ifndef SPINDLE_SYS_FEATURES_H
#define SPINDLE_SYS_FEATURES_H

#include_next <sys/features.h>

#define __spindle__                     1

#define _POSIX_THREADS                  200809L
#define _POSIX_THREAD_SAFE_FUNCTIONS    200809L
#define _POSIX_THREAD_ATTR_STACKSIZE    200809L
#define _POSIX_THREAD_CPUTIME           200809L
#define _POSIX_TIMEOUTS                 200809L
#define _POSIX_TIMERS                   200809L
#define _POSIX_MONOTONIC_CLOCK          200809L
#define _POSIX_CLOCK_SELECTION          200809L
#define _POSIX_CPUTIME                  200809L
#define _POSIX_READER_WRITER_LOCKS      200809L
#define _POSIX_SPIN_LOCKS               200809L
#define _POSIX_BARRIERS                 200809L
#define _UNIX98_THREAD_MUTEX_ATTRIBUTES 1

#endif
