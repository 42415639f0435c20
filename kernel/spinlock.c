/*
 * spinlock.c - TTAS locks with interrupts off while held.
 *
 * Why interrupts off: a handler on this core that wanted the same lock
 * would spin forever on a holder that cannot run.  Why spin on a plain
 * load before the CAS: waiting cores then share the line read-only
 * instead of bouncing it with failed CASes.  Why release is a
 * store-release and not a plain store: the critical section's stores must
 * be visible before the next owner's acquiring CAS sees the lock free.
 */
#include "spinlock.h"
#include "cpu.h"
#include "panic.h"

unsigned long spin_lock(struct spinlock *l)
{
    unsigned long flags = arch_irq_save();
    struct cpu *c = this_cpu();

    /* Relaxed atomic: other cores write l->cpu while we look; only a
       value this core wrote itself can equal its own id. */
    if (__atomic_load_n(&l->cpu, __ATOMIC_RELAXED) == c->id + 1)
        panic("spin_lock: %s already held by this core", l->name);
    for (;;) {
        int free = 0;

        /* Pairs with the store-release in spin_unlock. */
        if (__atomic_compare_exchange_n(&l->locked, &free, 1, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            break;
        while (spin_is_locked(l))
            arch_cpu_relax();
    }
    __atomic_store_n(&l->cpu, c->id + 1, __ATOMIC_RELAXED);
    c->nlocks++;
    return flags;
}

void spin_release(struct spinlock *l)
{
    struct cpu *c = this_cpu();

    if (__atomic_load_n(&l->cpu, __ATOMIC_RELAXED) != c->id + 1)
        panic("spin_unlock: %s not held by this core", l->name);
    __atomic_store_n(&l->cpu, 0, __ATOMIC_RELAXED);
    c->nlocks--;
    /* Pairs with the acquiring CAS in spin_lock. */
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

void spin_unlock(struct spinlock *l, unsigned long flags)
{
    spin_release(l);
    arch_irq_restore(flags);
}

int spin_depth(void)
{
    return this_cpu()->nlocks;
}
