/*
 * harness.h - the tiny unit-test harness shared by the host tests.
 *
 * A test declares each case once, with TEST(name) { body }.  CHECK(e)
 * records the first failing expression of the case with its file:line and
 * evaluates to e's truth, so a case can go on checking or bail out with
 * `if (!CHECK(p)) return;` before it would dereference something bad.
 * h_run(argc, argv) runs the cases in the order of their lines (or, with
 * arguments, only the cases they name, to chase one failure), prints one
 * line per case, `TEST <name> PASS` or `TEST <name> FAIL <reason>`, then
 * `N passed, M failed`, and returns the exit status (1 if any case
 * failed).  Host-only: it uses stdio.
 */
#ifndef TESTS_HOST_HARNESS_H
#define TESTS_HOST_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct h_case {
    const char *name;
    void (*fn)(void);
    int line;                   /* where TEST declared it: the run order */
};

/* TEST(name) { body }: registers a pointer to the case's descriptor in
   the section h_cases (ld bounds it with __start_h_cases and
   __stop_h_cases); the body becomes the function h_case_<name>. */
#define TEST(name)                                                      \
    static void h_case_##name(void);                                    \
    static const struct h_case h_desc_##name = {                        \
        #name, h_case_##name, __LINE__ };                               \
    static const struct h_case *const h_ref_##name                      \
        __attribute__((used, section("h_cases"))) = &h_desc_##name;     \
    static void h_case_##name(void)

extern const struct h_case *const __start_h_cases[];
extern const struct h_case *const __stop_h_cases[];

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

static inline bool h_named(const char *name, int argc, char **argv)
{
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], name))
            return true;
    return argc < 2;
}

static inline int h_run(int argc, char **argv)
{
    const struct h_case *const *cases = __start_h_cases;
    int n = (int)(__stop_h_cases - __start_h_cases);
    int pass = 0, fail = 0;

    /* ld keeps the section in no particular order: by line, each time. */
    for (int line = 0, next; ; line = next) {
        const struct h_case *c = NULL;

        next = 0;
        for (int i = 0; i < n; i++)
            if (cases[i]->line > line && (!c || cases[i]->line < c->line))
                c = cases[i];
        if (!c)
            break;
        next = c->line;
        if (!h_named(c->name, argc, argv))
            continue;
        h_nfail = 0;
        h_reason[0] = '\0';
        c->fn();
        if (h_nfail == 0) {
            printf("TEST %s PASS\n", c->name);
            pass++;
        } else if (h_nfail == 1) {
            printf("TEST %s FAIL %s\n", c->name, h_reason);
            fail++;
        } else {
            printf("TEST %s FAIL %s (+%d more)\n", c->name, h_reason,
                   h_nfail - 1);
            fail++;
        }
        fflush(stdout);
    }
    if (pass + fail == 0) {
        printf("no case of this test has the name given\n");
        return 1;
    }
    printf("%d passed, %d failed\n", pass, fail);
    return fail > 0;
}

#endif
