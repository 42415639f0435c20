/*
 * efitime_test.c - host unit test for boot/efi/efitime.c: known dates,
 * every day of 1970-2400 against glibc's timegm, and the fields a clock
 * that was never set (or is broken) may hold.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <time.h>
#include "boot/efi/efitime.h"
#include "harness.h"

TEST(known_dates)
{
    CHECK(efitime_to_unix(1970, 1, 1, 0, 0, 0) == 0);
    CHECK(efitime_to_unix(2000, 3, 1, 0, 0, 0) == 951868800);     /* after a 400-year leap day */
    CHECK(efitime_to_unix(2026, 11, 26, 10, 53, 40) == 1795690420);
    CHECK(efitime_to_unix(2100, 3, 1, 0, 0, 0) == 4107542400);    /* 2100 has no leap day */
}

/* Every day from 1970 to 2400 at a time that moves with it, as timegm
   says. */
TEST(against_timegm)
{
    struct tm tm = { .tm_year = 70, .tm_mday = 1 };
    int bad = 0;

    for (int i = 0; i < 157000 && bad < 5; i++) {
        time_t t = (time_t)i * 86400 + (i * 7919) % 86400;
        struct tm *g = gmtime_r(&t, &tm);
        uint64_t u = efitime_to_unix(g->tm_year + 1900, g->tm_mon + 1, g->tm_mday,
                                     g->tm_hour, g->tm_min, g->tm_sec);

        if (u != (uint64_t)t) {
            FAIL("%04d-%02d-%02d %02d:%02d:%02d gave %llu, not %lld",
                 g->tm_year + 1900, g->tm_mon + 1, g->tm_mday, g->tm_hour,
                 g->tm_min, g->tm_sec, (unsigned long long)u, (long long)t);
            bad++;
        }
    }
}

/* Out of range: "unknown" (0), never a wrong date. */
TEST(bad_fields)
{
    CHECK(efitime_to_unix(0, 0, 0, 0, 0, 0) == 0);
    CHECK(efitime_to_unix(1969, 12, 31, 23, 59, 59) == 0);
    CHECK(efitime_to_unix(2026, 13, 1, 0, 0, 0) == 0);
    CHECK(efitime_to_unix(2026, 0, 1, 0, 0, 0) == 0);
    CHECK(efitime_to_unix(2026, 2, 29, 0, 0, 0) == 0);
    CHECK(efitime_to_unix(2028, 2, 29, 0, 0, 0) != 0);
    CHECK(efitime_to_unix(2026, 4, 31, 0, 0, 0) == 0);
    CHECK(efitime_to_unix(2026, 1, 1, 24, 0, 0) == 0);
    CHECK(efitime_to_unix(2026, 1, 1, 0, 60, 0) == 0);
    CHECK(efitime_to_unix(2026, 1, 1, 0, 0, 60) == 0);
    CHECK(efitime_to_unix(65535, 255, 255, 255, 255, 255) == 0);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
