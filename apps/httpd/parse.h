/*
 * parse.h - httpd's HTTP/1.x request parser: plain C over a byte buffer,
 * no kernel calls, so the host builds it too (tests/fuzz/httpparse.c).
 *
 * A connection's bytes arrive in pieces.  http_scan looks at each new
 * piece once, for the end of the request head (the empty line after the
 * header lines), enforcing the size limits as it goes; once the head is
 * whole, http_parse reads it once.  Both take the buffer from its start:
 * the caller keeps the bytes of the request in progress at buf[0..n) and
 * the scanner's state beside them, and zeroes the state for the next
 * request.
 *
 * A line ends at LF, with or without a CR before it; empty lines before
 * the request line are skipped (RFC 9112 2.2).  Anything else not of the
 * grammar is 400.  The answers, each an HTTP status:
 *
 *   400  malformed: the request line or a header line is not of the
 *        grammar, a header name has blanks before its colon, a folded
 *        (obsolete) header line, a CR not before LF, a NUL or control
 *        byte, HTTP/1.1 without exactly one Host, a bad or repeated
 *        differing Content-Length
 *   413  Content-Length above the body limit
 *   414  the request line is longer than its limit
 *   431  the head (request line, headers, empty line) is longer than
 *        its limit
 *   501  a Transfer-Encoding (bodies are taken with a length only)
 *   505  an HTTP major version other than 1
 */
#ifndef HTTPD_PARSE_H
#define HTTPD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a request may be; every field at least 1. */
struct http_limits {
    size_t line_max;            /* request line, without its line end */
    size_t head_max;            /* the whole head, line ends included */
    uint64_t body_max;          /* Content-Length */
};

/* http_scan's progress through one request's head; zero before the
   request's first byte. */
struct http_scan {
    size_t pos;                 /* bytes looked at */
    size_t line;                /* where the current line starts */
    bool line_done;             /* the request line has ended */
};

/*
 * Scans buf[0..n) from where the last call stopped (n never smaller than
 * then, the bytes before it unchanged).  Returns 0 while the head is not
 * whole and within its limits; the head's length (up to the end of the
 * empty line) once it is whole; or -414 or -431 once a limit is passed,
 * whatever the rest would be.  Each byte is looked at once, and none
 * past the first head_max, so the answer does not depend on how the
 * bytes came: 414 if the request line is too long within them, else
 * 431 if they hold no whole head.
 */
long http_scan(struct http_scan *s, const char *buf, size_t n,
               const struct http_limits *lim);

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER };

/* A request head, its strings pointing into the buffer (not
   NUL-terminated). */
struct http_req {
    enum http_method method;
    const char *method_str;
    size_t method_len;
    const char *target;         /* origin form: starts with '/' */
    size_t target_len;
    int minor;                  /* HTTP/1.minor; 0 or 1 (higher read as 1) */
    bool keep_alive;            /* 1.1 unless "Connection: close", 1.0
                                   only with "Connection: keep-alive" */
    uint64_t body;              /* Content-Length, 0 without one */
};

/*
 * Parses the head buf[0..len) that http_scan found whole (len its
 * return).  0 with *r filled, or an HTTP status (400, 413, 501, 505).
 */
int http_parse(const char *buf, size_t len, const struct http_limits *lim,
               struct http_req *r);

/* The reason phrase of an HTTP status this server sends; "Unknown" for
   others. */
const char *http_reason(int status);

#endif
