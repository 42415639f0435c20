/*
 * psci.c - firmware calls (PSCI, ARM DEN 0022) and the way out of the
 * machine.
 *
 * The conduit, HVC or SMC, is the machine description's (the device
 * tree's /psci method, or ACPI's FADT flags).  The exit
 * status reaches QEMU through semihosting (ARM IHI 0097, SYS_EXIT with
 * ADP_Stopped_ApplicationExit and a subcode; QEMU runs with
 * -semihosting-config enable=on,target=native and exits with the
 * subcode).  The subcode is (status << 1) | 1, the convention x86_64's
 * isa-debug-exit imposes, so tools/run/qemu.sh tells "Spindle exited with a
 * status" (odd) from "QEMU stopped for another reason" (0) the same way
 * on both arches.  On a board without a debugger, the HLT traps as an
 * undefined instruction; trap.c then resumes after it and the machine
 * powers off through PSCI SYSTEM_OFF.
 */
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"

#define PSCI_SYSTEM_OFF         0x84000008
#define SYS_EXIT                0x18
#define ADP_APPLICATION_EXIT    0x20026

/* x0 = parameter block; HLT 0xF000 is the A64 semihosting trap. */
void semihost_exit(const uint64_t *block);
__asm__(".text\n"
        ".globl semihost_exit\n"
        "semihost_exit:\n"
        "    mov x1, x0\n"
        "    mov x0, #" "0x18" "\n"
        ".globl semihost_hlt\n"
        "semihost_hlt:\n"
        "    hlt #0xf000\n"
        "    ret\n");
_Static_assert(SYS_EXIT == 0x18, "semihost_exit's operation number");

int64_t psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
    uint32_t conduit = boot_info && boot_info->machine ?
                       boot_info->machine->psci_conduit : MACH_CONDUIT_NONE;
    register uint64_t x0 __asm__("x0") = fn;
    register uint64_t x1 __asm__("x1") = a1;
    register uint64_t x2 __asm__("x2") = a2;
    register uint64_t x3 __asm__("x3") = a3;

    if (conduit == MACH_CONDUIT_HVC)
        __asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
                         : : "memory");
    else if (conduit == MACH_CONDUIT_SMC)
        __asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
                         : : "memory");
    else
        return -1;              /* PSCI NOT_SUPPORTED */
    return (int64_t)x0;
}

static __attribute__((noreturn)) void psci_system_off(void)
{
    psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
    arch_stop_self();           /* no PSCI: halt for good */
}

void arch_exit(int status)
{
    uint64_t block[2] = { ADP_APPLICATION_EXIT,
                          (uint64_t)(status & 0x7F) << 1 | 1 };

    arch_irq_save();
    semihost_exit(block);
    psci_system_off();
}
