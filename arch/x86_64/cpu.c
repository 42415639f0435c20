/*
 * cpu.c - descriptor tables and per-core bring-up for x86_64.
 *
 * Every core gets its own GDT and TSS inside its per-CPU block, with three
 * emergency stacks in the TSS's interrupt stack table (double fault, NMI,
 * machine check), so those still run when the interrupted stack is bad.
 * The IDT is shared: every core handles every vector the same way.
 */
#include <stddef.h>
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/vm.h"

#define IST_STACK_SIZE (16 * 1024)

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t ist, type;
    uint16_t off_mid;
    uint32_t off_hi, zero;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate is 16 bytes");

struct desc_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

extern const uint64_t vector_table[256];
static struct idt_gate idt[256] __attribute__((aligned(16)));
/* Interrupts off, in software and in IF, until the first arch_irq_enable
   or arch_halt. */
static struct cpu boot_cpu = { .arch = { .irq_off = 1,
                                         .irq_slow = IRQ_HARD_OFF } };

_Static_assert(offsetof(struct cpu, arch.irq_off) == 8 &&
               offsetof(struct cpu, arch.irq_slow) == 9,
               "CPU_IRQ_OFF and CPU_IRQ_SLOW (arch_impl.h) are wrong");

static void set_gate(int vec, uint64_t handler, int ist)
{
    struct idt_gate *g = &idt[vec];

    g->off_lo = handler;
    g->sel = KERNEL_CS;
    g->ist = ist;
    g->type = 0x8E;             /* present, DPL 0, 64-bit interrupt gate */
    g->off_mid = handler >> 16;
    g->off_hi = handler >> 32;
    g->zero = 0;
}

void idt_init(void)
{
    for (int v = 0; v < 256; v++)
        set_gate(v, vector_table[v], 0);
    set_gate(VEC_DF, vector_table[VEC_DF], IST_DF);
    set_gate(VEC_NMI, vector_table[VEC_NMI], IST_NMI);
    set_gate(VEC_MC, vector_table[VEC_MC], IST_MC);
    /* Lazily mapped G stacks fault when they grow into a new page; the
       CPU could not push the fault's frame on that same stack. */
    set_gate(VEC_PF, vector_table[VEC_PF], IST_PF);
}

void idt_load(void)
{
    struct desc_ptr p = { sizeof idt - 1, (uint64_t)idt };

    __asm__ volatile("lidt %0" : : "m"(p));
}

static void set_gs_base(struct cpu *c)
{
    c->self = c;
    wrmsr(MSR_GS_BASE, (uint64_t)c);
}

void arch_early_init(struct bootinfo *bi)
{
    (void)bi;
    serial_init();
    cpus[0] = &boot_cpu;
    set_gs_base(&boot_cpu);
    idt_init();
    idt_load();
    tsc_calibrate();
}

static void load_gdt(struct cpu *c)
{
    uint64_t *gdt = c->arch.gdt;
    uint64_t tss = (uint64_t)&c->arch.tss;
    uint64_t lim = sizeof(struct tss) - 1;
    struct desc_ptr p = { sizeof c->arch.gdt - 1, (uint64_t)gdt };

    gdt[0] = 0;
    gdt[1] = GDT_CODE64;
    gdt[2] = GDT_DATA;
    /* 64-bit available TSS descriptor (type 9), SDM Vol. 3A §8.2.3. */
    gdt[3] = (lim & 0xFFFF) | (tss & 0xFFFFFF) << 16 | 0x89UL << 40 |
             ((lim >> 16) & 0xF) << 48 | ((tss >> 24) & 0xFF) << 56;
    gdt[4] = tss >> 32;
    __asm__ volatile(
        "lgdt %0\n\t"
        "pushq %1\n\t"
        "leaq 1f(%%rip), %%rax\n\t"
        "pushq %%rax\n\t"
        "lretq\n"
        "1:\n\t"
        "movl %2, %%eax\n\t"
        "movl %%eax, %%ds\n\t"
        "movl %%eax, %%es\n\t"
        "movl %%eax, %%ss\n\t"
        "ltr %w3"
        : : "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS), "r"(KERNEL_TSS)
        : "rax", "memory");
}

static uint64_t ist_stack(void)
{
    void *lo = vm_stack_alloc(IST_STACK_SIZE);

    if (!lo)
        panic("arch_cpu_init: no memory for an interrupt stack");
    return (uint64_t)lo + IST_STACK_SIZE;
}

void arch_cpu_init(struct cpu *c)
{
    /* IF is still clear here, on the boot core and on the others. */
    c->arch.irq_off = 1;
    c->arch.irq_slow = IRQ_HARD_OFF;
    set_gs_base(c);
    c->arch.tss.ist[IST_DF - 1] = ist_stack();
    c->arch.tss.ist[IST_NMI - 1] = ist_stack();
    c->arch.tss.ist[IST_MC - 1] = ist_stack();
    c->arch.tss.ist[IST_PF - 1] = ist_stack();
    c->arch.tss.iomap_base = sizeof(struct tss);   /* no I/O bitmap */
    load_gdt(c);
    idt_load();
    lapic_init();
    c->arch.apic_id = lapic_id();
}

/* Mirrors the frame arch_switch pops; see switch.S. */
struct switch_frame {
    uint32_t mxcsr;
    uint16_t fcw, pad;
    uint64_t r15, r14, r13, r12, rbx, rbp, ret;
};

void arch_context_start(void);

void arch_switched_regs(const void *sp, uintptr_t *pc, uintptr_t *fp)
{
    const struct switch_frame *f = sp;

    *pc = f->ret;
    *fp = f->rbp;
}

void arch_context_init(void **sp, uintptr_t stack_top, void (*fn)(void *),
                       void *arg)
{
    /* After arch_switch's ret pops `ret`, %rsp (= top) is 16-aligned. */
    uintptr_t top = stack_top & ~15UL;
    struct switch_frame *f = (struct switch_frame *)(top - sizeof *f);

    _Static_assert(sizeof(struct switch_frame) == 64, "switch.S layout");
    *f = (struct switch_frame){
        .mxcsr = 0x1F80,        /* all SSE exceptions masked (reset value) */
        .fcw = 0x037F,          /* x87 reset value */
        .r12 = (uint64_t)fn,
        .r13 = (uint64_t)arg,
        .ret = (uint64_t)arch_context_start,
    };
    *sp = f;
}

uint32_t arch_cpu_hwid(void)
{
    return lapic_id();
}

/* The kernel's text is in the identity map, writable: each site's NOP
   becomes a jmp rel32.  An instruction fetch sees this core's own
   stores; the other cores serialize on the exception arch.h names. */
void arch_branch_enable(void)
{
    for (const struct arch_branch *b = __start_branch_sites;
         b < __stop_branch_sites; b++) {
        uint8_t *p = (uint8_t *)b->site;
        int32_t rel = (int32_t)(b->target - (b->site + 5));

        __builtin_memcpy(p + 1, &rel, 4);
        p[0] = 0xe9;
    }
}
