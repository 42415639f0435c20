/*
 * netdb - <netdb.h> (posix/netdb.c) in one guest with a NIC on QEMU's
 * user network: DHCP gives 10.0.2.15 and the DNS server 10.0.2.3.
 *
 *   dhcp          sp_net_wait; the address is 10.0.2.15; the heap's
 *                 level before the other cases
 *   constants     EAI_*, AI_*, NI_* and h_errno's values are Linux's;
 *                 gai_strerror and hstrerror name each
 *   numeric       a dotted quad: one result per socket type with its
 *                 family, type, protocol, address and port; AI_NUMERICHOST
 *                 refuses a name and a bad quad
 *   null_node     no node: INADDR_ANY with AI_PASSIVE, 127.0.0.1 without;
 *                 no hints: SOCK_STREAM then SOCK_DGRAM
 *   localhost     "localhost" (any case) is 127.0.0.1; AI_CANONNAME
 *   services      numbers, names and aliases of the built-in table by
 *                 socket type, EAI_SERVICE, AI_NUMERICSERV
 *   hints         AI_ADDRCONFIG, AI_V4MAPPED, AI_ALL accepted; bad flags,
 *                 families, socket types and protocols refused
 *   nameinfo      getnameinfo: NI_NUMERICHOST, NI_NUMERICSERV, NI_DGRAM,
 *                 NI_NAMEREQD, "localhost" for 127/8, EAI_OVERFLOW and
 *                 the other errors
 *   hostent       gethostbyname(_r), gethostbyaddr, h_errno per G
 *   servent       getservbyname/port, getprotobyname/number
 *   tcp_connect   a listener made from a passive result; clients dial
 *                 10.0.2.15, 127.0.0.1 (no node) and "localhost" from
 *                 getaddrinfo's results, bytes both ways
 *   udp           a datagram to a getaddrinfo result, and its sender
 *                 named by getnameinfo
 *   dns_server    DHCP gave 10.0.2.3 as the DNS server; sp_resolve's
 *                 answers without a query ("localhost", a dotted quad)
 *                 and its argument errors
 *   dns_noname    getaddrinfo and gethostbyname of a name that does not
 *                 exist (.invalid) fail with EAI_NONAME / HOST_NOT_FOUND
 *                 within 10 s, each after one query that 10.0.2.3
 *                 answered (sp_dns_stats); 4 Gs at once likewise.  QEMU's
 *                 DNS forwards to the host's resolver, which must answer
 *                 (NXDOMAIN): with no answer this case fails, saying so
 *   dns_abandon   12 lookups (more than the resolver's slots) whose G
 *                 stops waiting at once: -ETIMEDOUT, and their late
 *                 answers free the slots: full lookups work after
 *   no_leak       1,000 lists of two results (with ai_canonname) made and
 *                 freed: the heap is back where it was; holding 100 of
 *                 them shows in the heap, so the measure works
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spindle/chan.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "tests/lib/testutil.h"

static const char *GUEST = "10.0.2.15";
static bool have_net;
static long heap_base = -1;
#define KEPT_BYTES (64 * 1024)

/* ---- Helpers -------------------------------------------------------- */

static struct addrinfo hints_of(int flags, int family, int socktype,
                                int protocol)
{
    struct addrinfo h;

    memset(&h, 0, sizeof h);
    h.ai_flags = flags;
    h.ai_family = family;
    h.ai_socktype = socktype;
    h.ai_protocol = protocol;
    return h;
}

/* getaddrinfo with those hints; its result, *res set. */
static int gai(const char *node, const char *serv, int flags, int socktype,
               struct addrinfo **res)
{
    struct addrinfo h = hints_of(flags, AF_UNSPEC, socktype, 0);

    *res = NULL;
    return getaddrinfo(node, serv, &h, res);
}

static int count(const struct addrinfo *ai)
{
    int n = 0;

    for (; ai; ai = ai->ai_next)
        n++;
    return n;
}

/* True if ai is an AF_INET result of that type for ip:port. */
static bool is_result(const struct addrinfo *ai, int socktype,
                      const char *ip, int port)
{
    const struct sockaddr_in *sin = (const struct sockaddr_in *)ai->ai_addr;

    return ai->ai_family == AF_INET && ai->ai_socktype == socktype &&
           ai->ai_protocol == (socktype == SOCK_STREAM ? IPPROTO_TCP
                                                       : IPPROTO_UDP) &&
           ai->ai_addrlen == sizeof *sin && sin->sin_family == AF_INET &&
           sin->sin_port == htons((uint16_t)port) &&
           sin->sin_addr.s_addr == inet_addr(ip);
}

static const char *show(const struct addrinfo *ai, char *buf)
{
    const struct sockaddr_in *sin;
    char ip[INET_ADDRSTRLEN];

    if (!ai)
        return "(none)";
    sin = (const struct sockaddr_in *)ai->ai_addr;
    inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof ip);
    sprintf(buf, "family %d type %d proto %d len %u %s:%u", ai->ai_family,
            ai->ai_socktype, ai->ai_protocol, (unsigned)ai->ai_addrlen, ip,
            ntohs(sin->sin_port));
    return buf;
}

static struct sockaddr_in sin_of(const char *ip, int port)
{
    struct sockaddr_in a;

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

#define SA(a) ((struct sockaddr *)&(a))

/* ---- Cases ---------------------------------------------------------- */

TEST(dhcp)
{
    char addr[16];
    int err = sp_net_wait(SP_S(30));

    CHECKF(err == 0, "sp_net_wait: %s", sp_net_strerror(err));
    CHECK(sp_net_addr(addr, sizeof addr) == 0);
    CHECKF(strcmp(addr, GUEST) == 0, "address %s", addr);
    have_net = true;
    heap_base = heap_in_use();
    CHECKF(heap_base > 0, "heap in use %ld", heap_base);
}

TEST(constants)
{
    static const int eai[] = { EAI_BADFLAGS, EAI_NONAME, EAI_AGAIN,
        EAI_FAIL, EAI_NODATA, EAI_FAMILY, EAI_SOCKTYPE, EAI_SERVICE,
        EAI_ADDRFAMILY, EAI_MEMORY, EAI_SYSTEM, EAI_OVERFLOW };
    const char *unknown = gai_strerror(12345);

    for (int i = 0; i < 12; i++) {
        CHECKF(eai[i] == -1 - i, "EAI #%d is %d", i, eai[i]);
        CHECKF(gai_strerror(eai[i]) && gai_strerror(eai[i]) != unknown,
               "gai_strerror(%d)", eai[i]);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(gai_strerror(eai[i]), gai_strerror(eai[j])) != 0);
    }
    CHECK(AI_PASSIVE == 1 && AI_CANONNAME == 2 && AI_NUMERICHOST == 4 &&
          AI_V4MAPPED == 8 && AI_ALL == 0x10 && AI_ADDRCONFIG == 0x20 &&
          AI_NUMERICSERV == 0x400);
    CHECK(NI_NUMERICHOST == 1 && NI_NUMERICSERV == 2 && NI_NOFQDN == 4 &&
          NI_NAMEREQD == 8 && NI_DGRAM == 16 && NI_MAXHOST == 1025 &&
          NI_MAXSERV == 32);
    CHECK(HOST_NOT_FOUND == 1 && TRY_AGAIN == 2 && NO_RECOVERY == 3 &&
          NO_DATA == 4 && NETDB_INTERNAL == -1);
    CHECK(strcmp(hstrerror(HOST_NOT_FOUND), hstrerror(TRY_AGAIN)) != 0);
    CHECK(strcmp(hstrerror(NO_RECOVERY), hstrerror(NO_DATA)) != 0);
}

TEST(numeric)
{
    struct addrinfo *res;
    char b[96];
    int rc;

    rc = gai(GUEST, "80", 0, SOCK_STREAM, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECKF(count(res) == 1 && is_result(res, SOCK_STREAM, GUEST, 80),
           "%d results, %s", count(res), show(res, b));
    CHECK(res->ai_canonname == NULL);
    freeaddrinfo(res);

    rc = gai("192.168.1.200", "53", AI_NUMERICHOST, 0, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECKF(count(res) == 2 && is_result(res, SOCK_STREAM, "192.168.1.200", 53)
           && is_result(res->ai_next, SOCK_DGRAM, "192.168.1.200", 53),
           "%d results, %s", count(res), show(res, b));
    freeaddrinfo(res);

    /* The numeric string is its own canonical name. */
    rc = gai(GUEST, NULL, AI_CANONNAME, SOCK_DGRAM, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECKF(count(res) == 1 && is_result(res, SOCK_DGRAM, GUEST, 0),
           "%s", show(res, b));
    CHECK(res->ai_canonname && strcmp(res->ai_canonname, GUEST) == 0);
    freeaddrinfo(res);

    rc = gai("localhost", "80", AI_NUMERICHOST, 0, &res);
    CHECKF(rc == EAI_NONAME && !res, "localhost numeric: %d", rc);
    rc = gai("256.1.1.1", "80", AI_NUMERICHOST, 0, &res);
    CHECKF(rc == EAI_NONAME && !res, "256.1.1.1: %d", rc);
    rc = gai("", "80", AI_NUMERICHOST, 0, &res);
    CHECKF(rc == EAI_NONAME && !res, "empty: %d", rc);
}

TEST(null_node)
{
    struct addrinfo *res;
    char b[96];
    int rc;

    rc = gai(NULL, "5002", AI_PASSIVE, 0, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECKF(count(res) == 2 && is_result(res, SOCK_STREAM, "0.0.0.0", 5002) &&
           is_result(res->ai_next, SOCK_DGRAM, "0.0.0.0", 5002),
           "%d results, %s", count(res), show(res, b));
    CHECK(res->ai_flags == AI_PASSIVE);
    freeaddrinfo(res);

    rc = gai(NULL, "5002", 0, SOCK_STREAM, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECKF(count(res) == 1 && is_result(res, SOCK_STREAM, "127.0.0.1", 5002),
           "%s", show(res, b));
    freeaddrinfo(res);

    /* No hints at all: both types, in that order. */
    rc = getaddrinfo(NULL, "7", NULL, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECKF(count(res) == 2 && is_result(res, SOCK_STREAM, "127.0.0.1", 7) &&
           is_result(res->ai_next, SOCK_DGRAM, "127.0.0.1", 7),
           "%d results, %s", count(res), show(res, b));
    freeaddrinfo(res);

    rc = getaddrinfo(NULL, NULL, NULL, &res);
    CHECKF(rc == EAI_NONAME, "no node, no service: %d", rc);
}

TEST(localhost)
{
    const char *names[] = { "localhost", "LocalHost", "localhost." };
    struct addrinfo *res;
    char b[96];
    int rc;

    for (int i = 0; i < 3; i++) {
        rc = gai(names[i], "echo", AI_CANONNAME, 0, &res);
        CHECKF(rc == 0, "%s: %s", names[i], gai_strerror(rc));
        CHECKF(count(res) == 2 &&
               is_result(res, SOCK_STREAM, "127.0.0.1", 7) &&
               is_result(res->ai_next, SOCK_DGRAM, "127.0.0.1", 7),
               "%s: %d results, %s", names[i], count(res), show(res, b));
        CHECKF(res->ai_canonname && strcmp(res->ai_canonname, names[i]) == 0,
               "canonname %s", res->ai_canonname ? res->ai_canonname : "NULL");
        CHECK(res->ai_next->ai_canonname == NULL);
        freeaddrinfo(res);
    }
}

TEST(services)
{
    static const struct {
        const char *serv;
        int flags, socktype;
        int rc, n, type0, port;     /* the result: n of them, the first's */
    } c[] = {
        { "0",      0, 0,           0, 2, SOCK_STREAM, 0 },
        { "65535",  0, SOCK_DGRAM,  0, 1, SOCK_DGRAM, 65535 },
        { "65536",  0, 0,           EAI_SERVICE, 0, 0, 0 },
        { "-1",     0, 0,           EAI_SERVICE, 0, 0, 0 },
        { "80x",    0, 0,           EAI_SERVICE, 0, 0, 0 },
        { "http",   0, 0,           0, 1, SOCK_STREAM, 80 },
        { "www",    0, SOCK_STREAM, 0, 1, SOCK_STREAM, 80 },
        { "http",   0, SOCK_DGRAM,  EAI_SERVICE, 0, 0, 0 },
        { "ntp",    0, 0,           0, 1, SOCK_DGRAM, 123 },
        { "ntp",    0, SOCK_STREAM, EAI_SERVICE, 0, 0, 0 },
        { "domain", 0, 0,           0, 2, SOCK_STREAM, 53 },
        { "ssh",    0, 0,           0, 1, SOCK_STREAM, 22 },
        { "https",  0, SOCK_DGRAM,  0, 1, SOCK_DGRAM, 443 },
        { "nosuch", 0, 0,           EAI_SERVICE, 0, 0, 0 },
        { "http",   AI_NUMERICSERV, 0, EAI_NONAME, 0, 0, 0 },
        { "8080",   AI_NUMERICSERV, 0, 0, 2, SOCK_STREAM, 8080 },
    };
    struct addrinfo *res;
    char b[96];

    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int rc = gai(GUEST, c[i].serv, c[i].flags, c[i].socktype, &res);

        CHECKF(rc == c[i].rc, "%s type %d: %d (%s), expected %d", c[i].serv,
               c[i].socktype, rc, gai_strerror(rc), c[i].rc);
        if (rc) {
            CHECK(res == NULL);
            continue;
        }
        CHECKF(count(res) == c[i].n &&
               is_result(res, c[i].type0, GUEST, c[i].port),
               "%s: %d results, %s", c[i].serv, count(res), show(res, b));
        if (c[i].n == 2)
            CHECKF(is_result(res->ai_next, SOCK_DGRAM, GUEST, c[i].port),
                   "%s: second %s", c[i].serv, show(res->ai_next, b));
        freeaddrinfo(res);
    }
}

TEST(hints)
{
    struct addrinfo h, *res;
    char b[96];
    int rc;

    h = hints_of(AI_ADDRCONFIG | AI_V4MAPPED | AI_ALL, AF_INET, 0, 0);
    rc = getaddrinfo("localhost", "80", &h, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    CHECK(count(res) == 2);
    freeaddrinfo(res);

    /* A protocol alone picks the type. */
    h = hints_of(0, AF_UNSPEC, 0, IPPROTO_UDP);
    rc = getaddrinfo(GUEST, "53", &h, &res);
    CHECKF(rc == 0 && count(res) == 1 && is_result(res, SOCK_DGRAM, GUEST, 53),
           "%d: %s", rc, show(res, b));
    freeaddrinfo(res);
    h = hints_of(0, AF_UNSPEC, SOCK_STREAM, IPPROTO_TCP);
    rc = getaddrinfo(GUEST, "53", &h, &res);
    CHECKF(rc == 0 && count(res) == 1 && is_result(res, SOCK_STREAM, GUEST, 53),
           "%d: %s", rc, show(res, b));
    freeaddrinfo(res);

    static const struct {
        int flags, family, socktype, protocol;
        const char *node;
        int rc;
    } bad[] = {
        { 0x8000,       AF_UNSPEC, 0, 0,                "localhost", EAI_BADFLAGS },
        { 0x0040,       AF_UNSPEC, 0, 0,                "localhost", EAI_BADFLAGS },
        { AI_CANONNAME, AF_UNSPEC, 0, 0,                NULL,        EAI_BADFLAGS },
        { 0,            AF_INET6,  0, 0,                "localhost", EAI_FAMILY },
        { 0,            AF_INET6,  0, 0,                "::1",       EAI_FAMILY },
        { 0,            99,        0, 0,                "localhost", EAI_FAMILY },
        { 0,            AF_UNSPEC, SOCK_RAW, 0,         "localhost", EAI_SOCKTYPE },
        { 0,            AF_UNSPEC, 77, 0,               "localhost", EAI_SOCKTYPE },
        { 0,            AF_UNSPEC, SOCK_STREAM, IPPROTO_UDP, "localhost", EAI_SOCKTYPE },
        { 0,            AF_UNSPEC, SOCK_DGRAM, IPPROTO_TCP,  "localhost", EAI_SOCKTYPE },
        { 0,            AF_INET,   0, IPPROTO_ICMP,     "localhost", EAI_SOCKTYPE },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        h = hints_of(bad[i].flags, bad[i].family, bad[i].socktype,
                     bad[i].protocol);
        res = (struct addrinfo *)&h;    /* must come back NULL */
        errno = 0;
        rc = getaddrinfo(bad[i].node, "80", &h, &res);
        CHECKF(rc == bad[i].rc && res == NULL,
               "case %d: %d (%s), expected %d", (int)i, rc, gai_strerror(rc),
               bad[i].rc);
        /* A family there are no sockets of: errno as socket() of it. */
        if (rc == EAI_FAMILY)
            CHECKF(errno == EAFNOSUPPORT, "case %d: errno %d", (int)i, errno);
    }
}

TEST(nameinfo)
{
    struct sockaddr_in a = sin_of(GUEST, 80), lo = sin_of("127.0.0.1", 123);
    struct sockaddr_in6 six;
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    int rc;

    rc = getnameinfo(SA(a), sizeof a, host, sizeof host, serv, sizeof serv,
                     NI_NUMERICHOST | NI_NUMERICSERV);
    CHECKF(rc == 0 && strcmp(host, GUEST) == 0 && strcmp(serv, "80") == 0,
           "%d: %s %s", rc, host, serv);
    rc = getnameinfo(SA(a), sizeof a, host, sizeof host, serv, sizeof serv,
                     NI_NUMERICHOST);
    CHECKF(rc == 0 && strcmp(serv, "http") == 0, "%d: %s", rc, serv);
    /* No reverse DNS: the number, unless a name is required. */
    rc = getnameinfo(SA(a), sizeof a, host, sizeof host, NULL, 0, 0);
    CHECKF(rc == 0 && strcmp(host, GUEST) == 0, "%d: %s", rc, host);
    rc = getnameinfo(SA(a), sizeof a, host, sizeof host, NULL, 0,
                     NI_NAMEREQD);
    CHECKF(rc == EAI_NONAME, "NI_NAMEREQD: %d", rc);
    rc = getnameinfo(SA(a), sizeof a, NULL, 0, serv, sizeof serv,
                     NI_NAMEREQD);
    CHECKF(rc == 0 && strcmp(serv, "http") == 0, "service only: %d", rc);

    rc = getnameinfo(SA(lo), sizeof lo, host, sizeof host, serv,
                     sizeof serv, NI_NAMEREQD | NI_DGRAM);
    CHECKF(rc == 0 && strcmp(host, "localhost") == 0 &&
           strcmp(serv, "ntp") == 0, "%d: %s %s", rc, host, serv);
    rc = getnameinfo(SA(lo), sizeof lo, host, sizeof host, serv,
                     sizeof serv, NI_NUMERICHOST);
    CHECKF(rc == 0 && strcmp(host, "127.0.0.1") == 0 &&
           strcmp(serv, "123") == 0, "%d: %s %s", rc, host, serv);

    /* Buffers: "10.0.2.15" needs 10 bytes, "http" 5. */
    rc = getnameinfo(SA(a), sizeof a, host, 10, serv, 5, NI_NUMERICHOST);
    CHECKF(rc == 0, "exact sizes: %d", rc);
    rc = getnameinfo(SA(a), sizeof a, host, 9, NULL, 0, NI_NUMERICHOST);
    CHECKF(rc == EAI_OVERFLOW, "short host: %d", rc);
    rc = getnameinfo(SA(a), sizeof a, NULL, 0, serv, 4, 0);
    CHECKF(rc == EAI_OVERFLOW, "short serv: %d", rc);

    rc = getnameinfo(SA(a), sizeof a, NULL, 0, NULL, 0, 0);
    CHECKF(rc == EAI_NONAME, "nothing asked: %d", rc);
    rc = getnameinfo(SA(a), sizeof a - 1, host, sizeof host, NULL, 0, 0);
    CHECKF(rc == EAI_FAMILY, "short salen: %d", rc);
    memset(&six, 0, sizeof six);
    six.sin6_family = AF_INET6;
    rc = getnameinfo(SA(six), sizeof six, host, sizeof host, NULL, 0, 0);
    CHECKF(rc == EAI_FAMILY, "AF_INET6: %d", rc);
    rc = getnameinfo(SA(a), sizeof a, host, sizeof host, NULL, 0, 0x100);
    CHECKF(rc == EAI_BADFLAGS, "bad flags: %d", rc);
}

struct herr {
    int seen;
    sp_chan *done;
};

static void other_g(void *arg)
{
    struct herr *he = arg;

    he->seen = h_errno;
    h_errno = TRY_AGAIN;
    sp_chan_send(he->done, &he->seen);
}

TEST(hostent)
{
    struct hostent *he, ret;
    struct in_addr a;
    struct herr other;
    char buf[256], ip[16];
    int err, rc;

    he = gethostbyname(GUEST);
    CHECK(he != NULL);
    CHECK(he->h_addrtype == AF_INET && he->h_length == 4);
    CHECK(strcmp(he->h_name, GUEST) == 0);
    CHECK(he->h_addr_list[0] && !he->h_addr_list[1] && !he->h_aliases[0]);
    memcpy(&a, he->h_addr, 4);
    CHECKF(a.s_addr == inet_addr(GUEST), "%s",
           inet_ntop(AF_INET, &a, ip, sizeof ip));

    he = gethostbyname("localhost");
    CHECK(he && strcmp(he->h_name, "localhost") == 0);
    memcpy(&a, he->h_addr_list[0], 4);
    CHECK(a.s_addr == htonl(INADDR_LOOPBACK));

    rc = gethostbyname_r("127.0.0.1", &ret, buf, sizeof buf, &he, &err);
    CHECKF(rc == 0 && he == &ret && err == NETDB_SUCCESS, "%d %d", rc, err);
    CHECK(he->h_name >= buf && he->h_name < buf + sizeof buf);
    CHECK(strcmp(he->h_name, "127.0.0.1") == 0);
    rc = gethostbyname_r("127.0.0.1", &ret, buf, 16, &he, &err);
    CHECKF(rc == ERANGE && he == NULL, "small buffer: %d", rc);

    h_errno = 0;
    a.s_addr = htonl(0x7f000001);
    he = gethostbyaddr(&a, 4, AF_INET);
    CHECK(he && strcmp(he->h_name, "localhost") == 0 && h_errno == 0);
    a.s_addr = inet_addr(GUEST);
    he = gethostbyaddr(&a, 4, AF_INET);
    CHECKF(!he && h_errno == HOST_NOT_FOUND, "h_errno %d", h_errno);
    he = gethostbyaddr(&a, 16, AF_INET6);
    CHECK(!he);

    /* h_errno is the G's own: another G sees its own, and its change
       does not show here. */
    h_errno = HOST_NOT_FOUND;
    other.seen = -5;
    other.done = sp_chan_make(sizeof(int), 1);
    sp_go(other_g, &other);
    sp_chan_recv(other.done, &rc);
    sp_chan_free(other.done);
    CHECKF(other.seen == 0, "a new G's h_errno is %d", other.seen);
    CHECKF(h_errno == HOST_NOT_FOUND, "h_errno %d after the other G's",
           h_errno);
}

TEST(servent)
{
    struct servent *se;
    struct protoent *pe;

    se = getservbyname("http", "tcp");
    CHECK(se && se->s_port == htons(80) && strcmp(se->s_proto, "tcp") == 0);
    CHECK(strcmp(se->s_name, "http") == 0 &&
          se->s_aliases[0] && strcmp(se->s_aliases[0], "www") == 0 &&
          !se->s_aliases[1]);
    se = getservbyname("www", NULL);
    CHECK(se && strcmp(se->s_name, "http") == 0);
    CHECK(getservbyname("http", "udp") == NULL);
    CHECK(getservbyname("http", "sctp") == NULL);
    CHECK(getservbyname("nosuch", NULL) == NULL);
    se = getservbyname("ntp", NULL);
    CHECK(se && se->s_port == htons(123) && strcmp(se->s_proto, "udp") == 0);
    se = getservbyport(htons(22), "tcp");
    CHECK(se && strcmp(se->s_name, "ssh") == 0);
    se = getservbyport(htons(53), "udp");
    CHECK(se && strcmp(se->s_name, "domain") == 0 &&
          strcmp(se->s_proto, "udp") == 0);
    CHECK(getservbyport(htons(22), "udp") == NULL);
    CHECK(getservbyport(htons(4), NULL) == NULL);

    pe = getprotobyname("tcp");
    CHECK(pe && pe->p_proto == IPPROTO_TCP && strcmp(pe->p_name, "tcp") == 0);
    pe = getprotobyname("udp");
    CHECK(pe && pe->p_proto == IPPROTO_UDP);
    CHECK(getprotobyname("sctp") == NULL);
    pe = getprotobynumber(IPPROTO_UDP);
    CHECK(pe && strcmp(pe->p_name, "udp") == 0);
}

/* Dials node:port from getaddrinfo's first SOCK_STREAM result, accepts
   on l, and sends a byte each way; false (and why) on failure. */
static bool dial_and_talk(int l, const char *node, int flags, char *why)
{
    struct addrinfo *res;
    int c = -1, s = -1, rc;
    char x = 0;
    bool ok = false;

    rc = gai(node, "5003", flags, SOCK_STREAM, &res);
    if (rc) {
        sprintf(why, "%s: %s", node ? node : "NULL", gai_strerror(rc));
        return false;
    }
    c = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (c < 0 || connect(c, res->ai_addr, res->ai_addrlen) < 0)
        sprintf(why, "%s: connect: errno %d", node ? node : "NULL", errno);
    else if ((s = accept(l, NULL, NULL)) < 0)
        sprintf(why, "accept: errno %d", errno);
    else if (send(c, "q", 1, 0) != 1 || recv(s, &x, 1, 0) != 1 || x != 'q' ||
             send(s, "r", 1, 0) != 1 || recv(c, &x, 1, 0) != 1 || x != 'r')
        sprintf(why, "%s: the bytes did not come through", node);
    else
        ok = true;
    if (s >= 0)
        close(s);
    if (c >= 0)
        close(c);
    freeaddrinfo(res);
    return ok;
}

TEST(tcp_connect)
{
    struct addrinfo *res;
    int l, rc, one = 1;
    char why[128];

    CHECK(have_net);
    rc = gai(NULL, "5003", AI_PASSIVE, SOCK_STREAM, &res);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    l = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    CHECK(l >= 0);
    CHECK(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0);
    rc = bind(l, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    CHECKF(rc == 0 && listen(l, 4) == 0, "bind/listen: errno %d", errno);

    bool ok = dial_and_talk(l, GUEST, AI_NUMERICHOST, why) &&
              dial_and_talk(l, NULL, 0, why) &&
              dial_and_talk(l, "localhost", 0, why);
    close(l);
    CHECKF(ok, "%s", why);
}

TEST(udp)
{
    struct addrinfo *srv, *dst;
    struct sockaddr_in from;
    socklen_t len = sizeof from;
    char buf[8], host[NI_MAXHOST], serv[NI_MAXSERV];
    int s, c, rc;

    CHECK(have_net);
    rc = gai(NULL, "5004", AI_PASSIVE, SOCK_DGRAM, &srv);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    rc = gai("localhost", "5004", 0, SOCK_DGRAM, &dst);
    CHECKF(rc == 0, "%s", gai_strerror(rc));
    s = socket(srv->ai_family, srv->ai_socktype, srv->ai_protocol);
    c = socket(dst->ai_family, dst->ai_socktype, dst->ai_protocol);
    CHECK(s >= 0 && c >= 0);
    CHECKF(bind(s, srv->ai_addr, srv->ai_addrlen) == 0, "errno %d", errno);
    CHECKF(sendto(c, "dgram", 5, 0, dst->ai_addr, dst->ai_addrlen) == 5,
           "sendto: errno %d", errno);
    rc = (int)recvfrom(s, buf, sizeof buf, 0, SA(from), &len);
    CHECKF(rc == 5 && memcmp(buf, "dgram", 5) == 0, "recvfrom %d", rc);
    rc = getnameinfo(SA(from), len, host, sizeof host, serv, sizeof serv,
                     NI_NUMERICSERV | NI_DGRAM);
    CHECKF(rc == 0 && atoi(serv) > 0, "%d: %s", rc, serv);
    printf("# datagram from %s:%s\n", host, serv);
    close(s);
    close(c);
    freeaddrinfo(srv);
    freeaddrinfo(dst);
}

static struct sp_dns_stats dns_stats(void)
{
    struct sp_dns_stats st;

    if (sp_dns_stats(&st) != 0)
        memset(&st, 0, sizeof st);
    return st;
}

#define ANSWERED(st) ((st).found + (st).failed)
#define ENDED(st) ((st).found + (st).failed + (st).unanswered)

TEST(dns_server)
{
    struct sp_dns_stats st0 = dns_stats(), st;
    char ip[16], longname[300];

    CHECK(have_net);
    CHECKF(strcmp(st0.server, "10.0.2.3") == 0, "DNS server %s", st0.server);
    CHECK(sp_resolve("localhost", ip, sizeof ip, 0) == 0 &&
          strcmp(ip, "127.0.0.1") == 0);
    CHECK(sp_resolve("10.0.2.99", ip, sizeof ip, 0) == 0 &&
          strcmp(ip, "10.0.2.99") == 0);
    CHECK(sp_resolve("", ip, sizeof ip, 0) == -EINVAL);
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK(sp_resolve(longname, ip, sizeof ip, 0) == -EINVAL);
    CHECK(sp_resolve("localhost", ip, 15, 0) == -ENOSPC);
    st = dns_stats();
    CHECKF(st.queries == st0.queries, "%llu queries sent",
           (unsigned long long)(st.queries - st0.queries));
}

struct noname {
    const char *name;
    int rc;
    sp_chan *done;
};

static void noname_g(void *arg)
{
    struct noname *nn = arg;
    struct addrinfo *res = NULL;

    nn->rc = gai(nn->name, "80", 0, SOCK_STREAM, &res);
    if (res)
        freeaddrinfo(res);
    sp_chan_send(nn->done, NULL);
}

TEST(dns_noname)
{
    static const char *names[4] = { "one.spindle.invalid",
        "two.spindle.invalid", "three.spindle.invalid",
        "four.spindle.invalid" };
    struct sp_dns_stats st0 = dns_stats(), st;
    struct noname nn[4];
    struct addrinfo *res;
    struct hostent *he;
    uint64_t t0 = sp_nanotime();
    int64_t ms;
    int rc;

    CHECK(have_net);
    rc = gai("nosuchhost.spindle.invalid", "80", 0, 0, &res);
    ms = (int64_t)(sp_nanotime() - t0) / 1000000;
    st = dns_stats();
    printf("# nosuchhost: %s after %lld ms; %llu queries, %llu answered\n",
           gai_strerror(rc), (long long)ms,
           (unsigned long long)(st.queries - st0.queries),
           (unsigned long long)(ANSWERED(st) - ANSWERED(st0)));
    CHECKF(rc == EAI_NONAME || rc == EAI_AGAIN, "getaddrinfo: %d (%s)", rc,
           gai_strerror(rc));
    CHECK(res == NULL);
    CHECKF(ms < 11000, "took %lld ms", (long long)ms);
    CHECKF(st.queries == st0.queries + 1 && ENDED(st) == ENDED(st0) + 1,
           "%llu queries, %llu ended",
           (unsigned long long)(st.queries - st0.queries),
           (unsigned long long)(ENDED(st) - ENDED(st0)));
    CHECKF(rc == EAI_NONAME && st.failed == st0.failed + 1,
           "10.0.2.3 did not answer (QEMU's DNS forwards to the host's "
           "resolver): %s", gai_strerror(rc));

    h_errno = 0;
    he = gethostbyname("nosuchhost.spindle.invalid");
    CHECKF(!he && h_errno == HOST_NOT_FOUND, "h_errno %d", h_errno);

    /* Four at once, each in its own G. */
    st0 = dns_stats();
    for (int i = 0; i < 4; i++) {
        nn[i].name = names[i];
        nn[i].rc = 1;
        nn[i].done = sp_chan_make(0, 1);
        sp_go(noname_g, &nn[i]);
    }
    for (int i = 0; i < 4; i++) {
        sp_chan_recv(nn[i].done, NULL);
        sp_chan_free(nn[i].done);
    }
    st = dns_stats();
    for (int i = 0; i < 4; i++)
        CHECKF(nn[i].rc == EAI_NONAME, "%s: %d", names[i], nn[i].rc);
    CHECKF(st.queries == st0.queries + 4 && st.failed == st0.failed + 4,
           "%llu queries, %llu answered no",
           (unsigned long long)(st.queries - st0.queries),
           (unsigned long long)(st.failed - st0.failed));
}

/* Waits up to 10 s for lwIP to end every query sent since st0. */
static struct sp_dns_stats dns_settle(struct sp_dns_stats st0)
{
    uint64_t end = sp_nanotime() + SP_S(10);
    struct sp_dns_stats st = dns_stats();

    while (ENDED(st) - ENDED(st0) < st.queries - st0.queries &&
           sp_nanotime() < end) {
        sp_sleep(SP_MS(5));
        st = dns_stats();
    }
    return st;
}

/* More lookups than net/dns.c has slots (8), each abandoned at once (a
   deadline 1 ns away), its late answer awaited: a slot its answer did
   not free would make the lookups after fail with -EAGAIN. */
TEST(dns_abandon)
{
    static const char *names[3] = { "a.abandon.spindle.invalid",
        "b.abandon.spindle.invalid", "c.abandon.spindle.invalid" };
    struct sp_dns_stats st0 = dns_stats(), st;
    char ip[16];
    int rc, abandoned = 0;

    CHECK(have_net);
    for (int i = 0; i < 12; i++) {
        rc = sp_resolve(names[i % 3], ip, sizeof ip, 1);
        CHECKF(rc == -ETIMEDOUT || rc == -ENOENT, "%s: %d", names[i % 3], rc);
        abandoned += rc == -ETIMEDOUT;
        st = dns_settle(st0);
        CHECKF(st.queries == st0.queries + (uint64_t)i + 1 &&
               ENDED(st) == ENDED(st0) + (uint64_t)i + 1,
               "lookup %d: %llu queries, %llu ended", i,
               (unsigned long long)(st.queries - st0.queries),
               (unsigned long long)(ENDED(st) - ENDED(st0)));
    }
    printf("# %d of 12 lookups abandoned\n", abandoned);
    CHECKF(abandoned >= 9, "only %d of 12 lookups gave up", abandoned);
    for (int i = 0; i < 10; i++) {
        rc = sp_resolve(names[i % 3], ip, sizeof ip, SP_S(10));
        CHECKF(rc == -ENOENT, "lookup %d after: %d", i, rc);
    }
}

TEST(no_leak)
{
    struct addrinfo *held[100];
    long before, holding, after;
    int rc;

    before = heap_in_use();
    CHECK(before > 0);
    for (int i = 0; i < 100; i++) {
        rc = gai("localhost", "domain", AI_CANONNAME, 0, &held[i]);
        CHECKF(rc == 0 && count(held[i]) == 2, "%s", gai_strerror(rc));
    }
    holding = heap_in_use();
    for (int i = 0; i < 100; i++)
        freeaddrinfo(held[i]);
    /* Each list: two results of struct addrinfo and sockaddr_in, and the
       name. */
    CHECKF(holding - before >= 100 * (2 * (long)(sizeof(struct addrinfo) +
                                      sizeof(struct sockaddr_in)) + 10),
           "holding 100 lists took %ld bytes", holding - before);
    for (int i = 0; i < 1000; i++) {
        struct addrinfo *res;

        rc = gai(i & 1 ? NULL : GUEST, "53", i & 2 ? AI_PASSIVE : 0, 0, &res);
        CHECKF(rc == 0 && count(res) == 2, "%s", gai_strerror(rc));
        freeaddrinfo(res);
    }
    after = heap_in_use();
    CHECKF(after == before, "heap %ld bytes before, %ld after", before, after);
    /* Since the first case: what the cases' sockets, Gs and deadline
       timers made the kernel keep (each P's timer heap array, the
       descriptor table) may stay. */
    CHECKF(heap_base > 0 && after - heap_base < KEPT_BYTES,
           "heap %ld bytes after the cases, %ld before them", after,
           heap_base);
}

int main(void)
{
    return sp_test_main();
}
