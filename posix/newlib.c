/*
 * newlib.c - what newlib needs from the platform: its system calls, its
 * locks (newlib is built with --enable-newlib-retargetable-locking, so
 * every lock it takes is one of ours), and __getreent() (built with
 * __DYNAMIC_REENT__, so errno and the rest of newlib's state are per G;
 * see gfree.c for how stdio is shared).
 *
 * The descriptor calls (read, write, close, fstat, isatty, lseek) are
 * fdcalls.c's, on the descriptor table of fd.h.  There is no file
 * system: open is ENOENT.
 */
#include <errno.h>
#include <reent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/lock.h>
#include <sys/stat.h>
#include <sys/time.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "sched/sched.h"
#include <spindle/time.h>
#include "kernel/spinlock.h"
#include "kernel/vm.h"

#undef errno
extern int errno;

/* ---- Reentrancy ---------------------------------------------------- */

static struct _reent *g_reent_init(struct g *gp);

/* The running G's state; off any G (boot, scheduler), the core's. */
struct _reent *__getreent(void)
{
    struct g *gp = getg();
    struct _reent *r;

    if (gp)
        return gp->reent ? gp->reent : g_reent_init(gp);
    /* Off any G: this core's scheduler or boot stack, which never moves
       to another core. */
    r = this_cpu()->reent;
    return r ? r : _impure_ptr;
}

static void flush_std(void)
{
    fflush(stdout);
    fflush(stderr);
}

/* A fresh state whose stdio is the global state's streams (whose locks
   serialize them), so that console lines from every G and core come out
   whole through one stdout buffer and nothing is allocated for stdio. */
static void reent_init(struct _reent *r)
{
    _REENT_INIT_PTR(r);
    r->_stdin = _GLOBAL_REENT->_stdin;
    r->_stdout = _GLOBAL_REENT->_stdout;
    r->_stderr = _GLOBAL_REENT->_stderr;
    r->__sdidinit = 1;
}

/* A G's first call: its state goes at the top of its slot, kept by the
   later Gs of the slot.  Until then the G holds none, which is what lets
   a parked G that never used libc give back all of its stack page. */
static __attribute__((noinline)) struct _reent *g_reent_init(struct g *gp)
{
    struct _reent *r = gslot_reent(g_slot(gp));

    reent_init(r);
    gp->reent = r;
    return r;
}

/* A core's state for code off any G. */
static struct _reent *new_reent(void)
{
    struct _reent *r = malloc(sizeof *r);

    if (!r)
        panic("newlib_init: no memory for newlib state");
    reent_init(r);
    return r;
}

/* newlib's stdio set-up of a state (stdin, stdout, stderr and locks). */
void __sinit(struct _reent *r);

/*
 * Gives every core its own newlib state for code off any G; the boot core
 * keeps the global one.  The global state's stdio is set up now, because
 * every G's state points at its streams (gfree.c).
 */
void newlib_init(void)
{
    __sinit(_GLOBAL_REENT);
    cpus[0]->reent = _impure_ptr;
    for (int i = 1; i < ncpu; i++)
        cpus[i]->reent = new_reent();
    atexit(flush_std);
}

/* ---- Locks --------------------------------------------------------- */

/*
 * A recursive spinlock.  Interrupts stay off while it is held (as
 * with every spinlock), saved by the outermost acquire.
 */
struct __lock {
    struct spinlock sl;
    int owner;                  /* cpu id + 1 of the holder, 0 if free */
    int depth;
    unsigned long flags;
};

/* Rank: malloc's lock is taken under the others (lockrank.h). */
#define NEWLIB_LOCK(name, rank) \
    struct __lock name = { SPINLOCK_INIT(rank), 0, 0, 0 }

NEWLIB_LOCK(__lock___sinit_recursive_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___sfp_recursive_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___atexit_recursive_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___at_quick_exit_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___malloc_recursive_mutex, LOCK_MALLOC);
NEWLIB_LOCK(__lock___env_recursive_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___tz_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___dd_hash_mutex, LOCK_LIBC);
NEWLIB_LOCK(__lock___arc4random_mutex, LOCK_LIBC);

void __retarget_lock_init(_LOCK_T *lock)
{
    struct __lock *l = calloc(1, sizeof *l);

    if (!l)
        panic("__retarget_lock_init: out of memory");
    l->sl.rank = LOCK_LIBC;   /* a stream's */
    *lock = l;
}

void __retarget_lock_init_recursive(_LOCK_T *lock)
{
    __retarget_lock_init(lock);
}

void __retarget_lock_close(_LOCK_T lock)
{
    free(lock);
}

void __retarget_lock_close_recursive(_LOCK_T lock)
{
    free(lock);
}

/*
 * Interrupts go off before the owner check: with them on, the G could be
 * preempted between reading its core and taking the lock, and move.
 */
void __retarget_lock_acquire_recursive(_LOCK_T l)
{
    unsigned long f = arch_irq_save();
    int me = cpu_id() + 1;

    if (l->owner == me) {
        l->depth++;
        arch_irq_restore(f);
        return;
    }
    spin_lock(&l->sl);
    l->flags = f;               /* the state to restore at the last release */
    l->owner = me;
    l->depth = 1;
}

void __retarget_lock_release_recursive(_LOCK_T l)
{
    if (l->owner != cpu_id() + 1)
        panic("newlib lock: released by a core that does not hold it");
    if (--l->depth)
        return;
    l->owner = 0;
    spin_unlock(&l->sl, l->flags);
}

int __retarget_lock_try_acquire_recursive(_LOCK_T l)
{
    unsigned long f = arch_irq_save();
    bool mine = l->owner == cpu_id() + 1;

    arch_irq_restore(f);
    if (!mine && spin_is_locked(&l->sl))
        return 0;
    __retarget_lock_acquire_recursive(l);
    return 1;
}

void __retarget_lock_acquire(_LOCK_T l)
{
    __retarget_lock_acquire_recursive(l);
}

void __retarget_lock_release(_LOCK_T l)
{
    __retarget_lock_release_recursive(l);
}

int __retarget_lock_try_acquire(_LOCK_T l)
{
    return __retarget_lock_try_acquire_recursive(l);
}

/* ---- System calls -------------------------------------------------- */

int _open(const char *path, int flags, int mode)
{
    (void)path;
    (void)flags;
    (void)mode;
    errno = *__errno() = ENOENT;
    return -1;
}

void *_sbrk(ptrdiff_t incr)
{
    void *p = vm_heap_grow(incr);

    if (!p) {
        errno = ENOMEM;
        return (void *)-1;
    }
    return p;
}

int _getpid(void)
{
    return 1;
}

int _kill(int pid, int sig)
{
    (void)pid;
    panic("abort: signal %d raised (abort(), or a failed assert)", sig);
}

int _gettimeofday(struct timeval *tv, void *tz)
{
    uint64_t us = sp_walltime() / 1000;

    (void)tz;
    tv->tv_sec = us / 1000000;
    tv->tv_usec = us % 1000000;
    return 0;
}

void _exit(int status)
{
    arch_exit(status);
}
