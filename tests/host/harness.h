/*
 * harness.h - the tiny unit-test harness shared by the host tests.
 *
 * A test is a table of cases; each case is a void function.  CHECK(e)
 * records the first failing expression of the case with its file:line and
 * evaluates to e's truth, so a case can go on checking or bail out with
 * `if (!CHECK(p)) return;` before it would dereference something bad.
 * h_run() prints one line per case, `TEST <name> PASS` or
 * `TEST <name> FAIL <reason>`, then `N passed, M failed`, and returns the
 * exit status (1 if any case failed).  Host-only: it uses stdio.
 */
#ifndef TESTS_HOST_HARNESS_H
#define TESTS_HOST_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

struct h_case {
    const char *name;
    void (*fn)(void);
};

#define CASE(fn) { #fn, fn }
#define NCASES(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* State of the case that is running; reset by h_run before each case. */
static int h_nfail;
static char h_reason[512];

static inline void h_failf(const char *file, int line, const char *f, ...)
    __attribute__((format(printf, 3, 4)));

/* Only the first failure is kept: later ones are usually its fallout. */
static inline void h_failf(const char *file, int line, const char *f, ...)
{
    va_list ap;
    int n;

    if (h_nfail++ > 0)
        return;
    n = snprintf(h_reason, sizeof(h_reason), "%s:%d: ", file, line);
    va_start(ap, f);
    vsnprintf(h_reason + n, sizeof(h_reason) - n, f, ap);
    va_end(ap);
    /* The result line must stay one line, whatever the reason holds. */
    for (char *p = h_reason; *p; p++)
        if ((unsigned char)*p < ' ')
            *p = '?';
}

static inline bool h_check(bool ok, const char *file, int line,
                           const char *expr)
{
    if (!ok)
        h_failf(file, line, "%s", expr);
    return ok;
}

#define CHECK(e) h_check(!!(e), __FILE__, __LINE__, #e)
#define FAIL(...) h_failf(__FILE__, __LINE__, __VA_ARGS__)

static inline bool h_failed(void)
{
    return h_nfail > 0;
}

static inline int h_run(const struct h_case *c, int n)
{
    int pass = 0, fail = 0;

    for (int i = 0; i < n; i++) {
        h_nfail = 0;
        h_reason[0] = '\0';
        c[i].fn();
        if (h_nfail == 0) {
            printf("TEST %s PASS\n", c[i].name);
            pass++;
        } else if (h_nfail == 1) {
            printf("TEST %s FAIL %s\n", c[i].name, h_reason);
            fail++;
        } else {
            printf("TEST %s FAIL %s (+%d more)\n", c[i].name, h_reason,
                   h_nfail - 1);
            fail++;
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", pass, fail);
    return fail > 0;
}

#endif
