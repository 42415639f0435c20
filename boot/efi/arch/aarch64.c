/*
 * aarch64.c - the aarch64 half of the EFI loader (loader.h's arch hooks).
 *
 * The kernel is entered as Linux's arm64 boot protocol enters an Image
 * (Documentation/arch/arm64/booting.rst, handoff.h): MMU and D-cache
 * off, so everything the kernel reads before it turns its own MMU on
 * (its image, the handoff) is first cleaned from the caches to the
 * point of coherency, and the instruction cache is invalidated over the
 * freshly written code.  The firmware may run at EL2 or EL1; the kernel
 * takes either.
 */
#include "boot/efi/loader.h"

EFI_STATUS arch_check(void)
{
    uint64_t el;

    __asm__ volatile("mrs %0, CurrentEL" : "=r"(el));
    if ((el >> 2) != 1 && (el >> 2) != 2) {
        Print(L"spindle-efi: the firmware runs at EL%d; the kernel starts at EL2 "
              "or EL1\r\n", (int)(el >> 2));
        return EFI_UNSUPPORTED;
    }
    return EFI_SUCCESS;
}

void arch_claim(void)
{
}

void arch_release(void)
{
}

void arch_mask_interrupts(void)
{
    __asm__ volatile("msr daifset, #0xf" ::: "memory");
}

/* Cleans [base, base + len) from the data caches to the point of
   coherency (DC CVAC by the smallest D-cache line, CTR_EL0.DminLine). */
static void clean_to_poc(uint64_t base, uint64_t len)
{
    uint64_t ctr, line;

    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    line = 4ull << (ctr >> 16 & 0xF);
    for (uint64_t a = base & ~(line - 1); a < base + len; a += line)
        __asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
}

void arch_enter(uint64_t entry, struct efi_handoff *h,
                const struct memrange *claimed, int n)
{
    for (int i = 0; i < n; i++)
        clean_to_poc(claimed[i].base, claimed[i].len);
    clean_to_poc((uint64_t)h, sizeof *h);
    __asm__ volatile("dsb sy; ic iallu; dsb sy; isb" ::: "memory");

    /* MMU, D-cache and I-cache off at the firmware's EL, then the jump,
       with no memory access in between: from here on memory is Device
       memory, where the compiled C this file is made of may fault. */
    __asm__ volatile(
        "   mrs x9, CurrentEL\n"
        "   cmp x9, #(2 << 2)\n"
        "   b.ne 1f\n"
        "   mrs x9, sctlr_el2\n"
        "   bic x9, x9, #(1 << 0)\n"    /* M */
        "   bic x9, x9, #(1 << 2)\n"    /* C */
        "   bic x9, x9, #(1 << 12)\n"   /* I */
        "   msr sctlr_el2, x9\n"
        "   b 2f\n"
        "1: mrs x9, sctlr_el1\n"
        "   bic x9, x9, #(1 << 0)\n"
        "   bic x9, x9, #(1 << 2)\n"
        "   bic x9, x9, #(1 << 12)\n"
        "   msr sctlr_el1, x9\n"
        "2: isb\n"
        "   mov x0, %1\n"
        "   mov x1, xzr\n"
        "   mov x2, xzr\n"
        "   mov x3, xzr\n"
        "   br %0\n"
        : : "r"(entry), "r"(h) : "x0", "x1", "x2", "x3", "x9", "memory");
    __builtin_unreachable();
}
