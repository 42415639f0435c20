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

/*
 * Interrupts are masked in software, as the hosted build masks its
 * signals and Linux masks interrupts on powerpc: turning them off or on
 * is one byte store through GS, and the IF flag stays set while G and
 * scheduler code runs.  An interrupt that arrives while they are off is
 * acknowledged and noted in irq_slow, and trap() returns at once;
 * whoever turns them on again sends it to this core anew (a self-IPI),
 * so it runs then.  Why: under QEMU's TCG, sti and popf end a translated
 * block, which costs over twenty times a store, and the channel and
 * scheduler paths turn interrupts on several times per switch.  IF is
 * clear only inside interrupt handlers, in the few lines that turn the
 * mask off (arch_irq_slow, arch_halt, trap's exit), and in a scheduler
 * entered from a preempting handler until it next turns interrupts on
 * (IRQ_HARD_OFF).  Only this core writes its two bytes.
 */
#define CPU_IRQ_OFF  "8"        /* offsetof(struct cpu, arch.irq_off) */
#define CPU_IRQ_SLOW "9"        /* offsetof(struct cpu, arch.irq_slow) */

#define IRQ_HELD_TIMER  0x01    /* irq_slow: a timer interrupt waits */
#define IRQ_HELD_IPI    0x02    /* irq_slow: an IPI waits */
#define IRQ_HARD_OFF    0x04    /* irq_slow: IF is clear; set it */
#define IRQ_HELD_DEV    0x08    /* irq_slow: device interrupts wait, the
                                   ones set in irq_held_dev */

/* Turns interrupts on when irq_slow says more than a store is needed
   (trap.c). */
void arch_irq_slow(void);

/*
 * An interrupt between the load and the store may move the G to another
 * core only if they were on, and then the store masks the new core, as
 * the caller asked.  Once they are off, nothing moves it.
 */
static inline unsigned long arch_irq_save(void)
{
    uint8_t was_off;

    __asm__ volatile("movb %%gs:" CPU_IRQ_OFF ", %0\n\t"
                     "movb $1, %%gs:" CPU_IRQ_OFF
                     : "=q"(was_off) : : "memory");
    return was_off ? 0 : RFLAGS_IF;
}

/*
 * After the store an interrupt may run and move the G; the load then
 * reads the new core's irq_slow, which is empty: a core's held
 * interrupts and IRQ_HARD_OFF are dealt with before any G runs there
 * with interrupts on (trap's exit, arch_irq_slow).
 */
static inline void arch_irq_enable(void)
{
    uint8_t slow;

    __asm__ volatile("movb $0, %%gs:" CPU_IRQ_OFF "\n\t"
                     "movb %%gs:" CPU_IRQ_SLOW ", %0"
                     : "=q"(slow) : : "memory");
    if (__builtin_expect(slow, 0))
        arch_irq_slow();
}

static inline void arch_irq_restore(unsigned long flags)
{
    if (flags & RFLAGS_IF)
        arch_irq_enable();
}

static inline bool arch_irqs_enabled(void)
{
    uint8_t off;

    __asm__ volatile("movb %%gs:" CPU_IRQ_OFF ", %0" : "=q"(off));
    return !off;
}

static inline struct cpu *arch_this_cpu(void)
{
    struct cpu *c;

    /* volatile: a G can move to another core between two calls, and the
       compiler must not reuse one core's answer across a switch. */
    __asm__ volatile("movq %%gs:0, %0" : "=r"(c));
    return c;
}

/* How many arch_cpu_relax calls wait about as long as one x86 `pause`
   (arch.h): the pause itself. */
#define ARCH_RELAX_PER_PAUSE 1

/*
 * TLS (arch.h): variant II, the FS base.  The kernel's per-core data is
 * %gs's, so FS is free for the Gs' thread pointer.  wrmsr, not wrfsbase:
 * CR4.FSGSBASE is left off (QEMU's TCG cores lack it before -cpu max).
 */
#define ARCH_TLS_VARIANT 2
#define ARCH_MSR_FS_BASE 0xC0000100

static inline void arch_tp_set(uintptr_t tp)
{
    __asm__ volatile("wrmsr" : : "c"(ARCH_MSR_FS_BASE), "a"((uint32_t)tp),
                     "d"((uint32_t)(tp >> 32)) : "memory");
}

static inline uintptr_t arch_tp_get(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(ARCH_MSR_FS_BASE));
    return (uintptr_t)hi << 32 | lo;
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

/* arch.h: a 5-byte NOP (0f 1f 44 00 00), which arch_branch_enable
   overwrites with a jmp rel32 to label, and its entry in branch_sites. */
#define arch_branch_site(label)                                           \
    __asm__ goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"               \
                 ".pushsection branch_sites, \"aw\"\n\t"                  \
                 ".balign 8\n\t"                                          \
                 ".quad 1b, %l[" #label "]\n\t"                            \
                 ".popsection" : : : : label)

/* Device registers (contracts in arch.h).  Device memory is mapped
   uncacheable, so a volatile access and a compiler barrier are all. */
#define ARCH_HAS_PIO 1

static inline uint8_t arch_pio_read8(uint16_t port)
{
    uint8_t v;

    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port) : "memory");
    return v;
}

static inline void arch_pio_write8(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
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
    uint8_t irq_off;        /* interrupts masked (see arch_irq_save) */
    uint8_t irq_slow;       /* IRQ_HELD_* | IRQ_HARD_OFF */
    uint64_t gdt[5];        /* null, code, data, TSS (two slots) */
    struct tss tss;
    uint32_t apic_id;
    uint32_t irq_held_dev;  /* device interrupts held, bit n = irq n */
};

#endif
