/*
 * pthread_sync.c - pthread mutexes, condition variables and once, on
 * Spindle's sync objects.  Every wait parks the G (sp_mutex's semaphore,
 * or the notify list of sched/notify.c for condition variables and timed
 * waits); nothing spins for long.
 *
 * Mutex.  An sp_mutex (Go's sync.Mutex: fair under contention, handed
 * over in starvation mode) plus, for the recursive and error-checking
 * kinds, the owner's G id and the recursion depth; a normal (or
 * default) mutex is the sp_mutex alone, with its undefined cases left
 * to it (a relock waits for ever, an unlock of an unlocked mutex panics).
 * The owner is written only by the holder and compared with the caller's
 * own id, which no other G can store there.
 *
 * Timed lock.  pthread_mutex_timedlock waits on the mutex's notify list
 * tq, which every unlock broadcasts to when it is not empty.  A Dekker
 * pair keeps a wake-up from falling between the two: the waiter queues
 * itself, fences, and tries the lock again; the unlocker releases the
 * lock, fences, and reads tq's head.  One of them sees the other.  Woken
 * waiters try again and queue again if they lose.
 *
 * Condition variables: an sp_cond (notify.c) and the clock of
 * timedwait's abstime.  The waiter is queued before the mutex is
 * released, so a signal made by a thread that took the mutex after it
 * is not lost; a recursive mutex is released and taken back whole.
 */
#include <errno.h>
#include <pthread.h>
#include "posix/pthread_impl.h"
#include "posix/pthread_time.h"
#include "sched/notify.h"
#include <spindle/sched.h>

/* ---- mutex attributes ------------------------------------------------- */

int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
    *a = (pthread_mutexattr_t){ .is_initialized = 1,
                                .type = PTHREAD_MUTEX_DEFAULT };
    return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
    a->is_initialized = 0;
    return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
    if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_DEFAULT)
        return EINVAL;
    a->type = type;
    return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type)
{
    *type = a->type;
    return 0;
}

int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE &&
        pshared != PTHREAD_PROCESS_SHARED)
        return EINVAL;
    a->process_shared = pshared;
    return 0;
}

int pthread_mutexattr_getpshared(const pthread_mutexattr_t *a, int *pshared)
{
    *pshared = a->process_shared;
    return 0;
}

int pthread_mutexattr_setprotocol(pthread_mutexattr_t *a, int protocol)
{
    if (protocol != PTHREAD_PRIO_NONE && protocol != PTHREAD_PRIO_INHERIT &&
        protocol != PTHREAD_PRIO_PROTECT)
        return EINVAL;
    a->protocol = protocol;
    return 0;
}

int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *a, int *protocol)
{
    *protocol = a->protocol;
    return 0;
}

/* ---- mutex ------------------------------------------------------------ */

static bool owned(const pthread_mutex_t *m)
{
    return m->kind == PTHREAD_MUTEX_RECURSIVE ||
           m->kind == PTHREAD_MUTEX_ERRORCHECK;
}

static uint64_t owner(const pthread_mutex_t *m)
{
    return __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    int kind = a ? a->type : PTHREAD_MUTEX_DEFAULT;

    if (a && !a->is_initialized)
        return EINVAL;
    *m = (pthread_mutex_t)_PTHREAD_MUTEX_INIT_KIND(
            kind == PTHREAD_MUTEX_DEFAULT ? PTHREAD_MUTEX_NORMAL : kind);
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
    if (__atomic_load_n(&m->m.state, __ATOMIC_RELAXED) & SP_MUTEX_LOCKED)
        return EBUSY;
    return 0;
}

/* The checks of the owning kinds before a lock; -1 if none applies. */
static int relock(pthread_mutex_t *m, uint64_t me, int busy)
{
    if (!owned(m) || owner(m) != me)
        return -1;
    if (m->kind == PTHREAD_MUTEX_ERRORCHECK)
        return busy;
    if (m->depth == PTHREAD_MUTEX_DEPTH_MAX)
        return EAGAIN;
    m->depth++;
    return 0;
}

/* The caller took m->m: it owns m once. */
static void took(pthread_mutex_t *m, uint64_t me)
{
    if (owned(m)) {
        m->depth = 1;
        __atomic_store_n(&m->owner, me, __ATOMIC_RELAXED);
    }
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    uint64_t me = sp_goid();
    int err = relock(m, me, EDEADLK);

    if (err >= 0)
        return err;
    sp_mutex_lock(&m->m);
    took(m, me);
    return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    uint64_t me = sp_goid();
    int err = relock(m, me, EBUSY);

    if (err >= 0)
        return err;
    if (!sp_mutex_trylock(&m->m))
        return EBUSY;
    took(m, me);
    return 0;
}

/* Takes m->m by abstime (CLOCK_REALTIME): 0 or ETIMEDOUT. */
static int lock_until(pthread_mutex_t *m, const struct timespec *abs,
                      uint64_t deadline)
{
    struct notifywaiter w;

    for (;;) {
        notifylist_add(&m->tq, &w);
        /* Pairs with the fence in wake_timed (the Dekker pair above). */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (sp_mutex_trylock(&m->m)) {
            notifylist_cancel(&m->tq, &w);
            return 0;
        }
        if (!notifylist_wait(&m->tq, &w, deadline) &&
            abstime_passed(abs, CLOCK_REALTIME))
            return sp_mutex_trylock(&m->m) ? 0 : ETIMEDOUT;
        if (sp_mutex_trylock(&m->m))
            return 0;
    }
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
    uint64_t me = sp_goid(), deadline;
    int err = relock(m, me, EDEADLK);

    if (err >= 0)
        return err;
    if (!sp_mutex_trylock(&m->m)) {
        if ((err = abstime_deadline(abs, CLOCK_REALTIME, &deadline)) ||
            (err = lock_until(m, abs, deadline)))
            return err;
    }
    took(m, me);
    return 0;
}

/* After an unlock: wake the timed lockers, if any wait. */
static void wake_timed(pthread_mutex_t *m)
{
    /* Pairs with the fence in lock_until. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    sp_cond_broadcast(&m->tq);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (owned(m)) {
        if (owner(m) != sp_goid())
            return EPERM;
        if (--m->depth > 0)
            return 0;
        __atomic_store_n(&m->owner, 0, __ATOMIC_RELAXED);
    }
    sp_mutex_unlock(&m->m);
    wake_timed(m);
    return 0;
}

/* ---- condition variables -------------------------------------------- */

int pthread_condattr_init(pthread_condattr_t *a)
{
    *a = (pthread_condattr_t){ .is_initialized = 1, .clock = CLOCK_REALTIME };
    return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *a)
{
    a->is_initialized = 0;
    return 0;
}

int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock)
{
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    a->clock = clock;
    return 0;
}

int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *clock)
{
    *clock = a->clock;
    return 0;
}

int pthread_condattr_setpshared(pthread_condattr_t *a, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE &&
        pshared != PTHREAD_PROCESS_SHARED)
        return EINVAL;
    a->process_shared = pshared;
    return 0;
}

int pthread_condattr_getpshared(const pthread_condattr_t *a, int *pshared)
{
    *pshared = a->process_shared;
    return 0;
}

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    if (a && !a->is_initialized)
        return EINVAL;
    *c = (pthread_cond_t){ .c = SP_COND_INIT,
                           .clock = a ? a->clock : (int)CLOCK_REALTIME };
    return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
    return __atomic_load_n(&c->c.head, __ATOMIC_RELAXED) ? EBUSY : 0;
}

/* The clock of c's abstimes (0, a static initializer's, is realtime). */
static clockid_t cond_clock(const pthread_cond_t *c)
{
    return c->clock == CLOCK_MONOTONIC ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
                     const struct timespec *abs)
{
    uint64_t me = sp_goid(), deadline = 0;
    struct notifywaiter w;
    int depth = 0, err;
    bool woken;

    if (abs && (err = abstime_deadline(abs, cond_clock(c), &deadline)))
        return err;
    if (owned(m)) {
        if (owner(m) != me)
            return EPERM;
        depth = m->depth;
        m->depth = 0;
        __atomic_store_n(&m->owner, 0, __ATOMIC_RELAXED);
    }
    notifylist_add(&c->c, &w);
    sp_mutex_unlock(&m->m);
    wake_timed(m);
    woken = notifylist_wait(&c->c, &w, deadline);
    sp_mutex_lock(&m->m);
    if (owned(m)) {
        m->depth = depth;
        __atomic_store_n(&m->owner, me, __ATOMIC_RELAXED);
    }
    /* A timer's word alone is not a timeout: the clock must say so (a
       wake-up before abstime is a spurious one, which POSIX allows). */
    return !woken && abs && abstime_passed(abs, cond_clock(c)) ? ETIMEDOUT
                                                               : 0;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    return cond_wait(c, m, NULL);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                           const struct timespec *abs)
{
    return cond_wait(c, m, abs);
}

int pthread_cond_signal(pthread_cond_t *c)
{
    sp_cond_signal(&c->c);
    return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
    sp_cond_broadcast(&c->c);
    return 0;
}

/* ---- once ------------------------------------------------------------- */

static void call_init(void *fn)
{
    (*(void (**)(void))fn)();
}

int pthread_once(pthread_once_t *o, void (*init)(void))
{
    sp_once_do(o, call_init, &init);
    return 0;
}
