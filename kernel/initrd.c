/*
 * initrd.c - which packed tree initrd_get hands out (initrd.h): the boot
 * path's initrd once it is checked and reserved, else the archive linked
 * into the image.
 */
#include <stdint.h>
#include "kernel/bootinfo.h"
#include "kernel/initrd.h"
#include "kernel/mem.h"
#include "kernel/printk.h"

/* The archive linked into the image (tools/build/files.S), between these
   two symbols; weak, so that both are 0 in an image without one. */
extern const char spindle_files_start[] __attribute__((weak));
extern const char spindle_files_end[] __attribute__((weak));

/* Set once by initrd_setup, before any other core runs; read-only after. */
static const void *tree;
static size_t tree_len;
static const char *tree_from;

/* The end of r, or UINT64_MAX for a range that runs past the top. */
static uint64_t range_end(const struct memrange *r)
{
    return r->base + r->len < r->base ? UINT64_MAX : r->base + r->len;
}

/* Where the run of ranges of r[0..n) that covers lo ends: the highest
   end of a range holding lo, or lo if none does. */
static uint64_t covered_to(const struct memrange *r, int n, uint64_t lo)
{
    uint64_t to = lo;

    for (int i = 0; i < n; i++)
        if (r[i].base <= lo && lo - r[i].base < r[i].len && range_end(&r[i]) > to)
            to = range_end(&r[i]);
    return to;
}

/* Whether every byte of [lo, hi) lies in bi's usable or reserved ranges:
   RAM the map lists, or RAM a boot path keeps (the EFI loader's claim on
   the initrd's own pages is a reserved range). */
static bool in_ram(const struct bootinfo *bi, uint64_t lo, uint64_t hi)
{
    while (lo < hi) {
        uint64_t u = covered_to(bi->usable, bi->nusable, lo);
        uint64_t r = covered_to(bi->reserved, bi->nreserved, lo);
        uint64_t to = u > r ? u : r;

        if (to == lo)
            return false;
        lo = to;
    }
    return true;
}

/* Why the boot path's initrd cannot be used, or NULL. */
static const char *unusable(const struct bootinfo *bi)
{
    uint64_t base = bi->initrd, len = bi->initrd_size;

    if (!len)
        return "it is empty";
    if (!base)
        return "its address is 0";
    if (base + len < base)
        return "it runs past the top of the address space";
    if (!in_ram(bi, base, base + len))
        return "it is not all in the RAM of the memory map";
    return NULL;
}

void initrd_setup(struct bootinfo *bi)
{
    size_t image_len = (size_t)(spindle_files_end - spindle_files_start);
    const char *from = bi->initrd_from ? bi->initrd_from : "the boot path";
    const char *why = NULL;
    bool boot = bi->initrd || bi->initrd_size;

    tree = NULL;
    tree_len = 0;
    tree_from = NULL;
    if (boot) {
        int n = bi->nreserved;

        why = unusable(bi);
        if (!why) {
            bootinfo_add_reserved(bi, bi->initrd, bi->initrd_size);
            if (bi->nreserved == n)
                why = "no reserved range is left for it";
        }
        if (why) {
            printk("initrd: not using the initrd from %s at 0x%lx (%lu bytes): %s; %s\n",
                   from, bi->initrd, bi->initrd_size, why,
                   spindle_files_start ? "the image's own is used" : "no initrd");
            bi->initrd = 0;
            bi->initrd_size = 0;
            boot = false;
        }
    }
    if (boot) {
        tree = phys_to_virt(bi->initrd);
        tree_len = bi->initrd_size;
        tree_from = from;
    } else if (spindle_files_start) {
        tree = spindle_files_start;
        tree_len = image_len;
        tree_from = "image";
    }
    if (!tree)
        return;
    if (boot && spindle_files_start)
        printk("initrd: %zu bytes from %s at 0x%lx (the image's own, %zu bytes, "
               "is not used: the boot path's wins)\n", tree_len, tree_from,
               (unsigned long)(uintptr_t)tree, image_len);
    else
        printk("initrd: %zu bytes from %s at 0x%lx\n", tree_len, tree_from,
               (unsigned long)(uintptr_t)tree);
}

bool initrd_get(const void **base, size_t *len, const char **source)
{
    if (!tree)
        return false;
    *base = tree;
    *len = tree_len;
    *source = tree_from;
    return true;
}
