/*
 * efi.c - the kernel's side of the EFI boot: turns the loader's handoff
 * (boot/efi/handoff.h) into the kernel's own struct bootinfo and enters
 * the generic kernel, as pvh.c does for PVH.
 *
 * The handoff stays where the loader put it (reserved in its memory map)
 * but is copied first thing, so nothing after kernel_main depends on it.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "boot/efi/handoff.h"
#include "kernel/bootinfo.h"

#define PIC1_DATA 0x21
#define PIC2_DATA 0xA1

extern char __kernel_start[], __kernel_end[];

static struct bootinfo bi;
static char cmdline[EFI_CMDLINE_MAX];

void efi_boot(const struct efi_handoff *h, uint64_t entry_tsc);

void efi_boot(const struct efi_handoff *h, uint64_t entry_tsc)
{
    boot_info = &bi;
    arch_early_init(&bi);       /* the console first: panics need it */
    efi_handoff_check(h);
    bi.entry_cycles = entry_tsc;
    efi_handoff_take(h, &bi, cmdline);
    /* The firmware may leave the 8259 PICs unmasked with its own vectors;
       the kernel takes interrupts from the I/O APIC and the LAPIC only. */
    arch_pio_write8(PIC1_DATA, 0xFF);
    arch_pio_write8(PIC2_DATA, 0xFF);
    /* Real-mode area (the AP trampoline, BIOS data) and our own image,
       as pvh.c does; the loader cut the image out of the usable ranges
       already, but the kernel does not depend on that. */
    bootinfo_add_reserved(&bi, 0, 0x100000);
    bootinfo_add_reserved(&bi, (uintptr_t)__kernel_start,
                          __kernel_end - __kernel_start);
    bi.mapped = BOOT_MAPPED;    /* efi_entry.S's identity map */
    kernel_main(&bi);
}
