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
 * Lock order (take a lock only while holding locks above it):
 *   1. call_lock (kernel/smp.c)
 *   2. stack_lock (kernel/net/stack.c): the network stack.  Under it
 *      lwIP's callbacks ready Gs and reset timers (a P's timer lock, and
 *      newlib's malloc lock when a heap grows), a G's stack may fault in
 *      a page, and a socket's polldesc lock is taken
 *   3. mem_lock, vm_lock (kernel/mem.c, kernel/vm.c)
 *   4. newlib locks (kernel/newlib.c)
 *   5. irq_lock (kernel/irq.c), taken alone
 *   6. console_lock (kernel/printk.c): innermost, taken by printk anywhere
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"
#include "cpu.h"

struct spinlock {
    int locked;                 /* CAS 0->1 by lockers, store-release 0 */
    int cpu;                    /* holder's cpu id + 1, 0 when free */
    const char *name;
};

#define SPINLOCK_INIT(n) { 0, 0, (n) }

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
    /* Pairs with the store-release in spin_release. */
    if (!__atomic_compare_exchange_n(&l->locked, &free, 1, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        spin_lock_wait(l);
    __atomic_store_n(&l->cpu, c->id + 1, __ATOMIC_RELAXED);
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
