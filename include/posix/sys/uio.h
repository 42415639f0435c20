/*
 * sys/uio.h - scatter and gather I/O (posix/fdcalls.c), which newlib
 * lacks.  A readv or writev is one call on the descriptor's file when
 * it fits IOV_BUF bytes (so a writev to a pipe of at most PIPE_BUF bytes
 * is atomic); longer ones go an element at a time and stop at the first
 * short count.
 */
#ifndef SPINDLE_SYS_UIO_H
#define SPINDLE_SYS_UIO_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct iovec {
    void *iov_base;
    size_t iov_len;
};

#define IOV_MAX 1024
#define UIO_MAXIOV IOV_MAX

ssize_t readv(int fd, const struct iovec *iov, int iovcnt);
ssize_t writev(int fd, const struct iovec *iov, int iovcnt);

#ifdef __cplusplus
}
#endif

#endif
