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

/* Places the kernel ELF image (file, size) at a PLACE_ALIGN-aligned base
   below PLACE_LIMIT in pages allocated as EfiLoaderData (with random, a
   base drawn at random among the free ones: efi_place=random), each
   PT_LOAD segment at the same offset from it as from the link address,
   bss zeroed.  The kernel moves its absolute addresses there itself
   (boot/reloc.h); the table is checked here.  An image without one goes
   to its link address.  *span is the extent it occupies, *entry the
   run-time address of its EFI note's entry.  Prints why and returns an
   error if the file is not a Spindle kernel for this arch
   (ARCH_ELF_MACHINE), its table is broken, or there is no room. */
EFI_STATUS place_kernel(const char *file, UINTN size, int random, struct memrange *span,
                        uint64_t *entry);

/* Notes the firmware's vendor and revisions and the SMBIOS system and
   board names (board.c), for the kernel's console. */
void board_notes(void);

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
 *
 * PLACE_ALIGN, PLACE_LIMIT: the kernel's base is a multiple of
 * PLACE_ALIGN and its image ends below PLACE_LIMIT: 2 MiB on both (the
 * arm64 Image protocol's; the x86_64 kernel needs only 4 KiB, and the
 * same rule keeps one code path), below 2 GiB on x86_64 (mcmodel=small
 * code holds sign-extended 32-bit addresses) and 512 GiB on aarch64 (its
 * boot map's reach).  arch_cycles: a cycle counter, for randomness.
 */
#define PLACE_ALIGN         0x200000ull
#if defined(__x86_64__)
#define PLACE_LIMIT         0x80000000ull
#define ARCH_ELF_MACHINE    62      /* EM_X86_64 */
#define ARCH_NAME           "x86_64"
#define NO_TABLES_NOTE      "no ACPI RSDP in the firmware's configuration table; " \
                            "the kernel looks in the BIOS area, else starts the boot core only"
#elif defined(__aarch64__)
#define PLACE_LIMIT         0x8000000000ull
#define ARCH_ELF_MACHINE    183     /* EM_AARCH64 */
#define ARCH_NAME           "aarch64"
#define NO_TABLES_NOTE      "neither ACPI tables nor a device tree in the firmware's " \
                            "configuration table; the kernel assumes QEMU's virt machine, one core"
#endif

static inline uint64_t arch_cycles(void)
{
    uint64_t v;
#if defined(__x86_64__)
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    v = (uint64_t)hi << 32 | lo;
#else
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
#endif
    return v;
}

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
