/*
 * mcload.c - a closed-loop load generator for memcached's ASCII protocol,
 * the client of `make bench-apps` (tools/bench/bench-apps.sh).  Built for
 * the host by bench/bench.mk as build/host/mcload.
 *
 *   mcload -s HOST[:PORT] [-c CONNS] [-d SECS] [-w SECS] [-k KEYS]
 *          [-g GETFRAC] [-K KEYLEN] [-V VALLEN] [-W SECS] [-P]
 *
 * What it does, in order:
 *   1. waits (up to -W seconds, default 60) until the server answers
 *      "version" on a fresh connection; -P stops here (exit 0 when the
 *      server answered): the bench's "is the guest up" probe;
 *   2. opens CONNS connections (default 32, TCP_NODELAY);
 *   3. preloads the key space: one set of every key, KEYS keys (10,000),
 *      pipelined on the first connection, each answer checked;
 *   4. runs the load on all connections from one thread with epoll: each
 *      connection has exactly one request in flight (closed loop); a
 *      request is a get with probability GETFRAC (0.9), else a set, of a
 *      key drawn uniformly from the key space; keys are KEYLEN bytes (32),
 *      values VALLEN bytes (100), flags 0, no expiry.  A get's value is
 *      checked byte for byte (every value is a function of its key);
 *   5. after a warm-up of -w seconds (3) it clears its counters and
 *      measures -d seconds (10): requests answered in that window and
 *      the latency of each (from just before its send to the end of its
 *      answer, CLOCK_MONOTONIC) in a log-linear histogram whose buckets
 *      are at most 1/64 wide (percentiles within 1.6%).
 *
 * Output on stdout, one line each, for scripts:
 *   mcload: conns C keys K get G key_bytes KB value_bytes VB warmup_s W measured_s S
 *   mcload: ops N ops_per_s X gets N sets N misses N errors N
 *   mcload: latency_us mean X p50 X p90 X p99 X p999 X max X
 *   mcload: client_cpu_pct X   (mcload's own CPU time over the window, %
 *                              of one core: near 100, the client limits)
 * Exit status 0 when the run finished with no protocol error, a miss
 * or a wrong value; 1 otherwise (the lines are printed still); 2 on
 * bad usage.  A closed-loop client does not correct for coordinated
 * omission: a stalled server lowers the request rate rather than
 * raising the percentiles by the whole stall.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXKEY 250 /* memcached's limit on a key */
#define MAXVAL (1 << 20)

static const char *host = "127.0.0.1", *port = "11211";
static int nconns = 32, dur_s = 10, warm_s = 3, wait_s = 60, probe_only;
static long nkeys = 10000;
static double getfrac = 0.9;
static int keylen = 32, vallen = 100;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcload: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* This process's CPU time, user and system, in ns. */
static uint64_t cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((uint64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* xorshift64*: the key and operation of each request. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

/* Key i: "mcload:" then i in decimal, zero-padded to keylen bytes. */
static void make_key(char *buf, long i)
{
    snprintf(buf, MAXKEY + 1, "mcload:%0*ld", keylen - 7, i);
}

/* Key i's value: vallen letters that depend on i. */
static void make_value(char *buf, long i)
{
    for (int j = 0; j < vallen; j++)
        buf[j] = 'a' + (char)((i * 7 + j) % 26);
}

/* ---- The latency histogram ---------------------------------------------
 * Values in ns.  Below 128 a bucket per ns; above, for v in [2^(e+6),
 * 2^(e+7)) the bucket e*64 + (v >> e), so each power of two has 64
 * buckets. */
#define HBUCKETS (64 * 60)
static uint64_t hist[HBUCKETS];
static uint64_t hcount, hsum, hmax;

static int hbucket(uint64_t v)
{
    if (v < 128)
        return (int)v;
    int e = 63 - __builtin_clzll(v) - 6;
    return e * 64 + (int)(v >> e);
}

/* The middle of bucket b, in ns. */
static double hvalue(int b)
{
    if (b < 128)
        return b;
    int e = b / 64 - 1;
    uint64_t lo = (uint64_t)(b - e * 64) << e;
    return lo + (double)((uint64_t)1 << e) / 2;
}

static void hrecord(uint64_t v)
{
    hist[hbucket(v)]++;
    hcount++;
    hsum += v;
    if (v > hmax)
        hmax = v;
}

/* The q-quantile (0 < q <= 1), in µs. */
static double hquantile(double q)
{
    uint64_t want = (uint64_t)(q * hcount + 0.5), seen = 0;
    if (want < 1)
        want = 1;
    for (int b = 0; b < HBUCKETS; b++) {
        seen += hist[b];
        if (seen >= want)
            return hvalue(b) / 1000;
    }
    return hmax / 1000.0;
}

/* ---- Connections --------------------------------------------------------- */
struct conn {
    int fd;
    char out[MAXKEY + 64 + 4096];
    int outlen, outoff;
    char *in;      /* answer bytes received so far */
    int inlen;
    bool isget;    /* what the request in flight is */
    long key;
    uint64_t sent; /* when its send began */
};

static struct conn *conns;
static int incap;
static char *values; /* nkeys * vallen, built once */
static uint64_t nops, ngets, nsets, nmisses, nerrors;

static int dial(void)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0)
        die("%s:%s: %s", host, port, gai_strerror(rc));
    int fd = socket(ai->ai_family, ai->ai_socktype, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        int e = errno;
        close(fd);
        freeaddrinfo(ai);
        errno = e;
        return -1;
    }
    freeaddrinfo(ai);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write: %s", w < 0 ? strerror(errno) : "closed");
        p += w;
        n -= (size_t)w;
    }
}

/* Step 1: true once a fresh connection's "version" gets "VERSION ...". */
static bool server_up(void)
{
    int fd = dial();
    if (fd < 0)
        return false;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[256];
    bool up = false;
    if (write(fd, "version\r\n", 9) == 9) {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        up = n > 8 && memcmp(buf, "VERSION ", 8) == 0;
    }
    close(fd);
    return up;
}

static int set_request(char *buf, long k)
{
    char key[MAXKEY + 1];
    make_key(key, k);
    int n = sprintf(buf, "set %s 0 0 %d\r\n", key, vallen);
    memcpy(buf + n, values + k * vallen, vallen);
    memcpy(buf + n + vallen, "\r\n", 2);
    return n + vallen + 2;
}

/* Step 3: every key set once, in batches of 100 on connection 0. */
static void preload(void)
{
    int fd = conns[0].fd;
    char *buf = malloc(100 * (size_t)(MAXKEY + 64 + vallen));
    char ans[16];
    if (!buf)
        die("out of memory");
    for (long k = 0; k < nkeys; k += 100) {
        long n = nkeys - k < 100 ? nkeys - k : 100;
        int len = 0;
        for (long i = 0; i < n; i++)
            len += set_request(buf + len, k + i);
        write_all(fd, buf, len);
        /* n answers of "STORED\r\n", 8 bytes each. */
        for (long got = 0; got < n * 8;) {
            ssize_t r = read(fd, ans, 8 - got % 8);
            if (r <= 0)
                die("preload: %s", r < 0 ? strerror(errno) : "the server closed");
            if (memcmp(ans, "STORED\r\n" + got % 8, (size_t)r) != 0)
                die("preload: unexpected answer '%.*s'", (int)r, ans);
            got += r;
        }
    }
    free(buf);
}

static void send_next(struct conn *c, int ep)
{
    long k = (long)(rnd() % (uint64_t)nkeys);
    c->key = k;
    c->isget = (double)(rnd() >> 11) / (double)(1ull << 53) < getfrac;
    if (c->isget) {
        char key[MAXKEY + 1];
        make_key(key, k);
        c->outlen = sprintf(c->out, "get %s\r\n", key);
    } else {
        c->outlen = set_request(c->out, k);
    }
    c->outoff = 0;
    c->inlen = 0;
    c->sent = now_ns();
    ssize_t w = write(c->fd, c->out, c->outlen);
    if (w < 0 && errno != EAGAIN && errno != EINTR)
        die("write: %s", strerror(errno));
    c->outoff = w > 0 ? (int)w : 0;
    if (c->outoff < c->outlen) {
        /* Rare (small requests): finish when the socket has room. */
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    }
}

/* How many bytes of c->in make a whole answer: 0 while incomplete, -1
 * when it is not an answer the request allows. */
static int answer_len(struct conn *c, bool *miss, bool *bad)
{
    char *in = c->in;
    int n = c->inlen;
    *miss = *bad = false;
    char *eol = memmem(in, n, "\r\n", 2);
    if (!eol)
        return n > MAXKEY + 64 ? -1 : 0;
    int hl = (int)(eol - in) + 2;
    if (!c->isget)
        return hl == 8 && memcmp(in, "STORED\r\n", 8) == 0 ? hl : -1;
    if (hl == 5 && memcmp(in, "END\r\n", 5) == 0) {
        *miss = true;
        return hl;
    }
    char key[MAXKEY + 1];
    unsigned flags, bytes;
    make_key(key, c->key);
    int kl = (int)strlen(key);
    if (hl < 6 + kl || memcmp(in, "VALUE ", 6) != 0 || memcmp(in + 6, key, kl) != 0 ||
        sscanf(in + 6 + kl, " %u %u", &flags, &bytes) != 2 || bytes > MAXVAL)
        return -1;
    int total = hl + (int)bytes + 2 + 5;
    if (n < total)
        return 0;
    if (memcmp(in + hl + bytes, "\r\nEND\r\n", 7) != 0)
        return -1;
    *bad = bytes != (unsigned)vallen || memcmp(in + hl, values + c->key * vallen, vallen) != 0;
    return total;
}

/* Reads what the socket has; on a whole answer, counts it and sends the
 * next request.  measuring: whether this answer falls in the window. */
static void on_readable(struct conn *c, int ep, bool measuring)
{
    for (;;) {
        ssize_t r = read(c->fd, c->in + c->inlen, incap - c->inlen);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (r <= 0)
            die("read: %s", r < 0 ? strerror(errno) : "the server closed a connection");
        c->inlen += (int)r;
        bool miss, bad;
        int len = answer_len(c, &miss, &bad);
        if (len < 0)
            die("unexpected answer to a %s: '%.*s'", c->isget ? "get" : "set",
                c->inlen < 80 ? c->inlen : 80, c->in);
        if (len == 0)
            continue;
        if (len != c->inlen)
            die("%d bytes more than one answer", c->inlen - len);
        uint64_t t = now_ns();
        if (measuring) {
            hrecord(t - c->sent);
            nops++;
            c->isget ? ngets++ : nsets++;
            nmisses += miss;
            nerrors += bad;
        }
        send_next(c, ep);
        return;
    }
}

static void on_writable(struct conn *c, int ep)
{
    ssize_t w = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);
    if (w < 0 && errno != EAGAIN && errno != EINTR)
        die("write: %s", strerror(errno));
    if (w > 0)
        c->outoff += (int)w;
    if (c->outoff == c->outlen) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: mcload -s HOST[:PORT] [-c CONNS] [-d SECS] [-w SECS] [-k KEYS]\n"
                    "              [-g GETFRAC] [-K KEYLEN] [-V VALLEN] [-W SECS] [-P]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "s:c:d:w:k:g:K:V:W:P")) != -1) {
        switch (opt) {
        case 's': {
            char *h = strdup(optarg), *colon = strrchr(h, ':');
            if (colon) {
                *colon = 0;
                port = colon + 1;
            }
            host = h;
            break;
        }
        case 'c': nconns = atoi(optarg); break;
        case 'd': dur_s = atoi(optarg); break;
        case 'w': warm_s = atoi(optarg); break;
        case 'k': nkeys = atol(optarg); break;
        case 'g': getfrac = atof(optarg); break;
        case 'K': keylen = atoi(optarg); break;
        case 'V': vallen = atoi(optarg); break;
        case 'W': wait_s = atoi(optarg); break;
        case 'P': probe_only = 1; break;
        default: usage();
        }
    }
    if (optind != argc || nconns < 1 || dur_s < 1 || warm_s < 0 || nkeys < 1 ||
        getfrac < 0 || getfrac > 1 || keylen < 8 || keylen > MAXKEY || vallen < 1 ||
        vallen > 4096 || wait_s < 0)
        usage();
    char probe[MAXKEY + 1];
    make_key(probe, nkeys - 1);
    if ((int)strlen(probe) != keylen)
        die("%ld keys do not fit in %d-byte keys", nkeys, keylen);

    /* Step 1. */
    uint64_t deadline = now_ns() + (uint64_t)wait_s * 1000000000u;
    while (!server_up()) {
        if (now_ns() > deadline) {
            fprintf(stderr, "mcload: %s:%s did not answer 'version' within %d s\n", host,
                    port, wait_s);
            return 1;
        }
        usleep(200000);
    }
    if (probe_only)
        return 0;

    /* Step 2. */
    values = malloc((size_t)nkeys * vallen);
    conns = calloc(nconns, sizeof *conns);
    incap = MAXKEY + 64 + vallen + 16;
    if (!values || !conns)
        die("out of memory");
    for (long k = 0; k < nkeys; k++)
        make_value(values + k * vallen, k);
    for (int i = 0; i < nconns; i++) {
        if ((conns[i].fd = dial()) < 0)
            die("connection %d: %s", i, strerror(errno));
        if (!(conns[i].in = malloc(incap)))
            die("out of memory");
    }

    /* Step 3. */
    preload();

    /* Steps 4 and 5. */
    int ep = epoll_create1(0);
    if (ep < 0)
        die("epoll_create1: %s", strerror(errno));
    for (int i = 0; i < nconns; i++) {
        struct conn *c = &conns[i];
        fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
            die("epoll_ctl: %s", strerror(errno));
    }
    uint64_t t0 = now_ns(), start = t0 + (uint64_t)warm_s * 1000000000u,
             end = start + (uint64_t)dur_s * 1000000000u;
    for (int i = 0; i < nconns; i++)
        send_next(&conns[i], ep);
    bool measuring = warm_s == 0;
    uint64_t cpu0 = cpu_ns();
    struct epoll_event evs[64];
    for (;;) {
        uint64_t t = now_ns();
        if (!measuring && t >= start) {
            measuring = true; /* the counters are still zero */
            cpu0 = cpu_ns();
        }
        if (t >= end)
            break;
        int n = epoll_wait(ep, evs, 64, 50);
        if (n < 0 && errno != EINTR)
            die("epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;
            if (evs[i].events & EPOLLOUT)
                on_writable(c, ep);
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                on_readable(c, ep, measuring && now_ns() < end);
        }
    }
    double secs = (double)(end - start) / 1e9;
    double cpu_pct = (double)(cpu_ns() - cpu0) / 1e7 / secs;

    printf("mcload: conns %d keys %ld get %.2f key_bytes %d value_bytes %d warmup_s %d "
           "measured_s %.2f\n",
           nconns, nkeys, getfrac, keylen, vallen, warm_s, secs);
    printf("mcload: ops %llu ops_per_s %.1f gets %llu sets %llu misses %llu errors %llu\n",
           (unsigned long long)nops, nops / secs, (unsigned long long)ngets,
           (unsigned long long)nsets, (unsigned long long)nmisses,
           (unsigned long long)nerrors);
    if (hcount)
        printf("mcload: latency_us mean %.1f p50 %.1f p90 %.1f p99 %.1f p999 %.1f max %.1f\n",
               hsum / 1000.0 / hcount, hquantile(0.5), hquantile(0.9), hquantile(0.99),
               hquantile(0.999), hmax / 1000.0);
    printf("mcload: client_cpu_pct %.0f\n", cpu_pct);
    return nops > 0 && nmisses == 0 && nerrors == 0 ? 0 : 1;
}
