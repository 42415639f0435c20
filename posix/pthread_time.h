/*
 * pthread_time.h - the absolute timeouts of the pthread calls, as
 * deadlines of the scheduler's clock (sp_nanotime()).
 *
 * CLOCK_REALTIME is sp_walltime(), which is sp_nanotime() plus a
 * constant (time.h: the RTC at boot), so an abstime of it is a fixed
 * point of sp_nanotime(); CLOCK_MONOTONIC is sp_nanotime() itself.  A
 * timed call reports ETIMEDOUT only once its clock reads abstime or
 * later (abstime_passed), never on the timer's word alone.
 */
#ifndef POSIX_PTHREAD_TIME_H
#define POSIX_PTHREAD_TIME_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <spindle/time.h>

/* abstime in nanoseconds of its clock; false if it is not a time. */
static inline bool abstime_ns(const struct timespec *ts, uint64_t *ns)
{
    if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
        return false;
    if (ts->tv_sec < 0)
        *ns = 0;
    else if ((uint64_t)ts->tv_sec >= (uint64_t)INT64_MAX / 1000000000)
        *ns = INT64_MAX;
    else
        *ns = (uint64_t)ts->tv_sec * 1000000000 + (uint64_t)ts->tv_nsec;
    return true;
}

static inline uint64_t clock_now(clockid_t clock)
{
    return clock == CLOCK_MONOTONIC ? sp_nanotime() : sp_walltime();
}

/*
 * The sp_nanotime() deadline of abstime on clock (never 0, which means
 * no deadline to notifylist_wait), or EINVAL.  The wall clock's offset
 * is read wall first: if anything it comes out small, and the deadline
 * late, never early.
 */
static inline int abstime_deadline(const struct timespec *ts, clockid_t clock,
                                   uint64_t *deadline)
{
    uint64_t ns;
    int64_t off = 0;            /* wall - sp_nanotime(); may be < 0 by a
                                   few ns without an RTC (wall0 == 0) */

    if (!abstime_ns(ts, &ns))
        return EINVAL;
    if (clock != CLOCK_MONOTONIC) {
        uint64_t wall = sp_walltime();

        off = (int64_t)(wall - sp_nanotime());
    }
    if (off > 0 && ns <= (uint64_t)off)
        *deadline = 1;                      /* long past */
    else if (off < 0 && ns > (uint64_t)INT64_MAX + (uint64_t)off)
        *deadline = INT64_MAX;
    else
        *deadline = ns - (uint64_t)off;
    if (!*deadline)
        *deadline = 1;
    return 0;
}

/* True once clock reads abstime or later. */
static inline bool abstime_passed(const struct timespec *ts, clockid_t clock)
{
    uint64_t ns;

    return !abstime_ns(ts, &ns) || clock_now(clock) >= ns;
}

#endif
