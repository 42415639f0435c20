/*
 * loader.h - the parts of the EFI loader (an EFI application built with
 * GNU-EFI, not part of the kernel) that loader.c's efi_main strings
 * together.  All of them run before ExitBootServices.
 */
#ifndef BOOT_EFI_LOADER_H
#define BOOT_EFI_LOADER_H

#include <efi.h>
#include <efilib.h>
#include "page.h"

/* Where make image puts the kernel and the baked-in command line on the
   EFI system partition, beside EFI/BOOT/BOOTX64.EFI. */
#define KERNEL_PATH  L"\\EFI\\spindle\\kernel.elf"
#define CMDLINE_PATH L"\\EFI\\spindle\\cmdline"

/* Reads the file at path on the volume the loader came from into pool
   memory (*buf, *size, NUL appended, the caller frees it).  Prints why
   and returns the status if it cannot. */
EFI_STATUS read_file(EFI_LOADED_IMAGE *li, CHAR16 *path, char **buf, UINTN *size);

/* Places the kernel ELF image (file, size): each PT_LOAD segment at its
   physical address, in pages allocated there as EfiLoaderData, bss
   zeroed.  *span is the extent it occupies, *entry the 64-bit entry of
   its EFI note.  Prints why and returns an error if the file is not a
   Spindle x86_64 kernel or its addresses are not free. */
EFI_STATUS place_kernel(const char *file, UINTN size, struct memrange *span,
                        uint64_t *entry);

/* For error messages: the type of the lowest memory map entry in
   [lo, hi) that is not free ("runtime-services data", ...), and in *at
   where it starts (lo if it starts below). */
const char *memory_taken(uint64_t lo, uint64_t hi, uint64_t *at);

#endif
