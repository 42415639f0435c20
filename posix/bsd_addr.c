/*
 * bsd_addr.c - socket addresses in the BSD calls: getsockname and
 * getpeername, and the conversions the other calls use between a struct
 * sockaddr_in (IPv4 only) and the "a.b.c.d:port" strings of the socket
 * layer (spindle/net.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spindle/net.h>
#include <spindle/sync.h>
#include "posix/bsdimpl.h"

/* ---- Conversions ---------------------------------------------------- */

/* "a.b.c.d:port" of an IPv4 socket address; the any address as ":port"
   (sock.c's "any local address"). */
void bsd_sin_format(const struct sockaddr_in *a, char *buf)
{
    uint32_t ip = ntohl(a->sin_addr.s_addr);

    if (ip == INADDR_ANY)
        snprintf(buf, ADDRLEN, ":%u", ntohs(a->sin_port));
    else
        snprintf(buf, ADDRLEN, "%u.%u.%u.%u:%u", ip >> 24, (ip >> 16) & 255,
                 (ip >> 8) & 255, ip & 255, ntohs(a->sin_port));
}

/* The reverse, of what sock.c formats ("a.b.c.d:port"). */
bool bsd_sin_parse(const char *s, struct sockaddr_in *a)
{
    char host[INET_ADDRSTRLEN];
    const char *colon = strrchr(s, ':');
    char *end;
    unsigned long port;

    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    if (!colon || colon - s >= (long)sizeof host)
        return false;
    port = strtoul(colon + 1, &end, 10);
    if (*end || port > 65535)
        return false;
    memcpy(host, s, colon - s);
    host[colon - s] = 0;
    a->sin_port = htons((uint16_t)port);
    return !host[0] || inet_pton(AF_INET, host, &a->sin_addr) == 1;
}

/* An address argument: 0, or EAFNOSUPPORT / EINVAL. */
int bsd_sin_arg(const struct sockaddr *addr, socklen_t len,
                struct sockaddr_in *a)
{
    if (!addr || len < sizeof(sa_family_t))
        return EINVAL;
    if (addr->sa_family != AF_INET)
        return EAFNOSUPPORT;
    if (len < sizeof *a)
        return EINVAL;
    memcpy(a, addr, sizeof *a);
    return 0;
}

/* Copies an address out, cut to *len as the kernel's; *len becomes the
   full size. */
void bsd_sin_out(const struct sockaddr_in *a, struct sockaddr *addr,
                 socklen_t *len)
{
    if (!addr || !len)
        return;
    memcpy(addr, a, *len < sizeof *a ? *len : sizeof *a);
    *len = sizeof *a;
}

/* connect's and sendto's destination: Linux takes the any address for
   this machine. */
void bsd_dest_format(const struct sockaddr_in *to, char *buf)
{
    struct sockaddr_in a = *to;

    if (a.sin_addr.s_addr == htonl(INADDR_ANY))
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bsd_sin_format(&a, buf);
}

/* ---- getsockname, getpeername --------------------------------------- */

static int end_name(int fd, bool local, struct sockaddr *addr,
                    socklen_t *len)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    char str[ADDRLEN];
    struct sp_sock *s;
    struct bsock *b;
    int e, st;

    if (!(b = bsd_fd_get(fd, &e)))
        return fail(e);
    e = 0;
    sp_mutex_lock(&b->mu);
    st = b->state;
    s = b->s;
    if (local && st == ST_BOUND)
        a = b->local;
    if (!local && b->type == SOCK_DGRAM) {
        if (b->has_peer)
            a = b->peer;
        else
            e = ENOTCONN;
    }
    sp_mutex_unlock(&b->mu);
    if (!local && b->type == SOCK_STREAM && st != ST_CONNECTED)
        e = ENOTCONN;
    if (!e && s && (local || b->type == SOCK_STREAM)) {
        if ((local ? sp_local_addr(s, str, sizeof str)
                   : sp_remote_addr(s, str, sizeof str)) < 0 ||
            !bsd_sin_parse(str, &a))
            e = local ? EINVAL : ENOTCONN;
    }
    if (!e) {
        if (!addr || !len)
            e = EFAULT;
        else
            bsd_sin_out(&a, addr, len);
    }
    bsd_fd_put(b);
    return e ? fail(e) : 0;
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
    return end_name(fd, true, addr, len);
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
    return end_name(fd, false, addr, len);
}
