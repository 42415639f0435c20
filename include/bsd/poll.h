/*
 * poll.h - poll() and ppoll() on any descriptor (bare metal;
 * posix/poll.c).  The calling G parks until one of the descriptors is
 * ready or the timeout (ms; -1 none, 0 just look) passes; only those
 * descriptors' events wake it.  The console (fds 0-2) is always
 * readable (end of file) and writable.  Linux's constants; ppoll's
 * signal mask is accepted and means nothing (no signal interrupts a
 * wait).
 */
#ifndef SPINDLE_BSD_POLL_H
#define SPINDLE_BSD_POLL_H

#include <sys/_sigset.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pollfd {
    int fd;                     /* < 0: ignored, revents 0 */
    short events;               /* asked for */
    short revents;              /* found (POLLERR, POLLHUP, POLLNVAL always) */
};

typedef unsigned long nfds_t;

#define POLLIN          0x001
#define POLLPRI         0x002
#define POLLOUT         0x004
#define POLLERR         0x008
#define POLLHUP         0x010
#define POLLNVAL        0x020
#define POLLRDNORM      0x040
#define POLLRDBAND      0x080
#define POLLWRNORM      0x100
#define POLLWRBAND      0x200
#define POLLRDHUP       0x2000

int poll(struct pollfd *fds, nfds_t nfds, int timeout);

struct timespec;
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *ts,
          const __sigset_t *mask);

#ifdef __cplusplus
}
#endif

#endif
