/*
 * httpparse.c - libFuzzer target for apps/httpd/parse.c: any bytes as a
 * connection's first bytes, the first two choosing the limits and where
 * the bytes arrive in pieces.  The scanner must find the same end (or
 * limit) whether the bytes come whole or piece by piece, an end within
 * the input and the head limit; the head it finds must parse to a
 * request whose strings lie in it and keep parse.h's contract, or to one
 * of the statuses parse.h names; any bytes at all may go to http_parse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "apps/httpd/parse.h"

static bool known(int rc)
{
    return rc == 0 || rc == 400 || rc == 413 || rc == 501 || rc == 505;
}

static void check_parse(const char *buf, size_t len,
                        const struct http_limits *lim)
{
    struct http_req r;
    int rc = http_parse(buf, len, lim, &r);

    if (!known(rc) || !strcmp(http_reason(rc ? rc : 200), "Unknown"))
        abort();
    if (rc)
        return;
    if (r.method_str < buf || r.method_len == 0 ||
        r.method_str + r.method_len > buf + len ||
        r.target < buf || r.target_len == 0 ||
        r.target + r.target_len > buf + len || r.target[0] != '/')
        abort();
    if ((r.method == HTTP_GET) != (r.method_len == 3 &&
                                   !memcmp(r.method_str, "GET", 3)) ||
        (r.method == HTTP_HEAD) != (r.method_len == 4 &&
                                    !memcmp(r.method_str, "HEAD", 4)))
        abort();
    for (size_t i = 0; i < r.target_len; i++)
        if ((unsigned char)r.target[i] <= ' ' || r.target[i] == 0x7f)
            abort();
    if ((r.minor != 0 && r.minor != 1) || r.body > lim->body_max)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct http_limits lim = { 64, 256, 1000 };
    struct http_scan whole = { 0 }, parts = { 0 };
    const char *buf;
    size_t n, at = 0;
    unsigned seed;
    long h, hp = 0;

    if (size < 2)
        return 0;
    lim.line_max = 1 + data[0] % 128;
    lim.head_max = lim.line_max + data[0] / 2;
    seed = data[1];
    buf = (const char *)data + 2;
    n = size - 2;

    h = http_scan(&whole, buf, n, &lim);
    if (h != 0 && h != -414 && h != -431 && (h < 0 || (size_t)h > n))
        abort();
    if (h > 0 && ((size_t)h > lim.head_max || buf[h - 1] != '\n'))
        abort();
    /* The same bytes in pieces of 1 to 8, until an answer. */
    while (hp == 0 && at < n) {
        at += 1 + (seed = seed * 1103515245 + 12345) % 8;
        if (at > n)
            at = n;
        hp = http_scan(&parts, buf, at, &lim);
    }
    if (hp != h)
        abort();
    if (h > 0)
        check_parse(buf, (size_t)h, &lim);
    check_parse(buf, n, &lim);
    return 0;
}
