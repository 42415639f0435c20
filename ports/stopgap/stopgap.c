/*
 * stopgap.c - POSIX functions that ports link against and that posix/
 * does not define yet (ports/stopgap/README.md).  Each is weak: a strong
 * definition in the kernel (libspindle.a) wins, so these fall away one by
 * one as the POSIX layer lands.  The file calls fail with ENOSYS, there
 * being no file system yet; sleep parks the G; sysconf answers the page
 * size and the core count and fails with EINVAL otherwise.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>
#include <spindle/cpu.h>
#include <spindle/time.h>

#define WEAK __attribute__((weak))

static int nosys(void)
{
    errno = ENOSYS;
    return -1;
}

/* newlib's stat() and unlink() call these. */
WEAK int _stat(const char *path, struct stat *st) { return nosys(); }
WEAK int _unlink(const char *path) { return nosys(); }

WEAK int lstat(const char *restrict path, struct stat *restrict st) { return nosys(); }
WEAK int access(const char *path, int mode) { return nosys(); }
WEAK int mkdir(const char *path, mode_t mode) { return nosys(); }
WEAK int rmdir(const char *path) { return nosys(); }
WEAK ssize_t readlink(const char *restrict path, char *restrict buf, size_t n) { return nosys(); }
WEAK int utimes(const char *path, const struct timeval *times) { return nosys(); }
WEAK int fchmod(int fd, mode_t mode) { return nosys(); }
WEAK int fchown(int fd, uid_t uid, gid_t gid) { return nosys(); }
WEAK int fsync(int fd) { return nosys(); }
WEAK int ftruncate(int fd, off_t len) { return nosys(); }
WEAK int ioctl(int fd, unsigned long request, ...) { return nosys(); }

/* The root of a file system that is not there yet. */
WEAK char *getcwd(char *buf, size_t n)
{
    if (n < 2) {
        errno = ERANGE;
        return NULL;
    }
    buf[0] = '/';
    buf[1] = '\0';
    return buf;
}

WEAK uid_t geteuid(void) { return 0; }

WEAK unsigned sleep(unsigned s)
{
    sp_sleep(SP_S(s));
    return 0;
}

WEAK long sysconf(int name)
{
    switch (name) {
    case _SC_PAGESIZE:
        return 4096;
    case _SC_NPROCESSORS_CONF:
    case _SC_NPROCESSORS_ONLN:
        return sp_ncpu();
    }
    errno = EINVAL;
    return -1;
}
