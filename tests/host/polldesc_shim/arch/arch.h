/*
 * arch.h (polldesc host test) - stands in for arch/arch.h when
 * sched/polldesc.c and kernel/spinlock.c are built on the host by
 * tests/host/polldesc_test.c, which defines what is declared here.
 *
 * A "core" is a pthread: its struct cpu is thread-local, and its
 * interrupt flag a thread-local word, so spin_lock's bookkeeping (the
 * self-deadlock check, spin_depth) works per thread.  The cycle counter
 * is a fake clock the test advances.
 */
#ifndef TESTS_HOST_POLLDESC_SHIM_ARCH_ARCH_H
#define TESTS_HOST_POLLDESC_SHIM_ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu;

#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

struct arch_cpu {
    int unused;
};

/* 1 while this thread's "interrupts" are off. */
extern __thread unsigned long shim_irq_off;

static inline unsigned long arch_irq_save(void)
{
    unsigned long f = shim_irq_off;

    shim_irq_off = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return f;
}

static inline void arch_irq_restore(unsigned long f)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    shim_irq_off = f;
}

static inline bool arch_irqs_enabled(void)
{
    return !shim_irq_off;
}

struct cpu *arch_this_cpu(void);        /* the thread's own */
void arch_cpu_relax(void);              /* yields the thread */
uint64_t arch_cycles(void);             /* the fake clock */
uint64_t arch_cycles_hz(void);

#endif
