/*
 * netdb.h - names of hosts, services and protocols (posix/netdb.c), for
 * C code ported to Spindle.  IPv4 only: AF_INET6 fails with EAI_FAMILY.
 * Constants and layouts are Linux's.
 *
 * A host name is a dotted quad, "localhost" (127.0.0.1), or a name the
 * DNS server DHCP gave answers for (sp_resolve, spindle/net.h): the
 * lookup parks the calling G.  There is no reverse DNS: getnameinfo and
 * gethostbyaddr name 127.0.0.0/8 "localhost" and no other address.
 * Services come from a small built-in table (getservbyname), not
 * /etc/services; protocols are "ip", "icmp", "tcp" and "udp".
 *
 * h_errno is per G, as errno.
 */
#ifndef SPINDLE_NETDB_H
#define SPINDLE_NETDB_H

#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

struct addrinfo {
    int ai_flags;               /* AI_* */
    int ai_family;              /* AF_INET */
    int ai_socktype;            /* SOCK_STREAM or SOCK_DGRAM */
    int ai_protocol;            /* IPPROTO_TCP or IPPROTO_UDP */
    socklen_t ai_addrlen;
    struct sockaddr *ai_addr;   /* a struct sockaddr_in */
    char *ai_canonname;         /* the first result's, with AI_CANONNAME */
    struct addrinfo *ai_next;
};

/* getaddrinfo's hints.ai_flags. */
#define AI_PASSIVE      0x0001  /* no node: INADDR_ANY, to bind */
#define AI_CANONNAME    0x0002
#define AI_NUMERICHOST  0x0004  /* node must be a dotted quad */
#define AI_V4MAPPED     0x0008  /* accepted; IPv4 results only */
#define AI_ALL          0x0010  /* accepted; IPv4 results only */
#define AI_ADDRCONFIG   0x0020  /* accepted; the machine has IPv4 */
#define AI_NUMERICSERV  0x0400  /* service must be a number */

/* getaddrinfo's and getnameinfo's errors (gai_strerror names them). */
#define EAI_BADFLAGS    -1
#define EAI_NONAME      -2
#define EAI_AGAIN       -3
#define EAI_FAIL        -4
#define EAI_NODATA      -5
#define EAI_FAMILY      -6
#define EAI_SOCKTYPE    -7
#define EAI_SERVICE     -8
#define EAI_ADDRFAMILY  -9
#define EAI_MEMORY      -10
#define EAI_SYSTEM      -11
#define EAI_OVERFLOW    -12

/* getnameinfo's flags. */
#define NI_NUMERICHOST  1
#define NI_NUMERICSERV  2
#define NI_NOFQDN       4
#define NI_NAMEREQD     8
#define NI_DGRAM        16

#define NI_MAXHOST      1025
#define NI_MAXSERV      32

/*
 * 0 and *res, a list that freeaddrinfo frees, or an EAI_* error.  hints
 * (NULL: all zero) may ask for a family (AF_UNSPEC, AF_INET), a socket
 * type (0 gives SOCK_STREAM then SOCK_DGRAM), a protocol and AI_* flags.
 */
int getaddrinfo(const char *node, const char *service,
                const struct addrinfo *hints, struct addrinfo **res);
void freeaddrinfo(struct addrinfo *res);
int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
                socklen_t hostlen, char *serv, socklen_t servlen, int flags);
const char *gai_strerror(int err);

struct hostent {
    char *h_name;
    char **h_aliases;           /* NULL-terminated; empty here */
    int h_addrtype;             /* AF_INET */
    int h_length;               /* 4 */
    char **h_addr_list;         /* NULL-terminated, network byte order */
};
#define h_addr h_addr_list[0]

struct servent {
    char *s_name;
    char **s_aliases;
    int s_port;                 /* network byte order */
    char *s_proto;
};

struct protoent {
    char *p_name;
    char **p_aliases;
    int p_proto;
};

/* h_errno's values. */
#define NETDB_INTERNAL  -1
#define NETDB_SUCCESS   0
#define HOST_NOT_FOUND  1
#define TRY_AGAIN       2
#define NO_RECOVERY     3
#define NO_DATA         4
#define NO_ADDRESS      NO_DATA

int *__h_errno_location(void);
#define h_errno (*__h_errno_location())

/* One static result each, as the C library's: two Gs calling one at
   once may see each other's.  Use gethostbyname_r or getaddrinfo. */
struct hostent *gethostbyname(const char *name);
struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type);
/* glibc's: 0 and *result = ret (its strings and lists in buf), or 0 and
   *result = NULL with *h_errnop set, or ERANGE when buf is too small. */
int gethostbyname_r(const char *name, struct hostent *ret, char *buf,
                    size_t buflen, struct hostent **result, int *h_errnop);

/* proto "tcp", "udp" or NULL (either). */
struct servent *getservbyname(const char *name, const char *proto);
/* port in network byte order. */
struct servent *getservbyport(int port, const char *proto);
struct protoent *getprotobyname(const char *name);
struct protoent *getprotobynumber(int proto);

const char *hstrerror(int err);
/* "s: " (if s is not NULL or empty) and hstrerror(h_errno) on stderr. */
void herror(const char *s);

#ifdef __cplusplus
}
#endif

#endif
