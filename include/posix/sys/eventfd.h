/*
 * sys/eventfd.h - an event counter as a descriptor (posix/eventfd.c), as
 * Linux's: a read takes the counter (or 1 of it with EFD_SEMAPHORE) and
 * waits while it is 0; a write adds to it and waits while the sum would
 * pass 0xfffffffffffffffe.  Reads and writes are of 8 bytes.
 */
#ifndef SPINDLE_SYS_EVENTFD_H
#define SPINDLE_SYS_EVENTFD_H

#include <fcntl.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t eventfd_t;

#define EFD_SEMAPHORE   1
#define EFD_CLOEXEC     O_CLOEXEC
#define EFD_NONBLOCK    O_NONBLOCK

int eventfd(unsigned int initval, int flags);
int eventfd_read(int fd, eventfd_t *value);
int eventfd_write(int fd, eventfd_t value);

#ifdef __cplusplus
}
#endif

#endif
