/*
 * handoff.h - the contract between the EFI loader (boot/efi/) and the
 * kernel's EFI entry (x86_64: boot/x86_64/efi_entry.S and efi.c;
 * aarch64: efi_entry in arch/aarch64/entry.S and boot/aarch64/efi.c).
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
 *
 * On aarch64 the call is made the way Linux's arm64 boot protocol asks
 * (Documentation/arch/arm64/booting.rst): x0 = h, at EL2 or EL1 as the
 * firmware ran, every exception masked, MMU and D-cache off, with the
 * kernel image and the handoff cleaned to the point of coherency.  The
 * kernel reads ram_gib with the MMU off, to map those GiBs as normal
 * memory in its boot page tables.
 */
#ifndef BOOT_EFI_HANDOFF_H
#define BOOT_EFI_HANDOFF_H

#define EFI_HANDOFF_MAGIC   0x46464f444e415053ull  /* "SPANDOFF" */
#define EFI_NOTE_NAME       "Spindle"
#define EFI_NOTE_ENTRY64    0x45464931
#define EFI_CMDLINE_MAX     1024
#define EFI_NOTES_MAX       2048
#define EFI_HANDOFF_RAM_GIB 8           /* offsetof(struct efi_handoff, ram_gib) */

#ifdef __ASSEMBLER__
/* The "Spindle" note by which the loader finds the kernel's entry sym. */
.macro efi_entry_note sym
    .pushsection .note.spindle, "a"
    .balign 4
    .long 2f - 1f, 4f - 3f, EFI_NOTE_ENTRY64
1:  .asciz EFI_NOTE_NAME
2:  .balign 4
3:  .quad \sym
4:
    .popsection
.endm
#else
#include <stdint.h>
#include "kernel/bootinfo.h"

struct efi_handoff {
    uint64_t magic;             /* EFI_HANDOFF_MAGIC */
    uint64_t ram_gib[8];        /* bit i of word i / 64: the i-th GiB of the
                                   physical address space holds RAM of any
                                   type (efimap_ram_gib); below 512 GiB */
    uint64_t size;              /* sizeof(struct efi_handoff) in the loader's
                                   build: a kernel of another build (whose
                                   struct bootinfo may differ) refuses it */
    struct bootinfo bi;         /* usable, reserved, rsdp, dtb, fb (the
                                   GOP framebuffer), initrd and
                                   initrd_size (EFI/spindle/initrd, its
                                   pages among the reserved); the rest
                                   unset */
    char cmdline[EFI_CMDLINE_MAX];  /* NUL terminated */
    char notes[EFI_NOTES_MAX];  /* "efi: ..." lines for the console */
};

/*
 * The kernel's side (boot/handoff.c).  efi_handoff_check panics unless h
 * is a handoff from a loader of the kernel's own build.
 * efi_handoff_take copies h's bootinfo into *bi (keeping bi's
 * entry_cycles and machine; an initrd's initrd_from is "efi") and its
 * command line into cmdline, and prints the loader's notes; it panics if
 * the memory map left no usable memory.  Nothing after it reads h.
 */
void efi_handoff_check(const struct efi_handoff *h);
void efi_handoff_take(const struct efi_handoff *h, struct bootinfo *bi,
                      char cmdline[EFI_CMDLINE_MAX]);
#endif

#endif
