/*
 * sys/_pthreadtypes.h - the POSIX thread types of Spindle's POSIX layer
 * (posix/pthread*.c), found before newlib's own, which makes every
 * object a 32-bit handle to something allocated later.
 *
 * Here every object holds its whole state inline, built of Spindle's
 * sync objects (<spindle/sync.h>), so PTHREAD_MUTEX_INITIALIZER,
 * PTHREAD_COND_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER and
 * PTHREAD_ONCE_INIT are static initializers, zeroed memory is an
 * initialized normal mutex, condition variable, rwlock or once, and no
 * init or destroy call allocates or frees.  A thread (pthread_t) is a
 * pointer to its record in posix/pthread.c.
 *
 * The fields are private to posix/; the names newlib's <pthread.h>,
 * <sys/types.h>, <sched.h> and <signal.h> expect are all kept.
 */
#ifndef _SYS__PTHREADTYPES_H_
#define _SYS__PTHREADTYPES_H_

#if defined(_POSIX_THREADS) || __POSIX_VISIBLE >= 199506

#include <stddef.h>
#include <sys/sched.h>
#include <sys/_types.h>
#include <spindle/sync.h>

/* A thread: its record (posix/pthread.c), valid until it is joined, or
   until it exits if detached. */
typedef struct __pthread *pthread_t;

#define PTHREAD_SCOPE_PROCESS   0
#define PTHREAD_SCOPE_SYSTEM    1

#define PTHREAD_INHERIT_SCHED   1
#define PTHREAD_EXPLICIT_SCHED  2

#define PTHREAD_CREATE_DETACHED 0
#define PTHREAD_CREATE_JOINABLE 1

/* The smallest stack a thread may ask for, and its default: Linux's. */
#define PTHREAD_STACK_MIN       16384
#define PTHREAD_STACK_DEFAULT   (8UL << 20)

/* Keys a program may hold at once, and destructor rounds at exit. */
#define PTHREAD_KEYS_MAX                128
#define PTHREAD_DESTRUCTOR_ITERATIONS   4

typedef struct {
    int is_initialized;
    int detachstate;            /* PTHREAD_CREATE_* */
    size_t stacksize;           /* bytes; PTHREAD_STACK_DEFAULT */
    size_t guardsize;           /* recorded; the guard is the scheduler's */
    int contentionscope;        /* recorded: every thread is a G */
    int inheritsched;
    int schedpolicy;
    struct sched_param schedparam;
} pthread_attr_t;

/* Every object is private to the machine: there is one process. */
#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED  1

/* Accepted; a G has no priority to inherit or raise. */
#define PTHREAD_PRIO_NONE       0
#define PTHREAD_PRIO_INHERIT    1
#define PTHREAD_PRIO_PROTECT    2

#define PTHREAD_MUTEX_NORMAL     0
#define PTHREAD_MUTEX_RECURSIVE  1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_DEFAULT    3      /* a normal mutex */

/* Locks taken by one thread that a recursive mutex counts (EAGAIN). */
#define PTHREAD_MUTEX_DEPTH_MAX  0x7fffffff

typedef struct {
    sp_mutex m;                 /* the lock itself */
    int kind;                   /* PTHREAD_MUTEX_*; fixed by init */
    int depth;                  /* recursive: locks held; owner only */
    __uint64_t owner;           /* recursive, errorcheck: the holder's G
                                   id, 0 if none; atomic */
    sp_cond tq;                 /* pthread_mutex_timedlock's waiters
                                   (posix/pthread_sync.c) */
} pthread_mutex_t;

typedef struct {
    int is_initialized;
    int type;                   /* PTHREAD_MUTEX_* */
    int process_shared;         /* recorded */
    int protocol;               /* recorded */
    int prio_ceiling;           /* recorded */
} pthread_mutexattr_t;

#define _PTHREAD_MUTEX_INIT_KIND(k) \
    { SP_MUTEX_INIT, (k), 0, 0, SP_COND_INIT }
#define _PTHREAD_MUTEX_INITIALIZER _PTHREAD_MUTEX_INIT_KIND(PTHREAD_MUTEX_NORMAL)
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP \
    _PTHREAD_MUTEX_INIT_KIND(PTHREAD_MUTEX_RECURSIVE)
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP \
    _PTHREAD_MUTEX_INIT_KIND(PTHREAD_MUTEX_ERRORCHECK)
#define PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP _PTHREAD_MUTEX_INITIALIZER

typedef struct {
    sp_cond c;
    int clock;                  /* clockid_t of timedwait's abstime;
                                   0 is CLOCK_REALTIME's stand-in */
} pthread_cond_t;

#define _PTHREAD_COND_INITIALIZER { SP_COND_INIT, 0 }

typedef struct {
    int is_initialized;
    int clock;                  /* clockid_t (pthread_condattr_setclock) */
    int process_shared;         /* recorded */
} pthread_condattr_t;

typedef __uint32_t pthread_key_t;

typedef sp_once pthread_once_t;

#define _PTHREAD_ONCE_INIT SP_ONCE_INIT

#endif /* defined(_POSIX_THREADS) || __POSIX_VISIBLE >= 199506 */

#if defined(_POSIX_BARRIERS)
typedef struct {
    sp_mutex m;                 /* guards the rest */
    sp_cond c;                  /* the waiters of this round */
    unsigned count;             /* threads a round takes; fixed by init */
    unsigned arrived;           /* threads in this round so far */
    unsigned round;             /* rounds completed */
} pthread_barrier_t;

typedef struct {
    int is_initialized;
    int process_shared;         /* recorded */
} pthread_barrierattr_t;
#endif

#if defined(_POSIX_SPIN_LOCKS)
typedef struct {
    int locked;                 /* CAS 0->1, store-release 0 */
} pthread_spinlock_t;
#endif

#if defined(_POSIX_READER_WRITER_LOCKS)
typedef struct {
    sp_mutex m;                 /* guards the rest; held briefly */
    sp_cond readers;            /* readers waiting for the writer(s) */
    sp_cond writers;            /* writers waiting for everyone */
    int nreaders;               /* readers inside */
    int wwaiting;               /* writers waiting: new readers wait */
    __uint64_t writer;          /* the writer inside: its G id, or 0 */
} pthread_rwlock_t;

#define _PTHREAD_RWLOCK_INITIALIZER \
    { SP_MUTEX_INIT, SP_COND_INIT, SP_COND_INIT, 0, 0, 0 }

typedef struct {
    int is_initialized;
    int process_shared;         /* recorded */
} pthread_rwlockattr_t;
#endif

#endif /* ! _SYS__PTHREADTYPES_H_ */
