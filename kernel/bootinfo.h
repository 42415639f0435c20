/*
 * bootinfo.h - what every boot path (PVH, Linux Image, EFI, hosted) hands
 * to kernel_main: the memory map, firmware tables, the command line, the
 * initrd and, on aarch64, the machine description.  It is the one way firmware facts
 * reach the kernel: code after the boot path reads them from boot_info.
 */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include "kernel/page.h"

#define BOOT_MAXMEM 64

struct machine;

/* How the framebuffer stores a pixel: always 32 bits, the colour
   channels where the masks say.  RGB and BGR are UEFI GOP's two fixed
   layouts (byte 0 red, resp. blue); BITMASK takes red/green/blue_mask. */
enum bootfb_format {
    BOOTFB_RGB,
    BOOTFB_BGR,
    BOOTFB_BITMASK,
};

/* A linear framebuffer left set up by the firmware (UEFI GOP); base 0
   means none.  It is device memory, never RAM to hand out. */
struct bootfb {
    uint64_t base;              /* physical address of pixel (0, 0) */
    uint64_t size;              /* bytes, at least stride * height * 4 */
    uint32_t width, height;     /* visible pixels */
    uint32_t stride;            /* pixels from one row to the next */
    uint32_t format;            /* enum bootfb_format */
    uint32_t red_mask, green_mask, blue_mask;   /* BOOTFB_BITMASK only */
};

struct bootinfo {
    struct memrange usable[BOOT_MAXMEM];    /* RAM the kernel may use */
    int nusable;
    struct memrange reserved[BOOT_MAXMEM];  /* image, boot data, tables */
    int nreserved;
    const char *cmdline;        /* NUL-terminated, never NULL */
    uint64_t rsdp;              /* ACPI RSDP physical address, 0 unknown */
    uint64_t dtb;               /* device tree blob, 0 if none */
    uint64_t entry_cycles;      /* arch_cycles() at kernel entry */
    uint64_t wallclock;         /* Unix time (s), from the firmware's clock
                                   shortly before entry_cycles (the EFI
                                   loader's GetTime); 0 unknown */
    uint64_t mapped;            /* the boot page tables map [0, mapped);
                                   0: all RAM */
    const struct machine *machine;  /* aarch64: cores, GIC, timer, UART,
                                   PSCI, PCI (from the DTB or ACPI;
                                   machine.h); NULL elsewhere */
    struct bootfb fb;           /* the boot framebuffer, if any */
    uint64_t initrd;            /* the initrd the boot path loaded (a cpio
                                   archive, kernel/initrd.h): its physical
                                   address as the boot info gave it,
                                   unchecked; 0 and initrd_size 0: none.
                                   initrd_setup checks and reserves it, or
                                   zeroes both */
    uint64_t initrd_size;       /* its bytes */
    const char *initrd_from;    /* the boot path that found it: "pvh",
                                   "dtb", "efi", "hosted" */
};

/* The bootinfo the kernel runs on.  The boot path points it at its own
   struct before the first call into the arch (arch_early_init) and fills
   that struct before kernel_main; nothing changes it after. */
extern const struct bootinfo *boot_info;

void bootinfo_add_usable(struct bootinfo *bi, uint64_t base, uint64_t len);
void bootinfo_add_reserved(struct bootinfo *bi, uint64_t base, uint64_t len);

/* Prints once what a board bring-up reads from the serial log: where the
   kernel runs (and was linked), the usable RAM and the reserved ranges
   the boot path handed over, and where the ACPI RSDP or device tree is
   ("boot: ..." lines; the EFI loader's "efi: ..." notes come before). */
void bootinfo_print(const struct bootinfo *bi);

#endif
