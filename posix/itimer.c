/*
 * itimer.c - the process's real-time interval timer: setitimer and
 * getitimer (ITIMER_REAL) and alarm, which share it.
 *
 * The rule: when the timer expires, SIGALRM is delivered (posix/signal.c)
 * in a G of its own, the G that Spindle's function timer starts
 * (sp_after_func): the recorded handler runs there, beside the program's
 * other Gs, interrupting none of them; with SIG_DFL the program ends as
 * on Linux, with SIG_IGN nothing happens, and while SIGALRM is blocked it
 * is recorded pending.  A periodic timer is re-armed before the signal is
 * delivered, from its last deadline, so it keeps its phase; expirations
 * missed meanwhile (a handler slower than the period) are dropped.
 *
 * One function timer serves for the life of the program, made at the
 * first setitimer; the state is under itmu, a G mutex (these calls come
 * from Gs).  A firing that lost the race with a later setitimer finds the
 * deadline moved or cleared and does nothing.
 *
 * Not done: ITIMER_VIRTUAL and ITIMER_PROF (EINVAL), ualarm.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <unistd.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "posix/sig.h"

#define USEC 1000000ULL

static sp_mutex itmu = SP_MUTEX_INIT;
/* Under itmu: */
static sp_timer *it_timer;
static uint64_t it_deadline;    /* sp_nanotime() of the next expiry, 0 */
static uint64_t it_interval;    /* ns, 0 for a single shot */

static uint64_t tv_to_ns(const struct timeval *tv)
{
    if ((uint64_t)tv->tv_sec >= INT64_MAX / 1000000000)
        return INT64_MAX;
    return (uint64_t)tv->tv_sec * 1000000000 + (uint64_t)tv->tv_usec * 1000;
}

static void ns_to_tv(uint64_t ns, struct timeval *tv)
{
    tv->tv_sec = ns / 1000000000;
    tv->tv_usec = ns % 1000000000 / 1000;
}

static bool tv_valid(const struct timeval *tv)
{
    return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < (long)USEC;
}

static void it_fire(void *arg)
{
    uint64_t now = sp_nanotime();

    sp_mutex_lock(&itmu);
    if (!it_deadline || it_deadline > now) {
        sp_mutex_unlock(&itmu);     /* stopped or moved meanwhile */
        return;
    }
    if (it_interval) {
        do
            it_deadline += it_interval;
        while (it_deadline <= now);
        sp_timer_reset(it_timer, it_deadline - now);
    } else {
        it_deadline = 0;
    }
    sp_mutex_unlock(&itmu);
    sig_deliver(SIGALRM, SI_TIMER);
}

/* The timer's setting now, as getitimer reports it.  itmu held. */
static void it_get(struct itimerval *v, uint64_t now)
{
    /* An armed timer shows at least 1 us left, so that it reads armed. */
    uint64_t left = 0;

    if (it_deadline)
        left = it_deadline > now + 1000 ? it_deadline - now : 1000;
    ns_to_tv(left, &v->it_value);
    ns_to_tv(it_interval, &v->it_interval);
}

int getitimer(int which, struct itimerval *v)
{
    if (which != ITIMER_REAL) {
        errno = EINVAL;
        return -1;
    }
    if (!v) {
        errno = EFAULT;
        return -1;
    }
    sp_mutex_lock(&itmu);
    it_get(v, sp_nanotime());
    sp_mutex_unlock(&itmu);
    return 0;
}

int setitimer(int which, const struct itimerval *restrict v,
              struct itimerval *restrict old)
{
    uint64_t now, value;

    if (which != ITIMER_REAL) {
        errno = EINVAL;
        return -1;
    }
    if (!v) {
        errno = EFAULT;
        return -1;
    }
    if (!tv_valid(&v->it_value) || !tv_valid(&v->it_interval)) {
        errno = EINVAL;
        return -1;
    }
    value = tv_to_ns(&v->it_value);
    sp_mutex_lock(&itmu);
    now = sp_nanotime();
    if (old)
        it_get(old, now);
    if (!it_timer && value) {
        it_timer = sp_after_func(value, it_fire, NULL);
        if (!it_timer) {
            sp_mutex_unlock(&itmu);
            errno = ENOMEM;
            return -1;
        }
    } else if (it_timer) {
        sp_timer_stop(it_timer);
        if (value)
            sp_timer_reset(it_timer, value);
    }
    it_deadline = value ? now + value : 0;
    it_interval = value ? tv_to_ns(&v->it_interval) : 0;
    sp_mutex_unlock(&itmu);
    return 0;
}

unsigned alarm(unsigned secs)
{
    struct itimerval v = { .it_value = { .tv_sec = secs } }, old;

    if (setitimer(ITIMER_REAL, &v, &old) < 0)
        return 0;
    /* Whole seconds left of the earlier alarm, rounded up. */
    return old.it_value.tv_sec + (old.it_value.tv_usec > 0);
}
