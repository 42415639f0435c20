/*
 * libc.h (hosted) - included first in every hosted compilation (-include),
 * to make the host C library safe for code that moves between threads.
 *
 * glibc declares __errno_location() const, so the compiler may compute
 * errno's address once and reuse it after a call.  A G that yields (or is
 * preempted) between the two uses can resume on another thread, and would
 * then read the errno of the thread it left.  Here errno goes through a
 * function the compiler must call again each time.
 */
#ifndef ARCH_HOSTED_LIBC_H
#define ARCH_HOSTED_LIBC_H
#ifndef __ASSEMBLER__

#include <errno.h>

int *hosted_errno(void);

#undef errno
#define errno (*hosted_errno())

#endif
#endif
