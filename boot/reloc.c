/*
 * reloc.c - applying the relocation table (reloc.h): the kernel's
 * entries call it with the MMU on or off but before any absolute address
 * in the image is right, the EFI loader calls it (write = 0) to refuse a
 * broken table while the firmware can still say so, and
 * tests/host/reloc_test.c runs it on the host.
 *
 * Two passes: the first checks every site (in range, in order, and for
 * 32-bit sites that the moved value still fits), the second writes, so a
 * table found bad leaves the image as it was.  Sites are read and
 * written bytewise-safe (__builtin_memcpy): x86_64 code puts 32-bit
 * immediates at any byte.
 */
#include "boot/reloc.h"

/* Whether v + d still fits a 32-bit site of the kind k. */
static int fits(int k, uint32_t v, int64_t d)
{
    int64_t n = (k == RELOC_32 ? (int64_t)v : (int64_t)(int32_t)v) + d;

    return k == RELOC_32 ? n >= 0 && n <= 0xFFFFFFFFll
                         : n >= -0x80000000ll && n <= 0x7FFFFFFFll;
}

/* One kind's sites (off[0..n)): checked, or with write, moved by d. */
static int pass(uint8_t *base, const uint32_t *off, uint32_t n, int k, uint64_t end,
                int64_t d, int write)
{
    uint64_t width = k == RELOC_64 ? 8 : 4;

    for (uint32_t i = 0; i < n; i++) {
        uint8_t *p = base + off[i];

        if (off[i] > end || end - off[i] < width)
            return RELOC_ERANGE;
        if (i && off[i] <= off[i - 1])
            return RELOC_EORDER;
        if (k == RELOC_64) {
            uint64_t v;

            __builtin_memcpy(&v, p, 8);
            v += (uint64_t)d;
            if (write)
                __builtin_memcpy(p, &v, 8);
        } else {
            uint32_t v;

            __builtin_memcpy(&v, p, 4);
            if (!fits(k, v, d))
                return RELOC_EOVERFLOW;
            v += (uint32_t)d;
            if (write)
                __builtin_memcpy(p, &v, 4);
        }
    }
    return RELOC_OK;
}

int reloc_apply(uint8_t *base, uint64_t link, const uint8_t *table, uint64_t len,
                int write)
{
    struct reloc_header h;
    const uint32_t *off;
    uint64_t total = 0, end;
    int64_t d = (int64_t)((uint64_t)(uintptr_t)base - link);

    if (!len)
        return d ? RELOC_ENOTABLE : RELOC_OK;
    if (len < sizeof h)
        return RELOC_ESHORT;
    __builtin_memcpy(&h, table, sizeof h);
    if (h.magic != RELOC_MAGIC)
        return RELOC_EMAGIC;
    for (int k = 0; k < RELOC_KINDS; k++)
        total += h.count[k];
    if (total * 4 != len - sizeof h)
        return RELOC_ESIZE;
    if (h.link_base != link)
        return RELOC_ELINK;
    if (table < base || h.sites_end != link + (uint64_t)(table - base))
        return RELOC_ESTALE;
    if ((uint64_t)d % RELOC_ALIGN)
        return RELOC_EALIGN;
    end = h.sites_end - link;
    for (int w = 0; w <= write; w++) {
        off = (const uint32_t *)(table + sizeof h);
        for (int k = 0; k < RELOC_KINDS; k++) {
            int err = pass(base, off, h.count[k], k, end, d, w);

            if (err)
                return err;
            off += h.count[k];
        }
    }
    return RELOC_OK;
}

/* A switch of returns, not a table of pointers: built position-independent
   (the kernel's Makefile: -fpie), each string is reached PC-relatively,
   so the x86_64 entry can print the message before the image is
   relocated (boot/x86_64/relocate.S). */
const char *reloc_error(int err)
{
    switch (err) {
    case RELOC_OK: return "no error";
    case RELOC_ENOTABLE:
        return "the image has no relocation table, so it runs only at its link address";
    case RELOC_ESHORT: return "the relocation table is shorter than its header";
    case RELOC_EMAGIC: return "the relocation table has no magic number";
    case RELOC_ESIZE: return "the relocation table's counts disagree with its length";
    case RELOC_ELINK: return "the relocation table was made for another link address";
    case RELOC_ESTALE: return "the relocation table was made for another link of the image";
    case RELOC_EALIGN: return "the image is moved by other than a multiple of 4 KiB";
    case RELOC_ERANGE: return "a relocation site lies outside the image";
    case RELOC_EORDER: return "the relocation sites are not in ascending order";
    case RELOC_EOVERFLOW: return "a 32-bit relocation site cannot hold the moved address";
    default: return "unknown error";
    }
}
