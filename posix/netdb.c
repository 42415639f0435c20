/*
 * netdb.c - <netdb.h> (bare metal; the hosted build links glibc's):
 * getaddrinfo and getnameinfo, the old gethostby* calls, services from a
 * built-in table, protocols, and h_errno.
 *
 * Every host lookup goes through host_lookup: a dotted quad (inet_pton),
 * "localhost" (127.0.0.1, which lwIP's loopback interface answers), or
 * else a DNS query (sp_resolve) to the server DHCP gave, which waits at
 * most DNS_WAIT.  getaddrinfo checks its hints and the
 * service before the host, so a bad request never waits for DNS.  A
 * family other than AF_INET (AF_INET6) is EAI_FAMILY, with errno
 * EAFNOSUPPORT, as socket() of it would fail.
 *
 * A getaddrinfo list is one malloc'd block per result, the struct
 * addrinfo followed by its struct sockaddr_in, plus the first result's
 * ai_canonname; freeaddrinfo gives back exactly those.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spindle/net.h>
#include <spindle/time.h>

#define AI_KNOWN (AI_PASSIVE | AI_CANONNAME | AI_NUMERICHOST | AI_V4MAPPED | \
                  AI_ALL | AI_ADDRCONFIG | AI_NUMERICSERV)
#define NI_KNOWN (NI_NUMERICHOST | NI_NUMERICSERV | NI_NOFQDN | NI_NAMEREQD | \
                  NI_DGRAM)
#define DNS_NAME_MAX 253        /* the longest name DNS can carry */
#define DNS_WAIT SP_S(10)       /* the longest a lookup waits */

int *__h_errno_location(void)
{
    return &_REENT->_new._reent._h_errno;
}

/* ---- Hosts ---------------------------------------------------------- */

static bool is_localhost(const char *name)
{
    return strcasecmp(name, "localhost") == 0 ||
           strcasecmp(name, "localhost.") == 0;
}

/* 127.0.0.0/8; a is in network byte order. */
static bool is_loopback(struct in_addr a)
{
    return (ntohl(a.s_addr) >> 24) == 127;
}

/* node through DNS: 0, EAI_NONAME (the server says there is no such
   name), EAI_AGAIN (no answer, no server, or too many lookups at once). */
static int dns_lookup(const char *node, struct in_addr *a)
{
    char ip[INET_ADDRSTRLEN];

    switch (sp_resolve(node, ip, sizeof ip, DNS_WAIT)) {
    case 0:
        return inet_pton(AF_INET, ip, a) == 1 ? 0 : EAI_FAIL;
    case -ENOENT:
    case -EINVAL:
        return EAI_NONAME;
    default:
        return EAI_AGAIN;
    }
}

/*
 * The IPv4 address of node, for getaddrinfo's flags (only
 * AI_NUMERICHOST matters): 0, EAI_NONAME (no such host, or not numeric
 * under AI_NUMERICHOST), EAI_AGAIN (DNS did not answer) or EAI_MEMORY.
 */
static int host_lookup(const char *node, int flags, struct in_addr *a)
{
    if (inet_pton(AF_INET, node, a) == 1)
        return 0;
    if (flags & AI_NUMERICHOST)
        return EAI_NONAME;
    if (is_localhost(node)) {
        a->s_addr = htonl(INADDR_LOOPBACK);
        return 0;
    }
    if (!node[0] || strlen(node) > DNS_NAME_MAX)
        return EAI_NONAME;
    return dns_lookup(node, a);
}

static int h_errno_of(int eai)
{
    switch (eai) {
    case 0:             return NETDB_SUCCESS;
    case EAI_NONAME:    return HOST_NOT_FOUND;
    case EAI_AGAIN:     return TRY_AGAIN;
    default:            return NO_RECOVERY;
    }
}

/* ---- Services and protocols ----------------------------------------- */

#define SV_TCP 1
#define SV_UDP 2

struct service {
    const char *name;
    const char *alias;          /* or NULL */
    int port;
    int protos;                 /* SV_TCP, SV_UDP */
};

/* Debian's /etc/services for these; a service on both protocols has
   the same port on each. */
static const struct service services[] = {
    { "echo",       NULL,       7,    SV_TCP | SV_UDP },
    { "discard",    "sink",     9,    SV_TCP | SV_UDP },
    { "daytime",    NULL,       13,   SV_TCP | SV_UDP },
    { "ftp-data",   NULL,       20,   SV_TCP },
    { "ftp",        NULL,       21,   SV_TCP },
    { "ssh",        NULL,       22,   SV_TCP },
    { "telnet",     NULL,       23,   SV_TCP },
    { "smtp",       "mail",     25,   SV_TCP },
    { "domain",     NULL,       53,   SV_TCP | SV_UDP },
    { "tftp",       NULL,       69,   SV_UDP },
    { "http",       "www",      80,   SV_TCP },
    { "pop3",       "pop-3",    110,  SV_TCP },
    { "ntp",        NULL,       123,  SV_UDP },
    { "imap2",      "imap",     143,  SV_TCP },
    { "snmp",       NULL,       161,  SV_UDP },
    { "https",      NULL,       443,  SV_TCP | SV_UDP },
    { "submission", NULL,       587,  SV_TCP },
    { "imaps",      NULL,       993,  SV_TCP },
    { "pop3s",      NULL,       995,  SV_TCP },
    { "mysql",      NULL,       3306, SV_TCP },
    { "postgresql", NULL,       5432, SV_TCP },
    { "http-alt",   "webcache", 8080, SV_TCP },
};
#define NSERVICES (sizeof services / sizeof services[0])

/* SV_TCP, SV_UDP, both for NULL, or 0 for another name. */
static int proto_bits(const char *proto)
{
    if (!proto)
        return SV_TCP | SV_UDP;
    if (strcmp(proto, "tcp") == 0)
        return SV_TCP;
    if (strcmp(proto, "udp") == 0)
        return SV_UDP;
    return 0;
}

static const struct service *service_named(const char *name, int protos)
{
    for (size_t i = 0; i < NSERVICES; i++) {
        const struct service *sv = &services[i];

        if ((sv->protos & protos) && (strcmp(sv->name, name) == 0 ||
                                      (sv->alias && strcmp(sv->alias, name) == 0)))
            return sv;
    }
    return NULL;
}

/* port in host byte order. */
static const struct service *service_at(int port, int protos)
{
    for (size_t i = 0; i < NSERVICES; i++)
        if (services[i].port == port && (services[i].protos & protos))
            return &services[i];
    return NULL;
}

/* The servent of sv for the first protocol of protos that it has. */
static struct servent *servent_of(const struct service *sv, int protos)
{
    static char *aliases[2];
    static struct servent se;

    if (!sv)
        return NULL;
    aliases[0] = (char *)sv->alias;
    se.s_name = (char *)sv->name;
    se.s_aliases = aliases;
    se.s_port = htons((uint16_t)sv->port);
    se.s_proto = (sv->protos & protos & SV_TCP) ? "tcp" : "udp";
    return &se;
}

struct servent *getservbyname(const char *name, const char *proto)
{
    int protos = proto_bits(proto);

    return name && protos ? servent_of(service_named(name, protos), protos)
                          : NULL;
}

struct servent *getservbyport(int port, const char *proto)
{
    int protos = proto_bits(proto);

    return protos ? servent_of(service_at(ntohs((uint16_t)port), protos),
                               protos)
                  : NULL;
}

static const struct { const char *name, *alias; int proto; } protocols[] = {
    { "ip",   "IP",   IPPROTO_IP },
    { "icmp", "ICMP", IPPROTO_ICMP },
    { "tcp",  "TCP",  IPPROTO_TCP },
    { "udp",  "UDP",  IPPROTO_UDP },
};

static struct protoent *protoent_of(int i)
{
    static char *aliases[2];
    static struct protoent pe;

    aliases[0] = (char *)protocols[i].alias;
    pe.p_name = (char *)protocols[i].name;
    pe.p_aliases = aliases;
    pe.p_proto = protocols[i].proto;
    return &pe;
}

struct protoent *getprotobyname(const char *name)
{
    for (int i = 0; name && i < 4; i++)
        if (strcmp(protocols[i].name, name) == 0 ||
            strcmp(protocols[i].alias, name) == 0)
            return protoent_of(i);
    return NULL;
}

struct protoent *getprotobynumber(int proto)
{
    for (int i = 0; i < 4; i++)
        if (protocols[i].proto == proto)
            return protoent_of(i);
    return NULL;
}

/* ---- getaddrinfo ---------------------------------------------------- */

/* A decimal port 0..65535 into *port; false if s is not one. */
static bool numeric_port(const char *s, int *port)
{
    long v = 0;

    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (*s - '0');
        if (v > 65535)
            return false;
    }
    *port = (int)v;
    return true;
}

/* What a request asks for: the socket types (and their protocols) to
   list, in order, and each one's port in host byte order. */
struct want {
    int n;
    int socktype[2], protocol[2], port[2];
};

/* The socket types hints allow: 0 or EAI_SOCKTYPE. */
static int want_types(const struct addrinfo *h, struct want *w)
{
    int st = h->ai_socktype, pr = h->ai_protocol;

    if (st != 0 && st != SOCK_STREAM && st != SOCK_DGRAM)
        return EAI_SOCKTYPE;
    if (pr != 0 && pr != IPPROTO_TCP && pr != IPPROTO_UDP)
        return EAI_SOCKTYPE;
    if ((st == SOCK_STREAM && pr == IPPROTO_UDP) ||
        (st == SOCK_DGRAM && pr == IPPROTO_TCP))
        return EAI_SOCKTYPE;
    w->n = 0;
    if ((st == 0 || st == SOCK_STREAM) && pr != IPPROTO_UDP) {
        w->socktype[w->n] = SOCK_STREAM;
        w->protocol[w->n++] = IPPROTO_TCP;
    }
    if ((st == 0 || st == SOCK_DGRAM) && pr != IPPROTO_TCP) {
        w->socktype[w->n] = SOCK_DGRAM;
        w->protocol[w->n++] = IPPROTO_UDP;
    }
    return 0;
}

/* Each wanted type's port for service (NULL: 0); types the named
   service lacks drop out.  0, EAI_NONAME (a name under AI_NUMERICSERV)
   or EAI_SERVICE (unknown, or not for any wanted type). */
static int want_ports(const char *service, int flags, struct want *w)
{
    int port = 0, n = 0;

    if (!service || numeric_port(service, &port)) {
        for (int i = 0; i < w->n; i++)
            w->port[i] = port;
        return 0;
    }
    if (flags & AI_NUMERICSERV)
        return EAI_NONAME;
    for (int i = 0; i < w->n; i++) {
        const struct service *sv = service_named(service,
            w->socktype[i] == SOCK_STREAM ? SV_TCP : SV_UDP);

        if (sv) {
            w->socktype[n] = w->socktype[i];
            w->protocol[n] = w->protocol[i];
            w->port[n++] = sv->port;
        }
    }
    w->n = n;
    return n ? 0 : EAI_SERVICE;
}

void freeaddrinfo(struct addrinfo *res)
{
    while (res) {
        struct addrinfo *next = res->ai_next;

        free(res->ai_canonname);
        free(res);
        res = next;
    }
}

/* The list for address a, one result per wanted type; NULL (and every
   block freed) when memory runs out. */
static struct addrinfo *make_list(const struct want *w, struct in_addr a,
                                  int flags, const char *canon)
{
    struct addrinfo *head = NULL, **tail = &head;

    for (int i = 0; i < w->n; i++) {
        struct addrinfo *ai = calloc(1, sizeof *ai +
                                        sizeof(struct sockaddr_in));
        struct sockaddr_in *sin;

        if (!ai)
            goto nomem;
        sin = (struct sockaddr_in *)(ai + 1);
        sin->sin_family = AF_INET;
        sin->sin_port = htons((uint16_t)w->port[i]);
        sin->sin_addr = a;
        ai->ai_flags = flags;
        ai->ai_family = AF_INET;
        ai->ai_socktype = w->socktype[i];
        ai->ai_protocol = w->protocol[i];
        ai->ai_addrlen = sizeof *sin;
        ai->ai_addr = (struct sockaddr *)sin;
        *tail = ai;
        tail = &ai->ai_next;
    }
    if (head && canon && !(head->ai_canonname = strdup(canon)))
        goto nomem;
    return head;
nomem:
    freeaddrinfo(head);
    return NULL;
}

int getaddrinfo(const char *node, const char *service,
                const struct addrinfo *hints, struct addrinfo **res)
{
    static const struct addrinfo none;
    const struct addrinfo *h = hints ? hints : &none;
    struct in_addr a;
    struct want w;
    int rc;

    *res = NULL;
    if (h->ai_flags & ~AI_KNOWN)
        return EAI_BADFLAGS;
    if (!node && !service)
        return EAI_NONAME;
    if (!node && (h->ai_flags & AI_CANONNAME))
        return EAI_BADFLAGS;
    if (h->ai_family != AF_UNSPEC && h->ai_family != AF_INET) {
        errno = EAFNOSUPPORT;   /* what socket() of that family says */
        return EAI_FAMILY;
    }
    if ((rc = want_types(h, &w)) || (rc = want_ports(service, h->ai_flags, &w)))
        return rc;
    if (!node)
        a.s_addr = htonl(h->ai_flags & AI_PASSIVE ? INADDR_ANY
                                                  : INADDR_LOOPBACK);
    else if ((rc = host_lookup(node, h->ai_flags, &a)))
        return rc;
    *res = make_list(&w, a, h->ai_flags,
                     h->ai_flags & AI_CANONNAME ? node : NULL);
    return *res ? 0 : EAI_MEMORY;
}

/* ---- getnameinfo ---------------------------------------------------- */

/* s into buf of len bytes; false if it does not fit. */
static bool put(char *buf, socklen_t len, const char *s)
{
    size_t n = strlen(s);

    if (n >= len)
        return false;
    memcpy(buf, s, n + 1);
    return true;
}

int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
                socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
    const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
    char num[INET_ADDRSTRLEN];

    if (flags & ~NI_KNOWN)
        return EAI_BADFLAGS;
    if (!sa || salen < sizeof *sin || sa->sa_family != AF_INET)
        return EAI_FAMILY;
    if ((!host || !hostlen) && (!serv || !servlen))
        return EAI_NONAME;
    if (host && hostlen) {
        const char *name = num;

        inet_ntop(AF_INET, &sin->sin_addr, num, sizeof num);
        if (!(flags & NI_NUMERICHOST) && is_loopback(sin->sin_addr))
            name = "localhost";
        else if (!(flags & NI_NUMERICHOST) && (flags & NI_NAMEREQD))
            return EAI_NONAME;      /* no reverse DNS */
        if (!put(host, hostlen, name))
            return EAI_OVERFLOW;
    }
    if (serv && servlen) {
        int port = ntohs(sin->sin_port);
        const struct service *sv = NULL;
        char pnum[8];

        if (!(flags & NI_NUMERICSERV))
            sv = service_at(port, flags & NI_DGRAM ? SV_UDP : SV_TCP);
        snprintf(pnum, sizeof pnum, "%d", port);
        if (!put(serv, servlen, sv ? sv->name : pnum))
            return EAI_OVERFLOW;
    }
    return 0;
}

const char *gai_strerror(int err)
{
    switch (err) {
    case 0:             return "Success";
    case EAI_BADFLAGS:  return "Bad value for ai_flags";
    case EAI_NONAME:    return "Name or service not known";
    case EAI_AGAIN:     return "Temporary failure in name resolution";
    case EAI_FAIL:      return "Non-recoverable failure in name resolution";
    case EAI_NODATA:    return "No address associated with hostname";
    case EAI_FAMILY:    return "ai_family not supported";
    case EAI_SOCKTYPE:  return "ai_socktype not supported";
    case EAI_SERVICE:   return "Servname not supported for ai_socktype";
    case EAI_ADDRFAMILY: return "Address family for hostname not supported";
    case EAI_MEMORY:    return "Memory allocation failure";
    case EAI_SYSTEM:    return "System error";
    case EAI_OVERFLOW:  return "Result too large for supplied buffer";
    default:            return "Unknown error";
    }
}

/* ---- gethostbyname and friends -------------------------------------- */

/*
 * A hostent for name and a, built in buf: the address list, the empty
 * alias list, the address and the name, pointers first.  false if buf
 * is too small.
 */
static bool fill_hostent(struct hostent *he, char *buf, size_t len,
                         const char *name, struct in_addr a)
{
    uintptr_t at = ((uintptr_t)buf + sizeof(char *) - 1) &
                   ~(uintptr_t)(sizeof(char *) - 1);
    char **list = (char **)at;
    char *addr = (char *)(list + 3);
    char *hname = addr + sizeof a;
    size_t need = (size_t)(hname - buf) + strlen(name) + 1;

    if (need > len)
        return false;
    memcpy(addr, &a, sizeof a);
    strcpy(hname, name);
    list[0] = addr;             /* h_addr_list: { addr, NULL } */
    list[1] = NULL;
    list[2] = NULL;             /* h_aliases: { NULL } */
    he->h_name = hname;
    he->h_aliases = &list[2];
    he->h_addrtype = AF_INET;
    he->h_length = sizeof a;
    he->h_addr_list = list;
    return true;
}

int gethostbyname_r(const char *name, struct hostent *ret, char *buf,
                    size_t buflen, struct hostent **result, int *h_errnop)
{
    struct in_addr a;
    int rc = host_lookup(name, 0, &a);

    *result = NULL;
    *h_errnop = h_errno_of(rc);
    if (rc)
        return 0;
    if (!fill_hostent(ret, buf, buflen, is_localhost(name) ? "localhost"
                                                          : name, a)) {
        *h_errnop = NETDB_INTERNAL;
        return ERANGE;
    }
    *result = ret;
    return 0;
}

static struct hostent host_static;
static char host_buf[3 * sizeof(char *) + 4 + DNS_NAME_MAX + 1 + 8];

struct hostent *gethostbyname(const char *name)
{
    struct hostent *he;
    int err;

    if (strlen(name) > DNS_NAME_MAX) {
        h_errno = HOST_NOT_FOUND;
        return NULL;
    }
    gethostbyname_r(name, &host_static, host_buf, sizeof host_buf, &he,
                    &err);
    h_errno = err;
    return he;
}

struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
    struct in_addr a;

    if (type != AF_INET || len != sizeof a) {
        h_errno = NO_RECOVERY;
        return NULL;
    }
    memcpy(&a, addr, sizeof a);
    if (!is_loopback(a)) {
        h_errno = HOST_NOT_FOUND;   /* no reverse DNS */
        return NULL;
    }
    fill_hostent(&host_static, host_buf, sizeof host_buf, "localhost", a);
    h_errno = NETDB_SUCCESS;
    return &host_static;
}

const char *hstrerror(int err)
{
    switch (err) {
    case NETDB_INTERNAL: return "Resolver internal error";
    case NETDB_SUCCESS:  return "Resolver Error 0 (no error)";
    case HOST_NOT_FOUND: return "Unknown host";
    case TRY_AGAIN:      return "Host name lookup failure";
    case NO_RECOVERY:    return "Unknown server error";
    case NO_DATA:        return "No address associated with name";
    default:             return "Unknown resolver error";
    }
}

void herror(const char *s)
{
    if (s && *s)
        fprintf(stderr, "%s: %s\n", s, hstrerror(h_errno));
    else
        fprintf(stderr, "%s\n", hstrerror(h_errno));
}
