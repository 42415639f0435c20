/*
 * loader.h - the parts of the EFI loader (an EFI application built with
 * GNU-EFI, not part of the kernel) that loader.c's efi_main strings
 * together.  All of them run before ExitBootServices.
 */
#ifndef BOOT_EFI_LOADER_H
#define BOOT_EFI_LOADER_H

#include <efi.h>
#include <efilib.h>
#include "boot/efi/handoff.h"
#include "kernel/page.h"

/* Where make image puts the kernel, the baked-in command line and the
   initrd (make INITRD=; optional) on the EFI system partition, beside
   EFI/BOOT/BOOTX64.EFI or BOOTAA64.EFI. */
#define KERNEL_PATH  L"\\EFI\\spindle\\kernel.elf"
#define CMDLINE_PATH L"\\EFI\\spindle\\cmdline"
#define INITRD_PATH  L"\\EFI\\spindle\\initrd"

/* Reads the file at path on the volume the loader came from into pool
   memory (*buf, *size, NUL appended, the caller frees it).  Returns
   EFI_NOT_FOUND quietly when there is no such file; prints why and
   returns the status if it cannot read one that is there. */
EFI_STATUS read_file(EFI_LOADED_IMAGE *li, CHAR16 *path, char **buf, UINTN *size);

/* The same into whole pages of EfiLoaderData below 4 GiB, as the
   handoff's, not pool memory: *pages is what they span (len 0 for an
   empty file, which takes none), *size the file's bytes.  The caller
   frees the pages. */
EFI_STATUS read_file_pages(EFI_LOADED_IMAGE *li, CHAR16 *path, struct memrange *pages,
                           UINTN *size);

/* Places the kernel ELF image (file, size): each PT_LOAD segment at its
   physical address, in pages allocated there as EfiLoaderData, bss
   zeroed.  *span is the extent it occupies, *entry the 64-bit entry of
   its EFI note.  Prints why and returns an error if the file is not a
   Spindle kernel for this arch (ARCH_ELF_MACHINE) or its addresses are
   not free. */
EFI_STATUS place_kernel(const char *file, UINTN size, struct memrange *span,
                        uint64_t *entry);

/* For error messages: the type of the lowest memory map entry in
   [lo, hi) that is not free ("runtime-services data", ...), and in *at
   where it starts (lo if it starts below). */
const char *memory_taken(uint64_t lo, uint64_t hi, uint64_t *at);

/* Appends the line "efi: " a b c to the handoff's notes, which the kernel
   prints on its console (b, c may be NULL). */
void note(const char *a, const char *b, const char *c);

/*
 * What each arch provides (x86_64.c, aarch64.c).
 *
 * ARCH_ELF_MACHINE, ARCH_NAME: the kernel ELF's e_machine and the arch's
 * name for messages.  NO_TABLES_NOTE: the note when the configuration
 * table holds neither an RSDP nor a device tree, saying what the kernel
 * does then.
 */
#if defined(__x86_64__)
#define ARCH_ELF_MACHINE    62      /* EM_X86_64 */
#define ARCH_NAME           "x86_64"
#define NO_TABLES_NOTE      "no ACPI RSDP in the firmware's configuration table; " \
                            "the kernel looks in the BIOS area, else starts the boot core only"
#elif defined(__aarch64__)
#define ARCH_ELF_MACHINE    183     /* EM_AARCH64 */
#define ARCH_NAME           "aarch64"
#define NO_TABLES_NOTE      "neither ACPI tables nor a device tree in the firmware's " \
                            "configuration table; the kernel assumes QEMU's virt machine, one core"
#endif

/* Before anything is allocated: whether the CPU runs in a state the
   kernel's entry handles.  Prints why and fails if not. */
EFI_STATUS arch_check(void);

/* After the kernel is placed: claims what the kernel needs at fixed
   addresses, or notes why it cannot; arch_release gives it back when
   the boot does not go on. */
void arch_claim(void);
void arch_release(void);

/* After ExitBootServices: every interrupt masked. */
void arch_mask_interrupts(void);

/* The jump to the kernel's entry with h (handoff.h says how, per arch).
   claimed[] holds the kernel image, the handoff and the initrd (len 0:
   none). */
__attribute__((noreturn)) void arch_enter(uint64_t entry, struct efi_handoff *h,
                                          const struct memrange *claimed, int n);

#endif
