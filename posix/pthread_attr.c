/*
 * pthread_attr.c - thread attributes, names, and the calls Spindle
 * accepts without giving them an effect.
 *
 * Every thread is a G on the one scheduler, so a thread has no
 * scheduling policy, priority or contention scope of its own: those
 * calls record what they are given (so a get returns what a set stored)
 * and change nothing.  Nor an affinity: a set naming a core there is is
 * accepted, and every thread's reads as every core, where it runs.  There are no signals between threads
 * (pthread_sigmask is the process's mask, signal.c; pthread_kill accepts
 * signal 0, the existence check, alone), no cancellation (pthread_cancel is ENOSYS,
 * pthread_testcancel does nothing; the cancel state and type are
 * recorded), and no fork (pthread_atfork records nothing and succeeds).
 *
 * Stacks: a G always runs on a stack of the scheduler's (demand-paged,
 * with a guard page), never on memory of the caller's, so
 * pthread_attr_setstack and setstackaddr fail with EINVAL; the stack
 * size is kept (pthread.c says how it is used), and the guard size is
 * recorded, the guard being the scheduler's.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "posix/pthread_impl.h"
#include <spindle/cpu.h>
#include <spindle/sched.h>

/* Stack sizes a thread may ask for: PTHREAD_STACK_MIN to the largest
   stack a G may have. */
#define STACK_MAX SP_GO_STACK_MAX

/* ---- attributes ------------------------------------------------------- */

int pthread_attr_init(pthread_attr_t *a)
{
    *a = (pthread_attr_t){
        .is_initialized = 1,
        .detachstate = PTHREAD_CREATE_JOINABLE,
        .stacksize = PTHREAD_STACK_DEFAULT,
        .guardsize = 4096,
        .contentionscope = PTHREAD_SCOPE_SYSTEM,
        .inheritsched = PTHREAD_INHERIT_SCHED,
        .schedpolicy = SCHED_OTHER,
    };
    return 0;
}

int pthread_attr_destroy(pthread_attr_t *a)
{
    a->is_initialized = 0;
    return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *a, int s)
{
    if (s != PTHREAD_CREATE_JOINABLE && s != PTHREAD_CREATE_DETACHED)
        return EINVAL;
    a->detachstate = s;
    return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *a, int *s)
{
    *s = a->detachstate;
    return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *a, size_t n)
{
    if (n < PTHREAD_STACK_MIN || n > STACK_MAX)
        return EINVAL;
    a->stacksize = n;
    return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *n)
{
    *n = a->stacksize;
    return 0;
}

int pthread_attr_setguardsize(pthread_attr_t *a, size_t n)
{
    a->guardsize = n;
    return 0;
}

int pthread_attr_getguardsize(const pthread_attr_t *a, size_t *n)
{
    *n = a->guardsize;
    return 0;
}

int pthread_attr_setstack(pthread_attr_t *a, void *addr, size_t n)
{
    return EINVAL;              /* a G runs on the scheduler's stacks */
}

int pthread_attr_getstack(const pthread_attr_t *a, void **addr, size_t *n)
{
    *addr = NULL;
    *n = a->stacksize;
    return 0;
}

int pthread_attr_setstackaddr(pthread_attr_t *a, void *addr)
{
    return EINVAL;
}

int pthread_attr_getstackaddr(const pthread_attr_t *a, void **addr)
{
    *addr = NULL;
    return 0;
}

int pthread_attr_setscope(pthread_attr_t *a, int s)
{
    if (s != PTHREAD_SCOPE_SYSTEM && s != PTHREAD_SCOPE_PROCESS)
        return EINVAL;
    a->contentionscope = s;
    return 0;
}

int pthread_attr_getscope(const pthread_attr_t *a, int *s)
{
    *s = a->contentionscope;
    return 0;
}

int pthread_attr_setinheritsched(pthread_attr_t *a, int s)
{
    if (s != PTHREAD_INHERIT_SCHED && s != PTHREAD_EXPLICIT_SCHED)
        return EINVAL;
    a->inheritsched = s;
    return 0;
}

int pthread_attr_getinheritsched(const pthread_attr_t *a, int *s)
{
    *s = a->inheritsched;
    return 0;
}

int pthread_attr_setschedpolicy(pthread_attr_t *a, int p)
{
    if (p != SCHED_OTHER && p != SCHED_FIFO && p != SCHED_RR)
        return EINVAL;
    a->schedpolicy = p;
    return 0;
}

int pthread_attr_getschedpolicy(const pthread_attr_t *a, int *p)
{
    *p = a->schedpolicy;
    return 0;
}

int pthread_attr_setschedparam(pthread_attr_t *a, const struct sched_param *p)
{
    a->schedparam = *p;
    return 0;
}

int pthread_attr_getschedparam(const pthread_attr_t *a, struct sched_param *p)
{
    *p = a->schedparam;
    return 0;
}

/* ---- names ------------------------------------------------------------ */

/* name[] of every record: a name is set and read whole. */
static sp_mutex name_lock = SP_MUTEX_INIT;

/* Linux's rule: at most 15 characters, else ERANGE. */
int pthread_setname_np(pthread_t t, const char *name)
{
    size_t n = strlen(name);

    if (!t)
        return ESRCH;
    if (n >= sizeof t->name)
        return ERANGE;
    sp_mutex_lock(&name_lock);
    memcpy(t->name, name, n + 1);
    sp_mutex_unlock(&name_lock);
    return 0;
}

int pthread_getname_np(pthread_t t, char *buf, size_t len)
{
    int err = 0;

    if (!t)
        return ESRCH;
    sp_mutex_lock(&name_lock);
    if (strlen(t->name) >= len)
        err = ERANGE;
    else
        strcpy(buf, t->name);
    sp_mutex_unlock(&name_lock);
    return err;
}

/* ---- accepted, recorded, no effect ----------------------------------- */

/* ---- affinity: accepted, every thread runs on every core -------------- */

/* The set of the cores there are, into set (size bytes); EINVAL if it
   cannot hold them. */
static int all_cores(size_t size, cpu_set_t *set)
{
    if (!set || size < sizeof(cpu_set_t))
        return EINVAL;
    memset(set, 0, size);
    for (int c = 0; c < sp_ncpu(); c++)
        CPU_SET(c, set);
    return 0;
}

/* A set naming at least one core there is: 0, else EINVAL. */
static int usable(size_t size, const cpu_set_t *set)
{
    if (!set || size < sizeof(cpu_set_t))
        return EINVAL;
    for (int c = 0; c < sp_ncpu(); c++)
        if (CPU_ISSET(c, set))
            return 0;
    return EINVAL;
}

/* A G runs wherever the scheduler puts it (work stealing): a set is
   checked and accepted, and a thread's affinity reads as every core. */
int pthread_setaffinity_np(pthread_t t, size_t size, const cpu_set_t *set)
{
    return t ? usable(size, set) : ESRCH;
}

int pthread_getaffinity_np(pthread_t t, size_t size, cpu_set_t *set)
{
    return t ? all_cores(size, set) : ESRCH;
}

int pthread_attr_setaffinity_np(pthread_attr_t *a, size_t size,
                                const cpu_set_t *set)
{
    return usable(size, set);
}

int pthread_attr_getaffinity_np(const pthread_attr_t *a, size_t size,
                                cpu_set_t *set)
{
    return all_cores(size, set);
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    int e = pid == 0 || pid == getpid() ? usable(size, set) : ESRCH;

    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    int e = pid == 0 || pid == getpid() ? all_cores(size, set) : ESRCH;

    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

int sched_getcpu(void)
{
    return sp_cpu_id();
}

int sched_yield(void)
{
    sp_yield();
    return 0;
}

void pthread_yield(void)
{
    sp_yield();
}

int pthread_getschedparam(pthread_t t, int *policy, struct sched_param *p)
{
    *policy = SCHED_OTHER;
    *p = (struct sched_param){ 0 };
    return 0;
}

int pthread_setschedparam(pthread_t t, int policy,
                          const struct sched_param *p)
{
    return 0;
}

int pthread_setschedprio(pthread_t t, int prio)
{
    return 0;
}

static int concurrency;

int pthread_setconcurrency(int n)
{
    if (n < 0)
        return EINVAL;
    __atomic_store_n(&concurrency, n, __ATOMIC_RELAXED);
    return 0;
}

int pthread_getconcurrency(void)
{
    return __atomic_load_n(&concurrency, __ATOMIC_RELAXED);
}

int pthread_kill(pthread_t t, int sig)
{
    if (!t)
        return ESRCH;
    if (sig < 0 || sig >= NSIG)
        return EINVAL;
    return sig == 0 ? 0 : ENOTSUP;  /* no signals between threads */
}

int pthread_cancel(pthread_t t)
{
    return ENOSYS;
}

void pthread_testcancel(void)
{
}

int pthread_setcancelstate(int state, int *old)
{
    struct __pthread *t = pthread_current();

    if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
        return EINVAL;
    if (!t)
        return EAGAIN;
    if (old)
        *old = t->cancelstate;
    t->cancelstate = state;
    return 0;
}

int pthread_setcanceltype(int type, int *old)
{
    struct __pthread *t = pthread_current();

    if (type != PTHREAD_CANCEL_DEFERRED &&
        type != PTHREAD_CANCEL_ASYNCHRONOUS)
        return EINVAL;
    if (!t)
        return EAGAIN;
    if (old)
        *old = t->canceltype;
    t->canceltype = type;
    return 0;
}

int pthread_atfork(void (*prepare)(void), void (*parent)(void),
                   void (*child)(void))
{
    return 0;                   /* there is no fork */
}

int pthread_getcpuclockid(pthread_t t, clockid_t *id)
{
    return ENOENT;              /* no per-thread CPU-time clock */
}
