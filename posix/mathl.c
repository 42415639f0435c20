/*
 * mathl.c - long double rounding (include/posix/math.h), for the arches
 * whose long double newlib does not cover: x86_64's 80-bit extended
 * (64-bit significand) and aarch64's IEEE binary128 (113-bit).
 *
 * A long double of magnitude 2^(LDBL_MANT_DIG-1) or more is an integer
 * already, and so are the infinities; a NaN stays a NaN.  Below that, the
 * value's integer part fits an __int128, and the conversions to and from
 * it are exact, so each function is exact.  A zero result keeps the sign
 * of x (ceill(-0.5) is -0.0), as C requires.  lroundl and llroundl of a
 * value that does not fit the result (or a NaN) return the result type's
 * minimum, as x86_64's conversions do; C leaves it unspecified.
 *
 * strtold, strtold_l and _strtold_r, on aarch64 alone: newlib's write
 * x86_64's 80-bit format whatever the long double, which on aarch64 reads
 * back as 0.  These convert with newlib's own decimal and hexadecimal
 * parser (_strtodg_l, which newlib's x86_64 strtold uses too) at 113 bits,
 * rounded to nearest, and pack the IEEE binary128 result: every finite
 * value, denormals, the infinities and NaNs (their payload kept, made
 * quiet), overflow and underflow setting ERANGE as the parser does.
 */
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/reent.h>

#if !defined(_LDBL_EQ_DBL)

/* 2^(LDBL_MANT_DIG-1): from here up every long double is an integer. */
#define LDBL_INTEGRAL ((long double)((unsigned __int128)1 << (LDBL_MANT_DIG - 1)))

/* Whether truncation alone is the answer: x is integral, infinite or NaN. */
static int whole(long double x)
{
    return !(__builtin_fabsl(x) < LDBL_INTEGRAL);
}

static long double signed_zero(long double t, long double x)
{
    return t == 0 ? __builtin_copysignl(0.0L, x) : t;
}

long double truncl(long double x)
{
    if (whole(x))
        return x;
    return signed_zero((long double)(__int128)x, x);
}

long double floorl(long double x)
{
    long double t;

    if (whole(x))
        return x;
    t = (long double)(__int128)x;
    return signed_zero(t > x ? t - 1 : t, x);
}

long double ceill(long double x)
{
    long double t;

    if (whole(x))
        return x;
    t = (long double)(__int128)x;
    return signed_zero(t < x ? t + 1 : t, x);
}

/* Half-way cases away from zero; x - t is exact below LDBL_INTEGRAL. */
long double roundl(long double x)
{
    long double t;

    if (whole(x))
        return x;
    t = (long double)(__int128)x;
    if (__builtin_fabsl(x - t) >= 0.5L)
        t += x < 0 ? -1 : 1;
    return signed_zero(t, x);
}

long long llroundl(long double x)
{
    long double r = roundl(x);

    if (!(r >= (long double)LLONG_MIN && r < -(long double)LLONG_MIN))
        return LLONG_MIN;
    return (long long)r;
}

long lroundl(long double x)
{
    long double r = roundl(x);

    if (!(r >= (long double)LONG_MIN && r < -(long double)LONG_MIN))
        return LONG_MIN;
    return (long)r;
}

#if LDBL_MANT_DIG == 113

/* newlib's gdtoa interface (its stdlib/gdtoa.h and mprec.h). */
struct FPI {
    int nbits, emin, emax, rounding, sudden_underflow;
};
enum {
    STRTOG_Zero, STRTOG_Normal, STRTOG_Denormal, STRTOG_Infinite,
    STRTOG_NaN, STRTOG_NaNbits, STRTOG_NoNumber,
    STRTOG_Retmask = 7, STRTOG_Neg = 8,
};
int _strtodg_l(struct _reent *r, const char *s, char **end, struct FPI *fpi,
               int32_t *exp, uint32_t *bits, locale_t loc);
extern struct __locale_t __global_locale;  /* the one locale newlib has here */

#define Q_MANT  112                     /* stored significand bits */
#define Q_BIAS  16383
#define Q_EMAX  0x7fff

static long double strtoq(struct _reent *r, const char *s, char **end, locale_t loc)
{
    static struct FPI fpi = {
        LDBL_MANT_DIG, LDBL_MIN_EXP - LDBL_MANT_DIG,
        LDBL_MAX_EXP - LDBL_MANT_DIG, 1, 0,
    };
    uint32_t bits[4] = { 0, 0, 0, 0 };
    int32_t exp = 0;
    unsigned __int128 m, q, frac = ((unsigned __int128)1 << Q_MANT) - 1;
    uint64_t e = 0;
    long double v;
    int k = _strtodg_l(r, s, end, &fpi, &exp, bits, loc);

    m = (unsigned __int128)bits[3] << 96 | (unsigned __int128)bits[2] << 64 |
        (unsigned __int128)bits[1] << 32 | bits[0];
    switch (k & STRTOG_Retmask) {
    case STRTOG_Normal:             /* m has its leading bit at Q_MANT */
        e = (uint64_t)(exp + Q_MANT + Q_BIAS);
        m &= frac;
        break;
    case STRTOG_Denormal:           /* m * 2^exp, exp the least there is */
        break;
    case STRTOG_Infinite:
        e = Q_EMAX;
        m = 0;
        break;
    case STRTOG_NaN:
    case STRTOG_NaNbits:
        e = Q_EMAX;
        m = (m & frac) | (unsigned __int128)1 << (Q_MANT - 1);
        break;
    default:                        /* zero, or no number at all */
        m = 0;
    }
    q = m | (unsigned __int128)e << Q_MANT;
    if (k & STRTOG_Neg)
        q |= (unsigned __int128)1 << 127;
    memcpy(&v, &q, sizeof v);
    return v;
}

long double _strtold_r(struct _reent *r, const char *restrict s, char **restrict end)
{
    return strtoq(r, s, end, &__global_locale);
}

long double strtold(const char *restrict s, char **restrict end)
{
    return strtoq(_REENT, s, end, &__global_locale);
}

long double strtold_l(const char *restrict s, char **restrict end, locale_t loc)
{
    return strtoq(_REENT, s, end, loc);
}

#endif
#endif

