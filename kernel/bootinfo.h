/*
 * bootinfo.h - what every boot path (PVH, Linux Image, EFI) hands to
 * kernel_main: the memory map, firmware tables and the command line.
 */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include "page.h"

#define BOOT_MAXMEM 64

struct bootinfo {
    struct memrange usable[BOOT_MAXMEM];    /* RAM the kernel may use */
    int nusable;
    struct memrange reserved[BOOT_MAXMEM];  /* image, boot data, tables */
    int nreserved;
    const char *cmdline;        /* NUL-terminated, never NULL */
    uint64_t rsdp;              /* ACPI RSDP physical address, 0 unknown */
    uint64_t dtb;               /* device tree blob, 0 if none */
    uint64_t entry_cycles;      /* arch_cycles() at kernel entry */
    uint64_t mapped;            /* the boot page tables map [0, mapped);
                                   0: all RAM */
};

void bootinfo_add_usable(struct bootinfo *bi, uint64_t base, uint64_t len);
void bootinfo_add_reserved(struct bootinfo *bi, uint64_t base, uint64_t len);

#endif
