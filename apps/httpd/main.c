/*
 * httpd - an HTTP/1.1 server, one G per connection, with keep-alive and
 * pipelining (requests answered in order), GET and HEAD:
 *
 *   /             a static page of 612 bytes (the size web benchmarks use)
 *   /debug/sched  the scheduler's state (Go's schedtrace line, per-P
 *                 counters, memory), the network's counters and httpd's
 *                 own (connections, closes by cause, answers by status,
 *                 limits), as text
 *   /bytes/N      N bytes of 'x' (up to 1 GiB), for throughput: what
 *                 tools/bench/bench-net.sh times
 *   /debug/pprof/ what Go's net/http/pprof serves, for `go tool pprof`:
 *                 profile?seconds=N  a CPU profile of the next N seconds
 *                 (default 30) at 100 Hz; goroutine?debug=0|1|2  every G
 *                 with its state and stack (<spindle/profile.h>)
 *
 *   make run APP=httpd NET=user      then: curl http://127.0.0.1:8080/
 *
 * After -- on the command line: the port (default 80), then any of
 * these, seconds as decimals:
 *
 *   read=10     a request (head and body) must arrive within this of its
 *               first byte, else 408 and the connection closes (slowloris)
 *   idle=60     a connection with no request under way for this long is
 *               closed without an answer (keep-alive, and before the first)
 *   write=10    a write that cannot queue its next 64 KiB for this long
 *               ends the connection with a reset (a client that does not
 *               read)
 *   linger=2    after the last answer the sending half closes, and what
 *               the client still sends is read and dropped for at most
 *               this long (1 MiB at most) before the connection is reset
 *               if the client has not closed its end, so that the answer
 *               reaches it before any reset
 *   conns=224   connections served at once.  At the cap a new one evicts
 *               the connection longest idle (reset) that has had a
 *               request answered or has been idle 100 ms (its first
 *               request may be on its way, unread); with none, it gets
 *               503 with Retry-After: 1 and is closed.  The default
 *               leaves 32 of lwIP's 256 TCP pcbs of a stack for those
 *               refusals and the handshakes under way
 *   line=4096   bytes of the request line, else 414
 *   head=8192   bytes of the request head, else 431
 *   body=65536  a Content-Length above it: 413.  A body within it is
 *               read and dropped (only GET and HEAD are served)
 *   echo=PORT   also answer every UDP datagram to PORT with itself (off
 *               by default), the echo service the network's tests flood
 *
 * Any other method is 405 with Allow: GET, HEAD; a malformed request
 * 400, a Transfer-Encoding 501, an HTTP major version not 1 505
 * (apps/httpd/parse.h).  Each of those, and 408, 413, 414, 431 and 503,
 * closes the connection after its answer (as above, lingering); a path
 * not served (404) or a bad argument of one (400) does not.  The counts
 * of each are on /debug/sched and printed when the machine exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <spindle/net.h>
#include <spindle/profile.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "parse.h"

/* 612 bytes: the body the usual web benchmarks serve. */
static const char page[] =
    "<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to Spindle!</title>\n"
    "<style>\n    body {\n        width: 35em;\n        margin: 0 auto;\n"
    "        font-family: Tahoma, Verdana, Arial, sans-serif;\n    }\n"
    "</style>\n</head>\n<body>\n<h1>Welcome to Spindle!</h1>\n"
    "<p>If you see this page, a Spindle unikernel is serving it: one G per\n"
    "connection, parked on the network between requests, on bare metal\n"
    "with no operating system underneath.</p>\n\n"
    "<p>The scheduler's state is at <a href=\"/debug/sched\">/debug/sched"
    "</a>.</p>\n\n<p><em>Thank you for using Spindle.</em></p>\n"
    "<p>-------------------------------------------</p>\n"
    "</body>\n</html>\n";

_Static_assert(sizeof page - 1 == 612, "the page is 612 bytes");

#define LINGER_BYTES (1 << 20)  /* read and dropped at most, closing */
/* A connection that has not had a request answered yet may be evicted
   once idle this long: its first request may have come and not been
   read yet.  (A client retries a request on a kept-alive connection the
   server closed, RFC 9112 9.3.1, but not its first.) */
#define EVICT_AFTER  SP_MS(100)

/* The limits (the command line's). */
static struct {
    uint64_t read, idle, write, linger;        /* ns */
    int conns;
    struct http_limits req;
} lim = {
    SP_S(10), SP_S(60), SP_S(10), SP_S(2), 224, { 4096, 8192, 65536 },
};

/* The statuses counted, in the order reported. */
static const int counted[] = { 200, 404, 400, 405, 408, 413, 414, 431, 500,
                               501, 503, 505 };
#define NCOUNTED (sizeof counted / sizeof counted[0])

/* Counters, atomic. */
static struct {
    uint64_t requests;          /* request heads read */
    uint64_t accepted;          /* connections accepted */
    uint64_t refused;           /* of them answered 503 at the cap */
    uint64_t evicted;           /* idle ones reset to make room */
    uint64_t idle_closed;       /* closed at the idle deadline */
    uint64_t read_timeouts;     /* 408s: the read deadline passed */
    uint64_t write_timeouts;    /* reset: a write could not go on */
    uint64_t resets;            /* connections ended with a reset */
    uint64_t status[NCOUNTED];
    uint64_t buf_bytes;         /* connections' buffers, allocated now */
    uint64_t udp_echoed;        /* datagrams echo= sent back */
} st;

static int echo_port;           /* echo=: the UDP echo's port, 0 if none */

#define COUNT(field) __atomic_add_fetch(&st.field, 1, __ATOMIC_RELAXED)
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/*
 * A connection.  The fields under mu are what the accepting G reads to
 * pick one to evict; the rest are the serving G's.  An idle connection
 * (no request under way) is on the idle list, oldest first; the accepting
 * G evicts one by taking it off, marking it and moving its read deadline
 * into the past, which wakes its G, which then resets it.
 */
struct conn {
    sp_conn *c;
    char *buf;                  /* the request under way, and after it */
    size_t have;                /* bytes in buf */
    bool keep, head;            /* the request's: keep-alive, HEAD */
    bool answered;              /* a request answered; set off the idle
                                   list, read on it under mu */
    struct conn *prev, *next;   /* on the idle list; under mu */
    uint64_t idle_since;        /* under mu */
    bool idle, evicted;         /* under mu */
};

static sp_mutex mu;
static struct {
    struct conn *head, *tail;
    int n;
} idle;                         /* under mu */
static int open_conns;          /* served now, evicted ones included */
static int evicting;            /* evicted, their Gs not done yet */

/* ---- Writing ---------------------------------------------------------- */

/* sp_write under the write deadline: len, or < 0 (the connection is
   then to be reset). */
static long put(struct conn *k, const void *p, size_t len)
{
    uint64_t deadline = sp_nanotime() + lim.write;
    long n;

    sp_set_write_deadline(k->c, (int64_t)deadline);
    n = sp_write(k->c, p, len);
    if (n >= 0 && (size_t)n == len)
        return n;
    if (sp_nanotime() >= deadline)
        COUNT(write_timeouts);
    return -1;
}

static void count_status(int code)
{
    for (size_t i = 0; i < NCOUNTED; i++)
        if (counted[i] == code)
            __atomic_add_fetch(&st.status[i], 1, __ATOMIC_RELAXED);
}

/* An answer whose body is in memory; extra: more header lines, each
   ending in CRLF.  0, or < 0 to reset. */
static long respond_with(struct conn *k, int code, const char *extra,
                         const char *body, size_t len, const char *type)
{
    char out[1024];
    int n = snprintf(out, sizeof out,
                     "HTTP/1.1 %d %s\r\nServer: Spindle\r\n%s"
                     "Content-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: %s\r\n\r\n", code, http_reason(code),
                     extra, type, len, k->keep ? "keep-alive" : "close");

    count_status(code);
    if (k->head)
        len = 0;
    if (n + len <= sizeof out) {        /* one segment for small answers */
        memcpy(out + n, body, len);
        return put(k, out, n + len);
    }
    if (put(k, out, n) < 0)
        return -1;
    return len ? put(k, body, len) : 0;
}

static long respond(struct conn *k, int code, const char *body, size_t len,
                    const char *type)
{
    return respond_with(k, code, "", body, len, type);
}

/* A short text/plain answer that ends the connection. */
static long refuse(struct conn *k, int code, const char *extra,
                   const char *why)
{
    k->keep = false;
    return respond_with(k, code, extra, why, strlen(why), "text/plain");
}

/* ---- Closing ---------------------------------------------------------- */

/*
 * Ends the connection after its last answer: the sending half first (a
 * FIN after the answer), then up to lim.linger of reading and dropping
 * what the client still sends, until it closes its end; a client that
 * does not gets a reset.  Closing with unread bytes would reset at once
 * and could destroy the answer before the client read it.
 */
static void finish(struct conn *k)
{
    long n = 0;
    size_t dropped = 0;

    sp_close_write(k->c);
    sp_set_read_deadline(k->c, (int64_t)(sp_nanotime() + lim.linger));
    while (dropped < LINGER_BYTES &&
           (n = sp_read(k->c, k->buf, lim.req.head_max)) > 0)
        dropped += (size_t)n;
    if (n == 0) {
        sp_close(k->c);
    } else {
        COUNT(resets);
        sp_abort(k->c);
    }
}

static void reset(struct conn *k)
{
    COUNT(resets);
    sp_abort(k->c);
}

/* ---- The idle list ---------------------------------------------------- */

/* Puts k on the idle list (newest last); false if it was evicted
   meanwhile.  Under mu. */
static bool idle_enter(struct conn *k)
{
    if (k->evicted)
        return false;
    k->idle = true;
    k->idle_since = sp_nanotime();
    k->next = NULL;
    k->prev = idle.tail;
    if (idle.tail)
        idle.tail->next = k;
    else
        idle.head = k;
    idle.tail = k;
    idle.n++;
    return true;
}

/* Takes k off the idle list; under mu. */
static void idle_leave(struct conn *k)
{
    if (!k->idle)
        return;
    if (k->prev)
        k->prev->next = k->next;
    else
        idle.head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        idle.tail = k->prev;
    idle.n--;
    k->idle = false;
}

/* ---- /debug/sched ----------------------------------------------------- */

/* httpd's own lines: connections, closes by cause, answers by status,
   limits. */
static int stats_report(char *buf, size_t len)
{
    int n, o, i, e;
    size_t k;

    sp_mutex_lock(&mu);
    o = open_conns;
    i = idle.n;
    e = evicting;
    sp_mutex_unlock(&mu);
    n = snprintf(buf, len, "httpd: conns open=%d idle=%d evicting=%d "
                 "cap=%d accepted=%llu refused=%llu evicted=%llu; closed "
                 "idle_deadline=%llu read_deadline=%llu write_deadline=%llu "
                 "reset=%llu; buffer_bytes=%llu\nhttpd: answered", o, i, e,
                 lim.conns, (unsigned long long)LOAD(st.accepted),
                 (unsigned long long)LOAD(st.refused),
                 (unsigned long long)LOAD(st.evicted),
                 (unsigned long long)LOAD(st.idle_closed),
                 (unsigned long long)LOAD(st.read_timeouts),
                 (unsigned long long)LOAD(st.write_timeouts),
                 (unsigned long long)LOAD(st.resets),
                 (unsigned long long)LOAD(st.buf_bytes));
    for (k = 0; k < NCOUNTED && n >= 0 && (size_t)n < len; k++)
        n += snprintf(buf + n, len - n, " %d=%llu", counted[k],
                      (unsigned long long)LOAD(st.status[k]));
    if (echo_port && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n, "\nhttpd: udp echo port=%d "
                      "echoed=%llu", echo_port,
                      (unsigned long long)LOAD(st.udp_echoed));
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n, "\nhttpd: limits read=%lums "
                      "idle=%lums write=%lums linger=%lums conns=%d "
                      "line=%zu head=%zu body=%llu",
                      (unsigned long)(lim.read / 1000000),
                      (unsigned long)(lim.idle / 1000000),
                      (unsigned long)(lim.write / 1000000),
                      (unsigned long)(lim.linger / 1000000), lim.conns,
                      lim.req.line_max, lim.req.head_max,
                      (unsigned long long)lim.req.body_max);
    return n;
}

static long debug_sched(struct conn *k)
{
    enum { SZ = 16384 };
    char *buf = malloc(SZ);
    uint64_t reqs = LOAD(st.requests);
    struct sp_net_stats ns;
    int n;
    long rc;

    if (!buf)
        return respond(k, 500, "out of memory\n", 14, "text/plain");
    n = sp_sched_report(buf, SZ / 2);
    if (n < 0 || n >= SZ / 2)
        n = (int)strlen(buf);
    buf[n++] = '\n';
    n += sp_net_report(buf + n, SZ - n - 2);
    if (n < SZ - 2 && sp_net_stats(&ns, NULL, 0) == 0)
        n += snprintf(buf + n, SZ - n - 2, "\nhttpd: %llu requests; "
                      "cross-core wakeups and frames away per request %.4f; "
                      "stack-lock takes by another stack's core per request "
                      "%.4f", (unsigned long long)reqs,
                      reqs ? (double)(ns.xwake + ns.away) / (double)reqs : 0.0,
                      reqs ? (double)ns.lock_foreign / (double)reqs : 0.0);
    if (n < SZ - 2) {
        buf[n++] = '\n';
        n += stats_report(buf + n, SZ - n - 2);
    }
    if (n > SZ - 2)
        n = SZ - 2;
    buf[n++] = '\n';
    rc = respond(k, 200, buf, n, "text/plain");
    free(buf);
    return rc;
}

static void report_at_exit(void)
{
    char buf[1024];

    if (stats_report(buf, sizeof buf) > 0)
        printf("%s\n", buf);
}

/* ---- /bytes/N --------------------------------------------------------- */

/* A header and N bytes, written 64 KiB at a time, each under the write
   deadline. */
static long bytes(struct conn *k, const char *arg)
{
    static char chunk[65536];
    char *end;
    unsigned long n = strtoul(arg, &end, 10);
    char hdr[160];
    int h;

    if (end == arg || *end || n > 1UL << 30)
        return respond(k, 400, "bad size\n", 9, "text/plain");
    if (!chunk[0])
        memset(chunk, 'x', sizeof chunk);
    h = snprintf(hdr, sizeof hdr,
                 "HTTP/1.1 200 OK\r\nServer: Spindle\r\n"
                 "Content-Type: application/octet-stream\r\n"
                 "Content-Length: %lu\r\nConnection: %s\r\n\r\n",
                 n, k->keep ? "keep-alive" : "close");
    count_status(200);
    if (put(k, hdr, h) < 0)
        return -1;
    while (n > 0 && !k->head) {
        size_t c = n < sizeof chunk ? n : sizeof chunk;

        if (put(k, chunk, c) < 0)
            return -1;
        n -= c;
    }
    return 0;
}

/* ---- /debug/pprof ---------------------------------------------------- */

/* A reply built in memory, for its Content-Length (sp_profile_writer). */
struct reply {
    char *b;
    size_t n, cap;
};

static int reply_write(void *arg, const void *p, size_t n)
{
    struct reply *r = arg;

    if (r->n + n > r->cap) {
        size_t cap = r->cap ? r->cap : 65536;
        char *nb;

        while (cap < r->n + n)
            cap *= 2;
        if (!(nb = realloc(r->b, cap)))
            return -ENOMEM;
        r->b = nb;
        r->cap = cap;
    }
    memcpy(r->b + r->n, p, n);
    r->n += n;
    return 0;
}

/* The value of query parameter key in the target (NUL-terminated), or
   def if it is absent or not a number. */
static long query(const char *target, const char *key, long def)
{
    size_t k = strlen(key);
    const char *q = target;

    while ((q = strpbrk(q, "?&"))) {
        q++;
        if (!strncmp(q, key, k) && q[k] == '=') {
            char *end;
            long v = strtol(q + k + 1, &end, 10);

            return end > q + k + 1 && (!*end || *end == '&') ? v : def;
        }
    }
    return def;
}

/* The reply of a profile call: 200 with the bytes, or 500 with why. */
static long profile_reply(struct conn *k, int rc, struct reply *r,
                          const char *type, const char *what)
{
    char msg[160];
    long n;

    if (rc == 0)
        n = respond(k, 200, r->b, r->n, type);
    else {
        int m = snprintf(msg, sizeof msg, "Could not %s: %s\n", what,
                         rc == -EBUSY ? "cpu profiling already in use"
                                      : strerror(-rc));
        n = respond(k, 500, msg, m, "text/plain; charset=utf-8");
    }
    free(r->b);
    return n;
}

/* /debug/pprof/profile?seconds=N: N seconds of every core at 100 Hz. */
static long pprof_profile(struct conn *k, const char *target)
{
    long secs = query(target, "seconds", 30);
    struct reply r = { 0 };
    int rc;

    if (secs < 1 || secs > 3600)
        return respond(k, 400, "bad seconds: 1 to 3600\n", 23,
                       "text/plain");
    if ((rc = sp_profile_start(100)) == 0) {
        sp_sleep(SP_S(secs));
        rc = sp_profile_stop_pprof(NULL, reply_write, &r);
    }
    return profile_reply(k, rc, &r, "application/octet-stream",
                         "enable CPU profiling");
}

/* /debug/pprof/goroutine?debug=N */
static long pprof_goroutine(struct conn *k, const char *target)
{
    long debug = query(target, "debug", 0);
    struct reply r = { 0 };
    int rc;

    if (debug < 0 || debug > 2)
        return respond(k, 400, "bad debug: 0, 1 or 2\n", 21, "text/plain");
    rc = sp_goroutine_profile((int)debug, reply_write, &r);
    return profile_reply(k, rc, &r, debug ? "text/plain; charset=utf-8"
                                          : "application/octet-stream",
                         "write the goroutine profile");
}

static const char pprof_index[] =
    "/debug/pprof/\n\n"
    "profile?seconds=N    CPU profile of the next N seconds (default 30)\n"
    "goroutine?debug=N    every goroutine: 0 pprof's format, 1 grouped by "
    "stack, 2 one by one\n\n"
    "go tool pprof http://HOST:PORT/debug/pprof/profile?seconds=5\n";

/* ---- Serving ---------------------------------------------------------- */

/* Whether target is path, with or without a query. */
static bool path_is(const char *target, const char *path)
{
    size_t n = strlen(path);

    return !strncmp(target, path, n) && (!target[n] || target[n] == '?');
}

/* Answers a GET or HEAD of target (NUL-terminated); < 0 to reset. */
static long route(struct conn *k, const char *t)
{
    if (!strcmp(t, "/"))
        return respond(k, 200, page, sizeof page - 1, "text/html");
    if (!strcmp(t, "/debug/sched"))
        return debug_sched(k);
    if (!strncmp(t, "/bytes/", 7))
        return bytes(k, t + 7);
    if (path_is(t, "/debug/pprof/profile"))
        return pprof_profile(k, t);
    if (path_is(t, "/debug/pprof/goroutine"))
        return pprof_goroutine(k, t);
    if (!strcmp(t, "/debug/pprof/"))
        return respond(k, 200, pprof_index, sizeof pprof_index - 1,
                       "text/plain");
    return respond(k, 404, "not found\n", 10, "text/plain");
}

/* What becomes of a connection after a request. */
enum after { KEEP, FINISH, RESET };

/* refuse(), then FINISH, or RESET if the answer could not be written. */
static enum after end_with(struct conn *k, int code, const char *extra,
                           const char *why)
{
    return refuse(k, code, extra, why) < 0 ? RESET : FINISH;
}

/* How a request ends whose read returned n <= 0: past the read deadline
   with 408 (counted), at the client's end with a clean finish, else with
   a reset. */
static enum after read_failed(struct conn *k, long n)
{
    if (n == -ETIMEDOUT) {
        COUNT(read_timeouts);
        return end_with(k, 408, "", "request timeout\n");
    }
    return n == 0 ? FINISH : RESET;
}

/* Waits for the next request's first bytes, on the idle list, under the
   idle deadline; false if the connection is to end (how in *a). */
static bool wait_request(struct conn *k, enum after *a)
{
    long n;
    bool evicted;

    sp_set_read_deadline(k->c, (int64_t)(sp_nanotime() + lim.idle));
    sp_mutex_lock(&mu);
    evicted = !idle_enter(k);
    sp_mutex_unlock(&mu);
    if (evicted) {
        *a = RESET;
        return false;
    }
    n = sp_read(k->c, k->buf, lim.req.head_max);
    sp_mutex_lock(&mu);
    idle_leave(k);
    evicted = k->evicted;
    sp_mutex_unlock(&mu);
    if (evicted) {
        *a = RESET;
        return false;
    }
    if (n == -ETIMEDOUT)
        COUNT(idle_closed);
    if (n <= 0) {
        *a = n == 0 || n == -ETIMEDOUT ? FINISH : RESET;
        return false;
    }
    k->have = (size_t)n;
    return true;
}

/* Reads and drops a body of n bytes, the buffer's first; under the
   request's deadline. */
static enum after drop_body(struct conn *k, uint64_t n)
{
    while (n > 0) {
        size_t d = k->have < n ? k->have : (size_t)n;
        long r;

        memmove(k->buf, k->buf + d, k->have - d);
        k->have -= d;
        n -= d;
        if (n == 0)
            break;
        r = sp_read(k->c, k->buf, lim.req.head_max);
        if (r <= 0)
            return read_failed(k, r);
        k->have = (size_t)r;
    }
    return KEEP;
}

/* One request: its head (and body) read under the read deadline, its
   answer written.  KEEP for the next one. */
static enum after one_request(struct conn *k)
{
    struct http_scan sc = { 0 };
    struct http_req r;
    long h, n;
    int rc;
    enum after a;
    char *target;

    k->keep = false;
    k->head = false;
    if (k->have == 0 && !wait_request(k, &a))
        return a;
    sp_set_read_deadline(k->c, (int64_t)(sp_nanotime() + lim.read));
    while ((h = http_scan(&sc, k->buf, k->have, &lim.req)) == 0) {
        n = sp_read(k->c, k->buf + k->have, lim.req.head_max - k->have);
        if (n <= 0)
            return read_failed(k, n);
        k->have += (size_t)n;
    }
    COUNT(requests);
    if (h < 0)
        return end_with(k, (int)-h, "", h == -414 ? "request line too long\n"
                                                  : "request head too large\n");
    if ((rc = http_parse(k->buf, (size_t)h, &lim.req, &r)))
        return end_with(k, rc, "", rc == 413 ? "body too large\n"
                                   : rc == 501 ? "no transfer codings\n"
                                   : rc == 505 ? "HTTP/1 only\n"
                                               : "bad request\n");
    if (r.method == HTTP_OTHER)
        return end_with(k, 405, "Allow: GET, HEAD\r\n", "GET and HEAD only\n");
    k->keep = r.keep_alive;
    k->head = r.method == HTTP_HEAD;
    /* The target, out of the way of the body that follows the head. */
    if (!(target = malloc(r.target_len + 1)))
        return end_with(k, 500, "", "out of memory\n");
    memcpy(target, r.target, r.target_len);
    target[r.target_len] = 0;
    memmove(k->buf, k->buf + h, k->have - (size_t)h);
    k->have -= (size_t)h;
    a = drop_body(k, r.body);
    if (a == KEEP && route(k, target) < 0)
        a = RESET;
    k->answered = true;
    free(target);
    if (a == KEEP && !k->keep)
        a = FINISH;
    return a;
}

/* The end of a connection's G: its memory back. */
static void conn_free(struct conn *k)
{
    __atomic_sub_fetch(&st.buf_bytes, lim.req.head_max, __ATOMIC_RELAXED);
    free(k->buf);
    free(k);
}

static void serve(void *arg)
{
    struct conn *k = arg;
    enum after a = KEEP;

    while (a == KEEP)
        a = one_request(k);
    if (a == FINISH)
        finish(k);
    else
        reset(k);
    sp_mutex_lock(&mu);
    open_conns--;
    if (k->evicted)
        evicting--;
    sp_mutex_unlock(&mu);
    conn_free(k);
}

/* A connection past the cap with none idle to evict: 503. */
static void turn_away(void *arg)
{
    struct conn *k = arg;

    if (end_with(k, 503, "Retry-After: 1\r\n", "too many connections\n") ==
        RESET)
        reset(k);
    else
        finish(k);
    conn_free(k);
}

/* Takes c in: a G to serve it, or to turn it away at the cap. */
static void admit(sp_conn *c)
{
    struct conn *k = calloc(1, sizeof *k), *victim = NULL;
    bool full;

    COUNT(accepted);
    if (k && !(k->buf = malloc(lim.req.head_max))) {
        free(k);
        k = NULL;
    }
    if (!k) {
        COUNT(resets);
        sp_abort(c);
        return;
    }
    k->c = c;
    __atomic_add_fetch(&st.buf_bytes, lim.req.head_max, __ATOMIC_RELAXED);
    sp_mutex_lock(&mu);
    if ((full = open_conns - evicting >= lim.conns)) {
        uint64_t now = sp_nanotime();

        for (victim = idle.head; victim; victim = victim->next)
            if (victim->answered || now - victim->idle_since >= EVICT_AFTER)
                break;
    }
    if (victim) {
        idle_leave(victim);
        victim->evicted = true;
        evicting++;
        /* In the past: its G's read ends at once. */
        sp_set_read_deadline(victim->c, 1);
        full = false;
    }
    if (!full)
        open_conns++;
    sp_mutex_unlock(&mu);
    if (victim)
        COUNT(evicted);
    if (full)
        COUNT(refused);
    sp_go(full ? turn_away : serve, k);
}

/* ---- The UDP echo (echo=) ---------------------------------------------- */

/* Sends every datagram back to its sender, as it came (cut to 2 KiB:
   no datagram of a 1500-byte link is longer).  A datagram that cannot
   go back is dropped: UDP promises nothing more. */
static void udp_echo(void *arg)
{
    sp_udp *u = arg;
    char buf[2048], from[24];
    long n;

    while ((n = sp_recvfrom(u, buf, sizeof buf, from, sizeof from)) >= 0)
        if (sp_sendto(u, buf, (size_t)n, from) >= 0)
            COUNT(udp_echoed);
    printf("httpd: udp echo: %s\n", sp_net_strerror((int)n));
}

/* ---- The command line ------------------------------------------------- */

/* key=value into lim; false if it is not one. */
static bool limit(const char *arg)
{
    static const struct {
        const char *key;
        uint64_t *ns;
    } secs[] = {
        { "read=", &lim.read }, { "idle=", &lim.idle },
        { "write=", &lim.write }, { "linger=", &lim.linger },
    };
    char *end;

    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
        size_t n = strlen(secs[i].key);

        if (!strncmp(arg, secs[i].key, n)) {
            double v = strtod(arg + n, &end);

            if (end == arg + n || *end || !(v > 0 && v <= 86400))
                return false;
            *secs[i].ns = (uint64_t)(v * 1e9);
            return true;
        }
    }
    if (!strncmp(arg, "echo=", 5)) {
        long v = strtol(arg + 5, &end, 10);

        if (end == arg + 5 || *end || v < 1 || v > 65535)
            return false;
        echo_port = (int)v;
        return true;
    }
    if (!strncmp(arg, "conns=", 6)) {
        long v = strtol(arg + 6, &end, 10);

        if (end == arg + 6 || *end || v < 1 || v > 1000000)
            return false;
        lim.conns = (int)v;
        return true;
    }
    for (int i = 0; i < 3; i++) {
        static const char *const keys[] = { "line=", "head=", "body=" };
        size_t n = strlen(keys[i]);
        unsigned long long v;

        if (strncmp(arg, keys[i], n))
            continue;
        v = strtoull(arg + n, &end, 10);
        if (end == arg + n || *end || v < 1 || v > (1ULL << 30))
            return false;
        if (i == 0)
            lim.req.line_max = v;
        else if (i == 1)
            lim.req.head_max = v;
        else
            lim.req.body_max = v;
        return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    char addr[16], listen[16];
    int port = 80, err;
    sp_listener *l;

    for (int i = 1; i < argc; i++) {
        if (i == 1 && argv[i][0] >= '0' && argv[i][0] <= '9' &&
            !strchr(argv[i], '='))
            port = atoi(argv[i]);
        else if (!limit(argv[i]))
            printf("httpd: %s: not a port first, or one of read=, idle=, "
                   "write=, linger= (seconds), conns=, line=, head=, "
                   "body=, echo=; ignored\n", argv[i]);
    }
    if (lim.req.line_max > lim.req.head_max)
        lim.req.line_max = lim.req.head_max;
    if ((err = sp_net_wait(SP_MS(10000))) < 0) {
        printf("httpd: %s\n", sp_net_strerror(err));
        return 1;
    }
    snprintf(listen, sizeof listen, ":%d", port);
    if (!(l = sp_listen(listen, &err))) {
        printf("httpd: listen %s: %s\n", listen, sp_net_strerror(err));
        return 1;
    }
    if (echo_port) {
        sp_udp *u;

        snprintf(listen, sizeof listen, ":%d", echo_port);
        if (!(u = sp_listen_udp(listen, &err))) {
            printf("httpd: udp echo %s: %s\n", listen, sp_net_strerror(err));
            return 1;
        }
        sp_go(udp_echo, u);
    }
    atexit(report_at_exit);
    sp_net_addr(addr, sizeof addr);
    printf("httpd: serving http://%s:%d/%s\n", addr, port,
           echo_port ? " (and a UDP echo)" : "");
    for (;;) {
        sp_conn *c = sp_accept(l, &err);

        if (!c) {
            printf("httpd: accept: %s\n", sp_net_strerror(err));
            return 1;
        }
        admit(c);
    }
}
