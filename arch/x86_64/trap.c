/*
 * trap.c - where every interrupt and exception lands (from vectors.S).
 *
 * Exceptions are fatal: the kernel has no user mode and no demand paging,
 * so a fault is a bug (or a stack overflow into a guard page) and goes to
 * the panic path with the full register state.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

static const char *const exception_names[32] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow",
    "bound range exceeded", "invalid opcode", "device not available",
    "double fault", "coprocessor segment overrun", "invalid TSS",
    "segment not present", "stack-segment fault", "general protection fault",
    "page fault", "reserved (15)", "x87 floating-point error",
    "alignment check", "machine check", "SIMD floating-point error",
    "virtualization exception", "control protection exception",
};

/*
 * Unmasks this core's interrupts in software with IF clear: sends it the
 * ones it held again and empties irq_slow.  The caller sets IF next (sti
 * or iretq), and the held interrupts then arrive.
 */
static void irq_unmask(struct cpu *c)
{
    uint8_t slow = c->arch.irq_slow;

    c->arch.irq_slow = 0;
    c->arch.irq_off = 0;
    if (slow & IRQ_HELD_TIMER)
        lapic_self(VEC_TIMER);
    if (slow & IRQ_HELD_IPI)
        lapic_self(VEC_IPI);
    if (slow & IRQ_HELD_DEV) {
        uint32_t held = c->arch.irq_held_dev;

        c->arch.irq_held_dev = 0;
        for (; held; held &= held - 1)
            lapic_self(VEC_DEV0 + __builtin_ctz(held));
    }
}

void arch_irq_slow(void)
{
    __asm__ volatile("cli" : : : "memory");
    irq_unmask(this_cpu());
    __asm__ volatile("sti" : : : "memory");
}

/*
 * A timer interrupt, an IPI or a device interrupt.  If this core's code
 * had them masked, it is only noted (see arch_impl.h).  Otherwise the
 * handler runs masked, as any code with interrupts off.  It may preempt
 * the G and switch to the scheduler with IF still clear, hence
 * IRQ_HARD_OFF while it runs; when the G is resumed, maybe on another
 * core, the exit below leaves that core's mask off, and iretq sets IF.
 */
static void device_interrupt(uint64_t v, struct trapframe *tf)
{
    struct cpu *c = this_cpu();

    lapic_eoi();
    if (c->arch.irq_off) {
        if (v == VEC_TIMER) {
            c->arch.irq_slow |= IRQ_HELD_TIMER;
            prof_interrupt(tf->rip, tf->rbp, tf->rsp, 0, true);
        } else if (v == VEC_IPI) {
            c->arch.irq_slow |= IRQ_HELD_IPI;
        } else {
            c->arch.irq_slow |= IRQ_HELD_DEV;
            c->arch.irq_held_dev |= 1u << (v - VEC_DEV0);
        }
        return;
    }
    c->arch.irq_off = 1;
    c->arch.irq_slow |= IRQ_HARD_OFF;
    if (v == VEC_TIMER)
        timer_interrupt(tf);
    else if (v == VEC_IPI)
        ipi_handler();
    else
        irq_dispatch(v - VEC_DEV0);
    __asm__ volatile("cli" : : : "memory");    /* the scheduler may set it */
    irq_unmask(this_cpu());
}

void trap(struct trapframe *tf)
{
    uint64_t v = tf->vector;

    if (v == VEC_IPI || v == VEC_TIMER ||
        (v >= VEC_DEV0 && v < VEC_DEV0 + ARCH_NIRQ)) {
        device_interrupt(v, tf);
        return;
    }
    if (v == VEC_SPURIOUS)
        return;             /* no EOI for spurious interrupts (SDM §11.9) */
    /* Not-present faults may be a G stack growing into a lazy page,
       maybe under the frame of an interrupt being delivered. */
    if (v == VEC_PF && !(tf->error & 1) && vm_fault(read_cr2())) {
        lapic_resend_in_service();
        return;
    }
    if (v < 32) {
        const char *name = exception_names[v];

        panic_trap(tf, name ? name : "reserved exception");
    }
    panic_trap(tf, "unexpected interrupt vector");
}

void arch_dump_trapframe(const struct trapframe *tf)
{
    printk("vector %lu error 0x%lx rip 0x%016lx cr2 0x%016lx\n",
           tf->vector, tf->error, tf->rip, read_cr2());
    printk("rax %016lx rbx %016lx rcx %016lx rdx %016lx\n",
           tf->rax, tf->rbx, tf->rcx, tf->rdx);
    printk("rsi %016lx rdi %016lx rbp %016lx rsp %016lx\n",
           tf->rsi, tf->rdi, tf->rbp, tf->rsp);
    printk("r8  %016lx r9  %016lx r10 %016lx r11 %016lx\n",
           tf->r8, tf->r9, tf->r10, tf->r11);
    printk("r12 %016lx r13 %016lx r14 %016lx r15 %016lx\n",
           tf->r12, tf->r13, tf->r14, tf->r15);
    printk("rflags %016lx cs %04lx ss %04lx cr3 %016lx\n",
           tf->rflags, tf->cs, tf->ss, read_cr3());
}

uintptr_t arch_trapframe_fp(const struct trapframe *tf)
{
    return tf->rbp;
}

uintptr_t arch_trapframe_pc(const struct trapframe *tf)
{
    return tf->rip;
}

uintptr_t arch_trapframe_sp(const struct trapframe *tf)
{
    return tf->rsp;
}

uintptr_t arch_trapframe_lr(const struct trapframe *tf)
{
    return 0;
}

bool arch_fault_address(const struct trapframe *tf, uintptr_t *va)
{
    /* A stack overflow into a guard page shows up as a double fault:
       the page fault could not push its frame.  CR2 still holds it. */
    if (tf->vector != 14 && tf->vector != VEC_DF)
        return false;
    *va = read_cr2();
    return true;
}

void arch_stop_self(void)
{
    for (;;)
        __asm__ volatile("cli; hlt");
}

void arch_halt(void)
{
    /* The scheduler's own core block: g0 never moves. */
    struct cpu *c = this_cpu();

    __asm__ volatile("cli" : : : "memory");
    irq_unmask(c);              /* held ones end the halt at once */
    /* sti takes effect after the next instruction, so no interrupt can
       slip in between it and hlt (SDM Vol. 2B, STI).  An interrupt ends
       the halt after its handler ran; IF stays set, masked in software. */
    __asm__ volatile("sti; hlt" : : : "memory");
    c->arch.irq_off = 1;
}

#define DEBUG_EXIT_PORT 0xF4

void arch_exit(int status)
{
    /* QEMU's isa-debug-exit ends the emulator with (status << 1) | 1. */
    arch_irq_save();
    arch_pio_write8(DEBUG_EXIT_PORT, status & 0x7F);
    arch_stop_self();
}
