/*
 * httpparse_test - apps/httpd/parse.c: good requests parsed to their
 * fields, each status of parse.h for the request that earns it, the
 * limits at their edges, and the scanner's answer the same whether the
 * bytes come whole or a byte at a time.
 */
#include "harness.h"
#include "apps/httpd/parse.h"

static const struct http_limits lim = { 64, 128, 100 };

/* The scanner over s whole, checked against a byte at a time. */
static long scan(const char *s)
{
    struct http_scan a = { 0 }, b = { 0 };
    size_t n = strlen(s);
    long whole = http_scan(&a, s, n, &lim), bit = 0;

    for (size_t i = 1; i <= n && bit == 0; i++)
        bit = http_scan(&b, s, i, &lim);
    return whole == bit ? whole : -1;
}

/* The status of request s: its scan's limit, else http_parse's. */
static int status(const char *s)
{
    struct http_req r;
    long h = scan(s);

    if (h <= 0)
        return (int)-h;
    return http_parse(s, (size_t)h, &lim, &r);
}

/* s with n bytes of c at its %s. */
static const char *with(const char *fmt, size_t n, char c)
{
    static char buf[1024], fill[512];

    memset(fill, c, n);
    fill[n] = 0;
    snprintf(buf, sizeof buf, fmt, fill);
    return buf;
}

TEST(parses_a_get)
{
    const char *s = "GET /bytes/5?x=1 HTTP/1.1\r\nHost: a\r\n\r\nGET";
    struct http_req r;
    long h = scan(s);

    CHECK(h == (long)strlen(s) - 3);
    CHECK(http_parse(s, (size_t)h, &lim, &r) == 0);
    CHECK(r.method == HTTP_GET && r.minor == 1 && r.keep_alive && r.body == 0);
    CHECK(r.target_len == 12 && !memcmp(r.target, "/bytes/5?x=1", 12));
}

TEST(keep_alive_by_version_and_connection)
{
    const char *s[] = {
        "HEAD / HTTP/1.0\r\n\r\n",
        "HEAD / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, close\r\n\r\n",
        "GET / HTTP/1.1\nHost: a\n\n",
    };
    const bool want[] = { false, true, false, true };

    for (int i = 0; i < 4; i++) {
        struct http_req r;
        long h = scan(s[i]);

        CHECK(h == (long)strlen(s[i]));
        CHECK(http_parse(s[i], (size_t)h, &lim, &r) == 0);
        if (r.keep_alive != want[i])
            FAIL("request %d: keep_alive %d", i, r.keep_alive);
    }
}

TEST(skips_empty_lines_before_the_request)
{
    CHECK(status("\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n") == 0);
}

TEST(a_body_within_the_limit_is_taken)
{
    const char *s = "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n";
    struct http_req r;

    CHECK(http_parse(s, strlen(s), &lim, &r) == 0 && r.body == 100);
    CHECK(r.method == HTTP_GET);
    CHECK(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n") == 0);
}

TEST(malformed_is_400)
{
    const char *bad[] = {
        "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1 \r\nHost: a\r\n\r\n",
        "GET x HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1\r\nHost: a\r\n\r\n",
        "GET / FTP/1.1\r\nHost: a\r\n\r\n",
        "G@T / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
    };

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (status(bad[i]) != 400)
            FAIL("request %zu: %d", i, status(bad[i]));
}

TEST(other_statuses)
{
    CHECK(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 101\r\n\r\n") == 413);
    CHECK(status("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n") == 501);
    CHECK(status("GET / HTTP/2.0\r\nHost: a\r\n\r\n") == 505);
    CHECK(status("GET / HTTP/0.9\r\n\r\n") == 505);
}

TEST(request_line_limit_is_414)
{
    /* "GET /" and " HTTP/1.1": 14 bytes around the target's rest. */
    CHECK(status(with("GET /%s HTTP/1.1\r\nHost: a\r\n\r\n", 50, 'a')) == 0);
    CHECK(status(with("GET /%s HTTP/1.1\r\nHost: a\r\n\r\n", 51, 'a')) == 414);
    /* Known before the line ends, and whatever comes after. */
    CHECK(scan(with("GET /%s", 100, 'a')) == -414);
    CHECK(scan(with("GET /%s\r", 59, 'a')) == 0);
}

TEST(head_limit_is_431)
{
    /* The request line and Host: 25 bytes; "X: " and CRLF CRLF: 7. */
    CHECK(status(with("GET / HTTP/1.1\r\nHost: a\r\nX: %s\r\n\r\n", 96, 'b')) == 0);
    CHECK(status(with("GET / HTTP/1.1\r\nHost: a\r\nX: %s\r\n\r\n", 97, 'b')) == 431);
    CHECK(scan(with("GET / HTTP/1.1\r\nX: %s", 300, 'b')) == -431);
    CHECK(scan(with("%s", 200, '\n')) == -431);
}

TEST(reasons)
{
    CHECK(!strcmp(http_reason(431), "Request Header Fields Too Large"));
    CHECK(!strcmp(http_reason(405), "Method Not Allowed"));
    CHECK(!strcmp(http_reason(299), "Unknown"));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
