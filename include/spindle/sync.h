/*
 * spindle/sync.h - mutex, rwmutex, once, wait group, semaphore and
 * condition variable, with Go's sync semantics.
 *
 *   static sp_mutex mu = SP_MUTEX_INIT;     (or = {0}, or a zeroed field)
 *   sp_mutex_lock(&mu); ...; sp_mutex_unlock(&mu);
 *
 *   sp_waitgroup wg = SP_WAITGROUP_INIT;
 *   sp_waitgroup_add(&wg, n); ... each of n Gs: sp_waitgroup_done(&wg);
 *   sp_waitgroup_wait(&wg);
 *
 * Every object is valid when zeroed and needs no destroy call.  A G that
 * must wait parks (it never spins for long), so thousands of Gs can wait
 * on one object.  As in Go, a mutex is not tied to the G that locked it:
 * another G may unlock it.  Misuse panics with Go's messages: "sync:
 * unlock of unlocked mutex", "sync: RUnlock of unlocked RWMutex", "sync:
 * Unlock of unlocked RWMutex", "sync: negative WaitGroup counter".
 *
 * The fields are private; only the zero value and the INIT macros are
 * part of the interface (the inline mutex fast paths below touch them).
 */
#ifndef SPINDLE_SYNC_H
#define SPINDLE_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* ---- Mutex (sync.Mutex) ------------------------------------------------ */

typedef struct sp_mutex {
    int32_t state;              /* locked, woken, starving, waiter count */
    uint32_t sema;              /* waiters park on this word */
} sp_mutex;

#define SP_MUTEX_INIT { 0, 0 }

/* state: held, a waiter is awake, starvation mode, then the waiter
   count (sync.c says what each means). */
#define SP_MUTEX_LOCKED         1
#define SP_MUTEX_WOKEN          2
#define SP_MUTEX_STARVING       4
#define SP_MUTEX_WAITER_SHIFT   3

/* The slow halves of lock and unlock (sync.c). */
void sp_mutex_lock_slow(sp_mutex *m);
void sp_mutex_unlock_slow(sp_mutex *m, int32_t new_state);

/*
 * Locks m, parking until it is free.  Fair under contention: a waiter
 * kept waiting more than 1 ms switches m to starvation mode, where each
 * unlock hands m directly to the longest waiter.
 *
 * Lock and unlock are inline up to their slow halves, as Go's
 * Mutex.Lock and Unlock are, so an uncontended pair is two atomic
 * instructions and no call.  Both also keep inline the commonest case
 * under contention, which Go leaves to the slow half: a free mutex that
 * has Gs parked on it is taken at once (the slow half's first attempt),
 * and an unlock finds a waiter already awake and wakes nobody.
 */
/* Takes m if old, its state as last read, shows it neither held nor
   starving; false if it was not free or changed since.  (The shared step
   of lock, trylock and the slow half's first attempt.) */
static inline bool sp_mutex_take_free(sp_mutex *m, int32_t old)
{
    /* Acquire: pairs with the release in sp_mutex_unlock. */
    return !(old & (SP_MUTEX_LOCKED | SP_MUTEX_STARVING)) &&
           __atomic_compare_exchange_n(&m->state, &old,
                                       old | SP_MUTEX_LOCKED, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void sp_mutex_lock(sp_mutex *m)
{
    int32_t old = 0;

    /* The CAS from 0 first, as Go: no load before it when m is free.
       Acquire: pairs with the release in sp_mutex_unlock. */
    if (__atomic_compare_exchange_n(&m->state, &old, SP_MUTEX_LOCKED, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED) ||
        sp_mutex_take_free(m, old))
        return;
    sp_mutex_lock_slow(m);
}

/* Locks m if it is free; returns whether it did.  Never blocks. */
static inline bool sp_mutex_trylock(sp_mutex *m)
{
    return sp_mutex_take_free(m, __atomic_load_n(&m->state,
                                                 __ATOMIC_RELAXED));
}

static inline void sp_mutex_unlock(sp_mutex *m)
{
    /* Release: pairs with the acquiring CAS of the next locker. */
    int32_t new_state = __atomic_sub_fetch(&m->state, SP_MUTEX_LOCKED,
                                           __ATOMIC_RELEASE);

    /* Nobody to wake: no waiters, or one is awake already.  (LOCKED
       still set means m was not locked: the slow half panics.) */
    if (!(new_state & (SP_MUTEX_LOCKED | SP_MUTEX_STARVING)) &&
        ((new_state & SP_MUTEX_WOKEN) ||
         !(new_state >> SP_MUTEX_WAITER_SHIFT)))
        return;
    sp_mutex_unlock_slow(m, new_state);
}

/* ---- Reader/writer mutex (sync.RWMutex) ------------------------------ */

typedef struct sp_rwmutex {
    sp_mutex w;                 /* held by the writer, and by a pending one */
    uint32_t writersem;         /* the writer waits for readers to leave */
    uint32_t readersem;         /* readers wait for the writer to leave */
    int32_t readercount;        /* readers in; -2^30 while a writer is */
    int32_t readerwait;         /* readers the pending writer waits for */
} sp_rwmutex;

#define SP_RWMUTEX_INIT { SP_MUTEX_INIT, 0, 0, 0, 0 }

/*
 * Read-locks rw.  Any number of readers may hold it together, but once a
 * writer waits, new readers wait behind it (so writers are not starved).
 * As in Go, a reader must not read-lock again while holding it.
 */
void sp_rwmutex_rlock(sp_rwmutex *rw);
void sp_rwmutex_runlock(sp_rwmutex *rw);

/* Locks rw for writing: waits for the readers inside to leave. */
void sp_rwmutex_lock(sp_rwmutex *rw);
void sp_rwmutex_unlock(sp_rwmutex *rw);

/* ---- Once (sync.Once) ------------------------------------------------ */

typedef struct sp_once {
    uint32_t done;              /* 1 once fn has returned */
    sp_mutex m;
} sp_once;

#define SP_ONCE_INIT { 0, SP_MUTEX_INIT }

/*
 * Calls fn(arg) if no call of sp_once_do on o has yet; every caller
 * returns only after that one call of fn has returned.
 */
void sp_once_do(sp_once *o, void (*fn)(void *), void *arg);

/* ---- Wait group (sync.WaitGroup) ------------------------------------- */

typedef struct sp_waitgroup {
    uint64_t state;             /* counter << 32 | waiters */
    uint32_t sema;
} sp_waitgroup;

#define SP_WAITGROUP_INIT { 0, 0 }

/* Adds delta (may be negative) to the counter; at zero, waiters wake. */
void sp_waitgroup_add(sp_waitgroup *wg, int delta);
void sp_waitgroup_done(sp_waitgroup *wg);      /* add(-1) */

/* Waits until the counter is zero. */
void sp_waitgroup_wait(sp_waitgroup *wg);

/* ---- Counting semaphore ---------------------------------------------- */

typedef struct sp_sema {
    uint32_t count;             /* units available */
} sp_sema;

#define SP_SEMA_INIT(n) { (n) }

/* Sets the count; only while nobody uses s. */
void sp_sema_init(sp_sema *s, uint32_t count);

/* Takes one unit, waiting (FIFO) until one is available. */
void sp_sema_acquire(sp_sema *s);

/* Takes one unit if one is available now; returns whether it did. */
bool sp_sema_tryacquire(sp_sema *s);

/* Gives one unit back, waking the longest waiter if any. */
void sp_sema_release(sp_sema *s);

/* ---- Condition variable (sync.Cond) ------------------------------- */

typedef struct sp_cond {
    void *head, *tail;          /* parked waiters, FIFO (sched/notify.c) */
} sp_cond;

#define SP_COND_INIT { 0, 0 }

/*
 * Unlocks m, which the caller holds, waits for a signal or broadcast on
 * c, and locks m again before it returns.  A signal or broadcast made
 * after the caller locked m (so after any change the waiter checked
 * under m) wakes it: the waiter is queued on c before m is unlocked.
 * As in Go, wake-ups that find the condition false again are the
 * caller's to handle: wait in a loop.
 */
void sp_cond_wait(sp_cond *c, sp_mutex *m);

/*
 * sp_cond_wait, waiting at most until sp_nanotime() reaches deadline.
 * Returns false if it timed out (never before deadline), true if woken;
 * m is held again either way.
 */
bool sp_cond_wait_until(sp_cond *c, sp_mutex *m, uint64_t deadline);

/* Wakes the longest waiter on c, if any; all of them.  The caller need
   not hold the mutex. */
void sp_cond_signal(sp_cond *c);
void sp_cond_broadcast(sp_cond *c);

#endif
