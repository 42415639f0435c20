/*
 * irq.c - the device interrupt table (see irq.h).
 *
 * Entries are written once, before the device is told the number, and
 * never change: irq_alloc's store-release of `fn` pairs with the
 * load-acquire in irq_dispatch, so a handler that is seen is complete.
 */
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/irq.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "sched/profile.h"

static struct {
    void (*fn)(void *);         /* store-release once; NULL: free */
    void *arg;
    uint64_t count;             /* atomic */
} table[ARCH_NIRQ];

static struct spinlock irq_lock = SPINLOCK_INIT(LOCK_IRQ);

int irq_alloc(void (*fn)(void *), void *arg)
{
    unsigned long f = spin_lock(&irq_lock);
    int n = -1;

    for (int i = 0; i < ARCH_NIRQ && n < 0; i++)
        if (!table[i].fn) {
            table[i].arg = arg;
            __atomic_store_n(&table[i].fn, fn, __ATOMIC_RELEASE);
            n = i;
        }
    spin_unlock(&irq_lock, f);
    return n;
}

uint64_t irq_count(int irq)
{
    if (irq < 0 || irq >= ARCH_NIRQ)
        return 0;
    return __atomic_load_n(&table[irq].count, __ATOMIC_RELAXED);
}

void irq_dispatch(int irq)
{
    void (*fn)(void *);
    struct m *pm;

    if (irq < 0 || irq >= ARCH_NIRQ ||
        !(fn = __atomic_load_n(&table[irq].fn, __ATOMIC_ACQUIRE))) {
        printk("irq: interrupt %d on cpu %d has no handler\n", irq,
               cpu_id());
        return;
    }
    __atomic_add_fetch(&table[irq].count, 1, __ATOMIC_RELAXED);
    pm = prof_irq_enter();
    fn(table[irq].arg);
    prof_irq_exit(pm, (uintptr_t)irq_dispatch);
}
