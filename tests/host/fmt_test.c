/*
 * fmt_test.c - host unit test for kernel/fmt.c.  Where fmt.h promises C99
 * behaviour, every case runs through both fmt_snprintf and the host's
 * snprintf at several buffer sizes (so truncation, the NUL and the return
 * value are compared too) and the results must be byte-identical; a
 * seeded random spec generator does the same for 50,000 formats.  The
 * kernel-specific parts (%p, NULL %s, unsupported specs, huge widths) are
 * checked against fixed expectations.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"
#include "kernel/fmt.h"

enum kind { NONE, I, U, L, UL, LL, ULL, Z, SZ, S, C, STAR_I, STAR_S, MIX };

struct fcase {
    const char *f;
    enum kind k;
    long long i;        /* integer argument (also the '*' value) */
    const char *s;      /* string argument */
};

/* Calls fn (snprintf or fmt_snprintf) with the arguments c describes. */
#define CALL(fn, buf, n, c)                                               \
    ((c)->k == NONE   ? fn(buf, n, (c)->f, 0)                             \
     : (c)->k == I    ? fn(buf, n, (c)->f, (int)(c)->i)                   \
     : (c)->k == U    ? fn(buf, n, (c)->f, (unsigned)(c)->i)              \
     : (c)->k == L    ? fn(buf, n, (c)->f, (long)(c)->i)                  \
     : (c)->k == UL   ? fn(buf, n, (c)->f, (unsigned long)(c)->i)         \
     : (c)->k == LL   ? fn(buf, n, (c)->f, (c)->i)                        \
     : (c)->k == ULL  ? fn(buf, n, (c)->f, (unsigned long long)(c)->i)    \
     : (c)->k == Z    ? fn(buf, n, (c)->f, (size_t)(c)->i)                \
     : (c)->k == SZ   ? fn(buf, n, (c)->f, (ptrdiff_t)(c)->i)             \
     : (c)->k == S    ? fn(buf, n, (c)->f, (c)->s)                        \
     : (c)->k == C    ? fn(buf, n, (c)->f, (int)(c)->i)                   \
     : (c)->k == STAR_I ? fn(buf, n, (c)->f, (int)(c)->i, 42)             \
     : (c)->k == STAR_S ? fn(buf, n, (c)->f, (int)(c)->i, (c)->s)         \
     : fn(buf, n, (c)->f, (int)(c)->i, (c)->s, 'q', -7LL))

static const struct fcase host_cases[] = {
    { "", NONE, 0, 0 }, { "hello", NONE, 0, 0 }, { "%%", NONE, 0, 0 },
    { "a%%b%%", NONE, 0, 0 },
    { "%d", I, 0, 0 }, { "%d", I, 1, 0 }, { "%d", I, -1, 0 },
    { "%i", I, -7, 0 }, { "%d", I, INT_MAX, 0 }, { "%d", I, INT_MIN, 0 },
    { "%5d", I, 42, 0 }, { "%-5d|", I, 42, 0 }, { "%05d", I, 42, 0 },
    { "%05d", I, -42, 0 }, { "%-05d|", I, 42, 0 }, { "%0-5d|", I, -42, 0 },
    { "%00005d", I, 3, 0 }, { "%1d", I, 12345, 0 }, { "%0d", I, 0, 0 },
    { "%.3d", I, 7, 0 }, { "%.3d", I, -7, 0 }, { "%.0d", I, 0, 0 },
    { "%5.0d|", I, 0, 0 }, { "%.0d", I, 5, 0 }, { "%08.3d", I, 7, 0 },
    { "%-8.3d|", I, -7, 0 }, { "%3.5d", I, 12, 0 }, { "%.12d", I, INT_MIN, 0 },
    { "%u", U, 0, 0 }, { "%u", U, UINT_MAX, 0 }, { "%x", U, 0xdeadbeef, 0 },
    { "%X", U, 0xdeadbeef, 0 }, { "%08x", U, 0xbeef, 0 },
    { "%-8X|", U, 0xab, 0 },
    { "%o", U, 8, 0 }, { "%o", U, 0, 0 }, { "%.0x", U, 0, 0 },
    { "%.4o", U, 7, 0 },
    { "%ld", L, LONG_MIN, 0 }, { "%ld", L, LONG_MAX, 0 },
    { "%lu", UL, -1, 0 }, { "%lx", UL, -1, 0 }, { "%lo", UL, -1, 0 },
    { "%lld", LL, INT64_MIN, 0 }, { "%lld", LL, INT64_MAX, 0 },
    { "%lli", LL, INT64_MIN + 1, 0 }, { "%llu", ULL, -1, 0 },
    { "%llx", ULL, -1, 0 }, { "%llX", ULL, 0x0123456789abcdefLL, 0 },
    { "%llo", ULL, -1, 0 }, { "%25lld", LL, INT64_MIN, 0 },
    { "%-25lld|", LL, INT64_MIN, 0 }, { "%025lld", LL, INT64_MIN, 0 },
    { "%.25lld", LL, INT64_MIN, 0 }, { "%030.25lld", LL, INT64_MIN, 0 },
    { "%zu", Z, -1, 0 }, { "%zx", Z, 4096, 0 }, { "%zd", SZ, -5, 0 },
    { "%zd", SZ, INT64_MIN, 0 }, { "%hd", I, 123, 0 }, { "%hu", U, 65535, 0 },
    { "%hhd", I, 5, 0 }, { "%hx", U, 0xbeef, 0 }, { "%hhu", U, 200, 0 },
    { "%s", S, 0, "abc" }, { "%5s", S, 0, "abc" }, { "%-5s|", S, 0, "abc" },
    { "%.2s", S, 0, "abc" }, { "%5.2s", S, 0, "abc" },
    { "%-5.2s|", S, 0, "abc" },
    { "%.0s|", S, 0, "abc" }, { "%.10s", S, 0, "abc" }, { "%s|", S, 0, "" },
    { "%10s|", S, 0, "" }, { "%05s", S, 0, "ab" }, { "%2s", S, 0, "abcdef" },
    { "<%s>", S, 0, "a longer string that will not fit a small buffer" },
    { "%c", C, 'x', 0 }, { "%3c", C, 'x', 0 }, { "%-3c|", C, 'x', 0 },
    { "a%cb", C, 0, 0 }, { "%c", C, 0xe9, 0 }, { "%05c", C, 'y', 0 },
    { "%*d", STAR_I, 6, 0 }, { "%*d|", STAR_I, -6, 0 },
    { "%-*d|", STAR_I, 6, 0 },
    { "%0*d", STAR_I, 6, 0 }, { "%*d", STAR_I, 0, 0 }, { "%.*d", STAR_I, 4, 0 },
    { "%.*d", STAR_I, -4, 0 }, { "%.*s", STAR_S, 2, "abc" },
    { "%.*s", STAR_S, -1, "abc" }, { "%*s|", STAR_S, -6, "abc" },
    { "%*s", STAR_S, 6, "abc" }, { "%300d", I, 1, 0 }, { "%-300d|", I, 1, 0 },
    { "x=%d y=%s z=%c w=%lld%%", MIX, -12, "str" },
    { "%5d|%-6s|%c|%05lld", MIX, 3, "ab" },
};

/* Sizes to try for an output of length len: every edge of truncation. */
static size_t sizes(int len, size_t *sz)
{
    size_t k = 0;

    sz[k++] = 0;
    sz[k++] = 1;
    sz[k++] = 2;
    sz[k++] = 5;
    if (len > 1)
        sz[k++] = len - 1;
    sz[k++] = len;
    sz[k++] = len + 1;
    sz[k++] = 600;
    return k;
}

/* Shows a result on one line: NULs and other controls as \xNN. */
static const char *esc(const char *s, size_t n, char *out, size_t m)
{
    size_t j = 0;

    for (size_t i = 0; i < n && j + 5 < m; i++) {
        unsigned char c = s[i];

        if (c >= ' ' && c < 0x7f)
            out[j++] = c;
        else
            j += snprintf(out + j, m - j, "\\x%02x", c);
    }
    out[j] = '\0';
    return out;
}

static bool same(const struct fcase *c)
{
    char want[600], got[600], e1[200], e2[200];
    size_t sz[8];
    int len = CALL(snprintf, NULL, 0, c);
    size_t k = sizes(len, sz);

    for (size_t j = 0; j < k; j++) {
        int rw, rg;

        memset(want, 0x5a, sizeof(want));
        memset(got, 0x5a, sizeof(got));
        rw = CALL(snprintf, want, sz[j], c);
        rg = CALL(fmt_snprintf, got, sz[j], c);
        /* The whole buffer: nothing may be written past n either. */
        if (rw != rg || memcmp(want, got, sizeof(got)) != 0) {
            size_t show = sz[j] < 60 ? sz[j] : 60;

            FAIL("\"%s\" n=%zu: got %d \"%s\", want %d \"%s\"", c->f, sz[j],
                 rg, esc(got, show, e1, sizeof(e1)), rw,
                 esc(want, show, e2, sizeof(e2)));
            return false;
        }
    }
    return true;
}

TEST(vs_host)
{
    for (size_t i = 0; i < sizeof(host_cases) / sizeof(host_cases[0]); i++)
        if (!same(&host_cases[i]))
            return;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Mostly edge values, else a random number of random bits. */
static long long rval(void)
{
    static const long long edge[] = {
        0, 1, -1, 9, 10, -10, 255, 256, INT_MAX, INT_MIN, UINT_MAX,
        INT64_MAX, INT64_MIN,
    };

    if (rnd() % 3 == 0)
        return edge[rnd() % (sizeof(edge) / sizeof(edge[0]))];
    return (long long)(rnd() >> (rnd() % 64));
}

/* Writes one random spec the kernel supports into f, fills c to match. */
static void rspec(char *f, struct fcase *c)
{
    static const char *const strs[] = { "", "a", "hello", "0123456789abcdef" };
    static const char convs[] = "diuxXosc";
    static const char *const lens[] = { "", "l", "ll", "z", "h", "hh" };
    char conv = convs[rnd() % 8];
    const char *len = conv == 's' || conv == 'c' ? "" : lens[rnd() % 6];
    bool sgn = conv == 'd' || conv == 'i';
    int j = 0;

    f[j++] = '[';
    f[j++] = '%';
    for (int k = rnd() % 3; k > 0; k--)
        f[j++] = "-0"[rnd() % 2];
    if (rnd() % 2)
        j += sprintf(f + j, "%d", (int)(rnd() % 30));
    if (rnd() % 2)
        j += sprintf(f + j, ".%d", (int)(rnd() % 25));
    sprintf(f + j, "%s%c]", len, conv);

    c->f = f;
    c->i = rval();
    c->s = strs[rnd() % 4];
    if (conv == 's')
        c->k = S;
    else if (conv == 'c')
        c->k = C;
    else if (len[0] == 'l')
        c->k = len[1] == 'l' ? (sgn ? LL : ULL) : (sgn ? L : UL);
    else if (len[0] == 'z')
        c->k = sgn ? SZ : Z;
    else
        c->k = sgn ? I : U;
    /* h and hh only promise the same output for values that fit. */
    if (len[0] == 'h')
        c->i = sgn ? (short)c->i % 128 : (unsigned short)c->i % 256;
}

TEST(vs_host_random)
{
    char f[64];
    struct fcase c;

    for (int i = 0; i < 50000; i++) {
        rspec(f, &c);
        if (!same(&c))
            return;
    }
}

/* Checks fmt_snprintf into a roomy buffer against a fixed expectation. */
#define EXPECT(want, ...)                                                 \
    do {                                                                  \
        char b_[256];                                                     \
        int r_ = fmt_snprintf(b_, sizeof(b_), __VA_ARGS__);               \
        if (strcmp(b_, want) != 0 || r_ != (int)strlen(want))             \
            FAIL("%s: got %d \"%s\", want \"%s\"", #__VA_ARGS__, r_, b_,  \
                 want);                                                   \
    } while (0)

TEST(pointer)
{
    EXPECT("0x0000000000001234", "%p", (void *)0x1234);
    EXPECT("0x0000000000000000", "%p", NULL);
    EXPECT("0xffffffffffffffff", "%p", (void *)UINTPTR_MAX);
    EXPECT("  0x00000000deadbeef", "%20p", (void *)0xdeadbeef);
    EXPECT("0x00000000deadbeef  |", "%-20p|", (void *)0xdeadbeef);
    EXPECT("0x0000000000000010", "%5p", (void *)0x10);
}

TEST(null_string)
{
    const char *volatile nul = NULL;    /* hidden from -Wformat-overflow */

    EXPECT("(null)", "%s", nul);
    EXPECT("  (null)", "%8s", nul);
    EXPECT("(nu", "%.3s", nul);
}

TEST(unterminated_prec)
{
    char raw[4] = { 'a', 'b', 'c', 'd' };     /* no NUL: ASan watches */

    EXPECT("abcd", "%.4s", raw);
    EXPECT("ab", "%.*s", 2, raw);
}

/*
 * Formats kept in an array so gcc's -Wformat lets the bad ones through.
 * "%5%" is C's own oddity, kept here because ASan's snprintf interceptor
 * complains about it.
 */
TEST(odd_specs)
{
    const char *f[] = {
        "%q", "a%", "%5", "%-", "%#x", "%+d", "% d", "%f", "%n", "%llld",
        "%L", "%5q%d", "%jd", "%.", "%5%",
    };
    const char *want[] = {
        "%q", "a%", "%5", "%-", "%#x", "%+d", "% d", "%f", "%n", "%llld",
        "%L", "%5q7", "%jd", "%.", "%",
    };
    char b[64];

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        int r = fmt_snprintf(b, sizeof(b), f[i], 7, "str");

        if (strcmp(b, want[i]) != 0 || r != (int)strlen(want[i]))
            FAIL("\"%s\": got %d \"%s\", want \"%s\"", f[i], r, b, want[i]);
    }
}

TEST(null_buffer)
{
    const char *nullf = NULL;
    char b[16];

    CHECK(fmt_snprintf(NULL, 0, "%d", 12345) == 5);
    CHECK(fmt_snprintf(NULL, 10, "%s", "abc") == 3);  /* n ignored */
    memset(b, 'x', sizeof(b));
    CHECK(fmt_snprintf(b, 0, "abc") == 3 && b[0] == 'x');
    CHECK(fmt_snprintf(b, 1, "abc") == 3 && b[0] == '\0' && b[1] == 'x');
    CHECK(fmt_snprintf(b, sizeof(b), nullf, 1) == 6);
    CHECK(strcmp(b, "(null)") == 0);
}

TEST(huge_width)
{
    /* volatile, or gcc's -Wformat-overflow sees through the variables. */
    const char *volatile f1 = "%2147483647d";
    const char *volatile f2 = "%2147483647d%d";
    const char *volatile f3 = "%99999999999999999999d";
    const char *volatile f4 = "%.99999999999999s";
    volatile int imin = INT_MIN;
    char b[8];

    /* Must be quick: padding past the buffer is counted, not written. */
    CHECK(fmt_snprintf(b, sizeof(b), f1, 1) == INT_MAX);
    CHECK(strcmp(b, "       ") == 0);
    CHECK(fmt_snprintf(b, sizeof(b), f2, 1, 2) == -1);
    CHECK(b[7] == '\0');
    CHECK(fmt_snprintf(b, sizeof(b), f3, 1) == INT_MAX);
    CHECK(fmt_snprintf(b, sizeof(b), f4, "ab") == 2);
    CHECK(fmt_snprintf(b, sizeof(b), "%*d", imin, 1) == INT_MAX);
    CHECK(strcmp(b, "1      ") == 0);
}

static int wrap(char *b, size_t n, const char *f, ...)
    __attribute__((format(printf, 3, 4)));

/* Goes through the va_list entry point twice, as printk does. */
static int wrap(char *b, size_t n, const char *f, ...)
{
    va_list ap, aq;
    int r1, r2;

    va_start(ap, f);
    va_copy(aq, ap);
    r1 = fmt_vsnprintf(b, n, f, ap);
    r2 = fmt_vsnprintf(b, n, f, aq);
    va_end(aq);
    va_end(ap);
    return r1 == r2 ? r1 : -2;
}

TEST(valist)
{
    char b[64], inner[32];

    CHECK(wrap(b, sizeof(b), "%s=%lld,%c", "k", (long long)INT64_MIN,
               'z') == 24);
    CHECK(strcmp(b, "k=-9223372036854775808,z") == 0);
    /* Output of one call as input to the next, as panic(fmt(...)) does. */
    fmt_snprintf(inner, sizeof(inner), "<%05d>", -3);
    CHECK(wrap(b, sizeof(b), "[%s|%-9s]", inner, inner) == 19);
    CHECK(strcmp(b, "[<-0003>|<-0003>  ]") == 0);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
