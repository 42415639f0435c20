/*
 * trap.c - where every exception lands (from vectors.S): interrupts go
 * to the scheduler's handlers, faults on lazily mapped G stack pages are
 * resolved, everything else is fatal and goes to the panic path with the
 * full register state.
 */
#include <stddef.h>
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

_Static_assert(offsetof(struct trapframe, sp) == TF_SP, "TF_SP");
_Static_assert(offsetof(struct trapframe, elr) == TF_ELR, "TF_ELR");
_Static_assert(offsetof(struct trapframe, esr) == TF_ESR, "TF_ESR");
_Static_assert(offsetof(struct trapframe, fpcr) == TF_FPCR, "TF_FPCR");
_Static_assert(offsetof(struct trapframe, q) == TF_Q, "TF_Q");
_Static_assert(sizeof(struct trapframe) == TF_SIZE, "TF_SIZE");

#define EC_UNKNOWN      0x00
#define EC_DABT_SAME    0x25
#define EC_IABT_SAME    0x21
#define EC_HLT          0x3C

extern const char vector_table[];
extern const char semihost_hlt[];       /* psci.c: the SYS_EXIT call */

void vectors_install(void)
{
    sysreg_write(vbar_el1, vector_table);
    isb();
}

static const char *ec_name(uint32_t ec)
{
    switch (ec) {
    case EC_UNKNOWN: return "undefined instruction";
    case 0x07: return "FP/SIMD access trap";
    case 0x0E: return "illegal execution state";
    case 0x15: return "SVC";
    case EC_IABT_SAME: return "instruction abort";
    case 0x22: return "PC alignment fault";
    case EC_DABT_SAME: return "data abort";
    case 0x26: return "SP alignment fault";
    case 0x2C: return "floating-point exception";
    case 0x2F: return "SError";
    case 0x3C: return "BRK";
    default: return "unexpected synchronous exception";
    }
}

/* True when the frame is not just below the interrupted sp: on the
   emergency stack (vectors.S). */
static bool on_emergency_stack(const struct trapframe *tf)
{
    return (uintptr_t)tf + TF_SIZE != tf->sp;
}

static bool mapped(uintptr_t va)
{
    uint64_t pa;

    return arch_virt_to_phys(va, &pa);
}

/*
 * The interrupted stack could not take the frame.  If its missing pages
 * are a G stack's lazily mapped ones, map them and return: the
 * instruction (or the interrupt, still pending) comes again.  Otherwise
 * it ran into a guard page: report the overflow at that address.
 */
static void bad_stack(struct trapframe *tf)
{
    uintptr_t lo = tf->sp - TF_SIZE, hi = tf->sp - 1;

    if ((mapped(lo) || vm_fault(lo)) && (mapped(hi) || vm_fault(hi)))
        return;
    tf->far = mapped(lo) ? hi : lo;
    tf->esr = (uint64_t)EC_DABT_SAME << 26;
    printk("trap: no stack left for an interrupt's frame below sp 0x%lx\n",
           tf->sp);
    panic_trap(tf, "data abort");
}

static void irq(struct trapframe *tf, bool fiq)
{
    uint32_t iar = gic_ack(fiq), id = gic_intid(iar);

    if (id >= INTID_LPI) {
        /* An MSI: edge-like, with no active state.  EOI (the priority
           drop) first, so that a new one while the handler runs is
           taken again after it. */
        int n = its_lpi_irq(id);

        gic_eoi(iar, fiq);
        if (n >= 0)
            irq_dispatch(n);
        else
            printk("trap: unexpected LPI %u on cpu %d\n", id, cpu_id());
        return;
    }
    if (id >= INTID_SPURIOUS)
        return;
    if (id == SGI_STOP)
        arch_stop_self();
    if (id == timer_intid()) {
        /* Level-triggered: disarm first, or it fires again at once;
           timer_interrupt re-arms.  EOI before, as the handler may
           switch to another G and come back much later. */
        timer_disarm();
        gic_eoi(iar, fiq);
        timer_interrupt(tf);
        return;
    }
    if (id >= 32 && gic_spi_irq(id) >= 0) {
        /* Level-triggered: the handler quiets the device, then EOI. */
        irq_dispatch(gic_spi_irq(id));
        gic_eoi(iar, fiq);
        return;
    }
    gic_eoi(iar, fiq);
    if (id == SGI_IPI) {
        ipi_handler();
        return;
    }
    printk("trap: unexpected interrupt %u on cpu %d\n", id, cpu_id());
}

static void sync(struct trapframe *tf)
{
    uint32_t ec = tf->esr >> 26, fsc = tf->esr & 0x3F;

    /* HLT for semihosting without a debugger attached traps as an
       undefined instruction: go on to the PSCI power-off after it. */
    if ((ec == EC_UNKNOWN || ec == EC_HLT) &&
        tf->elr == (uintptr_t)semihost_hlt) {
        tf->elr += 4;
        return;
    }
    /* Translation fault (DFSC 0b0001LL): maybe a G stack growing. */
    if (ec == EC_DABT_SAME && (fsc & 0x3C) == 0x04 && vm_fault(tf->far))
        return;
    panic_trap(tf, ec_name(ec));
}

static inline volatile uint8_t *core_local(void)
{
    return (volatile uint8_t *)LOCAL_VA;
}

/* PSTATE.I is set (IRQ_HARD_OFF), so nothing moves the G between the
   store and the unmask; the IRQs this core held, still pending in the
   GIC, are taken right after it. */
void arch_irq_slow(void)
{
    core_local()[LOCAL_IRQ_SLOW] = 0;
    __asm__ volatile("msr daifclr, #2" : : : "memory");
}

/*
 * An IRQ.  If this core's code had interrupts masked (arch_impl.h), it
 * is left pending and the interrupted code goes on with PSTATE.I set,
 * until it unmasks them.  Otherwise the handler runs masked, as any code
 * with interrupts off.  It may preempt the G and switch to the scheduler
 * with PSTATE.I still set, hence IRQ_HARD_OFF while it runs; when the G
 * is resumed, maybe on another core, the exit below unmasks that core,
 * and the ERET clears PSTATE.I.
 */
static void irq_entry(struct trapframe *tf)
{
    volatile uint8_t *local = core_local();

    if (local[LOCAL_IRQ_OFF]) {
        tf->spsr |= DAIF_I;
        local[LOCAL_IRQ_SLOW] = IRQ_HARD_OFF;
        prof_interrupt(tf->elr, tf->x[29], tf->sp, tf->x[30], true);
        return;
    }
    local[LOCAL_IRQ_OFF] = 1;
    local[LOCAL_IRQ_SLOW] = IRQ_HARD_OFF;
    /* The stop SGI (an FIQ) may interrupt any other handler. */
    __asm__ volatile("msr daifclr, #1" : : : "memory");
    irq(tf, false);
    /* The same address, now the page of the core the G resumed on. */
    __asm__ volatile("msr daifset, #2" : : : "memory");
    local[LOCAL_IRQ_SLOW] = 0;
    local[LOCAL_IRQ_OFF] = 0;
}

void aarch64_trap(struct trapframe *tf, int kind)
{
    /* Faults always run on the emergency stack (vectors.S); for an
       interrupt, being there means its own stack could not take it. */
    if (kind == KIND_IRQ && on_emergency_stack(tf)) {
        bad_stack(tf);
        return;
    }
    if (kind == KIND_IRQ) {
        irq_entry(tf);
        return;
    }
    /* As for an IRQ, the stop SGI may interrupt a fault's handler; an
       FIQ handler itself keeps FIQs masked, or its own FIQ, not
       acknowledged yet, would be taken again at once. */
    if (kind != KIND_FIQ)
        __asm__ volatile("msr daifclr, #1" : : : "memory");
    switch (kind) {
    case KIND_FIQ:
        irq(tf, true);
        return;
    case KIND_SYNC:
        sync(tf);
        return;
    case KIND_SERROR:
        panic_trap(tf, "SError (asynchronous abort)");
    default:
        panic_trap(tf, "exception from an unexpected vector");
    }
}

void arch_dump_trapframe(const struct trapframe *tf)
{
    printk("esr 0x%08lx (EC 0x%02lx) elr 0x%016lx far 0x%016lx\n",
           tf->esr, tf->esr >> 26, tf->elr, tf->far);
    for (int i = 0; i < 28; i += 4)
        printk("x%-2d %016lx x%-2d %016lx x%-2d %016lx x%-2d %016lx\n",
               i, tf->x[i], i + 1, tf->x[i + 1], i + 2, tf->x[i + 2],
               i + 3, tf->x[i + 3]);
    printk("x28 %016lx fp  %016lx lr  %016lx sp  %016lx\n", tf->x[28],
           tf->x[29], tf->x[30], tf->sp);
    printk("spsr %08lx fpcr %08lx fpsr %08lx ttbr0 %016lx\n", tf->spsr,
           tf->fpcr, tf->fpsr, sysreg_read(ttbr0_el1));
}

uintptr_t arch_trapframe_fp(const struct trapframe *tf)
{
    return tf->x[29];
}

uintptr_t arch_trapframe_pc(const struct trapframe *tf)
{
    return tf->elr;
}

uintptr_t arch_trapframe_sp(const struct trapframe *tf)
{
    return tf->sp;
}

uintptr_t arch_trapframe_lr(const struct trapframe *tf)
{
    return tf->x[30];
}

bool arch_fault_address(const struct trapframe *tf, uintptr_t *va)
{
    uint32_t ec = tf->esr >> 26;

    if (ec != EC_DABT_SAME && ec != EC_IABT_SAME)
        return false;
    *va = tf->far;
    return true;
}

void arch_stop_self(void)
{
    __asm__ volatile("msr daifset, #0xf" : : : "memory");
    for (;;)
        __asm__ volatile("wfi");
}

/*
 * WFI wakes on a pending interrupt even while IRQs are masked (ARM ARM
 * D1.16.2), so the interrupt that arrives between the caller's last
 * check and the WFI still ends it; it is taken when IRQs are unmasked
 * right after.  The caller has them masked in software; PSTATE.I is set
 * for the WFI, so that such an interrupt stays pending rather than being
 * held (trap.c would return to the WFI).  Returns with them masked in
 * software again and PSTATE.I clear.
 */
void arch_halt(void)
{
    __asm__ volatile("msr daifset, #2\n\tdsb sy\n\twfi" : : : "memory");
    core_local()[LOCAL_IRQ_OFF] = 0;
    arch_irq_slow();            /* takes what ended the WFI */
    __asm__ volatile("isb" : : : "memory");
    core_local()[LOCAL_IRQ_OFF] = 1;
}
