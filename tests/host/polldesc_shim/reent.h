/*
 * reent.h (polldesc host test) - stands in for newlib's <reent.h>, which
 * sched/sched.h includes for the struct _reent every G carries.
 */
#ifndef POLLDESC_SHIM_REENT_H
#define POLLDESC_SHIM_REENT_H

struct _reent {
    int _errno;
};

#endif
