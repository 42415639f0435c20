/*
 * arch_impl.h (x86_64) - single-instruction primitives behind arch/arch.h,
 * and the arch-private part of the per-CPU block.
 *
 * The per-CPU block's first word points to itself, so arch_this_cpu() is one
 * load through GS (GS base is set by arch_cpu_init and never changes: the
 * kernel has no user mode, so there is no swapgs).
 */
#ifndef ARCH_X86_64_IMPL_H
#define ARCH_X86_64_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#define RFLAGS_IF (1UL << 9)

/* What this arch calls a core's hardware id, for console messages. */
#define ARCH_HWID_NAME "APIC id"


static inline unsigned long arch_irq_save(void)
{
    unsigned long flags;

    __asm__ volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
    return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
    if (flags & RFLAGS_IF)
        __asm__ volatile("sti" : : : "memory");
}

static inline void arch_irq_enable(void)
{
    __asm__ volatile("sti" : : : "memory");
}

static inline bool arch_irqs_enabled(void)
{
    unsigned long flags;

    __asm__ volatile("pushfq; popq %0" : "=r"(flags));
    return flags & RFLAGS_IF;
}

static inline struct cpu *arch_this_cpu(void)
{
    struct cpu *c;

    /* volatile: a G can move to another core between two calls, and the
       compiler must not reuse one core's answer across a switch. */
    __asm__ volatile("movq %%gs:0, %0" : "=r"(c));
    return c;
}

static inline void arch_cpu_relax(void)
{
    __asm__ volatile("pause" : : : "memory");
}

static inline uint64_t arch_cycles(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static inline uintptr_t arch_frame_address(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

/* Arch-private per-CPU state: descriptor tables and emergency stacks. */
struct tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

struct arch_cpu {
    uint64_t gdt[5];        /* null, code, data, TSS (two slots) */
    struct tss tss;
    uint32_t apic_id;
};

#endif
