/*
 * newlib.c - what newlib needs from the platform: its system calls, its
 * locks (newlib is built with --enable-newlib-retargetable-locking, so
 * every lock it takes is one of ours), and __getreent() (built with
 * __DYNAMIC_REENT__, so errno and the rest of newlib's state are per G;
 * see gfree.c for how stdio is shared).
 *
 * The descriptor calls (read, write, close, fstat, isatty, lseek) are
 * fdcalls.c's, on the descriptor table of fd.h; the calls on paths
 * (open, stat, unlink, ...) are the RAM file system's (fscalls.c).
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
#include <spindle/sync.h>

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
 * newlib's locks are of two kinds.
 *
 * malloc's is a recursive spinlock: the kernel allocates in every
 * context, under spinlocks and with interrupts off (the network stack's
 * callbacks), so it may never park.  Interrupts stay off while it is
 * held, saved by the outermost acquire, so its holder stays on its core
 * and the owner is that core.
 *
 * Every other one (each stream's, the stream list's, atexit's, ...) is
 * a recursive G mutex: stdio holds a stream's lock across the write of a
 * FILE on a pipe or socket, which may park, and exit() flushes every
 * stream under the list's.  A G that finds it taken parks; the owner is
 * the G, which may be preempted or moved while it holds it.  Code off
 * any G, or holding a spinlock, cannot park: it takes the lock with a
 * busy trylock loop instead, its core standing as the owner (the kernel
 * itself prints with printk, so this is rare).
 */
struct __lock {
    bool sleeps;                /* a G mutex (else a spinlock); fixed */
    struct spinlock sl;         /* a spinlock's */
    unsigned long flags;        /* a spinlock's outermost saved state */
    sp_mutex mu;                /* a G mutex's */
    uintptr_t owner;            /* a struct g *, or cpu id + 1 off a G;
                                   0 if free; atomic */
    int depth;                  /* the owner's */
};

/* Rank: malloc's lock is taken under the others (lockrank.h). */
#define NEWLIB_SPINLOCK(name) \
    struct __lock name = { false, SPINLOCK_INIT(LOCK_MALLOC), 0, SP_MUTEX_INIT, 0, 0 }
#define NEWLIB_MUTEX(name) \
    struct __lock name = { true, SPINLOCK_INIT(LOCK_LIBC), 0, SP_MUTEX_INIT, 0, 0 }

NEWLIB_MUTEX(__lock___sinit_recursive_mutex);
NEWLIB_MUTEX(__lock___sfp_recursive_mutex);
NEWLIB_MUTEX(__lock___atexit_recursive_mutex);
NEWLIB_MUTEX(__lock___at_quick_exit_mutex);
NEWLIB_SPINLOCK(__lock___malloc_recursive_mutex);
NEWLIB_MUTEX(__lock___env_recursive_mutex);
NEWLIB_MUTEX(__lock___tz_mutex);
NEWLIB_MUTEX(__lock___dd_hash_mutex);
NEWLIB_MUTEX(__lock___arc4random_mutex);

void __retarget_lock_init(_LOCK_T *lock)
{
    struct __lock *l = calloc(1, sizeof *l);

    if (!l)
        panic("__retarget_lock_init: out of memory");
    l->sleeps = true;           /* a stream's */
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

/* Who takes a G mutex kind of lock now: the G, or (when it may not park)
   its core; *can_park says which.  Called with interrupts off (so the
   caller stays on its core); irqs_on: whether the caller had them on. */
static uintptr_t mutex_taker(bool irqs_on, bool *can_park)
{
    struct g *gp = getg();

    *can_park = gp && irqs_on && this_cpu()->nlocks == 0;
    return *can_park ? (uintptr_t)gp : (uintptr_t)cpu_id() + 1;
}

/* A taker that cannot park: spins for the G mutex.  Its holder is a G
   that runs on (or is queued for) some core; one queued behind this very
   core would never come back, so a wait of seconds is a broken rule
   (stdio used under a spinlock or off any G while a G holds the stream). */
static void spin_for_mutex(struct __lock *l)
{
    for (unsigned long i = 0; !sp_mutex_trylock(&l->mu); i++) {
        if (i == 1UL << 30)
            panic("newlib lock: taken off a G or under a spinlock while "
                  "goroutine holding it cannot run (stdio there: use "
                  "printk)");
        arch_cpu_relax();
    }
}

/* A taker that may park: parks while a G holds the lock, but spins
   while code off any G does (it cannot park, so it lets go soon): a G
   parked on a holder that is no G would look deadlocked to the
   scheduler when every other G waits too (sp_on_each_cpu's callers).
   An owner of 1..ncpu is a core; 0 is free or being handed over. */
static void lock_as_g(struct __lock *l)
{
    while (!sp_mutex_trylock(&l->mu)) {
        uintptr_t o = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);

        if (o > (uintptr_t)ncpu) {
            sp_mutex_lock(&l->mu);
            return;
        }
        arch_cpu_relax();
    }
}

/*
 * Spinlock: interrupts go off before the owner check: with them on, the
 * G could be preempted between reading its core and taking the lock, and
 * move.
 */
void __retarget_lock_acquire_recursive(_LOCK_T l)
{
    unsigned long f;
    uintptr_t me;
    bool can_park;

    if (l->sleeps) {
        bool on = arch_irqs_enabled();

        f = arch_irq_save();
        me = mutex_taker(on, &can_park);
        arch_irq_restore(f);
        /* Only the owner stores its own id, so a match is current. */
        if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
            l->depth++;
            return;
        }
        if (can_park)
            lock_as_g(l);
        else
            spin_for_mutex(l);
        __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
        l->depth = 1;
        return;
    }
    f = arch_irq_save();
    me = (uintptr_t)cpu_id() + 1;
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
    if (l->depth <= 0)
        panic("newlib lock: released while free");
    if (--l->depth)
        return;
    __atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
    if (l->sleeps)
        sp_mutex_unlock(&l->mu);
    else
        spin_unlock(&l->sl, l->flags);
}

int __retarget_lock_try_acquire_recursive(_LOCK_T l)
{
    bool on = arch_irqs_enabled(), can_park, mine;
    unsigned long f = arch_irq_save();

    if (l->sleeps)
        mine = __atomic_load_n(&l->owner, __ATOMIC_RELAXED) ==
               mutex_taker(on, &can_park);
    else
        mine = l->owner == (uintptr_t)cpu_id() + 1;
    arch_irq_restore(f);
    if (mine) {
        l->depth++;
        return 1;
    }
    if (l->sleeps) {
        if (!sp_mutex_trylock(&l->mu))
            return 0;
        f = arch_irq_save();
        __atomic_store_n(&l->owner, mutex_taker(on, &can_park),
                         __ATOMIC_RELAXED);
        arch_irq_restore(f);
        l->depth = 1;
        return 1;
    }
    if (spin_is_locked(&l->sl))
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

/* The machine keeps UTC: a struct timezone asked for is zero minutes
   west, with no daylight saving. */
int _gettimeofday(struct timeval *tv, void *tz)
{
    uint64_t us = sp_walltime() / 1000;

    if (tz)
        *(struct timezone *)tz = (struct timezone){ 0, 0 };
    tv->tv_sec = us / 1000000;
    tv->tv_usec = us % 1000000;
    return 0;
}

void _exit(int status)
{
    arch_exit(status);
}
