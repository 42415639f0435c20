/*
 * libc - what posix/ adds to newlib's C library: the long double
 * rounding functions (exact, half-way cases, signed zeros, the edge of
 * the integers), long doubles read (strtold) and written (printf's %Lf)
 * at their own precision, fnmatch, POSIX dirname and basename, terminal
 * settings (no descriptor has any), the names of <limits.h>,
 * <errno.h> and <netinet/in.h> that ported programs use, and memmove.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* fnmatch's FNM_CASEFOLD, FNM_LEADING_DIR */
#endif
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <spindle/test.h>

/* 2^(LDBL_MANT_DIG-1) and the long double just below it, x.5 there. */
#define BIG ((long double)((unsigned __int128)1 << (LDBL_MANT_DIG - 1)))

static int negzero(long double x)
{
    return x == 0 && __builtin_signbit(x);
}

TEST(long_double_rounding)
{
    CHECK(ceill(1.25L) == 2 && floorl(1.25L) == 1 && truncl(1.75L) == 1);
    CHECK(ceill(-1.25L) == -1 && floorl(-1.25L) == -2 && truncl(-1.75L) == -1);
    CHECK(roundl(2.5L) == 3 && roundl(-2.5L) == -3 && roundl(2.4999L) == 2);
    CHECK(llroundl(2.5L) == 3 && llroundl(-2.5L) == -3 && lroundl(7.5L) == 8);
    CHECK(negzero(ceill(-0.5L)) && negzero(truncl(-0.25L)) && negzero(roundl(-0.25L)));
    CHECK(negzero(floorl(-0.0L)) && floorl(0.75L) == 0 && !negzero(floorl(0.75L)));
    /* The largest long double below 1/2 rounds to 0, not up. */
    long double below_half = 0.5L - LDBL_EPSILON / 4;
    CHECK(below_half < 0.5L && roundl(below_half) == 0 && llroundl(below_half) == 0);
    /* From BIG up every value is an integer; just below, halves exist. */
    CHECK(ceill(BIG) == BIG && floorl(BIG + 2) == BIG + 2);
    CHECK(ceill(BIG / 2 + 0.5L) == BIG / 2 + 1 && floorl(BIG / 2 + 0.5L) == BIG / 2);
    CHECK(roundl(BIG / 2 + 0.5L) == BIG / 2 + 1);
    CHECK(isinf(ceill((long double)INFINITY)) && isnan(floorl((long double)NAN)));
    CHECK(llroundl(9007199254740993.0L) == 9007199254740993LL);
    CHECK(llroundl(-9223372036854775807.0L - 1) == LLONG_MIN);
    CHECK(llroundl(1e30L) == LLONG_MIN);    /* out of range */
}

TEST(long_double_text_round_trips)
{
    char buf[128], *end;
    long double v;

    v = strtold("1.1", &end);
    CHECK(v == 1.1L && *end == 0);          /* not 1.1 as a double */
    CHECK(strtold("-2.25e3xyz", &end) == -2250.0L && !strcmp(end, "xyz"));
    CHECK(strtold("0x1.8p1", NULL) == 3.0L);
    CHECK(strtold("123456789.123456789", NULL) == 123456789.123456789L);
    CHECK(isinf(strtold("inf", NULL)) && strtold("-inf", NULL) < 0);
    CHECK(isnan(strtold("nan", NULL)));
    CHECK(__builtin_signbit(strtold("-0", NULL)) && strtold("-0", NULL) == 0);
    CHECK(strtold("abc", &end) == 0 && !strcmp(end, "abc"));
    errno = 0;
    CHECK(isinf(strtold("1e99999", NULL)) && errno == ERANGE);
    v = strtold("0x1p-16440", NULL);        /* a denormal on both arches */
    CHECK(v > 0 && v < LDBL_MIN && v == 0x1p-16440L);
    CHECK(strtold("1.18973149535723176502e+4932", NULL) == LDBL_MAX ||
          LDBL_MANT_DIG != 64);
    /* printf's %Lf at long double precision, as Redis formats floats. */
    snprintf(buf, sizeof buf, "%.17Lf", 10.5L + 0.1L);
    CHECKF(!strcmp(buf, "10.60000000000000000"), "%s", buf);
    snprintf(buf, sizeof buf, "%.17Lf", strtold("1.1", NULL));
    CHECKF(!strcmp(buf, "1.10000000000000000"), "%s", buf);
    for (long double x = 1.0L / 3; x < 1e30L; x *= -7.25L) {
        snprintf(buf, sizeof buf, "%.*Lg", LDBL_DIG + 3, x);
        CHECKF(strtold(buf, NULL) == x, "%s", buf);
    }
}

TEST(fnmatch_patterns)
{
    static const struct { const char *pat, *str; int flags, match; } cases[] = {
        { "*.conf", "redis.conf", 0, 1 },       { "*.conf", "redis.conf.bak", 0, 0 },
        { "a?c", "abc", 0, 1 },                 { "a?c", "ac", 0, 0 },
        { "[a-c]x", "bx", 0, 1 },               { "[!a-c]x", "bx", 0, 0 },
        { "[^a-c]x", "dx", 0, 1 },              { "[]a]", "]", 0, 1 },
        { "[[:digit:]]*", "7up", 0, 1 },        { "[[:digit:]]*", "up", 0, 0 },
        { "\\*", "*", 0, 1 },                 { "\\*", "x", 0, 0 },
        { "\\*", "\\x", FNM_NOESCAPE, 1 },  { "[ab", "[ab", 0, 1 },
        { "*", "a/b", 0, 1 },                   { "*", "a/b", FNM_PATHNAME, 0 },
        { "a/*", "a/b", FNM_PATHNAME, 1 },      { "a/?", "a//", FNM_PATHNAME, 0 },
        { "*", ".hidden", FNM_PERIOD, 0 },      { ".*", ".hidden", FNM_PERIOD, 1 },
        { "a/*", "a/.b", FNM_PATHNAME | FNM_PERIOD, 0 },
        { "a*", "a/.b", FNM_PERIOD, 1 },        /* only a leading period */
        { "ABC", "abc", FNM_CASEFOLD, 1 },      { "[A-C]", "b", FNM_CASEFOLD, 1 },
        { "dir", "dir/file", FNM_LEADING_DIR, 1 }, { "dir", "dir/file", 0, 0 },
        { "*a*b*c*", "xxaxxbxxcxx", 0, 1 },     { "", "", 0, 1 },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = fnmatch(cases[i].pat, cases[i].str, cases[i].flags);

        CHECKF(r == (cases[i].match ? 0 : FNM_NOMATCH), "fnmatch(%s, %s, %#x) = %d",
               cases[i].pat, cases[i].str, cases[i].flags, r);
    }
}

static const char *dn(const char *path)
{
    static char buf[64];

    strcpy(buf, path);
    return dirname(buf);
}

static const char *bn(const char *path)
{
    static char buf[64];

    strcpy(buf, path);
    return basename(buf);
}

TEST(dirname_and_basename)
{
    static const struct { const char *path, *dir, *base; } cases[] = {
        { "/usr/lib", "/usr", "lib" },      { "/usr/", "/", "usr" },
        { "usr", ".", "usr" },              { "/", "/", "/" },
        { ".", ".", "." },                  { "..", ".", ".." },
        { "//x//y//", "//x", "y" },         { "a/b", "a", "b" },
        { "///", "/", "/" },                { "/a", "/", "a" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECKF(!strcmp(dn(cases[i].path), cases[i].dir), "dirname(%s) = %s",
               cases[i].path, dn(cases[i].path));
        CHECKF(!strcmp(bn(cases[i].path), cases[i].base), "basename(%s) = %s",
               cases[i].path, bn(cases[i].path));
    }
    CHECK(!strcmp(dirname(NULL), ".") && !strcmp(basename(NULL), "."));
    char empty[1] = "";
    CHECK(!strcmp(dirname(empty), "."));
}

TEST(no_terminal_settings)
{
    struct termios t;
    int p[2];

    errno = 0;
    CHECK(tcgetattr(1, &t) == -1 && errno == ENOTTY);
    CHECK(pipe(p) == 0);
    errno = 0;
    CHECK(tcsetattr(p[0], TCSANOW, &t) == -1 && errno == ENOTTY);
    close(p[0]);
    close(p[1]);
    errno = 0;
    CHECK(tcgetattr(p[0], &t) == -1 && errno == EBADF);
}

TEST(names)
{
    CHECK(SSIZE_MAX == LONG_MAX && sizeof(ssize_t) == sizeof(long));
    CHECK(ESOCKTNOSUPPORT != EPROTONOSUPPORT && ESOCKTNOSUPPORT != EAFNOSUPPORT);
    CHECK(IPV6_V6ONLY == 26 && IPPROTO_IPV6 == 41);
}

/* memmove (posix/memmove.c on x86_64, newlib's on aarch64): overlapping
   moves up and down at odd offsets, as a listpack's, against a copy
   through a second buffer. */
TEST(memmove_overlapping)
{
    static unsigned char buf[4200], want[4200], tmp[4200];
    static const size_t ns[] = { 0, 1, 7, 8, 9, 15, 63, 4095 };
    bool ok = true;

    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int delta = -9; delta <= 9; delta++) {
            size_t n = ns[i], s = 53, d = (size_t)(53 + delta);

            for (size_t k = 0; k < sizeof buf; k++)
                buf[k] = (unsigned char)(k * 37 + 11);
            memcpy(want, buf, sizeof buf);
            memcpy(tmp, buf + s, n);
            memcpy(want + d, tmp, n);
            ok &= memmove(buf + d, buf + s, n) == buf + d &&
                  !memcmp(buf, want, sizeof buf);
        }
    CHECK(ok);
}

int main(void)
{
    return sp_test_main();
}
