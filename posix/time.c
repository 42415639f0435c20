/*
 * time.c - the POSIX clocks and sleeps on Spindle's clocks.
 *
 * Clocks.  CLOCK_MONOTONIC (and its _RAW and _COARSE names, and
 * CLOCK_BOOTTIME: nothing here suspends) is sp_nanotime(), nanoseconds
 * since boot from the cycle counter, the same on every core.
 * CLOCK_REALTIME (and _COARSE) is sp_walltime(), the RTC read at boot plus
 * sp_nanotime(): it never steps, and it agrees with gettimeofday(), which
 * reads the same clock.  CLOCK_PROCESS_CPUTIME_ID is the time every core
 * spent running Gs, CLOCK_THREAD_CPUTIME_ID the calling G's
 * (sched/cputime.c): a "thread" of these calls is a G.  The resolution of
 * each is one cycle of the counter, rounded up to a nanosecond.
 *
 * Sleeping parks the calling G (sp_sleep), never the core.  No signal
 * interrupts a sleep, so the remaining time given back is always 0 and
 * EINTR never happens.  clock_nanosleep takes the monotonic and realtime
 * clocks, relative or TIMER_ABSTIME; an absolute realtime deadline is
 * waited for on the monotonic clock, which is right because the realtime
 * clock never steps.
 *
 * times() and clock() (newlib's, over _times) count in CLOCKS_PER_SEC,
 * which is also sysconf(_SC_CLK_TCK).  User and system time are not told
 * apart: all of it is user time.  getrusage fills the times alone.
 *
 * Not done: clock_settime (EPERM: the clocks cannot be set), CPU-time
 * clocks of other processes or Gs (clock_getcpuclockid knows this
 * process only), timer_create.
 */
#define _GNU_SOURCE            /* the _COARSE, _RAW and BOOTTIME ids */
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>
#include <spindle/time.h>
#include "arch/arch.h"
#include "sched/sched.h"

#define NSEC 1000000000ULL

/* Spindle's clock behind a POSIX clock id; false for an unknown id. */
static bool clock_read(clockid_t id, uint64_t *ns)
{
    switch (id) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
        *ns = sp_walltime();
        return true;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        *ns = sp_nanotime();
        return true;
    case CLOCK_PROCESS_CPUTIME_ID:
        *ns = sched_cputime_ns();
        return true;
    case CLOCK_THREAD_CPUTIME_ID:
        *ns = g_cputime_ns();
        return true;
    }
    return false;
}

static void ns_to_timespec(uint64_t ns, struct timespec *ts)
{
    ts->tv_sec = ns / NSEC;
    ts->tv_nsec = ns % NSEC;
}

/* A valid timespec as nanoseconds, saturated at INT64_MAX (a sleep that
   long never ends, as sp_sleep promises); false if it is not valid. */
static bool timespec_to_ns(const struct timespec *ts, uint64_t *ns)
{
    if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= (long)NSEC)
        return false;
    if ((uint64_t)ts->tv_sec >= INT64_MAX / NSEC)
        *ns = INT64_MAX;
    else
        *ns = (uint64_t)ts->tv_sec * NSEC + ts->tv_nsec;
    return true;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    uint64_t ns;

    if (!clock_read(id, &ns)) {
        errno = EINVAL;
        return -1;
    }
    if (!ts) {
        errno = EFAULT;
        return -1;
    }
    ns_to_timespec(ns, ts);
    return 0;
}

int clock_getres(clockid_t id, struct timespec *res)
{
    uint64_t ns, hz = arch_cycles_hz();

    if (!clock_read(id, &ns)) {
        errno = EINVAL;
        return -1;
    }
    if (res) {
        res->tv_sec = 0;
        res->tv_nsec = hz >= NSEC ? 1 : (NSEC + hz - 1) / hz;
    }
    return 0;
}

int clock_settime(clockid_t id, const struct timespec *ts)
{
    uint64_t ns;

    errno = clock_read(id, &ns) ? EPERM : EINVAL;
    return -1;
}

int clock_getcpuclockid(pid_t pid, clockid_t *id)
{
    if (pid != 0 && pid != getpid())
        return ESRCH;
    *id = CLOCK_PROCESS_CPUTIME_ID;
    return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    uint64_t ns;

    if (!req) {
        errno = EFAULT;
        return -1;
    }
    if (!timespec_to_ns(req, &ns)) {
        errno = EINVAL;
        return -1;
    }
    sp_sleep(ns);
    if (rem)
        rem->tv_sec = rem->tv_nsec = 0;
    return 0;
}

/* Returns an error number, not -1 and errno (POSIX's rule for it). */
int clock_nanosleep(clockid_t id, int flags, const struct timespec *req,
                    struct timespec *rem)
{
    uint64_t ns, now;

    if (id == CLOCK_PROCESS_CPUTIME_ID)
        return ENOTSUP;
    if (id == CLOCK_THREAD_CPUTIME_ID || !clock_read(id, &now))
        return EINVAL;
    if (!req)
        return EFAULT;
    if ((flags & ~TIMER_ABSTIME) || !timespec_to_ns(req, &ns))
        return EINVAL;
    if (flags & TIMER_ABSTIME) {
        /* Both clocks advance with the cycle counter: the deadline's
           distance now is how long to sleep. */
        sp_sleep(ns > now ? ns - now : 0);
        return 0;
    }
    sp_sleep(ns);
    if (rem)
        rem->tv_sec = rem->tv_nsec = 0;
    return 0;
}

int usleep(useconds_t us)
{
    sp_sleep((uint64_t)us * 1000);
    return 0;
}

unsigned sleep(unsigned s)
{
    sp_sleep(SP_S(s));
    return 0;
}

static clock_t ns_to_ticks(uint64_t ns)
{
    return (clock_t)(ns / (NSEC / CLOCKS_PER_SEC));
}

/* newlib's times() and clock() call this.  Returns the monotonic clock in
   the same ticks. */
clock_t _times(struct tms *t)
{
    if (t) {
        t->tms_utime = ns_to_ticks(sched_cputime_ns());
        t->tms_stime = t->tms_cutime = t->tms_cstime = 0;
    }
    return ns_to_ticks(sp_nanotime());
}

static void ns_to_timeval(uint64_t ns, struct timeval *tv)
{
    tv->tv_sec = ns / NSEC;
    tv->tv_usec = ns % NSEC / 1000;
}

int getrusage(int who, struct rusage *ru)
{
    uint64_t ns;

    switch (who) {
    case RUSAGE_SELF:
        ns = sched_cputime_ns();
        break;
    case RUSAGE_THREAD:
        ns = g_cputime_ns();
        break;
    case RUSAGE_CHILDREN:
        ns = 0;                 /* there are never any */
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    if (!ru) {
        errno = EFAULT;
        return -1;
    }
    *ru = (struct rusage){ 0 };
    ns_to_timeval(ns, &ru->ru_utime);
    return 0;
}
