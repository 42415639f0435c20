/*
 * main.c - kernel_main: from the boot path to the app's main().
 *
 *   boot/arch entry -> arch_early_init -> kernel_main:
 *     command line, the initrd's reservation, page allocator, final page
 *     tables, boot core tables, every other core, newlib, then the
 *     scheduler on every core, with main(argc, argv) as G 1 (on an 8 MiB
 *     demand-paged stack, with TLS: sched_start); its return value is
 *     the machine's exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include "arch/arch.h"
#include "drivers/pci.h"
#include "drivers/virtio_console.h"
#include "drivers/virtio_net.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"
#include "kernel/initrd.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/vm.h"
#include "net/net.h"
#include "sched/sched.h"

#define MAX_ARGS 32

extern int main(int argc, char **argv);
void newlib_init(void);
void fs_init(void);

/* Whole microseconds between two arch_cycles() readings. */
static uint64_t cycles_to_us(uint64_t d)
{
    return d * 1000000 / arch_cycles_hz();
}

#define BOOT_STACK_SIZE (64 * 1024)

/* The NIC for net/: a virtio-net device on PCI, else the platform's own
   (the hosted build's TAP device); NULL if there is none. */
static struct netdev *nic_probe(void)
{
    struct netdev *nic = vnet_probe(net_nic_irq, NULL, net_max_queues());

    return nic ? nic : arch_netdev_probe(net_nic_irq, NULL);
}

/* G 1: the app's main(); its return value ends the machine. */
static void run_main(void *arg)
{
    char *argv[MAX_ARGS];
    int argc = cmdline_argv("app", argv, MAX_ARGS);

    fs_init();                  /* "/", /tmp, /dev and the packed tree */
    pci_init();
    vcons_probe();              /* the host channel, if QEMU gave one */
    arch_console_in_start();    /* Ctrl-\ on the console (console_in.h) */
    net_init(nic_probe());
    fault_arm();
    exit(main(argc, argv));
}

/* The boot core's scheduler context, on a guarded stack. */
static __attribute__((noreturn)) void start(void *arg)
{
    newlib_init();
    sched_start(run_main);
}

void kernel_main(struct bootinfo *bi)
{
    void *stack;
    uint64_t us;
    int n;

    boot_info = bi;
    cmdline_parse(bi->cmdline);
    console_fb_start(bi);       /* a screen shows the boot from here */
    printk("Spindle: booting; command line \"%s\"\n", bi->cmdline);
    if (cmdline_truncated())
        printk("cmdline: longer than the parser keeps; the rest is ignored\n");
    bootinfo_print(bi);
    fault_init();
    initrd_setup(bi);           /* reserved before the allocator is built */
    mem_setup(bi);
    arch_paging_init(bi);
    console_fb_paging_done();
    arch_cpu_init(cpus[0]);
    cpus[0]->hwid = arch_cpu_hwid();
    printk("cpu 0 online (" ARCH_HWID_NAME " %u)\n", cpus[0]->hwid);
    cpus[0]->online = true;
    n = smp_init();
    us = cycles_to_us(arch_cycles() - bi->entry_cycles);
    printk("smp: %d cores online, %lu.%03lu ms from kernel entry\n", n,
           us / 1000, us % 1000);
    smp_check_cycles();

    /* Leave the small boot stack for one with a guard page below it. */
    stack = vm_stack_alloc(BOOT_STACK_SIZE);
    if (!stack)
        panic("kernel_main: no memory for the boot core's stack");
    cpus[0]->stack_lo = (uintptr_t)stack;
    cpus[0]->stack_hi = (uintptr_t)stack + BOOT_STACK_SIZE;
    arch_call_on_stack(cpus[0]->stack_hi, start, NULL);
}
