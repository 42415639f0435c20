/*
 * image.c - the Linux arm64 Image boot path (QEMU's -kernel, a board's
 * U-Boot `booti`): turns the device tree in x0 (and the initrd its
 * /chosen names) into struct bootinfo and enters the generic kernel.
 * arch/aarch64/entry.S's _head calls image_boot with the boot map on
 * (the kernel's GiB and the blob's GiB as normal memory).
 *
 * Without a usable blob the kernel says why and assumes QEMU's virt
 * machine (machine_assume_virt): 256 MiB of RAM, one core.
 */
#include <string.h>
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

extern char __kernel_start[], __kernel_end[];

void image_boot(uint64_t dtb, uint64_t entry_cycles);

static struct machine machine;
static struct bootinfo bi;
static char cmdline[1024];

void image_boot(uint64_t dtb, uint64_t entry_cycles)
{
    const char *bad;

    cpu_boot_early();
    bad = machine_from_dtb(dtb, &machine);
    if (bad)
        machine_assume_virt(&machine);
    console_init(&machine);
    bi.machine = &machine;
    bi.entry_cycles = entry_cycles;
    bi.cmdline = cmdline;
    bi.dtb = bad ? 0 : dtb;
    boot_info = &bi;
    arch_early_init(&bi);
    if (bad)
        printk("boot: %s (x0 = 0x%lx); assuming QEMU virt (GICv3, %lu MiB "
               "at 0x%lx, one core)\n", bad, dtb, VIRT_RAM_ASSUMED >> 20,
               VIRT_RAM);
    else if (machine.error)
        printk("boot: device tree: %s\n", machine.error);
    if (!machine.uart.base)
        printk("boot: no PL011 in the device tree; trying QEMU virt's\n");
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
        bootinfo_add_reserved(&bi, dtb, machine_dtb_size(dtb));
    /* QEMU's -initrd (a boot loader's ramdisk), where /chosen says;
       kernel_main's initrd_setup checks it.  An end before the start
       leaves a size of 0, which it reports. */
    if (machine.initrd_start || machine.initrd_end) {
        bi.initrd = machine.initrd_start;
        bi.initrd_size = machine.initrd_end > machine.initrd_start ?
                         machine.initrd_end - machine.initrd_start : 0;
        bi.initrd_from = "dtb";
    }
    bootinfo_add_reserved(&bi, (uintptr_t)__kernel_start,
                          __kernel_end - __kernel_start);
    /* entry.S maps the kernel's GiB as normal memory, and RAM outside it
       as device memory or not at all: the page allocator keeps its
       bitmaps below the end of that GiB until arch_paging_init. */
    bi.mapped = ((((uintptr_t)__kernel_end - 1) >> 30) + 1) << 30;
    if (machine.gic.version != 2 && machine.gic.version != 3)
        panic("image_boot: no GICv2 or GICv3 in the device tree");
    kernel_main(&bi);
}
