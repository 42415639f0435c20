/*
 * arch_impl.h (aarch64) - single-instruction primitives behind arch/arch.h,
 * and the arch-private part of the per-CPU block.
 *
 * TPIDR_EL1 holds this core's struct cpu pointer (set once by
 * arch_cpu_init; the kernel has no EL0, so nothing else uses it).
 *
 * Interrupts (IRQs) are masked in software, as on x86_64: turning them
 * off or on is a byte store to the core-local page (corelocal.h), and
 * PSTATE.I stays clear while G and scheduler code runs.  Why: under
 * QEMU's TCG, `msr daifclr` leaves the translated code to look for
 * pending interrupts, which costs many times a store, and the channel
 * and scheduler paths turn interrupts on several times per switch.  An
 * IRQ that arrives while they are off is not acknowledged: trap.c
 * returns at once with PSTATE.I set in the interrupted state and notes
 * that in irq_slow, and whoever turns them on again clears PSTATE.I
 * (arch_irq_slow), so the interrupt, still pending in the GIC, is taken
 * then.  PSTATE.I is set only inside exception handlers, after such a
 * held interrupt, in arch_halt, and in a scheduler entered from a
 * preempting handler until it next turns interrupts on; irq_slow says
 * so every time outside a handler.  FIQs stay unmasked, because the GIC
 * delivers the panic's stop SGI as an FIQ where it can (gic.c): the one
 * thing that interrupts a core that has IRQs off, as the NMI does on
 * x86_64.  Only the core itself writes its two bytes.
 */
#ifndef ARCH_AARCH64_IMPL_H
#define ARCH_AARCH64_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/aarch64/corelocal.h"

#define DAIF_I (1UL << 7)

/* What this arch calls a core's hardware id, for console messages. */
#define ARCH_HWID_NAME "MPIDR"

/* Turns interrupts on when irq_slow says more than a store is needed
   (trap.c). */
void arch_irq_slow(void);

/*
 * An interrupt between the load and the store may move the G to another
 * core only if they were on, and then the store masks the new core (the
 * address is the same, the page is that core's), as the caller asked.
 * Once they are off, nothing moves it.  The result is DAIF-shaped: I set
 * when they were off.
 */
static inline unsigned long arch_irq_save(void)
{
    uint32_t was_off;

    __asm__ volatile("ldrb %w0, [%1, #%3]\n\tstrb %w2, [%1, #%3]"
                     : "=&r"(was_off)
                     : "r"(LOCAL_VA), "r"(1), "i"(LOCAL_IRQ_OFF)
                     : "memory");
    return was_off ? DAIF_I : 0;
}

/*
 * After the store an interrupt may run and move the G; the load then
 * reads the new core's irq_slow, which is empty: a core's IRQ_HARD_OFF
 * is cleared before any G runs there with interrupts on (trap.c's exit
 * from an interrupt, arch_irq_slow).
 */
static inline void arch_irq_enable(void)
{
    uint32_t slow;

    __asm__ volatile("strb wzr, [%1, #%2]\n\tldrb %w0, [%1, #%3]"
                     : "=&r"(slow)
                     : "r"(LOCAL_VA), "i"(LOCAL_IRQ_OFF),
                       "i"(LOCAL_IRQ_SLOW)
                     : "memory");
    if (__builtin_expect(slow, 0))
        arch_irq_slow();
}

static inline void arch_irq_restore(unsigned long flags)
{
    if (!(flags & DAIF_I))
        arch_irq_enable();
}

static inline bool arch_irqs_enabled(void)
{
    uint32_t off;

    __asm__ volatile("ldrb %w0, [%1, #%2]" : "=r"(off)
                     : "r"(LOCAL_VA), "i"(LOCAL_IRQ_OFF));
    return !off;
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

/*
 * TLS (arch.h): variant I, TPIDR_EL0 (gcc 12 has no -mtp=el1).  The
 * exception entry borrows TPIDR_EL0 (vectors.S), and trap_return puts
 * back the value kept in the core-local page, so that it is per core
 * whatever G the core resumes.
 */
#define ARCH_TLS_VARIANT 1

static inline void arch_tp_set(uintptr_t tp)
{
    *(volatile uint64_t *)(LOCAL_VA + LOCAL_TP) = tp;
    __asm__ volatile("msr tpidr_el0, %0" : : "r"(tp) : "memory");
}

static inline uintptr_t arch_tp_get(void)
{
    return *(volatile uint64_t *)(LOCAL_VA + LOCAL_TP);
}

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
    /* Per exception kind: the interrupted x0, x1, x30, ELR, SPSR, ESR
       and FAR, put aside by the vector entry before any store to a
       stack, and what trap_return puts back after its last load from
       one (vectors.S; aarch64.h's ENTRY_* and offsets checked in
       cpu.c). */
    uint64_t entry_save[5][8];
    uint64_t mpidr;             /* MPIDR_EL1 affinity bits */
    uintptr_t gicr;             /* GICv3: this core's redistributor */
    uint8_t gic_mask;           /* GICv2: this core's CPU interface bit */
};

#endif
