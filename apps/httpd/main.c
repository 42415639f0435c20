/*
 * httpd - an HTTP/1.1 server, one G per connection, with keep-alive and
 * pipelining:
 *
 *   /             a static page of 612 bytes (the size web benchmarks use)
 *   /debug/sched  the scheduler's state (Go's schedtrace line, per-P
 *                 counters) and the network's counters, as text
 *   /bytes/N      N bytes of 'x' (up to 1 GiB), for throughput: what
 *                 tools/bench/bench-net.sh times
 *   /debug/pprof/ what Go's net/http/pprof serves, for `go tool pprof`:
 *                 profile?seconds=N  a CPU profile of the next N seconds
 *                 (default 30) at 100 Hz; goroutine?debug=0|1|2  every G
 *                 with its state and stack (<spindle/profile.h>)
 *
 *   make run APP=httpd NET=user      then: curl http://127.0.0.1:8080/
 *
 * Listens on port 80, or on the port given after --.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <spindle/net.h>
#include <spindle/profile.h>
#include <spindle/sched.h>
#include <spindle/time.h>

#define REQ_MAX 8192

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

static const char *header_end(const char *p, size_t n)
{
    for (size_t i = 3; i < n; i++)
        if (p[i - 3] == '\r' && p[i - 2] == '\n' && p[i - 1] == '\r' &&
            p[i] == '\n')
            return p + i + 1;
    return NULL;
}

/* The value of header `name` (with its colon, any case) in the header
   block req, or NULL. */
static const char *header(const char *req, const char *name)
{
    size_t n = strlen(name);

    for (const char *l = strstr(req, "\r\n"); l; l = strstr(l + 2, "\r\n"))
        if (!strncasecmp(l + 2, name, n))
            return l + 2 + n;
    return NULL;
}

/* Whether the request (its header block, NUL-terminated) wants the
   connection kept open: HTTP/1.1 unless "Connection: close", HTTP/1.0
   only with "Connection: keep-alive". */
static bool keep_alive(const char *req)
{
    bool v11 = strstr(req, " HTTP/1.1\r\n") != NULL;
    const char *c = header(req, "Connection:");

    if (!c)
        return v11;
    while (*c == ' ')
        c++;
    return v11 ? strncasecmp(c, "close", 5) != 0
               : strncasecmp(c, "keep-alive", 10) == 0;
}

static const char *status_text(int code)
{
    switch (code) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    }
    return "Bad Request";
}

static long respond(sp_conn *c, int code, const char *body, size_t len,
                    const char *type, bool keep)
{
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr,
                     "HTTP/1.1 %d %s\r\nServer: Spindle\r\n"
                     "Content-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: %s\r\n\r\n", code, status_text(code),
                     type, len, keep ? "keep-alive" : "close");
    char out[1024];

    if (n + len <= sizeof out) {        /* one segment for small answers */
        memcpy(out, hdr, n);
        memcpy(out + n, body, len);
        return sp_write(c, out, n + len);
    }
    if (sp_write(c, hdr, n) < 0)
        return -1;
    return sp_write(c, body, len);
}

static uint64_t nrequests;      /* requests handled; atomic */

static long debug_sched(sp_conn *c, bool keep)
{
    char *buf = malloc(16384);
    uint64_t reqs = __atomic_load_n(&nrequests, __ATOMIC_RELAXED);
    struct sp_net_stats st;
    int n;
    long rc;

    if (!buf)
        return respond(c, 400, "out of memory\n", 14, "text/plain", false);
    n = sp_sched_report(buf, 8192);
    if (n < 0 || n >= 8192)
        n = (int)strlen(buf);
    buf[n++] = '\n';
    n += sp_net_report(buf + n, 16384 - n - 2);
    if (n < 16382 && sp_net_stats(&st, NULL, 0) == 0)
        n += snprintf(buf + n, 16384 - n - 2, "\nhttpd: %llu requests; "
                      "cross-core wakeups and frames away per request %.4f; "
                      "stack-lock takes by another stack's core per request "
                      "%.4f", (unsigned long long)reqs,
                      reqs ? (double)(st.xwake + st.away) / (double)reqs : 0.0,
                      reqs ? (double)st.lock_foreign / (double)reqs : 0.0);
    if (n > 16382)
        n = 16382;
    buf[n++] = '\n';
    rc = respond(c, 200, buf, n, "text/plain", keep);
    free(buf);
    return rc;
}

/* /bytes/N: a header and N bytes, written 64 KiB at a time. */
static long bytes(sp_conn *c, const char *arg, bool keep)
{
    static char chunk[65536];
    char *end;
    unsigned long n = strtoul(arg, &end, 10);
    char hdr[160];
    int h;

    if (end == arg || *end != ' ' || n > 1UL << 30)
        return respond(c, 400, "bad size\n", 9, "text/plain", keep);
    if (!chunk[0])
        memset(chunk, 'x', sizeof chunk);
    h = snprintf(hdr, sizeof hdr,
                 "HTTP/1.1 200 OK\r\nServer: Spindle\r\n"
                 "Content-Type: application/octet-stream\r\n"
                 "Content-Length: %lu\r\nConnection: %s\r\n\r\n",
                 n, keep ? "keep-alive" : "close");
    if (sp_write(c, hdr, h) < 0)
        return -1;
    while (n > 0) {
        size_t k = n < sizeof chunk ? n : sizeof chunk;

        if (sp_write(c, chunk, k) < 0)
            return -1;
        n -= k;
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

/* The value of query parameter key in the request line's target (which
   ends at a blank), or def if it is absent or not a number. */
static long query(const char *target, const char *key, long def)
{
    size_t k = strlen(key);
    const char *q = target;

    while ((q = strpbrk(q, "?& ")) && *q != ' ') {
        q++;
        if (!strncmp(q, key, k) && q[k] == '=') {
            char *end;
            long v = strtol(q + k + 1, &end, 10);

            return end > q + k + 1 && (*end == ' ' || *end == '&') ? v : def;
        }
    }
    return def;
}

/* The reply of a profile call: 200 with the bytes, or 500 with why. */
static long profile_reply(sp_conn *c, int rc, struct reply *r,
                          const char *type, const char *what, bool keep)
{
    char msg[160];
    long n;

    if (rc == 0)
        n = respond(c, 200, r->b, r->n, type, keep);
    else {
        int k = snprintf(msg, sizeof msg, "Could not %s: %s\n", what,
                         rc == -EBUSY ? "cpu profiling already in use"
                                      : strerror(-rc));
        n = respond(c, 500, msg, k, "text/plain; charset=utf-8", keep);
    }
    free(r->b);
    return n;
}

/* /debug/pprof/profile?seconds=N: N seconds of every core at 100 Hz. */
static long pprof_profile(sp_conn *c, const char *target, bool keep)
{
    long secs = query(target, "seconds", 30);
    struct reply r = { 0 };
    int rc;

    if (secs < 1 || secs > 3600)
        return respond(c, 400, "bad seconds: 1 to 3600\n", 23,
                       "text/plain", keep);
    if ((rc = sp_profile_start(100)) == 0) {
        sp_sleep(SP_S(secs));
        rc = sp_profile_stop_pprof(NULL, reply_write, &r);
    }
    return profile_reply(c, rc, &r, "application/octet-stream",
                         "enable CPU profiling", keep);
}

/* /debug/pprof/goroutine?debug=N */
static long pprof_goroutine(sp_conn *c, const char *target, bool keep)
{
    long debug = query(target, "debug", 0);
    struct reply r = { 0 };
    int rc;

    if (debug < 0 || debug > 2)
        return respond(c, 400, "bad debug: 0, 1 or 2\n", 21, "text/plain",
                       keep);
    rc = sp_goroutine_profile((int)debug, reply_write, &r);
    return profile_reply(c, rc, &r, debug ? "text/plain; charset=utf-8"
                                          : "application/octet-stream",
                         "write the goroutine profile", keep);
}

static const char pprof_index[] =
    "/debug/pprof/\n\n"
    "profile?seconds=N    CPU profile of the next N seconds (default 30)\n"
    "goroutine?debug=N    every goroutine: 0 pprof's format, 1 grouped by "
    "stack, 2 one by one\n\n"
    "go tool pprof http://HOST:PORT/debug/pprof/profile?seconds=5\n";

/* Answers one request (its header block); false to close. */
static bool handle(sp_conn *c, char *req)
{
    bool keep = keep_alive(req);
    long rc;

    if (strncmp(req, "GET ", 4) && strncmp(req, "HEAD ", 5))
        rc = respond(c, 400, "bad request\n", 12, "text/plain", keep = false);
    else if (!strncmp(req + 4, "/ ", 2))
        rc = respond(c, 200, page, sizeof page - 1, "text/html", keep);
    else if (!strncmp(req + 4, "/debug/sched ", 13))
        rc = debug_sched(c, keep);
    else if (!strncmp(req + 4, "/bytes/", 7))
        rc = bytes(c, req + 11, keep);
    else if (!strncmp(req + 4, "/debug/pprof/profile", 20) &&
             strchr("? ", req[24]))
        rc = pprof_profile(c, req + 4, keep);
    else if (!strncmp(req + 4, "/debug/pprof/goroutine", 22) &&
             strchr("? ", req[26]))
        rc = pprof_goroutine(c, req + 4, keep);
    else if (!strncmp(req + 4, "/debug/pprof/ ", 14))
        rc = respond(c, 200, pprof_index, sizeof pprof_index - 1,
                     "text/plain", keep);
    else
        rc = respond(c, 404, "not found\n", 10, "text/plain", keep);
    return rc >= 0 && keep;
}

static void serve(void *arg)
{
    sp_conn *c = arg;
    char *buf = malloc(REQ_MAX + 1);
    size_t have = 0;
    bool open = buf != NULL;

    while (open) {
        const char *end = header_end(buf, have);
        long n;

        if (end) {                      /* pipelined requests: in order */
            size_t used = end - buf;
            char save = buf[used];

            buf[used] = 0;
            __atomic_add_fetch(&nrequests, 1, __ATOMIC_RELAXED);
            open = handle(c, buf);
            buf[used] = save;
            memmove(buf, buf + used, have - used);
            have -= used;
            continue;
        }
        if (have == REQ_MAX) {
            respond(c, 400, "header too large\n", 17, "text/plain", false);
            break;
        }
        n = sp_read(c, buf + have, REQ_MAX - have);
        if (n <= 0)
            break;
        have += n;
    }
    free(buf);
    sp_close(c);
}

int main(int argc, char **argv)
{
    char addr[16], listen[16];
    int port = argc > 1 ? atoi(argv[1]) : 80, err;
    sp_listener *l;

    if ((err = sp_net_wait(SP_MS(10000))) < 0) {
        printf("httpd: %s\n", sp_net_strerror(err));
        return 1;
    }
    snprintf(listen, sizeof listen, ":%d", port);
    if (!(l = sp_listen(listen, &err))) {
        printf("httpd: listen %s: %s\n", listen, sp_net_strerror(err));
        return 1;
    }
    sp_net_addr(addr, sizeof addr);
    printf("httpd: serving http://%s:%d/\n", addr, port);
    for (;;) {
        sp_conn *c = sp_accept(l, &err);

        if (!c) {
            printf("httpd: accept: %s\n", sp_net_strerror(err));
            return 1;
        }
        sp_go(serve, c);
    }
}
