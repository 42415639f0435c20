/*
 * nofs.c - the file-system calls of a machine that has no file system:
 * one empty, read-only root directory, "/".  Programs call them at
 * start-up (memcached checks its pid file's folder, a daemon changes to
 * "/", SQLite's VFS looks up its temporary directory) and must see the
 * ordinary failure, not ENOSYS.
 *
 * A path names "/" (stat, lstat, access, chdir, opendir's stat) or
 * nothing: ENOENT.  Creating anything fails with EROFS; removing
 * anything with ENOENT (EBUSY for the root); open() (newlib.c) fails
 * with ENOENT.  The calls on a descriptor answer for the files there
 * are (the console, sockets, pipes, eventfds, epolls): fsync and
 * ftruncate fail with EINVAL as on Linux's special files, fchmod and
 * fchown succeed with nothing to change, and ioctl knows FIONBIO alone
 * (FIONREAD fails with ENOTTY: fd.h's files do not count their bytes,
 * and programs then read a buffer's worth).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include "posix/fd.h"

#undef errno
extern int errno;

static int fail(int e)
{
    errno = *__errno() = e;     /* newlib's _r wrappers copy the global */
    return -1;
}

/* True if path names the root: "/", "//", "/.", "/./" and the like. */
static bool is_root(const char *path)
{
    if (!path || *path != '/')
        return false;
    for (; *path; path++)
        if (*path != '/' && !(*path == '.' && (path[1] == '/' || !path[1])))
            return false;
    return true;
}

/* 0 if path exists (the root), else the errno. */
static int lookup(const char *path)
{
    if (!path)
        return EFAULT;
    if (!*path)
        return ENOENT;
    return is_root(path) || strcmp(path, ".") == 0 ? 0 : ENOENT;
}

int _stat(const char *path, struct stat *st)
{
    int e = lookup(path);

    if (e)
        return fail(e);
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFDIR | 0555;
    st->st_nlink = 2;
    st->st_blksize = 4096;
    return 0;
}

int lstat(const char *restrict path, struct stat *restrict st)
{
    return _stat(path, st);
}

int access(const char *path, int mode)
{
    int e = lookup(path);

    if (mode & ~(R_OK | W_OK | X_OK))
        return fail(EINVAL);
    if (e)
        return fail(e);
    return mode & W_OK ? fail(EROFS) : 0;
}

int chdir(const char *path)
{
    int e = lookup(path);

    return e ? fail(e) : 0;
}

char *getcwd(char *buf, size_t n)
{
    if (!buf || n < 2) {
        fail(buf ? ERANGE : EINVAL);
        return NULL;
    }
    strcpy(buf, "/");
    return buf;
}

int mkdir(const char *path, mode_t mode)
{
    return fail(lookup(path) ? EROFS : EEXIST);
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
    return mkdir(path, mode);
}

int mkfifo(const char *path, mode_t mode)
{
    return mkdir(path, mode);
}

int _unlink(const char *path)
{
    return fail(lookup(path) ? ENOENT : EISDIR);
}

int rmdir(const char *path)
{
    return fail(lookup(path) ? ENOENT : EBUSY);
}

int _link(const char *old, const char *new)
{
    return fail(lookup(old) ? ENOENT : EPERM);
}

int _rename(const char *old, const char *new)
{
    return fail(lookup(old) ? ENOENT : EBUSY);
}

int rename(const char *old, const char *new)
{
    return _rename(old, new);
}

ssize_t readlink(const char *restrict path, char *restrict buf, size_t n)
{
    return fail(lookup(path) ? ENOENT : EINVAL);
}

int symlink(const char *target, const char *path)
{
    return fail(EROFS);
}

int utimes(const char *path, const struct timeval *times)
{
    return fail(lookup(path) ? ENOENT : EROFS);
}

int truncate(const char *path, off_t len)
{
    return fail(lookup(path) ? ENOENT : EISDIR);
}

/* ---- Calls on a descriptor ----------------------------------------------- */

/* 0 if fd is open, else EBADF. */
static int check_fd(int fd)
{
    struct file *f = fd_get(fd);

    if (!f)
        return EBADF;
    file_put(f);
    return 0;
}

int fsync(int fd)
{
    return fail(check_fd(fd) ? EBADF : EINVAL);
}

int fdatasync(int fd)
{
    return fsync(fd);
}

int ftruncate(int fd, off_t len)
{
    return fail(check_fd(fd) ? EBADF : EINVAL);
}

int fchmod(int fd, mode_t mode)
{
    int e = check_fd(fd);

    return e ? fail(e) : 0;
}

int fchown(int fd, uid_t uid, gid_t gid)
{
    int e = check_fd(fd);

    return e ? fail(e) : 0;
}

int fchdir(int fd)
{
    return fail(check_fd(fd) ? EBADF : ENOTDIR);
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
