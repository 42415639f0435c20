/*
 * arch_impl.h (aarch64) - single-instruction primitives behind arch/arch.h,
 * and the arch-private part of the per-CPU block.
 *
 * TPIDR_EL1 holds this core's struct cpu pointer (set once by
 * arch_cpu_init; the kernel has no EL0, so nothing else uses it).
 * Interrupts are IRQs masked by PSTATE.I (DAIF bit 7 as MRS reads it);
 * FIQs stay unmasked, because the GIC delivers the panic's stop SGI as
 * an FIQ where it can (gic.c): the one thing that interrupts a core that
 * has IRQs off, as the NMI does on x86_64.
 */
#ifndef ARCH_AARCH64_IMPL_H
#define ARCH_AARCH64_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#define DAIF_I (1UL << 7)

/* What this arch calls a core's hardware id, for console messages. */
#define ARCH_HWID_NAME "MPIDR"

static inline unsigned long arch_irq_save(void)
{
    unsigned long daif;

    __asm__ volatile("mrs %0, daif\n\tmsr daifset, #2" : "=r"(daif) : :
                     "memory");
    return daif;
}

static inline void arch_irq_restore(unsigned long daif)
{
    if (!(daif & DAIF_I))
        __asm__ volatile("msr daifclr, #2" : : : "memory");
}

static inline void arch_irq_enable(void)
{
    __asm__ volatile("msr daifclr, #2" : : : "memory");
}

static inline bool arch_irqs_enabled(void)
{
    unsigned long daif;

    __asm__ volatile("mrs %0, daif" : "=r"(daif));
    return !(daif & DAIF_I);
}

static inline struct cpu *arch_this_cpu(void)
{
    struct cpu *c;

    /* volatile: a G can move to another core between two calls, and the
       compiler must not reuse one core's answer across a switch. */
    __asm__ volatile("mrs %0, tpidr_el1" : "=r"(c));
    return c;
}

/* How many arch_cpu_relax calls wait about as long as one x86 `pause`
   (arch.h).  `yield` is only a hint: cores (and QEMU) run it as a no-op
   in a cycle or so, where a `pause` waits some 140 cycles on recent x86
   cores (and leaves QEMU's loop); spins counted in pauses (sync.c,
   chan.c) take about a hundred of them for one. */
#define ARCH_RELAX_PER_PAUSE 100

static inline void arch_cpu_relax(void)
{
    __asm__ volatile("yield" : : : "memory");
}

static inline uint64_t arch_cycles(void)
{
    uint64_t v;

    /* The ISB keeps the read from being taken early, ahead of the code
       before it (ARM ARM D11.2.2, "reads of the counter ... can occur
       speculatively and out of order"). */
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

static inline uintptr_t arch_frame_address(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

/* arch.h: a NOP, which arch_branch_enable overwrites with a B to label,
   and its entry in branch_sites. */
#define arch_branch_site(label)                                           \
    __asm__ goto("1: nop\n\t"                                             \
                 ".pushsection branch_sites, \"aw\"\n\t"                  \
                 ".balign 8\n\t"                                          \
                 ".quad 1b, %l[" #label "]\n\t"                            \
                 ".popsection" : : : : label)

/* Device registers (contracts in arch.h).  Device memory is mapped
   Device-nGnRnE (aarch64.h's MAIR slot 0): volatile accesses reach the
   device in program order; the compiler barriers keep normal memory
   accesses on their side of them.  No port I/O: the two functions drop
   writes and read 0xFF, as an empty bus does. */
#define ARCH_HAS_PIO 0

static inline uint8_t arch_pio_read8(uint16_t port)
{
    (void)port;
    return 0xFF;
}

static inline void arch_pio_write8(uint16_t port, uint8_t v)
{
    (void)port;
    (void)v;
}


/* Arch-private per-CPU state. */
struct arch_cpu {
    uint64_t estack_top;        /* emergency stack (vectors.S); offset
                                   checked in cpu.c */
    uint64_t mpidr;             /* MPIDR_EL1 affinity bits */
    uintptr_t gicr;             /* GICv3: this core's redistributor */
    uint8_t gic_mask;           /* GICv2: this core's CPU interface bit */
};

#endif
