/*
 * sys/epoll.h - epoll (posix/epoll.c), Linux's interface and constants:
 * level-triggered by default, EPOLLET edge-triggered, EPOLLONESHOT
 * disarmed after one report until EPOLL_CTL_MOD.  An epoll watches any
 * descriptor but another epoll (EINVAL).  The sigmask of epoll_pwait is
 * accepted and means nothing.
 */
#ifndef SPINDLE_SYS_EPOLL_H
#define SPINDLE_SYS_EPOLL_H

#include <stdint.h>
#include <fcntl.h>
#include <sys/_sigset.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EPOLLIN         0x001u
#define EPOLLPRI        0x002u
#define EPOLLOUT        0x004u
#define EPOLLERR        0x008u
#define EPOLLHUP        0x010u
#define EPOLLRDNORM     0x040u
#define EPOLLRDBAND     0x080u
#define EPOLLWRNORM     0x100u
#define EPOLLWRBAND     0x200u
#define EPOLLMSG        0x400u
#define EPOLLRDHUP      0x2000u
#define EPOLLEXCLUSIVE  (1u << 28)
#define EPOLLWAKEUP     (1u << 29)
#define EPOLLONESHOT    (1u << 30)
#define EPOLLET         (1u << 31)

#define EPOLL_CTL_ADD   1
#define EPOLL_CTL_DEL   2
#define EPOLL_CTL_MOD   3

#define EPOLL_CLOEXEC   O_CLOEXEC

typedef union epoll_data {
    void *ptr;
    int fd;
    uint32_t u32;
    uint64_t u64;
} epoll_data_t;

struct epoll_event {
    uint32_t events;
    epoll_data_t data;
};

int epoll_create(int size);
int epoll_create1(int flags);
int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event);
int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
               int timeout);
int epoll_pwait(int epfd, struct epoll_event *events, int maxevents,
                int timeout, const __sigset_t *sigmask);

#ifdef __cplusplus
}
#endif

#endif
