/*
 * sys/un.h - the AF_UNIX socket address (POSIX).  Spindle's AF_UNIX
 * sockets are unnamed (socketpair only): there is no file system to
 * name them in, so bind and connect with a sockaddr_un fail.  The type
 * is here for programs that compile their Unix-socket paths in and
 * choose them at run time (memcached's -s).
 */
#ifndef SPINDLE_BSD_SYS_UN_H
#define SPINDLE_BSD_SYS_UN_H

#include <sys/socket.h>

struct sockaddr_un {
    sa_family_t sun_family;     /* AF_UNIX */
    char sun_path[108];         /* Linux's size */
};

#endif
