/*
 * x86_64.c - the x86_64 half of the EFI loader (loader.h's arch hooks).
 *
 * The kernel's EFI entry (boot/x86_64/efi_entry.S) builds its own 4-level
 * page tables, so the firmware must not run with 5-level paging; the
 * application processors start from a trampoline at TRAMPOLINE_PA, whose
 * page is claimed here so that the firmware's memory map keeps it out of
 * the usable RAM it describes.
 */
#include "arch/x86_64/x86.h"
#include "boot/efi/loader.h"

#define CR4_LA57  (1 << 12)         /* 5-level paging (Intel SDM Vol. 3A §2.5) */

typedef void kernel_entry(struct efi_handoff *h);   /* does not return */

static uint64_t trampoline;         /* its page, 0 if not claimed */

EFI_STATUS arch_check(void)
{
    uint64_t cr4;

    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    if (cr4 & CR4_LA57) {
        Print(L"spindle-efi: the firmware runs with 5-level paging, which the "
              "kernel's boot page tables do not handle\r\n");
        return EFI_UNSUPPORTED;
    }
    return EFI_SUCCESS;
}

void arch_claim(void)
{
    EFI_PHYSICAL_ADDRESS at = TRAMPOLINE_PA;

    if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
                                    EfiLoaderData, 1, &at)))
        note("the firmware holds the AP trampoline's page (",
             memory_taken(at, at + EFI_PAGE_SIZE, &at), "); other cores may not start");
    else
        trampoline = at;
}

void arch_release(void)
{
    if (trampoline)
        uefi_call_wrapper(BS->FreePages, 2, trampoline, 1);
    trampoline = 0;
}

void arch_mask_interrupts(void)
{
    __asm__ volatile("cli");
}

void arch_enter(uint64_t entry, struct efi_handoff *h,
                const struct memrange *claimed, int n)
{
    (void)claimed;
    (void)n;
    ((kernel_entry *)entry)(h);
    __builtin_unreachable();
}
