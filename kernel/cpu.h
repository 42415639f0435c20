/*
 * cpu.h - the per-CPU block, one per core (an M, in Go's terms; the
 * scheduler's struct m and struct p hang off it).
 *
 * Fields are written by the core that owns the block unless marked
 * otherwise.  arch_this_cpu() returns the caller's block.
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include "arch/arch.h"
#include "kernel/lockrank.h"

#define MAXCPU 64

struct m;

struct cpu {
    struct cpu *self;           /* must be first: arch_this_cpu() loads it */
    struct arch_cpu arch;       /* second: x86_64 reaches its interrupt
                                   mask at a fixed offset (arch_impl.h) */
    int id;                     /* 0 .. ncpu-1, boot core is 0 */
    uint32_t hwid;              /* APIC id / MPIDR; written by boot core */
    bool online;                /* store-release by the core itself;
                                   load-acquire in arch_start_cpus */
    uintptr_t stack_lo, stack_hi;   /* boot stack of this core */

    /* Cross-core calls (smp_call_all); written by the caller under
       call_lock, done by the target with store-release. */
    void (*call_fn)(void *);
    void *call_arg;
    uint64_t call_seq;          /* requests posted (caller) */
    uint64_t call_done;         /* requests finished (target) */
    bool call_irq;              /* the request may run in the IPI handler
                                   (smp_call_all_irq) */

    uint64_t nipi;              /* IPIs received, for tests */
    int nlocks;                 /* spinlocks held (spinlock.c) */
#ifdef SP_LOCKRANK
    unsigned held[NLOCKRANKS];  /* spinlocks held, by rank (lockrank.h) */
#endif
    void *reent;                /* newlib state off any G (struct _reent) */
    struct m *m;                /* the scheduler's M, set by sched_start */
    int panicking;              /* in the panic path: locks get broken */
    int fault_held;             /* > 0: no injected allocation failure
                                   (faultinject.h); this core only */
};

extern struct cpu *cpus[MAXCPU];
extern int ncpu;                /* cores online, set before main() runs */

static inline struct cpu *this_cpu(void)
{
    return arch_this_cpu();
}

static inline int cpu_id(void)
{
    return arch_this_cpu()->id;
}

/* Runs fn(arg) on every online core (the caller too) and waits for all. */
void smp_call_all(void (*fn)(void *), void *arg);

/*
 * smp_call_all for a short fn that takes no lock: a core may run it in
 * its IPI handler, with interrupts off, wherever it had them on (a G's
 * code, a halt), instead of waiting to pass between Gs; so the caller
 * does not wait for a busy core's slice to end.  Wherever it runs, no
 * section with interrupts off (a park, newproc, a spinlock) is in the
 * middle on that core.
 */
void smp_call_all_irq(void (*fn)(void *), void *arg);

#endif
