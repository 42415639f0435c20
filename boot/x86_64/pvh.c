/*
 * pvh.c - turns the PVH start info (Xen's include/public/arch-x86/
 * hvm/start_info.h, version 1: the memory map, the command line, the
 * RSDP and the first module, QEMU's -initrd) into a struct bootinfo and
 * enters the generic kernel.
 */
#include <string.h>
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/bootinfo.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

#define HVM_START_MAGIC 0x336EC578
#define E820_RAM        1

struct hvm_start_info {
    uint32_t magic, version, flags, nr_modules;
    uint64_t modlist_paddr, cmdline_paddr, rsdp_paddr;
    uint64_t memmap_paddr;      /* version >= 1 */
    uint32_t memmap_entries, reserved;
};

struct hvm_memmap_entry {
    uint64_t addr, size;
    uint32_t type, reserved;
};

struct hvm_modlist_entry {
    uint64_t paddr, size, cmdline_paddr, reserved;
};

extern char __kernel_start[], __kernel_end[];

static struct bootinfo bi;
static char cmdline[1024];

void x86_boot(uint32_t start_info_pa, uint64_t entry_tsc)
{
    const struct hvm_start_info *si = (void *)(uintptr_t)start_info_pa;

    bi.entry_cycles = entry_tsc;
    bi.cmdline = cmdline;
    boot_info = &bi;
    arch_early_init(&bi);
    if (si->magic != HVM_START_MAGIC)
        panic("x86_boot: no PVH start info (magic 0x%x)", si->magic);
    if (si->cmdline_paddr)
        strncpy(cmdline, (const char *)si->cmdline_paddr, sizeof cmdline - 1);
    bi.rsdp = si->rsdp_paddr;
    if (si->version < 1 || !si->memmap_paddr)
        panic("x86_boot: PVH start info has no memory map");

    const struct hvm_memmap_entry *e = (void *)si->memmap_paddr;
    for (uint32_t i = 0; i < si->memmap_entries; i++)
        if (e[i].type == E820_RAM)
            bootinfo_add_usable(&bi, e[i].addr, e[i].size);
    /* QEMU's -initrd is the first module (its PVH option ROM lists
       it); kernel_main's initrd_setup checks where it says it is. */
    if (si->nr_modules && si->modlist_paddr &&
        si->modlist_paddr <= BOOT_MAPPED - sizeof(struct hvm_modlist_entry)) {
        const struct hvm_modlist_entry *m = (void *)si->modlist_paddr;

        if (si->nr_modules > 1)
            printk("pvh: %u modules; the first is the initrd, the rest are "
                   "ignored\n", si->nr_modules);
        bi.initrd = m->paddr;
        bi.initrd_size = m->size;
        bi.initrd_from = "pvh";
    } else if (si->nr_modules) {
        printk("pvh: the module list at 0x%lx is not in the boot page tables; "
               "no initrd\n", si->modlist_paddr);
    }
    /* Real-mode area (trampoline, BIOS data), then our own image. */
    bootinfo_add_reserved(&bi, 0, 0x100000);
    bootinfo_add_reserved(&bi, (uintptr_t)__kernel_start,
                          __kernel_end - __kernel_start);
    bi.mapped = BOOT_MAPPED;    /* pvh_entry.S's identity map */
    kernel_main(&bi);
}
