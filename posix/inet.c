/*
 * inet.c - IPv4 address conversions of <arpa/inet.h> (bare metal; the
 * hosted build links glibc's): inet_pton and inet_ntop for dotted quads
 * only, inet_aton with its classic shorter forms (a, a.b, a.b.c, and any
 * part in octal or hex), inet_addr and inet_ntoa on top of them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int inet_pton(int af, const char *src, void *dst)
{
    uint8_t q[4];
    const char *p = src;

    if (af != AF_INET) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        unsigned v = 0;
        int digits = 0;

        if (i && *p++ != '.')
            return 0;
        for (; *p >= '0' && *p <= '9'; p++, digits++) {
            if (digits && v == 0)
                return 0;       /* a leading zero */
            v = v * 10 + (unsigned)(*p - '0');
            if (v > 255)
                return 0;
        }
        if (!digits)
            return 0;
        q[i] = (uint8_t)v;
    }
    if (*p)
        return 0;
    memcpy(dst, q, 4);
    return 1;
}

const char *inet_ntop(int af, const void *src, char *dst, socklen_t size)
{
    const uint8_t *q = src;
    char tmp[INET_ADDRSTRLEN];
    int n;

    if (af != AF_INET) {
        errno = EAFNOSUPPORT;
        return NULL;
    }
    n = snprintf(tmp, sizeof tmp, "%u.%u.%u.%u", q[0], q[1], q[2], q[3]);
    if ((socklen_t)n >= size) {
        errno = ENOSPC;
        return NULL;
    }
    memcpy(dst, tmp, (size_t)n + 1);
    return dst;
}

int inet_aton(const char *cp, struct in_addr *inp)
{
    unsigned long part[4];
    const char *p = cp;
    int n = 0;
    uint32_t a;

    for (;;) {
        char *end;

        if (*p < '0' || *p > '9')
            return 0;
        part[n++] = strtoul(p, &end, 0);
        p = end;
        if (*p != '.')
            break;
        if (n == 4)
            return 0;
        p++;
    }
    if (*p && *p != ' ' && *p != '\t' && *p != '\n')
        return 0;
    for (int i = 0; i < n - 1; i++)
        if (part[i] > 255)
            return 0;
    /* a, a.b (8.24 bits), a.b.c (8.8.16), a.b.c.d */
    if (part[n - 1] > 0xffffffffUL >> (8 * (n - 1)))
        return 0;
    a = (uint32_t)part[n - 1];
    for (int i = 0; i < n - 1; i++)
        a |= (uint32_t)part[i] << (24 - 8 * i);
    if (inp)
        inp->s_addr = htonl(a);
    return 1;
}

in_addr_t inet_addr(const char *cp)
{
    struct in_addr a;

    return inet_aton(cp, &a) ? a.s_addr : INADDR_NONE;
}

char *inet_ntoa(struct in_addr in)
{
    static char buf[INET_ADDRSTRLEN];

    inet_ntop(AF_INET, &in.s_addr, buf, sizeof buf);
    return buf;
}
