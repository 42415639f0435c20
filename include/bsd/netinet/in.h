/*
 * netinet/in.h - IPv4 addresses for BSD sockets on Spindle (bare metal;
 * see sys/socket.h).  Linux's constants and layouts.
 */
#ifndef SPINDLE_BSD_NETINET_IN_H
#define SPINDLE_BSD_NETINET_IN_H

#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* newlib's <sys/types.h> has these too, under the same guards, when
   __BSD_VISIBLE. */
#ifndef _IN_ADDR_T_DECLARED
typedef uint32_t in_addr_t;
#define _IN_ADDR_T_DECLARED
#endif
#ifndef _IN_PORT_T_DECLARED
typedef uint16_t in_port_t;
#define _IN_PORT_T_DECLARED
#endif

struct in_addr {
    in_addr_t s_addr;           /* network byte order */
};

struct sockaddr_in {
    sa_family_t sin_family;     /* AF_INET */
    in_port_t sin_port;         /* network byte order */
    struct in_addr sin_addr;
    unsigned char sin_zero[8];
};

/* IPv6 is not supported (socket(AF_INET6, ...) fails with EAFNOSUPPORT);
   the types are here for code that names them. */
struct in6_addr {
    uint8_t s6_addr[16];
};

struct sockaddr_in6 {
    sa_family_t sin6_family;
    in_port_t sin6_port;
    uint32_t sin6_flowinfo;
    struct in6_addr sin6_addr;
    uint32_t sin6_scope_id;
};

#define IPPROTO_IP      0
#define IPPROTO_ICMP    1
#define IPPROTO_TCP     6
#define IPPROTO_UDP     17
#define IPPROTO_IPV6    41
#define IPPROTO_RAW     255

/* An IPPROTO_IPV6 option, for code that sets it on the AF_INET6 sockets
   it cannot have. */
#define IPV6_V6ONLY     26

/* Host byte order, as the C library's: compare after ntohl, or give
   them to htonl. */
#define INADDR_ANY          ((in_addr_t)0x00000000)
#define INADDR_BROADCAST    ((in_addr_t)0xffffffff)
#define INADDR_NONE         ((in_addr_t)0xffffffff)
#define INADDR_LOOPBACK     ((in_addr_t)0x7f000001)

#define INET_ADDRSTRLEN     16
#define INET6_ADDRSTRLEN    46

static inline uint16_t htons(uint16_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap16(x);
#else
    return x;
#endif
}

static inline uint32_t htonl(uint32_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap32(x);
#else
    return x;
#endif
}

static inline uint16_t ntohs(uint16_t x)
{
    return htons(x);
}

static inline uint32_t ntohl(uint32_t x)
{
    return htonl(x);
}

#ifdef __cplusplus
}
#endif

#endif
