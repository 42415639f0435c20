/*
 * efimap_test.c - host unit test for boot/efi/efimap.c, the UEFI memory
 * map to struct bootinfo conversion the EFI loader runs after
 * ExitBootServices.
 *
 * Hand-made maps check each documented rule (which types become usable,
 * the claimed ranges, unaligned, overlapping and wrapping entries, a map
 * with no usable memory, descriptor strides), and random maps are checked
 * page by page against a brute-force model: a page is usable exactly
 * when a usable entry covers all of it, no non-usable entry touches it
 * and no claimed range holds it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "boot/efi/efimap.h"
#include "harness.h"

#define PG EFIMAP_PAGE
#define MIB (1ull << 20)

static struct efimap_desc map[1024];
static int nmap;
static struct bootinfo bi;
static char notes[1024];

static void add(uint32_t type, uint64_t phys, uint64_t npages)
{
    map[nmap].type = type;
    map[nmap].phys = phys;
    map[nmap].npages = npages;
    map[nmap].virt = map[nmap].attr = 0;
    nmap++;
}

static int convert(const struct memrange *claimed, int nclaimed)
{
    memset(&bi, 0, sizeof bi);
    return efimap_to_bootinfo(map, nmap * sizeof map[0], sizeof map[0],
                              claimed, nclaimed, &bi, notes, sizeof notes);
}

/* The usable ranges are exactly the pairs (base, len) given. */
static int usable_is(int n, ...)
{
    va_list ap;
    int ok = bi.nusable == n;

    va_start(ap, n);
    for (int i = 0; ok && i < n; i++) {
        uint64_t b = va_arg(ap, uint64_t), l = va_arg(ap, uint64_t);

        ok = bi.usable[i].base == b && bi.usable[i].len == l;
    }
    va_end(ap);
    if (!ok) {
        fprintf(stderr, "usable ranges (%d):", bi.nusable);
        for (int i = 0; i < bi.nusable; i++)
            fprintf(stderr, " %#llx+%#llx", (unsigned long long)bi.usable[i].base,
                    (unsigned long long)bi.usable[i].len);
        fprintf(stderr, "\nnotes: %s\n", notes);
    }
    return ok;
}

/* A map shaped like OVMF's on q35: the usable types merge, and runtime
   services, ACPI, MMIO and reserved memory stay out. */
TEST(types)
{
    nmap = 0;
    add(EFIMT_BS_CODE, 0, 1);
    add(EFIMT_CONVENTIONAL, 0x1000, 0x9f);
    add(EFIMT_CONVENTIONAL, 0x100000, 0x700);
    add(EFIMT_ACPI_NVS, 0x800000, 8);
    add(EFIMT_CONVENTIONAL, 0x808000, 8);
    add(EFIMT_LOADER_CODE, 0x810000, 0x10);
    add(EFIMT_LOADER_DATA, 0x820000, 0x10);
    add(EFIMT_BS_DATA, 0x830000, 0x10);
    add(EFIMT_RT_CODE, 0x840000, 4);
    add(EFIMT_RT_DATA, 0x844000, 4);
    add(EFIMT_ACPI_RECLAIM, 0x848000, 4);
    add(EFIMT_RESERVED, 0x84c000, 4);
    add(EFIMT_UNUSABLE, 0x850000, 4);
    add(EFIMT_PERSISTENT, 0x854000, 4);
    add(EFIMT_UNACCEPTED, 0x858000, 4);
    add(77, 0x85c000, 4);                       /* unknown: not usable */
    add(EFIMT_CONVENTIONAL, 0x860000, 0x3f7a0);
    add(EFIMT_MMIO, 0xffc00000, 0x400);
    add(EFIMT_MMIO_PORT, 0xfec00000, 1);
    CHECK(convert(NULL, 0) == 4);
    CHECK(usable_is(4, 0ull, 0xa0000ull, 0x100000ull, 0x700000ull,
                    0x808000ull, 0x38000ull, 0x860000ull, 0x3f7a0000ull));
    CHECK(notes[0] == 0);
    for (uint32_t t = 0; t < 20; t++)
        CHECK(efimap_usable_type(t) == (t == EFIMT_CONVENTIONAL || t == EFIMT_BS_CODE ||
                                        t == EFIMT_BS_DATA || t == EFIMT_LOADER_CODE ||
                                        t == EFIMT_LOADER_DATA));
}

/* The kernel image and the boot data leave usable memory and are listed
   as reserved, widened to whole pages. */
TEST(claimed)
{
    struct memrange c[2] = { { 0x100000, 0x123456 }, { 0x7ff000, 0x10 } };

    nmap = 0;
    add(EFIMT_LOADER_DATA, 0x100000, 0x300);
    add(EFIMT_CONVENTIONAL, 0x400000, 0x400);
    CHECK(convert(c, 2) == 1);
    CHECK(usable_is(1, 0x224000ull, 0x5db000ull));
    CHECK(bi.nreserved == 2);
    CHECK(bi.reserved[0].base == 0x100000 && bi.reserved[0].len == 0x124000);
    CHECK(bi.reserved[1].base == 0x7ff000 && bi.reserved[1].len == 0x1000);
}

/* A runtime-services entry inside conventional memory wins, whichever
   comes first in the map; overlapping usable entries merge. */
TEST(overlap)
{
    nmap = 0;
    add(EFIMT_RT_DATA, 0x204000, 2);
    add(EFIMT_CONVENTIONAL, 0x200000, 0x10);
    add(EFIMT_BS_DATA, 0x20c000, 0x10);
    add(EFIMT_ACPI_RECLAIM, 0x218000, 1);
    CHECK(convert(NULL, 0) == 3);
    CHECK(usable_is(3, 0x200000ull, 0x4000ull, 0x206000ull, 0x12000ull,
                    0x219000ull, 0x3000ull));
    CHECK(strstr(notes, "efi: map entry 0x204000-0x206000 (runtime-services data) overlaps usable memory") != NULL);
    CHECK(strstr(notes, "usable map entries overlap each other: merged") != NULL);
}

/* Unaligned: a usable entry shrinks to its whole pages, a non-usable one
   grows to the pages it touches. */
TEST(unaligned)
{
    nmap = 0;
    add(EFIMT_CONVENTIONAL, 0x100800, 4);       /* 0x100800-0x104800 */
    add(EFIMT_CONVENTIONAL, 0x200000, 8);
    add(EFIMT_ACPI_NVS, 0x203f00, 1);            /* touches 0x203000-0x205000 */
    CHECK(convert(NULL, 0) == 3);
    CHECK(usable_is(3, 0x101000ull, 0x3000ull, 0x200000ull, 0x3000ull,
                    0x205000ull, 0x3000ull));
    CHECK(strstr(notes, "efi: unaligned map entry at 0x100800 (conventional, 4 pages)") != NULL);
}

/* No usable memory (an empty map, only firmware-owned entries, no map
   at all): -1 and a message, never a half-filled bootinfo. */
TEST(empty)
{
    nmap = 0;
    CHECK(convert(NULL, 0) == -1);
    CHECK(bi.nusable == 0);
    CHECK(strstr(notes, "efi: the memory map has no usable memory\n") != NULL);
    add(EFIMT_RT_CODE, 0x100000, 16);
    add(EFIMT_MMIO, 0xfee00000, 1);
    CHECK(convert(NULL, 0) == -1);
    CHECK(bi.nusable == 0);
    memset(&bi, 0, sizeof bi);
    CHECK(efimap_to_bootinfo(NULL, 4096, sizeof map[0], NULL, 0, &bi, notes,
                             sizeof notes) == -1);
    nmap = 0;
    add(EFIMT_CONVENTIONAL, 0x100800, 1);        /* less than one whole page */
    CHECK(convert(NULL, 0) == -1);
}

/* The firmware's descriptor size is the stride, and may exceed ours;
   one smaller than the descriptor is refused. */
TEST(stride)
{
    unsigned char buf[3 * 64];
    struct efimap_desc d = { .type = EFIMT_CONVENTIONAL, .npages = 1 };

    memset(buf, 0xa5, sizeof buf);
    for (int i = 0; i < 3; i++) {
        d.phys = 0x100000 + i * 0x2000;
        memcpy(buf + i * 64, &d, sizeof d);
    }
    memset(&bi, 0, sizeof bi);
    CHECK(efimap_to_bootinfo(buf, sizeof buf, 64, NULL, 0, &bi, notes,
                             sizeof notes) == 3);
    CHECK(usable_is(3, 0x100000ull, 0x1000ull, 0x102000ull, 0x1000ull,
                    0x104000ull, 0x1000ull));
    CHECK(efimap_to_bootinfo(buf, sizeof buf, 32, NULL, 0, &bi, notes,
                             sizeof notes) == -1);
    CHECK(strstr(notes, "too small") != NULL);
}

/* An entry whose end wraps: a usable one is dropped, a non-usable one
   clipped to the top of the address space (and so cuts what it covers). */
TEST(wrap)
{
    nmap = 0;
    add(EFIMT_CONVENTIONAL, 0x100000, 0x100);
    add(EFIMT_CONVENTIONAL, 0xfffffffffff00000ull, 0x1000);
    add(EFIMT_CONVENTIONAL, 0x400000, 0x100);
    add(EFIMT_MMIO, 0x480000, ~0ull / 4096);
    CHECK(convert(NULL, 0) == 2);
    CHECK(usable_is(2, 0x100000ull, 0x100000ull, 0x400000ull, 0x80000ull));
    CHECK(strstr(notes, "wraps past 2^64") != NULL);
}

/* More ranges than bootinfo holds: the lowest BOOT_MAXMEM are kept. */
TEST(too_many)
{
    nmap = 0;
    for (int i = 0; i < BOOT_MAXMEM + 10; i++) {
        add(EFIMT_CONVENTIONAL, MIB + i * 0x2000ull, 1);
        add(EFIMT_RT_DATA, MIB + i * 0x2000ull + 0x1000, 1);
    }
    CHECK(convert(NULL, 0) == BOOT_MAXMEM);
    CHECK(bi.usable[0].base == MIB);
    CHECK(bi.usable[BOOT_MAXMEM - 1].base == MIB + (BOOT_MAXMEM - 1) * 0x2000ull);
    CHECK(strstr(notes, "the highest 10 are left unused") != NULL);
}

/* Random maps over 512 pages (entries of any type, alignment and order,
   overlapping at will) against the page-by-page model. */
#define NPG 512
TEST(random)
{
    static const uint32_t types[] = {
        EFIMT_CONVENTIONAL, EFIMT_BS_CODE, EFIMT_BS_DATA, EFIMT_LOADER_CODE,
        EFIMT_LOADER_DATA, EFIMT_RT_CODE, EFIMT_RT_DATA, EFIMT_ACPI_RECLAIM,
        EFIMT_ACPI_NVS, EFIMT_MMIO, EFIMT_RESERVED,
    };
    uint32_t seed = 12345;

    for (int round = 0; round < 2000; round++) {
        uint8_t full[NPG], touched[NPG], want[NPG], got[NPG];
        struct memrange c = { 0, 0 };
        int nent;

        memset(full, 0, sizeof full);
        memset(touched, 0, sizeof touched);
        memset(got, 0, sizeof got);
        nmap = 0;
        seed = seed * 1103515245 + 12345;
        nent = seed >> 16 & 15;
        for (int i = 0; i < nent; i++) {
            uint32_t t, r;
            uint64_t phys, np;

            seed = seed * 1103515245 + 12345;
            r = seed >> 8;
            t = types[r % (sizeof types / sizeof types[0])];
            phys = (uint64_t)(r >> 4) % (NPG - 64) * PG;
            seed = seed * 1103515245 + 12345;
            if ((seed >> 20 & 7) == 0)
                phys += (seed >> 10 & 0x7ff) + 1;    /* unaligned */
            np = (seed >> 24 & 31) + 1;
            add(t, phys, np);
            for (uint64_t p = 0; p < NPG; p++) {
                uint64_t b = p * PG, e = b + PG, lo = phys, hi = phys + np * PG;

                if (efimap_usable_type(t) && lo <= b && e <= hi)
                    full[p] = 1;
                if (!efimap_usable_type(t) && lo < e && b < hi)
                    touched[p] = 1;
            }
        }
        if (round & 1) {
            seed = seed * 1103515245 + 12345;
            c.base = (seed >> 8) % (NPG * PG);
            c.len = (seed >> 4 & 0xffff) + 1;
        }
        int n = convert(&c, c.len ? 1 : 0), any = 0;

        for (int p = 0; p < NPG; p++) {
            want[p] = full[p] && !touched[p] &&
                      !(c.len && c.base < (p + 1) * PG && p * PG < c.base + c.len);
            any |= want[p];
        }
        for (int i = 0; i < bi.nusable; i++) {
            if (i && bi.usable[i].base <= bi.usable[i - 1].base + bi.usable[i - 1].len)
                CHECK(!"ranges unsorted, unmerged or overlapping");
            for (uint64_t a = bi.usable[i].base; a < bi.usable[i].base + bi.usable[i].len; a += PG)
                if (a / PG < NPG)
                    got[a / PG] = 1;
        }
        if (!CHECK(n == (any ? bi.nusable : -1)))
            return;
        if (!CHECK(memcmp(want, got, sizeof want) == 0)) {
            fprintf(stderr, "round %d differs\n", round);
            return;
        }
    }
}

/* The GiBs holding RAM of any type, for the aarch64 boot map: MMIO,
   reserved and unusable entries mark nothing, an entry across a GiB
   boundary marks both, and nothing at or above 512 GiB is marked. */
TEST(ram_gib)
{
    uint64_t gib[8] = { 0 };

    nmap = 0;
    add(EFIMT_MMIO, 0x08000000, 0x1000);                    /* GiB 0 */
    add(EFIMT_CONVENTIONAL, 0x40000000, 0x100);             /* GiB 1 */
    add(EFIMT_ACPI_RECLAIM, 0xbffff000ull, 2);              /* GiB 2, 3 */
    add(EFIMT_RESERVED, 0x140000000ull, 0x100);             /* GiB 5 */
    add(EFIMT_RT_DATA, 0x180000000ull, 1);                  /* GiB 6 */
    add(EFIMT_CONVENTIONAL, (64ull << 30) + 4096, 1);       /* GiB 64 */
    add(EFIMT_CONVENTIONAL, 511ull << 30, 0x80000);         /* GiB 511, 512 */
    add(EFIMT_CONVENTIONAL, 600ull << 30, 1);
    add(EFIMT_CONVENTIONAL, 0x200000000ull, 0);             /* empty */
    efimap_ram_gib(map, nmap * sizeof map[0], sizeof map[0], gib);
    CHECK(gib[0] == (1ull << 1 | 1ull << 2 | 1ull << 3 | 1ull << 6));
    CHECK(gib[1] == 1);
    for (int i = 2; i < 7; i++)
        CHECK(gib[i] == 0);
    CHECK(gib[7] == 1ull << 63);
    /* A descriptor size below the struct's: nothing is read. */
    memset(gib, 0, sizeof gib);
    efimap_ram_gib(map, nmap * 8, 8, gib);
    CHECK(gib[0] == 0);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
