/*
 * math.h - newlib's <math.h>, plus the long double rounding functions
 * that newlib leaves out where long double is wider than double (x86_64's
 * 80-bit, aarch64's 128-bit): ceill, floorl, truncl, roundl, lroundl and
 * llroundl, exact for every long double (posix/mathl.c).
 */
#ifndef SPINDLE_MATH_H
#define SPINDLE_MATH_H

#include_next <math.h>

#if !defined(_LDBL_EQ_DBL)
#ifdef __cplusplus
extern "C" {
#endif
long double ceill(long double x);
long double floorl(long double x);
long double truncl(long double x);
long double roundl(long double x);
long lroundl(long double x);
long long llroundl(long double x);
#ifdef __cplusplus
}
#endif
#endif

#endif
