/*
 * nofs.c - the path calls while there is no file system (newlib.c's
 * _open is ENOENT): every path names nothing, except that the root "/"
 * is a directory one may change to, and no descriptor is a regular
 * file.  access, chdir, ftruncate, and newlib's _link and _unlink (under
 * link and unlink).  Programs call them at start-up (memcached checks
 * its pid file's folder, a daemon changes to "/") and must see the
 * ordinary failure, not ENOSYS.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "posix/fd.h"

#undef errno
extern int errno;

/* Sets the calling G's errno, and the global one newlib's _r wrappers
   copy from (fdcalls.c says why); -1. */
static int nofs_fail(int e)
{
    errno = e;
    *__errno() = e;
    return -1;
}

int access(const char *path, int mode)
{
    if (!path || !*path)
        return nofs_fail(ENOENT);
    if (mode & ~(R_OK | W_OK | X_OK))
        return nofs_fail(EINVAL);
    if (strcmp(path, "/") == 0)
        return (mode & W_OK) ? nofs_fail(EROFS) : 0;
    return nofs_fail(ENOENT);
}

int chdir(const char *path)
{
    if (path && strcmp(path, "/") == 0)
        return 0;
    return nofs_fail(ENOENT);
}

int ftruncate(int fd, off_t len)
{
    struct file *f = fd_get(fd);

    (void)len;
    if (!f)
        return nofs_fail(EBADF);
    file_put(f);
    return nofs_fail(EINVAL);       /* not a regular file */
}

int _link(const char *old, const char *new)
{
    (void)old;
    (void)new;
    return nofs_fail(ENOENT);
}

int _unlink(const char *path)
{
    (void)path;
    return nofs_fail(ENOENT);
}
