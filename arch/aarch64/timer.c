/*
 * timer.c - time on aarch64: the generic timer's virtual counter as the
 * cycle counter, its virtual timer (CNTV) as each core's one-shot timer,
 * and the PL031 RTC for the wall clock at boot.
 *
 * The virtual counter is the one EL1 always may read; after the drop
 * from EL2 (entry.S) CNTVOFF is 0 on every core, and under an EL2 we did
 * not set up, the hypervisor keeps the cores' offsets equal.  The counter
 * runs at CNTFRQ_EL0 in every power state (ARM ARM D11.1.2), so it is
 * invariant by definition.
 */
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "drivers/pl031.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"

#define CTL_ENABLE  (1 << 0)
#define VIRT_PPI    27              /* the virtual timer's usual INTID */

static uint64_t hz;
static uint32_t intid;

void gtimer_init(void)
{
    hz = sysreg_read(cntfrq_el0);
    if (!hz) {
        /* Firmware must set CNTFRQ (booting.rst); QEMU's is 62.5 MHz. */
        hz = 62500000;
        printk("timer: CNTFRQ_EL0 is 0; assuming %lu Hz\n", hz);
    }
    intid = boot_info->machine->timer[MACH_TIMER_VIRT].intid;
    if (!intid) {
        intid = VIRT_PPI;
        printk("timer: no virtual timer interrupt in the device tree; "
               "assuming INTID %u\n", intid);
    }
    sysreg_write(cntv_ctl_el0, 0);
    printk("timer: %lu.%03lu MHz generic timer, virtual timer on INTID "
           "%u\n", hz / 1000000, hz / 1000 % 1000, intid);
}

uint32_t timer_intid(void)
{
    return intid;
}

uint64_t arch_cycles_hz(void)
{
    return hz;
}

uint64_t arch_run_clock(void)
{
    return arch_cycles();
}

bool arch_cycles_invariant(void)
{
    return true;
}

/*
 * One shot at counter value `deadline`: CNTV_CVAL compares against the
 * virtual count, and a deadline already past fires at once.  The
 * interrupt is level-triggered and stays asserted while the condition
 * holds, so the handler disarms before it EOIs (timer_disarm).
 */
void arch_timer_arm(uint64_t deadline)
{
    if (!deadline) {
        sysreg_write(cntv_ctl_el0, 0);
    } else {
        sysreg_write(cntv_cval_el0, deadline);
        sysreg_write(cntv_ctl_el0, CTL_ENABLE);
    }
    isb();
}

void timer_disarm(void)
{
    sysreg_write(cntv_ctl_el0, 0);
    isb();
}

/* The wall clock is the PL031 the device tree names; without one (ACPI
   names none: it lives in AML), the firmware's clock as the EFI loader
   read it, moved on by the time since kernel entry; else 0. */
uint64_t arch_wallclock(void)
{
    const struct bootinfo *bi = boot_info;

    if (bi->machine->rtc.base)
        return pl031_read(bi->machine->rtc.base);
    if (bi->wallclock)
        return bi->wallclock + (arch_cycles() - bi->entry_cycles) / arch_cycles_hz();
    return 0;
}
