/*
 * parse.c - httpd's request parser (parse.h): the grammar of RFC 9112's
 * request head, strictly, and the size limits.
 */
#include <string.h>
#include "parse.h"

long http_scan(struct http_scan *s, const char *buf, size_t n,
               const struct http_limits *lim)
{
    size_t have = n;

    /* Past head_max bytes the answer is a limit's, so what follows them
       is never looked at: the answer is the same however they came. */
    if (n > lim->head_max)
        n = lim->head_max;
    while (s->pos < n) {
        const char *lf = memchr(buf + s->pos, '\n', n - s->pos);
        size_t end, len;

        if (!lf) {
            s->pos = n;
            break;
        }
        end = (size_t)(lf - buf);
        len = end - s->line;
        if (len && buf[end - 1] == '\r')
            len--;
        s->pos = end + 1;
        if (!s->line_done) {
            if (len > lim->line_max)
                return -414;
            s->line_done = len > 0;     /* else an empty line before it */
        } else if (len == 0) {
            return (long)s->pos;
        }
        s->line = s->pos;
    }
    /* The line in progress: a CR at its end may still be its end's. */
    if (!s->line_done) {
        size_t len = n - s->line;

        if (len && buf[n - 1] == '\r')
            len--;
        if (len > lim->line_max)
            return -414;
    }
    return have >= lim->head_max ? -431 : 0;
}

/* RFC 9110's tchar: the bytes of a method or a header name. */
static bool tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is(const char *p, size_t n, const char *word)
{
    return n == strlen(word) && !memcmp(p, word, n);
}

/* Case-insensitive is(). */
static bool is_ci(const char *p, size_t n, const char *word)
{
    if (n != strlen(word))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char a = (unsigned char)p[i], b = (unsigned char)word[i];

        if (a >= 'A' && a <= 'Z')
            a += 'a' - 'A';
        if (a != b)
            return false;
    }
    return true;
}

/* The length of the line at p (up to its LF, p + *next after it),
   without its line end; -1 if it has no LF before end or holds a CR not
   before its LF. */
static long line_at(const char *p, const char *end, size_t *next)
{
    const char *lf = memchr(p, '\n', (size_t)(end - p));
    size_t len = (size_t)(lf - p);

    if (!lf) {
        *next = (size_t)(end - p);
        return -1;
    }
    *next = len + 1;
    if (len && p[len - 1] == '\r')
        len--;
    return memchr(p, '\r', len) ? -1 : (long)len;
}

/* The request line p[0..n): 0, or 400 or 505. */
static int request_line(const char *p, size_t n, struct http_req *r)
{
    size_t i = 0, t;

    while (i < n && tchar((unsigned char)p[i]))
        i++;
    if (i == 0 || i == n || p[i] != ' ')
        return 400;
    r->method_str = p;
    r->method_len = i;
    r->method = is(p, i, "GET") ? HTTP_GET
              : is(p, i, "HEAD") ? HTTP_HEAD : HTTP_OTHER;
    t = ++i;
    while (i < n && (unsigned char)p[i] > ' ' && p[i] != 0x7f)
        i++;
    if (i == t || i == n || p[i] != ' ' || p[t] != '/')
        return 400;
    r->target = p + t;
    r->target_len = i - t;
    p += i + 1;
    n -= i + 1;
    if (n != 8 || memcmp(p, "HTTP/", 5) || p[5] < '0' || p[5] > '9' ||
        p[6] != '.' || p[7] < '0' || p[7] > '9')
        return 400;
    if (p[5] != '1')
        return 505;
    r->minor = p[7] > '0';
    r->keep_alive = r->minor == 1;
    return 0;
}

/* Content-Length's value: digits alone.  false if it is not. */
static bool length(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0;

    if (n == 0 || n > 18)       /* 10^18 - 1 at most: no overflow */
        return false;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return false;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    *out = x;
    return true;
}

/* Connection's value: a list of options, of which close and keep-alive
   matter. */
static void connection(const char *v, size_t n, struct http_req *r)
{
    size_t i = 0;

    while (i < n) {
        size_t s, e;

        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        s = i;
        while (i < n && v[i] != ',')
            i++;
        e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (is_ci(v + s, e - s, "close"))
            r->keep_alive = false;
        else if (is_ci(v + s, e - s, "keep-alive") && r->minor == 0)
            r->keep_alive = true;
    }
}

int http_parse(const char *buf, size_t len, const struct http_limits *lim,
               struct http_req *r)
{
    const char *p = buf, *end = buf + len;
    bool have_length = false, chunked = false;
    int hosts = 0, rc;
    size_t next;
    long n;

    memset(r, 0, sizeof *r);
    if (len == 0 || buf[len - 1] != '\n')
        return 400;
    while ((n = line_at(p, end, &next)) == 0)     /* empty lines first */
        p += next;
    if (n < 0)
        return 400;
    for (long i = 0; i < n; i++)
        if ((unsigned char)p[i] < ' ' || p[i] == 0x7f)
            return 400;
    if ((rc = request_line(p, (size_t)n, r)))
        return rc;
    for (p += next; (n = line_at(p, end, &next)) != 0; p += next) {
        const char *v;
        size_t k = 0, vn;

        if (n < 0)
            return 400;
        while (k < (size_t)n && tchar((unsigned char)p[k]))
            k++;
        if (k == 0 || k == (size_t)n || p[k] != ':')
            return 400;         /* a blank before the colon, a fold */
        v = p + k + 1;
        vn = (size_t)n - k - 1;
        for (size_t i = 0; i < vn; i++)
            if (((unsigned char)v[i] < ' ' && v[i] != '\t') || v[i] == 0x7f)
                return 400;
        while (vn && (*v == ' ' || *v == '\t'))
            v++, vn--;
        while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
            vn--;
        if (is_ci(p, k, "host")) {
            hosts++;
        } else if (is_ci(p, k, "content-length")) {
            uint64_t x;

            if (!length(v, vn, &x) || (have_length && x != r->body))
                return 400;
            have_length = true;
            r->body = x;
        } else if (is_ci(p, k, "transfer-encoding")) {
            chunked = true;
        } else if (is_ci(p, k, "connection")) {
            connection(v, vn, r);
        }
    }
    if (p + next != end)
        return 400;             /* the head ends at its empty line */
    if (hosts > 1 || (r->minor == 1 && hosts == 0))
        return 400;
    if (chunked)
        return 501;
    if (r->body > lim->body_max)
        return 413;
    return 0;
}

const char *http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    }
    return "Unknown";
}
