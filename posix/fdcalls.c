/*
 * fdcalls.c - the calls every descriptor answers, whatever file is
 * behind it (fd.h): dup, dup2, dup3, fcntl, readv, writev, sendmsg and
 * recvmsg, pread, pwrite, ftruncate, fsync, fdatasync, ioctl, and
 * newlib's read, write, close, fstat, isatty and lseek.
 *
 * ioctl knows FIONBIO alone (FIONREAD fails with ENOTTY: fd.h's files
 * do not count their bytes, and programs then read a buffer's worth).
 *
 * readv and writev.  Up to IOV_BUF bytes are gathered into one buffer
 * and moved by one call of the file's read or write, so a writev of at
 * most PIPE_BUF bytes to a pipe is atomic and a readv returns what one
 * read found; longer vectors go an element at a time, stopping at the
 * first short count (a stream's semantics; no datagram is longer).
 *
 * sendmsg and recvmsg move msg_iov as one send or recv does (through a
 * gathered buffer); there is no control data (no descriptor passing):
 * msg_controllen comes back 0.
 *
 * Every call sets the calling G's errno and returns -1 on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "posix/fd.h"

#undef errno
extern int errno;

#define IOV_BUF 65536

/* The calling G's errno = e; -1. */
static int fail(int e)
{
    *__errno() = e;
    return -1;
}

/* A file call's result as the system call's: n, or -1 and errno. */
static long result(long n)
{
    return n < 0 ? fail((int)-n) : n;
}

/* ---- Descriptors -------------------------------------------------------- */

int dup(int fd)
{
    return (int)result(fd_dup(fd, -1, 0, false));
}

int dup2(int oldfd, int newfd)
{
    if (newfd < 0 || newfd >= NFD)
        return fail(EBADF);
    return (int)result(fd_dup(oldfd, newfd, 0, false));
}

int dup3(int oldfd, int newfd, int flags)
{
    if (oldfd == newfd || (flags & ~O_CLOEXEC))
        return fail(EINVAL);
    if (newfd < 0 || newfd >= NFD)
        return fail(EBADF);
    return (int)result(fd_dup(oldfd, newfd, 0, flags & O_CLOEXEC));
}

int fcntl(int fd, int cmd, ...)
{
    struct file *f;
    va_list ap;
    int arg, r;

    va_start(ap, cmd);
    arg = va_arg(ap, int);      /* read but unused by the GET commands */
    va_end(ap);
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        if (arg < 0 || arg >= NFD)
            return fail(EINVAL);
        return (int)result(fd_dup(fd, -1, arg, cmd == F_DUPFD_CLOEXEC));
    case F_GETFD:
        return (int)result(fd_getfd(fd));
    case F_SETFD:
        return (int)result(fd_setfd(fd, arg));
    case F_GETFL:
    case F_SETFL:
        break;
    default:
        return fail(EINVAL);
    }
    if (!(f = fd_get(fd)))
        return fail(EBADF);
    if (cmd == F_GETFL) {
        r = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);
    } else {
        /* Only O_NONBLOCK and O_APPEND change; the access mode stays. */
        int old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED), want;
        int mask = O_NONBLOCK | O_APPEND;

        do
            want = (old & ~mask) | (arg & mask);
        while (!__atomic_compare_exchange_n(&f->flags, &old, want, false,
                                            __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED));
        r = 0;
    }
    file_put(f);
    return r;
}

/* ---- Data ----------------------------------------------------------- */

/* One read or write of f (rd: which), O_NONBLOCK as the file says. */
static long file_rw(struct file *f, bool rd, void *buf, size_t len)
{
    bool nb = file_nonblock(f, false);

    if (rd)
        return f->ops->read ? f->ops->read(f, buf, len, nb) : -EINVAL;
    return f->ops->write ? f->ops->write(f, buf, len, nb) : -EINVAL;
}

/* The bytes of iov, or -EINVAL if that overflows or iovcnt is bad. */
static ssize_t iov_total(const struct iovec *iov, int iovcnt)
{
    size_t total = 0;

    if (iovcnt < 0 || iovcnt > IOV_MAX)
        return -EINVAL;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len > (size_t)LONG_MAX - total)
            return -EINVAL;
        total += iov[i].iov_len;
    }
    return (ssize_t)total;
}

/* Copies n bytes between buf and iov (to_iov: which way). */
static void iov_copy(const struct iovec *iov, int iovcnt, char *buf,
                     size_t n, bool to_iov)
{
    for (int i = 0; i < iovcnt && n; i++) {
        size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;

        if (to_iov)
            memcpy(iov[i].iov_base, buf, k);
        else
            memcpy(buf, iov[i].iov_base, k);
        buf += k;
        n -= k;
    }
}

/* readv/writev on f: see the top of the file.  A count or -errno. */
static long file_rwv(struct file *f, bool rd, const struct iovec *iov,
                     int iovcnt)
{
    ssize_t total = iov_total(iov, iovcnt);
    long n, done = 0;
    char *buf;

    if (total < 0)
        return total;
    if (total <= IOV_BUF) {
        if (!(buf = malloc(total ? (size_t)total : 1)))
            return -ENOMEM;
        if (!rd)
            iov_copy(iov, iovcnt, buf, total, false);
        n = file_rw(f, rd, buf, total);
        if (rd && n > 0)
            iov_copy(iov, iovcnt, buf, n, true);
        free(buf);
        return n;
    }
    for (int i = 0; i < iovcnt; i++) {
        if (!iov[i].iov_len)
            continue;
        n = file_rw(f, rd, iov[i].iov_base, iov[i].iov_len);
        if (n < 0)
            return done ? done : n;
        done += n;
        if ((size_t)n < iov[i].iov_len)
            break;
    }
    return done;
}

/* readv (rd) or writev of fd: the system call's result. */
static ssize_t fd_rwv(int fd, bool rd, const struct iovec *iov, int iovcnt)
{
    struct file *f = fd_get(fd);
    long n;

    if (!f)
        return fail(EBADF);
    n = file_rwv(f, rd, iov, iovcnt);
    file_put(f);
    return result(n);
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
    return fd_rwv(fd, true, iov, iovcnt);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    return fd_rwv(fd, false, iov, iovcnt);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    ssize_t total = iov_total(msg->msg_iov, msg->msg_iovlen);
    ssize_t n;
    char *buf;

    if (total < 0)
        return fail(EINVAL);
    if (!(buf = malloc(total ? (size_t)total : 1)))
        return fail(ENOMEM);
    iov_copy(msg->msg_iov, msg->msg_iovlen, buf, total, false);
    n = sendto(fd, buf, total, flags, msg->msg_name, msg->msg_namelen);
    free(buf);
    return n;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    ssize_t total = iov_total(msg->msg_iov, msg->msg_iovlen);
    socklen_t namelen = msg->msg_namelen;
    ssize_t n;
    char *buf;

    if (total < 0)
        return fail(EINVAL);
    if (!(buf = malloc(total ? (size_t)total : 1)))
        return fail(ENOMEM);
    n = recvfrom(fd, buf, total, flags, msg->msg_name,
                 msg->msg_name ? &namelen : NULL);
    if (n >= 0) {
        iov_copy(msg->msg_iov, msg->msg_iovlen, buf, n, true);
        if (msg->msg_name)
            msg->msg_namelen = namelen;
        msg->msg_controllen = 0;
        msg->msg_flags = 0;
    }
    free(buf);
    return n;
}

/* ---- newlib's system calls ------------------------------------------------ */

/*
 * newlib's _read_r and friends copy this global errno into the calling
 * G's when it is not 0, so these set both.  (The global is shared by
 * every G: one that fails on another core between our store and
 * _read_r's load could change what is copied, as for any of these
 * calls.)
 */
static int sys_fail(int e)
{
    errno = e;
    return fail(e);
}

static long sys_result(long n)
{
    return n < 0 ? sys_fail((int)-n) : n;
}

int _read(int fd, void *buf, size_t n)
{
    struct file *f = fd_get(fd);
    long r;

    if (!f)
        return sys_fail(EBADF);
    r = file_rw(f, true, buf, n);
    file_put(f);
    return (int)sys_result(r);
}

int _write(int fd, const void *buf, size_t n)
{
    struct file *f = fd_get(fd);
    long r;

    if (!f)
        return sys_fail(EBADF);
    r = file_rw(f, false, (void *)buf, n);
    file_put(f);
    return (int)sys_result(r);
}

int _close(int fd)
{
    return (int)sys_result(fd_close(fd));
}

int _fstat(int fd, struct stat *st)
{
    struct file *f = fd_get(fd);

    if (!f)
        return sys_fail(EBADF);
    memset(st, 0, sizeof *st);
    st->st_mode = f->ops->type;     /* a terminal (S_IFCHR) is line-
                                       buffered by stdio */
    st->st_blksize = 4096;
    if (f->ops->stat)
        f->ops->stat(f, st);
    file_put(f);
    return 0;
}

int _isatty(int fd)
{
    struct file *f = fd_get(fd);
    bool tty = f && f->ops->tty;

    if (f)
        file_put(f);
    if (tty)
        return 1;
    /* newlib's isatty calls this directly, with no _r wrapper. */
    sys_fail(f ? ENOTTY : EBADF);
    return 0;
}

off_t _lseek(int fd, off_t off, int whence)
{
    struct file *f = fd_get(fd);
    off_t r;

    if (!f)
        return sys_fail(EBADF);
    r = f->ops->seek ? f->ops->seek(f, off, whence) : -ESPIPE;
    file_put(f);
    return sys_result(r);
}

/* ---- Calls of files with offsets -------------------------------------- */

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    struct file *f = fd_get(fd);
    long r;

    if (!f)
        return fail(EBADF);
    r = !f->ops->pread ? -ESPIPE : off < 0 ? -EINVAL :
        f->ops->pread(f, buf, n, off);
    file_put(f);
    return result(r);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    struct file *f = fd_get(fd);
    long r;

    if (!f)
        return fail(EBADF);
    r = !f->ops->pwrite ? -ESPIPE : off < 0 ? -EINVAL :
        f->ops->pwrite(f, buf, n, off);
    file_put(f);
    return result(r);
}

int ftruncate(int fd, off_t len)
{
    struct file *f = fd_get(fd);
    long r;

    if (!f)
        return fail(EBADF);
    r = !f->ops->truncate ? -EINVAL : len < 0 ? -EINVAL :
        f->ops->truncate(f, len);
    file_put(f);
    return (int)result(r);
}

int fsync(int fd)
{
    struct file *f = fd_get(fd);
    long r;

    if (!f)
        return fail(EBADF);
    r = f->ops->sync ? f->ops->sync(f) : -EINVAL;
    file_put(f);
    return (int)result(r);
}

int fdatasync(int fd)
{
    return fsync(fd);
}

int ioctl(int fd, unsigned long request, ...)
{
    struct file *f = fd_get(fd);
    va_list ap;
    int *arg, r = 0;

    if (!f)
        return fail(EBADF);
    va_start(ap, request);
    arg = va_arg(ap, int *);
    va_end(ap);
    switch (request) {
    case FIONBIO: {
        int old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED), want;

        do
            want = *arg ? old | O_NONBLOCK : old & ~O_NONBLOCK;
        while (!__atomic_compare_exchange_n(&f->flags, &old, want, false,
                                            __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED));
        break;
    }
    default:
        r = fail(ENOTTY);
    }
    file_put(f);
    return r;
}
