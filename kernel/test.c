/*
 * test.c - the in-image test framework behind include/spindle/test.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include "fmt.h"
#include "printk.h"
#include "spindle/test.h"

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

int sp_test_main(const struct sp_test *tests, int n)
{
    int pass = 0, fail = 0;

    fflush(stdout);
    for (int i = 0; i < n; i++) {
        failed = 0;
        tests[i].fn();
        if (sp_test_failed()) {
            printk("TEST %s FAIL %s\n", tests[i].name, reason);
            fail++;
        } else {
            printk("TEST %s PASS\n", tests[i].name);
            pass++;
        }
    }
    printk("%d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
