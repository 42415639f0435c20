/*
 * sys/socket.h - BSD sockets for apps on Spindle (bare metal), which
 * newlib lacks.  The calls live in posix/bsd*.c, on the socket layer
 * of spindle/net.h: every call that waits parks the calling G, errors are
 * -1 with errno (per G) set.  Only AF_INET with SOCK_STREAM and
 * SOCK_DGRAM.  Constants and layouts are Linux's, so ported code that
 * hard-codes them still works.
 *
 * Not for ARCH=hosted: include/bsd is on the bare-metal include path only
 * (glibc has its own).
 */
#ifndef SPINDLE_BSD_SYS_SOCKET_H
#define SPINDLE_BSD_SYS_SOCKET_H

#include <sys/types.h>          /* size_t, ssize_t */
#include <sys/_types.h>         /* __socklen_t */
#include <sys/uio.h>            /* struct iovec */

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _SOCKLEN_T_DECLARED
typedef __socklen_t socklen_t;
#define _SOCKLEN_T_DECLARED
#endif

/* Linux's two-byte family (no BSD sa_len). */
#ifndef _SA_FAMILY_T_DECLARED
typedef unsigned short sa_family_t;
#define _SA_FAMILY_T_DECLARED
#endif

struct sockaddr {
    sa_family_t sa_family;
    char sa_data[14];
};

struct sockaddr_storage {
    sa_family_t ss_family;
    char __ss_pad[128 - sizeof(sa_family_t) - sizeof(unsigned long)];
    unsigned long __ss_align;
};

/* sendmsg and recvmsg: no control data is sent or received (the
   layer has no descriptor passing); msg_flags is 0, or MSG_TRUNC. */
struct msghdr {
    void *msg_name;             /* a UDP socket's address, or NULL */
    socklen_t msg_namelen;
    struct iovec *msg_iov;
    int msg_iovlen;
    void *msg_control;
    socklen_t msg_controllen;
    int msg_flags;
};

struct cmsghdr {
    socklen_t cmsg_len;
    int cmsg_level;
    int cmsg_type;
};

#define CMSG_FIRSTHDR(m)    ((struct cmsghdr *)0)

struct linger {
    int l_onoff;
    int l_linger;
};

/* Families (PF_ as AF_). */
#define AF_UNSPEC       0
#define AF_UNIX         1
#define AF_LOCAL        AF_UNIX
#define AF_INET         2
#define AF_INET6        10
#define PF_UNSPEC       AF_UNSPEC
#define PF_UNIX         AF_UNIX
#define PF_LOCAL        AF_LOCAL
#define PF_INET         AF_INET
#define PF_INET6        AF_INET6

/* Types, and flags that may be or'ed into socket()'s type. */
#define SOCK_STREAM     1
#define SOCK_DGRAM      2
#define SOCK_RAW        3
#define SOCK_SEQPACKET  5
#define SOCK_NONBLOCK   0x800
#define SOCK_CLOEXEC    0x80000

/* Socket-level options. */
#define SOL_SOCKET      1
#define SO_DEBUG        1
#define SO_REUSEADDR    2
#define SO_TYPE         3
#define SO_ERROR        4
#define SO_DONTROUTE    5
#define SO_BROADCAST    6
#define SO_SNDBUF       7
#define SO_RCVBUF       8
#define SO_KEEPALIVE    9
#define SO_OOBINLINE    10
#define SO_LINGER       13
#define SO_REUSEPORT    15
#define SO_RCVLOWAT     18
#define SO_SNDLOWAT     19
#define SO_RCVTIMEO     20
#define SO_SNDTIMEO     21
#define SO_ACCEPTCONN   30

/* send/recv flags. */
#define MSG_OOB         0x1
#define MSG_PEEK        0x2
#define MSG_DONTROUTE   0x4
#define MSG_TRUNC       0x20
#define MSG_DONTWAIT    0x40
#define MSG_WAITALL     0x100
#define MSG_NOSIGNAL    0x4000

/* shutdown's how. */
#define SHUT_RD         0
#define SHUT_WR         1
#define SHUT_RDWR       2

#define SOMAXCONN       4096

int socket(int domain, int type, int protocol);
int bind(int fd, const struct sockaddr *addr, socklen_t len);
int listen(int fd, int backlog);
int accept(int fd, struct sockaddr *addr, socklen_t *len);
int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int connect(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t send(int fd, const void *buf, size_t len, int flags);
ssize_t recv(int fd, void *buf, size_t len, int flags);
ssize_t sendto(int fd, const void *buf, size_t len, int flags,
               const struct sockaddr *to, socklen_t tolen);
ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
                 struct sockaddr *from, socklen_t *fromlen);
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
int shutdown(int fd, int how);
int socketpair(int domain, int type, int protocol, int sv[2]);
int setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int getpeername(int fd, struct sockaddr *addr, socklen_t *len);

#ifdef __cplusplus
}
#endif

#endif
