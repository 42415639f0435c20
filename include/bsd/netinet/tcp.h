/*
 * netinet/tcp.h - TCP options for BSD sockets on Spindle (bare metal; see
 * sys/socket.h).  Only TCP_NODELAY is supported (and always on: Nagle's
 * algorithm is off for every connection, as in Go); the others are here
 * for code that names them, and setsockopt fails with ENOPROTOOPT.
 */
#ifndef SPINDLE_BSD_NETINET_TCP_H
#define SPINDLE_BSD_NETINET_TCP_H

#define TCP_NODELAY     1
#define TCP_MAXSEG      2
#define TCP_CORK        3
#define TCP_KEEPIDLE    4
#define TCP_KEEPINTVL   5
#define TCP_KEEPCNT     6

#endif
