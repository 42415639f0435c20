/*
 * arpa/inet.h - IPv4 address conversions for BSD sockets on Spindle (bare
 * metal; see sys/socket.h).  AF_INET only: inet_pton and inet_ntop fail
 * with EAFNOSUPPORT for any other family.
 */
#ifndef SPINDLE_BSD_ARPA_INET_H
#define SPINDLE_BSD_ARPA_INET_H

#include <netinet/in.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 and *dst set, 0 if src is not a dotted quad, -1 (EAFNOSUPPORT). */
int inet_pton(int af, const char *src, void *dst);
/* dst, or NULL with errno ENOSPC (size too small) or EAFNOSUPPORT. */
const char *inet_ntop(int af, const void *src, char *dst, socklen_t size);
/* Also accepts the old forms ("10.1", "0x0a000001"), as the C library's. */
int inet_aton(const char *cp, struct in_addr *inp);
in_addr_t inet_addr(const char *cp);
/* One static buffer, as in the BSDs: two Gs calling it at once may see
   each other's string.  Use inet_ntop. */
char *inet_ntoa(struct in_addr in);

#ifdef __cplusplus
}
#endif

#endif
