/*
 * spinlock.c - the slow paths of spinlock.h's locks: waiting for a lock
 * another core holds, and the panics for misuse.
 */
#include "spinlock.h"
#include "cpu.h"
#include "panic.h"

void spin_lock_self(struct spinlock *l)
{
    panic("spin_lock: %s already held by this core", l->name);
}

/* Another core holds l: wait on a plain load, then try the CAS again. */
void spin_lock_wait(struct spinlock *l)
{
    for (;;) {
        int free = 0;

        while (spin_is_locked(l))
            arch_cpu_relax();
        if (__atomic_compare_exchange_n(&l->locked, &free, 1, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
    }
}

void spin_release_unheld(struct spinlock *l)
{
    panic("spin_unlock: %s not held by this core", l->name);
}
