/*
 * efi.c - the aarch64 kernel's side of the EFI boot: the loader's
 * handoff (boot/efi/handoff.h) becomes struct bootinfo, the firmware's
 * tables the machine description, and the generic kernel starts.
 * arch/aarch64/entry.S's efi_entry calls efi_boot with the boot map on.
 *
 * The description comes from ACPI when the firmware gave an RSDP (AAVMF
 * on QEMU virt, SBSA servers) and `acpi=off` is not on the command line,
 * else from the device tree (U-Boot's bootefi, AAVMF with `-M
 * virt,acpi=off`), else from QEMU virt's fixed layout; each fallback
 * says why on the console.  Memory always comes from the EFI memory map,
 * never from the tables: it is the one that knows what the firmware
 * still holds.
 */
#include <string.h>
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "boot/efi/handoff.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

extern char __kernel_start[], __kernel_end[];

void efi_boot(const struct efi_handoff *h, uint64_t entry_cycles);

static struct machine machine;
static struct bootinfo bi;
static char cmdline[EFI_CMDLINE_MAX];

/* Fills machine from the firmware's tables; returns which ones, and in
   *why the reasons the better sources were not used (or NULL). */
static const char *describe(const struct efi_handoff *h, const char **why)
{
    const char *opt, *bad = NULL;
    bool acpi_off;

    cmdline_parse(h->cmdline);      /* kernel_main parses it again */
    acpi_off = cmdline_get("acpi", &opt) && !strcmp(opt, "off");
    *why = NULL;
    if (h->bi.rsdp && !acpi_off) {
        bad = machine_from_acpi(h->bi.rsdp, &machine);
        if (!bad)
            return "ACPI";
        *why = bad;
    }
    if (h->bi.dtb) {
        bad = machine_from_dtb(h->bi.dtb, &machine);
        if (!bad)
            return "the device tree";
        *why = bad;
    } else if (!*why) {
        *why = h->bi.rsdp ? "acpi=off and no device tree"
                          : "neither ACPI tables nor a device tree";
    }
    machine_assume_virt(&machine);
    return NULL;
}

void efi_boot(const struct efi_handoff *h, uint64_t entry_cycles)
{
    const char *src = NULL, *why = NULL;

    cpu_boot_early();
    if (h->magic == EFI_HANDOFF_MAGIC && h->size == sizeof *h)
        src = describe(h, &why);
    else
        machine_assume_virt(&machine);  /* a console for the panic below */
    console_init(&machine);
    bi.machine = &machine;
    bi.entry_cycles = entry_cycles;
    boot_info = &bi;
    arch_early_init(&bi);
    efi_handoff_check(h);
    efi_handoff_take(h, &bi, cmdline);
    if (src)
        printk("boot: machine description from %s%s%s\n", src,
               why ? "; not ACPI: " : "", why ? why : "");
    else
        printk("boot: %s; assuming QEMU virt (GICv3, one core)\n", why);
    if (machine.error && src)
        printk("boot: %s: %s\n", src, machine.error);
    if (!machine.uart.base)
        printk("boot: the firmware names no PL011; trying QEMU virt's\n");
    if (machine.dropped)
        printk("boot: %u entries of the machine description did not fit "
               "and are ignored\n", machine.dropped);
    if (bi.dtb && src && !strcmp(src, "the device tree"))
        bootinfo_add_reserved(&bi, bi.dtb, machine_dtb_size(bi.dtb));
    bootinfo_add_reserved(&bi, (uintptr_t)__kernel_start,
                          __kernel_end - __kernel_start);
    /* The boot map holds every GiB with RAM as normal memory, but the
       page allocator needs only the kernel's GiB before
       arch_paging_init, as on the Image path. */
    bi.mapped = ((((uintptr_t)__kernel_end - 1) >> 30) + 1) << 30;
    if (machine.gic.version != 2 && machine.gic.version != 3)
        panic("efi_boot: no GICv2 or GICv3 in the firmware's tables");
    kernel_main(&bi);
}
