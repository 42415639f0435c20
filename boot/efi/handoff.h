/*
 * handoff.h - the contract between the EFI loader (boot/efi/) and the
 * kernel's EFI entry (boot/x86_64/efi_entry.S, efi.c).
 *
 * The loader places the kernel ELF's PT_LOAD segments at their physical
 * addresses (bss zeroed), finds the 64-bit entry in the kernel's
 * "Spindle" ELF note of type EFI_NOTE_ENTRY64 (desc: the entry's
 * address, 8 bytes), fills one struct efi_handoff in memory it claims
 * (listed in bi.reserved, never in bi.usable), exits boot services and
 * calls
 *   void efi_entry(struct efi_handoff *h);   System V ABI, IF clear,
 *                                            long mode, the firmware's
 *                                            identity map and GDT
 * which does not return.  Nothing of the firmware's but the runtime
 * regions and the ACPI tables survives the call.
 */
#ifndef BOOT_EFI_HANDOFF_H
#define BOOT_EFI_HANDOFF_H

#define EFI_HANDOFF_MAGIC   0x46464f444e415053ull  /* "SPANDOFF" */
#define EFI_NOTE_NAME       "Spindle"
#define EFI_NOTE_ENTRY64    0x45464931
#define EFI_CMDLINE_MAX     1024
#define EFI_NOTES_MAX       2048

#ifndef __ASSEMBLER__
#include <stdint.h>
#include "bootinfo.h"

struct efi_handoff {
    uint64_t magic;             /* EFI_HANDOFF_MAGIC */
    struct bootinfo bi;         /* usable, reserved, rsdp; the rest unset */
    char cmdline[EFI_CMDLINE_MAX];  /* NUL terminated */
    char notes[EFI_NOTES_MAX];  /* "efi: ..." lines for the console */
    struct bootfb fb;           /* the GOP framebuffer; base 0: none */
};
#endif

#endif
