/*
 * mptable_test.c - host unit test for firmware/mptable.c over a fake
 * first megabyte: acpi_map hands out an exact-size heap copy of what is
 * asked, so ASan catches a read past any mapping.  A table as qboot
 * writes it for microvm (entry count 0, the walk by length), the pointer
 * in the last KiB of base memory or the BIOS area, disabled processors
 * left out, the BSP flagged; refusals of a bad pointer or table checksum,
 * a default configuration, a table without processors; and every byte
 * of a valid pair flipped, parsed without a fault.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "firmware/mptable.h"

#define MEM_SIZE 0x100000
static uint8_t mem[MEM_SIZE];
static void *maps[16384];          /* mp_find maps each 16 bytes */
static int nmaps;

void *acpi_map(uint64_t pa, size_t len)
{
    void *p;

    if (!len || pa > MEM_SIZE || len > MEM_SIZE - pa || nmaps == 16384)
        return NULL;
    p = malloc(len);
    memcpy(p, mem + pa, len);
    return maps[nmaps++] = p;
}

void acpi_log(const char *fmt, ...)
{
    (void)fmt;
}

static void unmap_all(void)
{
    while (nmaps)
        free(maps[--nmaps]);
}

static void seal(uint8_t *p, size_t n, size_t at)
{
    uint8_t s = 0;

    p[at] = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i];
    p[at] = (uint8_t)-s;
}

/* A floating pointer at fp pointing to a table at tab with the given
   processors (apic id, flags) and, between them, a bus and an I/O APIC
   entry; count is what the header's entry count says. */
static void build(uint32_t fp, uint32_t tab, const uint8_t (*cpus)[2],
                  int ncpu, int count)
{
    uint8_t *f = mem + fp, *t = mem + tab, *e = t + 44;

    memset(mem, 0, sizeof mem);
    memcpy(f, "_MP_", 4);
    memcpy(f + 4, &tab, 4);
    f[8] = 1;
    f[9] = 4;
    seal(f, 16, 10);
    memcpy(t, "PCMP", 4);
    t[6] = 4;
    memcpy(t + 8, "SPINDLE ", 8);
    t[34] = (uint8_t)count;
    t[36] = 0x00, t[37] = 0x00, t[38] = 0xE0, t[39] = 0xFE;    /* LAPIC */
    for (int i = 0; i < ncpu; i++) {
        e[0] = 0;
        e[1] = cpus[i][0];
        e[2] = 0x14;
        e[3] = cpus[i][1];
        e += 20;
        if (i == 0) {
            memcpy(e, "\x01\x00ISA   ", 8);                     /* bus */
            e += 8;
            memcpy(e, "\x02\x00\x20\x01\x00\x00\xC0\xFE", 8);   /* IOAPIC */
            e += 8;
        }
    }
    t[4] = (uint8_t)(e - t);
    t[5] = (uint8_t)((e - t) >> 8);
    seal(t, (size_t)(e - t), 7);
}

static const uint8_t four[][2] = { { 0, 3 }, { 1, 1 }, { 2, 1 }, { 3, 1 } };

TEST(qboot_shaped_entry_count_zero)
{
    struct mp_info mi;
    uint64_t pa;

    build(0xF5A00, 0xF5A10, four, 4, 0);
    pa = mp_find();
    CHECK(pa == 0xF5A00);
    CHECK(mp_parse(pa, &mi) == 0);
    CHECK(mi.ncpus == 4 && mi.bsp == 0 && mi.lapic_pa == 0xFEE00000);
    CHECK(mi.nioapic == 1 && mi.ioapics[0].addr == 0xFEC00000 &&
          mi.ioapics[0].id == 0);
    for (int i = 0; i < 4; i++)
        CHECK(mi.apic_ids[i] == i);
    unmap_all();
}

TEST(base_memory_first_and_disabled_left_out)
{
    static const uint8_t cpus[][2] = { { 4, 1 }, { 6, 0 }, { 8, 3 } };
    struct mp_info mi;

    build(0x9FC00, 0x9FD00, cpus, 3, 5);
    /* A second, valid-looking pointer in the BIOS area loses. */
    memcpy(mem + 0xF0000, mem + 0x9FC00, 16);
    CHECK(mp_find() == 0x9FC00);
    CHECK(mp_parse(0x9FC00, &mi) == 0);
    CHECK(mi.ncpus == 2 && mi.apic_ids[0] == 4 && mi.apic_ids[1] == 8 &&
          mi.bsp == 1);
    unmap_all();
}

TEST(refusals)
{
    static const uint8_t off[][2] = { { 0, 0 } };
    struct mp_info mi;

    memset(mem, 0, sizeof mem);
    CHECK(mp_find() == 0);
    build(0xF5A00, 0xF5A10, four, 4, 4);
    mem[0xF5A05] ^= 1;                      /* pointer checksum */
    CHECK(mp_find() == 0 && mp_parse(0xF5A00, &mi) < 0 && mi.error);
    build(0xF5A00, 0xF5A10, four, 4, 4);
    mem[0xF5A10 + 50] ^= 1;                 /* table checksum */
    CHECK(mp_parse(0xF5A00, &mi) < 0 && strstr(mi.error, "checksum"));
    build(0xF5A00, 0xF5A10, four, 4, 4);
    mem[0xF5A00 + 11] = 5;                  /* default configuration 5 */
    seal(mem + 0xF5A00, 16, 10);
    CHECK(mp_parse(0xF5A00, &mi) < 0 && strstr(mi.error, "default"));
    build(0xF5A00, 0xF5A10, off, 1, 1);
    CHECK(mp_parse(0xF5A00, &mi) < 0 && strstr(mi.error, "no enabled"));
    build(0xF5A00, 0xFFFD0, four, 0, 0);    /* table runs off the end */
    mem[0xFFFD0 + 5] = 2;                   /* 556 bytes */
    CHECK(mp_parse(0xF5A00, &mi) < 0);
    unmap_all();
}

TEST(every_byte_flipped)
{
    struct mp_info mi;

    for (int i = 0; i < 16 + 44 + 4 * 20 + 16; i++)
        for (int bit = 0; bit < 8; bit++) {
            uint32_t at = i < 16 ? 0xF5A00 + i : 0xF5A10 + i - 16;

            build(0xF5A00, 0xF5A10, four, 4, 0);
            mem[at] ^= 1 << bit;
            if (mp_parse(0xF5A00, &mi) == 0)
                CHECK(mi.ncpus >= 1 && mi.ncpus <= 4);
            unmap_all();
        }
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
