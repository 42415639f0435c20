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
 */
#include <float.h>
#include <limits.h>
#include <math.h>

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

#endif
