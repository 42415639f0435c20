/*
 * smp_arg - the smp= and acpi= command-line keys, booted once per line of
 * `test.conf`: a count within the cores present is used as given; more than
 * present uses all of them; zero, negative or not a number uses all of
 * them too (with a message on the console).  acpi=off takes the path of
 * missing ACPI tables: the cores of the MP table, which qboot writes for
 * all of them (firmware/mptable.c).
 */
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/test.h>
#include "kernel/export_test.h"
#include "tests/lib/testutil.h"

static int present;

TEST(cores_as_asked)
{
    const char *raw;
    char *end;
    long v;
    int want = present;

    CHECKF(present > 0, "runner did not pass cores=N");
    if (cmdline_get("acpi", &raw) && !strcmp(raw, "off")) {
        CHECKF(sp_ncpu() == present, "acpi=off: %d cores online, expected "
               "%d from the MP table", sp_ncpu(), present);
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
    return sp_test_main();
}
