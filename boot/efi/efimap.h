/*
 * efimap.h - the UEFI memory map turned into the kernel's struct bootinfo.
 *
 * Pure C with no firmware or kernel calls: the EFI loader runs it on the
 * final map after ExitBootServices, and tests/host/efimap_test.c runs it
 * on hand-made maps.  The layout of a descriptor is EFI_MEMORY_DESCRIPTOR
 * (UEFI 2.10 §7.2.3); the firmware's descriptor size may be larger than
 * this struct, so the map is walked by the size it reports.
 */
#ifndef BOOT_EFI_EFIMAP_H
#define BOOT_EFI_EFIMAP_H

#include <stddef.h>
#include <stdint.h>
#include "kernel/bootinfo.h"

/* EFI_MEMORY_TYPE values (UEFI 2.10 §7.2.1). */
enum {
    EFIMT_RESERVED, EFIMT_LOADER_CODE, EFIMT_LOADER_DATA, EFIMT_BS_CODE,
    EFIMT_BS_DATA, EFIMT_RT_CODE, EFIMT_RT_DATA, EFIMT_CONVENTIONAL,
    EFIMT_UNUSABLE, EFIMT_ACPI_RECLAIM, EFIMT_ACPI_NVS, EFIMT_MMIO,
    EFIMT_MMIO_PORT, EFIMT_PAL_CODE, EFIMT_PERSISTENT, EFIMT_UNACCEPTED,
};

struct efimap_desc {
    uint32_t type;
    uint32_t pad;
    uint64_t phys;              /* 4 KiB aligned, by the spec */
    uint64_t virt;
    uint64_t npages;            /* 4 KiB pages, whatever the CPU's size */
    uint64_t attr;
};

#define EFIMAP_PAGE     4096ull
#define EFIMAP_MAXPIECE 512     /* usable ranges before merging */

/* True for the types that are free RAM once boot services have exited:
   conventional memory, boot-services code and data, loader code and
   data.  Everything else (runtime services, ACPI reclaim and NVS, MMIO,
   reserved, unusable, persistent, unaccepted, unknown types) is kept
   from the page allocator. */
int efimap_usable_type(uint32_t type);

/*
 * Fills bi->usable with the RAM the kernel may use: the pages of the
 * usable types, minus every page that a non-usable entry touches and
 * minus the claimed ranges (the kernel image and its boot data, which
 * are also appended to bi->reserved), sorted and merged.  Firmware
 * mistakes get a documented fallback, never a failure on their own:
 *  - an unaligned entry: a usable one shrinks inward to whole pages, a
 *    non-usable one grows outward to whole pages;
 *  - overlapping entries: where a usable and a non-usable entry overlap,
 *    the non-usable type wins; overlapping usable entries merge;
 *  - an entry whose end wraps past 2^64: usable ignored, non-usable
 *    clipped to the top of the address space;
 *  - more usable ranges than bootinfo holds: the lowest are kept.
 * Each kind of mistake appends one line "efi: ..." to notes (always NUL
 * terminated, cut when full), for the kernel to print on its console.
 *
 * Returns the number of usable ranges, or -1 (with a note) when none is
 * left or desc_size is smaller than struct efimap_desc.  bi's other
 * fields are not touched.  Not reentrant (a static scratch array).
 */
int efimap_to_bootinfo(const void *map, size_t map_size, size_t desc_size,
                       const struct memrange *claimed, int nclaimed,
                       struct bootinfo *bi, char *notes, size_t notes_size);

/*
 * Sets bit i of gib[i / 64] for each GiB below 512 GiB that an entry of
 * a RAM type touches: the usable types, runtime services, ACPI reclaim
 * and NVS, persistent memory.  Reserved, unusable, MMIO and unknown
 * types mark nothing.  gib[] is not cleared first.
 */
void efimap_ram_gib(const void *map, size_t map_size, size_t desc_size,
                    uint64_t gib[8]);

/*
 * Where a kernel of size bytes may go: the bases aligned to align
 * (a power of two) with [base, base + size) inside one free
 * (conventional) entry and below limit.  Returns how many there are;
 * with pick < that count, *at is the pick-th of them (in map order), so
 * that a caller counts once and then picks one at random.  Overlapping
 * free entries may yield a base the firmware will not grant: the caller
 * asks for it with AllocateAddress and falls back if refused.
 */
uint64_t efimap_slots(const void *map, size_t map_size, size_t desc_size,
                      uint64_t size, uint64_t align, uint64_t limit, uint64_t pick,
                      uint64_t *at);

#endif
