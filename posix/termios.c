/*
 * termios.c - terminal settings (include/posix/sys/termios.h).  No
 * descriptor has a line discipline: the console only writes (its
 * receive side knows Ctrl-\ alone), and sockets and pipes are not
 * terminals.  So tcgetattr and tcsetattr fail with ENOTTY on an open
 * descriptor and EBADF on a closed one, and change nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <termios.h>

static int no_tty(int fd)
{
    errno = fcntl(fd, F_GETFD) < 0 ? EBADF : ENOTTY;
    return -1;
}

int tcgetattr(int fd, struct termios *t)
{
    (void)t;
    return no_tty(fd);
}

int tcsetattr(int fd, int when, const struct termios *t)
{
    (void)when;
    (void)t;
    return no_tty(fd);
}
