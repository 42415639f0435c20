/*
 * machine.c - where the aarch64 boot paths (boot/aarch64/) get the
 * machine description from: the device tree, the ACPI tables, or QEMU
 * virt's fixed layout when there is no usable description; and the
 * console, a PL011 at the UART the description names, polled for what it
 * sends and receiving from its interrupt, an SPI of the GIC.
 *
 * The blob is untrusted (firmware/fdt.c checks it).  QEMU virt's layout is
 * fixed (hw/arm/virt.c): PL011 at 0x09000000 on SPI 1, GICv3 distributor
 * at 0x08000000 and redistributors at 0x080A0000, RAM from 0x40000000,
 * the virtual timer on PPI 11, one core.
 */
#include <string.h>
#include "arch/aarch64/aarch64.h"
#include "drivers/pl011.h"
#include "firmware/acpi.h"
#include "firmware/fdt.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/console_in.h"
#include "kernel/cpu.h"
#include "kernel/irq.h"
#include "kernel/printk.h"

#define DTB_MAX_SIZE    (2u << 20)      /* booting.rst: at most 2 MiB */
#define VIRT_UART       0x09000000UL
#define VIRT_UART_INTID 33              /* SPI 1 */
#define RX_ROUNDS       64              /* a receiver that never empties */

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
    m->uart_irq = (struct mach_irq){ VIRT_UART_INTID, 4 };     /* level */
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

/* The PL011's receive interrupt, level-triggered: reads until the FIFO
   is empty, which lowers it. */
static void console_rx(void *arg)
{
    char buf[16];
    size_t n;

    for (int i = 0; i < RX_ROUNDS &&
                    (n = pl011_read(&console, buf, sizeof buf)); i++)
        console_input(buf, n);
}

void arch_console_in_start(void)
{
    const struct machine *m = boot_info->machine;
    uint32_t intid = m->uart_irq.intid;
    int irq;

    if (!m->uart.base) {
        printk("console: input off: no PL011 in the machine description\n");
        return;
    }
    if (intid < 32) {
        printk("console: input off: the machine description gives the "
               "PL011 no SPI\n");
        return;
    }
    if ((irq = irq_alloc(console_rx, NULL)) < 0) {
        printk("console: input off: no free device interrupt\n");
        return;
    }
    if (!gic_route_spi(intid, irq, cpus[0])) {
        printk("console: input off: the PL011's INTID %u is taken or not "
               "an SPI\n", intid);
        return;
    }
    pl011_rx_enable(&console);
}
