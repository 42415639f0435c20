/*
 * spindle/test.h - the in-image test framework.
 *
 * A test app declares each case once, with TEST; sp_test_main runs every
 * case of the image in the order of their lines in the source, prints
 * one line per case, "TEST <name> PASS" or "TEST <name> FAIL <reason>",
 * then "N passed, M failed", and returns the exit status (0 only if
 * every case passed).  tools/test/runtests.sh reads those lines.
 *
 *   TEST(counter) { CHECK(count() == 4); }
 *   int main(void) { return sp_test_main(); }
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
    const char *file;           /* where TEST declared it: the run order */
    int line;
};

/*
 * TEST(name) { body }: the case `name`.  It registers a pointer to its
 * descriptor in the section sp_tests (the linker scripts keep it and
 * bound it with __start_sp_tests and __stop_sp_tests; a hosted link gets
 * them from ld); the body becomes the static function sp_case_<name>.
 */
#define TEST(name)                                                      \
    static void sp_case_##name(void);                                   \
    static const struct sp_test sp_test_##name = {                      \
        #name, sp_case_##name, __FILE__, __LINE__ };                    \
    static const struct sp_test *const sp_test_ref_##name               \
        __attribute__((used, section("sp_tests"))) = &sp_test_##name;   \
    static void sp_case_##name(void)

__attribute__((format(printf, 3, 4)))
void sp_test_fail(const char *file, int line, const char *fmt, ...);
bool sp_test_failed(void);
int sp_test_main(void);

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
