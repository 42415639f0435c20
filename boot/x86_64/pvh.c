/*
 * pvh.c - turns the PVH start info (Xen's include/public/arch-x86/
 * hvm/start_info.h, version 1) into a struct bootinfo and enters the
 * generic kernel.
 */
#include <string.h>
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/bootinfo.h"
#include "kernel/panic.h"

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
    /* Real-mode area (trampoline, BIOS data), then our own image. */
    bootinfo_add_reserved(&bi, 0, 0x100000);
    bootinfo_add_reserved(&bi, (uintptr_t)__kernel_start,
                          __kernel_end - __kernel_start);
    bi.mapped = BOOT_MAPPED;    /* pvh_entry.S's identity map */
    kernel_main(&bi);
}
