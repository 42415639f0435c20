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
 * Lock order (take a lock only while holding locks above it):
 *   1. call_lock (kernel/smp.c)
 *   2. mem_lock, vm_lock (kernel/mem.c, kernel/vm.c)
 *   3. newlib locks (kernel/newlib.c)
 *   4. console_lock (kernel/printk.c): innermost, taken by printk anywhere
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

/* Returns the interrupt state to hand back to spin_unlock. */
unsigned long spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l, unsigned long flags);
/*
 * spin_unlock without the interrupt state: they stay off, and the caller
 * hands spin_lock's flags to arch_irq_restore once it is done with what
 * must follow the unlock (readying a G, say).  Under QEMU's TCG every
 * interrupt enable ends a translated block, so a hand-off that enables
 * them once instead of twice is measurably cheaper.
 */
void spin_release(struct spinlock *l);
/* True if this core holds l (for assertions). */
static inline bool spin_holding(const struct spinlock *l)
{
    /* Relaxed atomic: other cores write l->cpu while we look. */
    return __atomic_load_n(&l->cpu, __ATOMIC_RELAXED) == cpu_id() + 1;
}

/* Number of spinlocks this core holds; preemption checks it is zero. */
int spin_depth(void);

#endif
