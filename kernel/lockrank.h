/*
 * lockrank.h - every class of spinlock, in the one order they may nest.
 *
 * A core may take a lock only while each lock it already holds has a
 * lower rank (comes earlier in this list), or the same rank when the
 * class says it nests with itself (several channels locked by select in
 * address order, newlib's recursive locks).  Two cores that follow the
 * order cannot deadlock on spinlocks.
 *
 * The hosted sanitizer builds (SP_LOCKRANK) check it on every
 * acquisition: an out-of-order one panics, naming the lock taken and the
 * lock held (spinlock.c).  Other builds pay nothing.  A new spinlock
 * gets its rank here, where the locks it is taken under and takes end up
 * around it; the comment says what it nests with.
 */
#ifndef KERNEL_LOCKRANK_H
#define KERNEL_LOCKRANK_H

#include <stdbool.h>

/*
 * Under newlib's own locks (atexit, stdio streams) newlib calls out:
 * exit handlers, a FILE's write into a socket.  Under the net stack
 * lwIP's callbacks take polldescs, ready Gs, reset timers and allocate.
 * printk takes the console from anywhere.  A G's stack grows by page
 * faults wherever it runs, and the fault handler takes vm, then mem:
 * they come last, and code that takes them probes its stack first so
 * that it cannot fault while holding them (vm.h).
 */
#define LOCKRANKS(X)                                                    \
    /* rank             name           nests with itself */            \
    X(LOCK_TEST,        "test",        true)  /* a test app's own */    \
    X(LOCK_LIBC,        "newlib",      true)  /* recursive ones nest */ \
    X(LOCK_STACK,       "net stack",   true)  /* by index, 0 first */  \
    X(LOCK_LISTENER,    "listener",    false) /* its accept queue */   \
    X(LOCK_FILE_WATCH,  "file watch",  false) /* a file's watchers */  \
    X(LOCK_EPOLL,       "epoll",       false) /* an epoll's items */   \
    X(LOCK_FDS,         "fds",         false) /* the fd table */       \
    X(LOCK_CHAN,        "chan",        true)  /* select: by address */  \
    X(LOCK_SEMAROOT,    "semaroot",    false)                          \
    X(LOCK_POLLDESC,    "polldesc",    false)                          \
    X(LOCK_TIMERS,      "timers",      false) /* a P's timer heap */    \
    X(LOCK_WAKEQ,       "wakeq",       false) /* a P's ready queue */   \
    X(LOCK_SCHED,       "sched",       false) /* global queue, idle */  \
    X(LOCK_ALLG,        "allg",        false)                          \
    X(LOCK_GFREE,       "gfree",       false)                          \
    X(LOCK_MALLOC,      "malloc",      true)  /* newlib's, recursive */ \
    X(LOCK_IRQ,         "irq",         false)                          \
    X(LOCK_ITS,         "its",         false) /* ITS command queue */  \
    X(LOCK_CYCLE_SYNC,  "cycle sync",  false)                          \
    X(LOCK_CONSOLE,     "console",     false)                          \
    X(LOCK_VM,          "vm",          false)                          \
    X(LOCK_MEM,         "mem",         false)

enum lockrank {
#define LOCKRANK_ENUM(rank, name, self) rank,
    LOCKRANKS(LOCKRANK_ENUM)
#undef LOCKRANK_ENUM
    NLOCKRANKS
};

/* The class's name, for panics and reports. */
const char *lockrank_name(enum lockrank r);

/* True if a lock of rank `r` may be taken while one of rank `held` is. */
bool lockrank_may_nest(enum lockrank held, enum lockrank r);

#endif
