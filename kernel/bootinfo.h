/*
 * bootinfo.h - what every boot path (PVH, Linux Image, EFI, hosted) hands
 * to kernel_main: the memory map, firmware tables, the command line and,
 * on aarch64, the machine description.  It is the one way firmware facts
 * reach the kernel: code after the boot path reads them from boot_info.
 */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include "page.h"

#define BOOT_MAXMEM 64

struct machine;

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
    const struct machine *machine;  /* aarch64: cores, GIC, timer, UART,
                                   PSCI, PCI (from the DTB or ACPI;
                                   machine.h); NULL elsewhere */
};

/* The bootinfo the kernel runs on.  The boot path points it at its own
   struct before the first call into the arch (arch_early_init) and fills
   that struct before kernel_main; nothing changes it after. */
extern const struct bootinfo *boot_info;

void bootinfo_add_usable(struct bootinfo *bi, uint64_t base, uint64_t len);
void bootinfo_add_reserved(struct bootinfo *bi, uint64_t base, uint64_t len);

#endif
