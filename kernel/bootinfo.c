/*
 * bootinfo.c - helpers the boot paths use to fill struct bootinfo.
 */
#include "kernel/bootinfo.h"
#include "kernel/printk.h"

const struct bootinfo *boot_info;

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
