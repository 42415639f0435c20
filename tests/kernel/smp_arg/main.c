/*
 * smp_arg - the smp= and acpi= command-line keys, booted once per line of
 * `test.conf`: a count within the cores present is used as given; more than
 * present uses all of them; zero, negative or not a number uses all of
 * them too (with a message on the console).  acpi=off takes the path of
 * missing ACPI tables: on x86_64 the cores of the MP table, which qboot
 * writes for all of them (firmware/mptable.c; test.conf passes
 * "mptable"), on the hosted build the boot core alone.
 */
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/test.h>
#include "kernel/export_test.h"
#include "tests/lib/testutil.h"

static int present;
static bool mptable;            /* acpi=off finds every core */

TEST(cores_as_asked)
{
    const char *raw;
    char *end;
    long v;
    int want = present;

    CHECKF(present > 0, "runner did not pass cores=N");
    if (cmdline_get("acpi", &raw) && !strcmp(raw, "off")) {
        int want_off = mptable ? present : 1;

        CHECKF(sp_ncpu() == want_off, "acpi=off: %d cores online, expected "
               "%d", sp_ncpu(), want_off);
        return;
    }
    CHECKF(cmdline_get("smp", &raw), "booted without smp=");
    v = strtol(raw, &end, 10);
    if (*raw && !*end && v >= 1 && v <= present)
        want = v;
    CHECKF(sp_ncpu() == want, "smp=%s with %d cores present: %d online, "
           "expected %d", raw, present, sp_ncpu(), want);
}

int main(int argc, char **argv)
{
    present = expected_cores(argc, argv);
    for (int i = 1; i < argc; i++)
        mptable |= !strcmp(argv[i], "mptable");
    return sp_test_main();
}
