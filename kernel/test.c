/*
 * test.c - the in-image test framework behind include/spindle/test.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "kernel/fmt.h"
#include "kernel/printk.h"
#include <spindle/test.h>

static char reason[256];
static int failed;              /* the running case failed; first wins */

void sp_test_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    fmt_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (__atomic_exchange_n(&failed, 1, __ATOMIC_ACQ_REL))
        return;
    fmt_snprintf(reason, sizeof reason, "%s:%d: %s", file, line, msg);
}

bool sp_test_failed(void)
{
    return __atomic_load_n(&failed, __ATOMIC_ACQUIRE);
}

/* The TEST descriptors of the image, bounded by the linker (weak: an
   image without tests has no such section, and a hosted link then
   defines neither). */
extern const struct sp_test *const __start_sp_tests[] __attribute__((weak));
extern const struct sp_test *const __stop_sp_tests[] __attribute__((weak));

/* a before b in the source: file name, then line. */
static bool declared_before(const struct sp_test *a, const struct sp_test *b)
{
    int c = strcmp(a->file, b->file);

    return c < 0 || (c == 0 && a->line < b->line);
}

int sp_test_main(void)
{
    enum { MAX_CASES = 256 };
    const struct sp_test *cases[MAX_CASES];
    int n = (int)(__stop_sp_tests - __start_sp_tests);
    int pass = 0, fail = 0;

    fflush(stdout);
    if (n == 0 || n > MAX_CASES) {
        printk("sp_test_main: %d TEST cases in this image (1 to %d run)\n",
               n, MAX_CASES);
        return 1;
    }
    /* The linker keeps the section in no particular order. */
    for (int i = 0; i < n; i++) {
        int j = i;

        for (; j > 0 && declared_before(__start_sp_tests[i], cases[j - 1]); j--)
            cases[j] = cases[j - 1];
        cases[j] = __start_sp_tests[i];
    }
    for (int i = 0; i < n; i++) {
        failed = 0;
        cases[i]->fn();
        if (sp_test_failed()) {
            printk("TEST %s FAIL %s\n", cases[i]->name, reason);
            fail++;
        } else {
            printk("TEST %s PASS\n", cases[i]->name);
            pass++;
        }
    }
    printk("%d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
