/*
 * boot.c - turns the device tree QEMU (or a board's loader) hands over
 * into a struct bootinfo and the machine summary the rest of
 * arch/aarch64 uses, then enters the generic kernel.
 *
 * The blob is untrusted (kernel/fdt.c checks it).  Without a usable one
 * the kernel says why and assumes QEMU's virt machine, whose layout is
 * fixed (hw/arm/virt.c): PL011 at 0x09000000, GICv3 distributor at
 * 0x08000000 and redistributors at 0x080A0000, RAM from 0x40000000, the
 * virtual timer on PPI 11, one core.
 */
#include <string.h>
#include "arch.h"
#include "aarch64.h"
#include "bootinfo.h"
#include "fdt.h"
#include "panic.h"
#include "pl011.h"
#include "printk.h"

#define DTB_MAX_SIZE    (2u << 20)      /* booting.rst: at most 2 MiB */
#define VIRT_UART       0x09000000UL
#define VIRT_RAM        0x40000000UL
#define VIRT_RAM_ASSUMED (256UL << 20)

extern char __kernel_start[], __kernel_end[];

struct fdt_machine machine;
static struct bootinfo bi;
static char cmdline[1024];
/* The console is the PL011 the device tree names (QEMU virt's where it
   names none), polled: it works in the panic path and before interrupts
   exist.  Until aarch64_boot has read the tree, output is dropped. */
static struct pl011 console;

/* QEMU virt's fixed layout, for a missing or broken blob. */
static void assume_virt(void)
{
    memset(&machine, 0, sizeof machine);
    machine.nmem = 1;
    machine.mem[0] = (struct fdt_range){ VIRT_RAM, VIRT_RAM_ASSUMED };
    machine.ncpus = 1;
    machine.cpus[0].mpidr = mpidr_affinity();
    machine.gic.version = 3;
    machine.gic.dist = (struct fdt_range){ 0x08000000, 0x10000 };
    machine.gic.nredist = 1;
    machine.gic.redist[0] = (struct fdt_range){ 0x080A0000, 0xF60000 };
    machine.timer[FDT_TIMER_VIRT].intid = 27;
    machine.uart = (struct fdt_range){ VIRT_UART, 0x1000 };
}

/* Parses the blob; returns why it is unusable, or NULL. */
static const char *parse(uint64_t dtb)
{
    static char why[128];
    size_t size;

    if (!dtb)
        return "no device tree (x0 was 0)";
    if (dtb >= (512UL << 30))
        return "device tree address is above the 512 GiB the boot map covers";
    if (dtb & 7)
        return "device tree address is not 8-byte aligned";
    if (fdt32((void *)dtb) != FDT_MAGIC)
        return "no device tree magic at the address in x0";
    size = fdt32((const char *)dtb + 4);
    if (size > DTB_MAX_SIZE)
        size = DTB_MAX_SIZE;    /* fdt_check then says it is truncated */
    if (fdt_parse_machine((void *)dtb, size, &machine) == -FDT_ECORRUPT) {
        strncpy(why, machine.error, sizeof why - 1);
        return why;
    }
    return NULL;
}

void aarch64_boot(uint64_t dtb, uint64_t entry_cycles)
{
    const char *bad;

    cpu_boot_early();
    bad = parse(dtb);

    if (bad)
        assume_virt();
    pl011_init(&console, machine.uart.base ? machine.uart.base : VIRT_UART);
    bi.entry_cycles = entry_cycles;
    bi.cmdline = cmdline;
    bi.dtb = dtb;
    arch_early_init(&bi);
    if (bad)
        printk("boot: %s; assuming QEMU virt (GICv3, %lu MiB at 0x%lx, "
               "one core)\n", bad, VIRT_RAM_ASSUMED >> 20, VIRT_RAM);
    else if (machine.error)
        printk("boot: device tree: %s\n", machine.error);
    if (!machine.uart.base)
        printk("boot: no PL011 in the device tree; trying 0x%lx\n",
               VIRT_UART);
    if (machine.bootargs)
        strncpy(cmdline, machine.bootargs, sizeof cmdline - 1);
    if (machine.dropped)
        printk("boot: %u device tree entries did not fit and are "
               "ignored\n", machine.dropped);
    for (uint32_t i = 0; i < machine.nmem; i++)
        bootinfo_add_usable(&bi, machine.mem[i].base, machine.mem[i].size);
    for (uint32_t i = 0; i < machine.nreserved; i++)
        bootinfo_add_reserved(&bi, machine.reserved[i].base,
                              machine.reserved[i].size);
    if (!bad)
        bootinfo_add_reserved(&bi, dtb, fdt32((const char *)dtb + 4));
    bootinfo_add_reserved(&bi, (uintptr_t)__kernel_start,
                          __kernel_end - __kernel_start);
    /* entry.S maps the kernel's GiB as normal memory, and RAM outside it
       as device memory or not at all: the page allocator keeps its
       bitmaps below the end of that GiB until arch_paging_init. */
    bi.mapped = (((uintptr_t)__kernel_start >> 30) + 1) << 30;
    if (machine.gic.version != 2 && machine.gic.version != 3)
        panic("aarch64_boot: no GICv2 or GICv3 in the device tree");
    kernel_main(&bi);
}

void arch_console_write(const char *s, size_t n)
{
    pl011_write(&console, s, n);
}
