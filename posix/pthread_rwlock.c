/*
 * pthread_rwlock.c - reader/writer locks, barriers and spinlocks.
 *
 * Rwlock.  A small monitor: an sp_mutex, held only while the counts
 * change, guards the readers inside, the writer inside (its G id) and
 * the writers waiting; readers and writers wait on a notify list each
 * (sp_cond), with or without a deadline.  Writers are preferred: a
 * reader waits while a writer is inside or waiting, so a stream of
 * readers cannot starve a writer.  As with Go's RWMutex, a thread that
 * holds a read lock must not ask for another while a writer may wait
 * (it would wait behind that writer, which waits for it).  The unlock
 * that lets a writer in signals one writer; one that leaves no writer
 * inside or waiting lets every reader in.
 *
 * Barrier: a mutex, a condition variable and a round number; the last
 * thread of a round starts the next and wakes the others, who wait for
 * the round number to move (not for a count, so a thread of the next
 * round arriving early does not confuse one of this round).
 *
 * Spinlock: a word taken by CAS; a caller that finds it held spins a
 * while, then yields its core between tries, so that on a core the
 * holder was preempted from the holder gets to run.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include "arch/arch.h"
#include "posix/pthread_impl.h"
#include "posix/pthread_time.h"
#include <spindle/sched.h>

/* ---- rwlock ---------------------------------------------------------- */

int pthread_rwlockattr_init(pthread_rwlockattr_t *a)
{
    *a = (pthread_rwlockattr_t){ .is_initialized = 1 };
    return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a)
{
    a->is_initialized = 0;
    return 0;
}

int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *a, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE &&
        pshared != PTHREAD_PROCESS_SHARED)
        return EINVAL;
    a->process_shared = pshared;
    return 0;
}

int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *a, int *pshared)
{
    *pshared = a->process_shared;
    return 0;
}

int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *a)
{
    if (a && !a->is_initialized)
        return EINVAL;
    *rw = (pthread_rwlock_t)_PTHREAD_RWLOCK_INITIALIZER;
    return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
    int err;

    sp_mutex_lock(&rw->m);
    err = rw->nreaders || rw->writer || rw->wwaiting ? EBUSY : 0;
    sp_mutex_unlock(&rw->m);
    return err;
}

/* How a lock call waits: not at all (try), for ever, or until abs. */
struct rwwait {
    bool try;
    const struct timespec *abs;
    uint64_t deadline;
};

/* Waits on c with rw->m held: 0, or EBUSY / ETIMEDOUT for the caller to
   give up with. */
static int rw_wait(pthread_rwlock_t *rw, sp_cond *c, const struct rwwait *how)
{
    if (how->try)
        return EBUSY;
    if (!how->abs) {
        sp_cond_wait(c, &rw->m);
        return 0;
    }
    if (!sp_cond_wait_until(c, &rw->m, how->deadline) &&
        abstime_passed(how->abs, CLOCK_REALTIME))
        return ETIMEDOUT;
    return 0;
}

static int rdlock(pthread_rwlock_t *rw, struct rwwait how)
{
    uint64_t me = sp_goid();
    int err = 0;

    if (how.abs && (err = abstime_deadline(how.abs, CLOCK_REALTIME,
                                           &how.deadline)))
        return err;
    sp_mutex_lock(&rw->m);
    if (rw->writer == me)
        err = EDEADLK;
    while (!err && (rw->writer || rw->wwaiting))
        err = rw_wait(rw, &rw->readers, &how);
    if (!err && rw->nreaders == INT_MAX)
        err = EAGAIN;
    if (!err)
        rw->nreaders++;
    sp_mutex_unlock(&rw->m);
    return err;
}

static int wrlock(pthread_rwlock_t *rw, struct rwwait how)
{
    uint64_t me = sp_goid();
    int err = 0;

    if (how.abs && (err = abstime_deadline(how.abs, CLOCK_REALTIME,
                                           &how.deadline)))
        return err;
    sp_mutex_lock(&rw->m);
    if (rw->writer == me) {
        sp_mutex_unlock(&rw->m);
        return EDEADLK;
    }
    rw->wwaiting++;
    while (!err && (rw->writer || rw->nreaders))
        err = rw_wait(rw, &rw->writers, &how);
    rw->wwaiting--;
    if (!err)
        rw->writer = me;
    else if (!rw->wwaiting && !rw->writer)
        sp_cond_broadcast(&rw->readers);    /* they waited for us alone */
    sp_mutex_unlock(&rw->m);
    return err;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
    return rdlock(rw, (struct rwwait){ 0 });
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
    return rdlock(rw, (struct rwwait){ .try = true });
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw,
                               const struct timespec *abs)
{
    return rdlock(rw, (struct rwwait){ .abs = abs });
}

int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
    return wrlock(rw, (struct rwwait){ 0 });
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
    return wrlock(rw, (struct rwwait){ .try = true });
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw,
                               const struct timespec *abs)
{
    return wrlock(rw, (struct rwwait){ .abs = abs });
}

int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
    int err = 0;

    sp_mutex_lock(&rw->m);
    if (rw->writer) {
        if (rw->writer != sp_goid())
            err = EPERM;
        else
            rw->writer = 0;
    } else if (rw->nreaders) {
        rw->nreaders--;
    } else {
        err = EPERM;
    }
    if (!err && !rw->writer) {
        if (rw->wwaiting) {
            if (!rw->nreaders)
                sp_cond_signal(&rw->writers);
        } else {
            sp_cond_broadcast(&rw->readers);
        }
    }
    sp_mutex_unlock(&rw->m);
    return err;
}

/* ---- barrier ---------------------------------------------------------- */

int pthread_barrierattr_init(pthread_barrierattr_t *a)
{
    *a = (pthread_barrierattr_t){ .is_initialized = 1 };
    return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *a)
{
    a->is_initialized = 0;
    return 0;
}

int pthread_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE &&
        pshared != PTHREAD_PROCESS_SHARED)
        return EINVAL;
    a->process_shared = pshared;
    return 0;
}

int pthread_barrierattr_getpshared(const pthread_barrierattr_t *a,
                                   int *pshared)
{
    *pshared = a->process_shared;
    return 0;
}

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a,
                         unsigned count)
{
    if (!count || (a && !a->is_initialized))
        return EINVAL;
    *b = (pthread_barrier_t){ .m = SP_MUTEX_INIT, .c = SP_COND_INIT,
                              .count = count };
    return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
    int err;

    sp_mutex_lock(&b->m);
    err = b->arrived ? EBUSY : 0;
    sp_mutex_unlock(&b->m);
    return err;
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
    unsigned round;

    sp_mutex_lock(&b->m);
    round = b->round;
    if (++b->arrived == b->count) {
        b->arrived = 0;
        b->round++;
        sp_cond_broadcast(&b->c);
        sp_mutex_unlock(&b->m);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    while (b->round == round)
        sp_cond_wait(&b->c, &b->m);
    sp_mutex_unlock(&b->m);
    return 0;
}

/* ---- spinlock --------------------------------------------------------- */

#define SPIN_TRIES 100          /* pauses before a caller yields its core */

int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
    __atomic_store_n(&s->locked, 0, __ATOMIC_RELEASE);
    return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *s)
{
    return __atomic_load_n(&s->locked, __ATOMIC_RELAXED) ? EBUSY : 0;
}

int pthread_spin_trylock(pthread_spinlock_t *s)
{
    int free = 0;

    /* Acquire: pairs with the release in pthread_spin_unlock. */
    return __atomic_compare_exchange_n(&s->locked, &free, 1, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)
           ? 0 : EBUSY;
}

int pthread_spin_lock(pthread_spinlock_t *s)
{
    for (int n = 0; pthread_spin_trylock(s); n++) {
        while (__atomic_load_n(&s->locked, __ATOMIC_RELAXED)) {
            if (n++ < SPIN_TRIES)
                arch_cpu_relax();
            else
                sp_yield();
        }
    }
    return 0;
}

int pthread_spin_unlock(pthread_spinlock_t *s)
{
    __atomic_store_n(&s->locked, 0, __ATOMIC_RELEASE);
    return 0;
}
