/*
 * flock.c - BSD's advisory whole-file locks.  One program is the only
 * process there is, and flock's locks hold against other processes, so
 * every lock this process asks for is granted at once (LOCK_NB never
 * finds it taken) and LOCK_UN always succeeds.  What is checked: the
 * descriptor is open (EBADF) and the operation is one of LOCK_SH,
 * LOCK_EX or LOCK_UN, optionally with LOCK_NB (EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>

int flock(int fd, int op)
{
    int kind = op & ~LOCK_NB;

    if (fcntl(fd, F_GETFD) < 0)
        return -1;                      /* EBADF, from fcntl */
    if (kind != LOCK_SH && kind != LOCK_EX && kind != LOCK_UN) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}
