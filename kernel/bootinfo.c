/*
 * bootinfo.c - helpers the boot paths use to fill struct bootinfo, and
 * the summary of it that kernel_main prints once.
 */
#include "kernel/bootinfo.h"
#include "kernel/printk.h"

const struct bootinfo *boot_info;

/* The image's bounds as it runs, and the link address of its start
   (tools/build/ksyms.sh); weak: the hosted build has neither. */
extern const char __kernel_start[] __attribute__((weak));
extern const char __kernel_end[] __attribute__((weak));
extern const uint64_t ksym_link_base __attribute__((weak));

static void add(struct memrange *r, int *n, uint64_t base, uint64_t len,
                const char *what)
{
    if (*n == BOOT_MAXMEM) {
        printk("boot: more than %d %s ranges; ignoring 0x%lx+0x%lx\n",
               BOOT_MAXMEM, what, base, len);
        return;
    }
    r[*n].base = base;
    r[*n].len = len;
    (*n)++;
}

void bootinfo_add_usable(struct bootinfo *bi, uint64_t base, uint64_t len)
{
    add(bi->usable, &bi->nusable, base, len, "usable");
}

void bootinfo_add_reserved(struct bootinfo *bi, uint64_t base, uint64_t len)
{
    add(bi->reserved, &bi->nreserved, base, len, "reserved");
}

/* One line "boot: WHAT N KiB in M ranges: a-b, c-d, ...". */
static void print_ranges(const char *what, const struct memrange *r, int n)
{
    uint64_t total = 0;

    for (int i = 0; i < n; i++)
        total += r[i].len;
    printk("boot: %s %lu KiB in %d ranges:", what, total >> 10, n);
    for (int i = 0; i < n; i++)
        printk("%s 0x%lx-0x%lx", i ? "," : "", r[i].base, r[i].base + r[i].len);
    printk("\n");
}

void bootinfo_print(const struct bootinfo *bi)
{
    if (__kernel_start && &ksym_link_base)
        printk("boot: kernel at 0x%lx-0x%lx (linked at 0x%lx)\n",
               (uintptr_t)__kernel_start, (uintptr_t)__kernel_end, ksym_link_base);
    print_ranges("RAM", bi->usable, bi->nusable);
    print_ranges("reserved", bi->reserved, bi->nreserved);
    if (bi->rsdp)
        printk("boot: ACPI RSDP at 0x%lx\n", bi->rsdp);
    if (bi->dtb)
        printk("boot: device tree at 0x%lx\n", bi->dtb);
    if (!bi->rsdp && !bi->dtb)
        printk("boot: neither ACPI tables nor a device tree were handed over\n");
}
