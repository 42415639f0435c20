/*
 * machine.c - where the aarch64 boot paths (boot/aarch64/) get the
 * machine description from: the device tree, the ACPI tables, or QEMU
 * virt's fixed layout when there is no usable description; and the
 * console, a polled PL011 at the UART the description names.
 *
 * The blob is untrusted (firmware/fdt.c checks it).  QEMU virt's layout is
 * fixed (hw/arm/virt.c): PL011 at 0x09000000, GICv3 distributor at
 * 0x08000000 and redistributors at 0x080A0000, RAM from 0x40000000, the
 * virtual timer on PPI 11, one core.
 */
#include <string.h>
#include "arch/aarch64/aarch64.h"
#include "drivers/pl011.h"
#include "firmware/acpi.h"
#include "firmware/fdt.h"
#include "firmware/machine.h"

#define DTB_MAX_SIZE    (2u << 20)      /* booting.rst: at most 2 MiB */
#define VIRT_UART       0x09000000UL

/* Polled, so it works in the panic path and before interrupts exist.
   Until console_init, output is dropped. */
static struct pl011 console;

void machine_assume_virt(struct machine *m)
{
    memset(m, 0, sizeof *m);
    m->nmem = 1;
    m->mem[0] = (struct mach_range){ VIRT_RAM, VIRT_RAM_ASSUMED };
    m->ncpus = 1;
    m->cpus[0].mpidr = mpidr_affinity();
    m->gic.version = 3;
    m->gic.dist = (struct mach_range){ 0x08000000, 0x10000 };
    m->gic.nredist = 1;
    m->gic.redist[0] = (struct mach_range){ 0x080A0000, 0xF60000 };
    m->timer[MACH_TIMER_VIRT].intid = 27;
    m->uart = (struct mach_range){ VIRT_UART, 0x1000 };
}

const char *machine_from_dtb(uint64_t dtb, struct machine *m)
{
    static char why[128];
    size_t size;

    if (!dtb)
        return "no device tree";
    if (dtb >= (512UL << 30))
        return "device tree address is above the 512 GiB the boot map covers";
    if (dtb & 7)
        return "device tree address is not 8-byte aligned";
    if (fdt32((void *)dtb) != FDT_MAGIC)
        return "no device tree magic at its address";
    size = fdt32((const char *)dtb + 4);
    if (size > DTB_MAX_SIZE)
        size = DTB_MAX_SIZE;    /* fdt_check then says it is truncated */
    if (fdt_parse_machine((void *)dtb, size, m) == -FDT_ECORRUPT) {
        strncpy(why, m->error, sizeof why - 1);
        return why;
    }
    return NULL;
}

const char *machine_from_acpi(uint64_t rsdp, struct machine *m)
{
    static struct acpi_info acpi;   /* too big for the boot stack */
    int r = acpi_parse(rsdp, &acpi);

    return acpi_to_machine(&acpi, r, mpidr_affinity(), m);
}

uint64_t machine_dtb_size(uint64_t dtb)
{
    return fdt32((const char *)dtb + 4);
}

void console_init(const struct machine *m)
{
    pl011_init(&console, m->uart.base ? m->uart.base : VIRT_UART);
}

void arch_console_write(const char *s, size_t n)
{
    pl011_write(&console, s, n);
}
