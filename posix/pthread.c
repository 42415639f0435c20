/*
 * pthread.c - POSIX threads as Gs: create, exit, join, detach, self.
 *
 * A thread is a G running thread_start on its record (pthread_impl.h),
 * which pthread_t points to.  Every blocking pthread call parks the G
 * (sync objects: pthread_sync.c, on sched/notify.c), never its core.
 *
 * Finding the caller's record.  The records are kept in a table indexed
 * by G slot (the G's index in the scheduler's G table): a G's entry is
 * written only by that G, and read only by it, so it needs no lock (the
 * slot's earlier G is dead, and the scheduler orders the two Gs' runs).
 * An entry belongs to the running G only if the record's goid is its:
 * a record left by a dead G of the slot is stale.  A thread's G sets its
 * entry when it starts and clears it when it exits.  A G that no
 * pthread_create made gets an adopted record (detached, never joinable)
 * the first time it asks; it is freed by pthread_exit, or reused by the
 * next G of the slot that asks (its key values are then dropped without
 * their destructors: such a G's end is not seen here).
 *
 * Who frees a record.  join moves PT_JOINABLE -> PT_DETACHED (detach),
 * -> PT_JOINING (join) or -> PT_EXITED (the exiting thread), by CAS:
 *   - a detached thread frees its own record as it exits;
 *   - an exiting joinable thread publishes PT_EXITED and releases
 *     `done` once; its joiner (or a later detach) takes `done`, then
 *     frees the record.
 * The exiting thread does not touch the record after that release
 * (sp_sema_release touches only the sema's address after adding the
 * unit, as sp_waitgroup_done's release of a waiter that frees the group).
 *
 * Stacks.  A thread's G gets the stack size it asked for (default
 * PTHREAD_STACK_DEFAULT, 8 MiB, Linux's), demand-paged with a guard page
 * below (sp_go_attr), and its own __thread variables.
 *
 * A thread must end by returning or by pthread_exit: a G that leaves
 * by sp_goexit takes its record's exit with it (a joiner waits for
 * ever).  pthread_exit from main is Go's Goexit from main: the other Gs
 * go on, and when none is left the machine reports a deadlock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "posix/pthread_impl.h"
#include "sched/sched.h"
#include <spindle/sched.h>

/* ---- the caller's record, by G slot --------------------------------- */

#define SLOTS       (VM_GSLOT_MAX / VM_GSLOT_SIZE)
#define CHUNK       1024
#define NCHUNKS     ((SLOTS + CHUNK - 1) / CHUNK)

/* Chunks are made on first use and kept; published by CAS (acq_rel,
   pairs with the acquire load of another G of the chunk). */
static struct __pthread **chunks[NCHUNKS];

/* The entry of the calling G's slot; NULL only without memory. */
static struct __pthread **slot_entry(struct g *gp)
{
    size_t i = (size_t)(gp - GTAB);
    struct __pthread ***cp = &chunks[i / CHUNK];
    struct __pthread **c = __atomic_load_n(cp, __ATOMIC_ACQUIRE), **fresh;

    if (!c) {
        fresh = calloc(CHUNK, sizeof *fresh);
        if (!fresh)
            return NULL;
        if (__atomic_compare_exchange_n(cp, &c, fresh, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            c = fresh;
        else
            free(fresh);        /* another G of the chunk made it */
    }
    return &c[i % CHUNK];
}

struct __pthread *pthread_current(void)
{
    struct g *gp = getg();
    struct __pthread **e, *t;

    if (!gp || !(e = slot_entry(gp)))
        return NULL;
    t = *e;
    if (t && t->goid == gp->goid)
        return t;
    /* Stale: only an adopted record outlives its G in the table. */
    if (t) {
        free(t->tsd);
    } else if (!(t = malloc(sizeof *t))) {
        return NULL;
    }
    *t = (struct __pthread){
        .adopted = true, .goid = gp->goid, .join = PT_DETACHED,
        .stacksize = PTHREAD_STACK_DEFAULT,
    };
    *e = t;
    return t;
}

/* ---- life of a thread ------------------------------------------------ */

static void thread_start(void *arg);

/* The one call that makes a thread's G: false if none could be made
   (every big stack in use). */
static bool spawn(struct __pthread *t)
{
    return sp_go_attr(thread_start, t, &(struct sp_go_attr){
                          .stack_size = t->stacksize, .tls = true }) != 0;
}

/* Ends the calling thread t with value v: its key destructors, then its
   record to whoever frees it. */
static __attribute__((noreturn)) void thread_exit(struct __pthread *t, void *v)
{
    struct g *gp = getg();
    struct __pthread **e = slot_entry(gp);
    uint32_t old;

    t->ret = v;
    pthread_tsd_run_destructors(t);
    free(t->tsd);
    t->tsd = NULL;
    if (e && *e == t)
        *e = NULL;
    old = __atomic_load_n(&t->join, __ATOMIC_RELAXED);
    for (;;) {
        if (old == PT_DETACHED) {
            free(t);
            break;
        }
        /* Whoever claims an exited record (join, detach) waits for
           `done` before freeing it: t is ours until the release. */
        if (__atomic_compare_exchange_n(&t->join, &old, PT_EXITED, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            sp_sema_release(&t->done);  /* t may be freed from here on */
            break;
        }
    }
    sp_goexit();
}

static void thread_start(void *arg)
{
    struct __pthread *t = arg;
    struct __pthread **e = slot_entry(getg());

    __atomic_store_n(&t->goid, sp_goid(), __ATOMIC_RELAXED);
    if (e)
        *e = t;
    thread_exit(t, t->start(t->arg));
}

int pthread_create(pthread_t *tp, const pthread_attr_t *attr,
                   void *(*fn)(void *), void *arg)
{
    pthread_attr_t def;
    struct __pthread *t;

    if (!attr) {
        pthread_attr_init(&def);
        attr = &def;
    }
    if (!attr->is_initialized || !fn)
        return EINVAL;
    t = malloc(sizeof *t);
    if (!t)
        return EAGAIN;
    *t = (struct __pthread){
        .start = fn, .arg = arg, .stacksize = attr->stacksize,
        .join = attr->detachstate == PTHREAD_CREATE_DETACHED ? PT_DETACHED
                                                             : PT_JOINABLE,
    };
    *tp = t;                    /* before it runs, as glibc does */
    if (!spawn(t)) {
        free(t);
        return EAGAIN;
    }
    return 0;
}

void pthread_exit(void *v)
{
    struct __pthread *t = pthread_current();
    struct _pthread_cleanup_context *c;

    if (!t)
        sp_goexit();            /* no record, so nothing to run */
    while ((c = t->cleanup)) {
        t->cleanup = c->_previous;
        c->_routine(c->_arg);
    }
    thread_exit(t, v);
}

int pthread_join(pthread_t t, void **ret)
{
    uint32_t old = PT_JOINABLE;

    if (!t)
        return ESRCH;
    if (__atomic_load_n(&t->goid, __ATOMIC_RELAXED) == sp_goid())
        return EDEADLK;
    /* Claim the join: from a running joinable thread, or an exited one
       that nobody detached or joined. */
    while (!__atomic_compare_exchange_n(&t->join, &old, PT_JOINING, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        if (old != PT_JOINABLE && old != PT_EXITED)
            return EINVAL;
    sp_sema_acquire(&t->done);  /* pairs with thread_exit's release */
    if (ret)
        *ret = t->ret;
    free(t);
    return 0;
}

int pthread_detach(pthread_t t)
{
    uint32_t old = PT_JOINABLE;

    if (!t)
        return ESRCH;
    for (;;) {
        if (old == PT_EXITED) {
            /* Exited unjoined: claim it (a racing join may too), and
               free it once its thread has released `done`. */
            if (__atomic_compare_exchange_n(&t->join, &old, PT_DETACHED,
                                            false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED)) {
                sp_sema_acquire(&t->done);
                free(t);
                return 0;
            }
        } else if (old != PT_JOINABLE) {
            return EINVAL;
        } else if (__atomic_compare_exchange_n(&t->join, &old, PT_DETACHED,
                                               false, __ATOMIC_ACQ_REL,
                                               __ATOMIC_RELAXED)) {
            return 0;
        }
    }
}

pthread_t pthread_self(void)
{
    return pthread_current();
}

int pthread_equal(pthread_t a, pthread_t b)
{
    return a == b;
}

/* ---- cleanup handlers (run by pthread_exit) --------------------------- */

void _pthread_cleanup_push(struct _pthread_cleanup_context *c,
                           void (*fn)(void *), void *arg)
{
    struct __pthread *t = pthread_current();

    *c = (struct _pthread_cleanup_context){ ._routine = fn, ._arg = arg };
    if (t) {
        c->_previous = t->cleanup;
        t->cleanup = c;
    }
}

void _pthread_cleanup_pop(struct _pthread_cleanup_context *c, int execute)
{
    struct __pthread *t = pthread_current();

    if (t && t->cleanup == c)
        t->cleanup = c->_previous;
    if (execute)
        c->_routine(c->_arg);
}
