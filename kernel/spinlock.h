/*
 * spinlock.h - test-and-test-and-set spinlocks that also turn interrupts
 * off, so a lock taken in an interrupt handler cannot deadlock against
 * the same core.
 *
 * Not ticket locks: under QEMU (and any hypervisor) a core is a host
 * thread that can be descheduled at any time.  A ticket lock hands the
 * lock to the next waiter in line even if that waiter's thread is not
 * running, and every other core then waits out a host time slice; with 8
 * vCPUs on 2 host cores that made a contended counter 1000x slower.  A
 * TTAS lock goes to whichever core is running when it is released.
 * Starvation is bounded in practice by the short hold times.
 *
 * Why interrupts off: a handler on this core that wanted the same lock
 * would spin forever on a holder that cannot run.  Why wait on a plain
 * load before the CAS: waiting cores then share the line read-only
 * instead of bouncing it with failed CASes.  Why release is a
 * store-release and not a plain store: the critical section's stores must
 * be visible before the next owner's acquiring CAS sees the lock free.
 *
 * Every lock has a rank, its class in lockrank.h, which orders them: a
 * core takes a lock only while the ones it holds rank lower.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/lockrank.h"

struct spinlock {
    int locked;                 /* CAS 0->1 by lockers, store-release 0 */
    int cpu;                    /* holder's cpu id + 1, 0 when free */
    enum lockrank rank;         /* its class; fixed at initialization */
};

#define SPINLOCK_INIT(rank) { 0, 0, (rank) }

/* True if somebody holds l right now (a hint; it may change at once). */
static inline bool spin_is_locked(const struct spinlock *l)
{
    return __atomic_load_n(&l->locked, __ATOMIC_RELAXED);
}

/* The out-of-line halves of spin_lock: a lock this core already holds
   (a panic), and waiting for a lock another core holds. */
__attribute__((noreturn)) void spin_lock_self(struct spinlock *l);
void spin_lock_wait(struct spinlock *l);
__attribute__((noreturn)) void spin_release_unheld(struct spinlock *l);

/*
 * The lock-order checker (SP_LOCKRANK builds): lockrank_check panics if
 * this core holds a lock that l may not be taken under; lockrank_push
 * and lockrank_pop count the core's held locks by rank.
 */
#ifdef SP_LOCKRANK
void lockrank_check(struct cpu *c, const struct spinlock *l);
void lockrank_push(struct cpu *c, const struct spinlock *l);
void lockrank_pop(struct cpu *c, const struct spinlock *l);
#else
#define lockrank_check(c, l) ((void)(c), (void)(l))
#define lockrank_push(c, l) ((void)(c), (void)(l))
#define lockrank_pop(c, l) ((void)(c), (void)(l))
#endif

/*
 * Returns the interrupt state to hand back to spin_unlock.  Inline: the
 * uncontended lock and unlock are a few instructions, and every channel
 * hand-off takes two (under TCG each call and return is a translated
 * block of its own).
 */
static inline __attribute__((always_inline)) unsigned long
spin_lock(struct spinlock *l)
{
    unsigned long flags = arch_irq_save();
    struct cpu *c = this_cpu();
    int free = 0;

    /* Relaxed atomic: other cores write l->cpu while we look; only a
       value this core wrote itself can equal its own id. */
    if (__atomic_load_n(&l->cpu, __ATOMIC_RELAXED) == c->id + 1)
        spin_lock_self(l);
    lockrank_check(c, l);       /* before waiting: report, not deadlock */
    /* Pairs with the store-release in spin_release. */
    if (!__atomic_compare_exchange_n(&l->locked, &free, 1, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        spin_lock_wait(l);
    __atomic_store_n(&l->cpu, c->id + 1, __ATOMIC_RELAXED);
    lockrank_push(c, l);
    c->nlocks++;
    return flags;
}

/*
 * spin_unlock without the interrupt state: they stay off, and the caller
 * hands spin_lock's flags to arch_irq_restore once it is done with what
 * must follow the unlock (readying a G, say).  On aarch64 under QEMU's
 * TCG every interrupt enable ends a translated block, so a hand-off that
 * enables them once instead of twice is measurably cheaper (x86_64 masks
 * them in software, where enabling is a store).
 */
static inline __attribute__((always_inline)) void
spin_release(struct spinlock *l)
{
    struct cpu *c = this_cpu();

    if (__atomic_load_n(&l->cpu, __ATOMIC_RELAXED) != c->id + 1)
        spin_release_unheld(l);
    __atomic_store_n(&l->cpu, 0, __ATOMIC_RELAXED);
    lockrank_pop(c, l);
    c->nlocks--;
    /* Pairs with the acquiring CAS in spin_lock. */
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline __attribute__((always_inline)) void
spin_unlock(struct spinlock *l, unsigned long flags)
{
    spin_release(l);
    arch_irq_restore(flags);
}

/* True if this core holds l (for assertions). */
static inline bool spin_holding(const struct spinlock *l)
{
    /* Relaxed atomic: other cores write l->cpu while we look. */
    return __atomic_load_n(&l->cpu, __ATOMIC_RELAXED) == cpu_id() + 1;
}

/* Number of spinlocks this core holds; preemption checks it is zero. */
static inline int spin_depth(void)
{
    return this_cpu()->nlocks;
}

#endif
