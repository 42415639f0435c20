/*
 * spindle/test.h - the in-image test framework.
 *
 * A test app is a table of cases; sp_test_main runs them in order and
 * prints one line per case, "TEST <name> PASS" or "TEST <name> FAIL
 * <reason>", then "N passed, M failed", and returns the exit status
 * (0 only if every case passed).  tools/runtests.sh reads those lines.
 *
 *   static void counter(void) { CHECK(count() == 4); }
 *   static const struct sp_test tests[] = { { "counter", counter }, };
 *   int main(void) { return SP_TEST_MAIN(tests); }
 *
 * CHECK(e) fails the running case with the expression, file and line
 * and returns from the case function; CHECKF adds a formatted reason.
 * Checks may run on any core (inside sp_on_each_cpu): the first failure
 * of a case is the one reported.
 */
#ifndef SPINDLE_TEST_H
#define SPINDLE_TEST_H

#include <stdbool.h>

struct sp_test {
    const char *name;
    void (*fn)(void);
};

__attribute__((format(printf, 3, 4)))
void sp_test_fail(const char *file, int line, const char *fmt, ...);
bool sp_test_failed(void);
int sp_test_main(const struct sp_test *tests, int n);

/*
 * 1 in an image built with ThreadSanitizer (make ARCH=hosted
 * SANITIZE=thread), else 0.  For stress counts whose cost under TSan
 * grows with the count itself: the count shrinks, the case still runs.
 */
#ifdef __SANITIZE_THREAD__
#define SP_TSAN 1
#else
#define SP_TSAN 0
#endif

/* 1 under AddressSanitizer (SANITIZE=address), else 0: the same use. */
#ifdef __SANITIZE_ADDRESS__
#define SP_ASAN 1
#else
#define SP_ASAN 0
#endif

#define SP_TEST_MAIN(t) sp_test_main((t), (int)(sizeof(t) / sizeof((t)[0])))

#define CHECK(e)                                                    \
    do {                                                            \
        if (!(e)) {                                                 \
            sp_test_fail(__FILE__, __LINE__, "%s", #e);             \
            return;                                                 \
        }                                                           \
    } while (0)

#define CHECKF(e, ...)                                              \
    do {                                                            \
        if (!(e)) {                                                 \
            sp_test_fail(__FILE__, __LINE__, __VA_ARGS__);          \
            return;                                                 \
        }                                                           \
    } while (0)

#endif
