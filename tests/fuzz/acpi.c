/*
 * acpi.c - libFuzzer target for firmware/acpi.c, the DSDT's virtio-mmio
 * devices (firmware/aml.c) and the aarch64 machine
 * description built on it (firmware/acpi_machine.c): the input is physical
 * memory from address BASE, with the RSDP at BASE (tools/test/acpiseed.py
 * writes seeds in that layout; the kernel takes an RSDP at 0 for none).  acpi_map hands out an exact-size copy of what
 * is asked, so ASan catches a read past any mapping, not just past the
 * input; the parse must return 0 or a negative error with a reason.
 * Three inputs in four have their checksums made right first (the
 * RSDP's, the root table's and those of the tables it lists), so that
 * mutations get past the checksums to the parsers behind them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "firmware/acpi.h"
#include "firmware/machine.h"

#define BASE 0x1000

static const uint8_t *mem;
static size_t memlen;
static void *maps[256];
static int nmaps;

void *acpi_map(uint64_t pa, size_t len)
{
    void *p;

    if (len == 0 || pa < BASE || pa - BASE > memlen ||
        len > memlen - (pa - BASE) || nmaps == 256)
        return NULL;
    p = malloc(len);
    memcpy(p, mem + (pa - BASE), len);
    maps[nmaps++] = p;
    return p;
}

void acpi_log(const char *fmt, ...)
{
    (void)fmt;
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Sets b[at] so that the len bytes at b sum to 0 mod 256. */
static void seal(uint8_t *b, size_t len, size_t at)
{
    uint8_t sum = 0;

    b[at] = 0;
    for (size_t i = 0; i < len; i++)
        sum += b[i];
    b[at] = (uint8_t)-sum;
}

/* The length of the table at physical address pa (input offset
   pa - BASE) if its header fits and its length field is possible, else
   0. */
static size_t table_len(const uint8_t *m, size_t size, uint64_t pa)
{
    size_t len;

    if (pa < BASE || (pa -= BASE) >= size || size - pa < 36)
        return 0;
    len = le32(m + pa + 4);
    return len >= 36 && len <= size - pa ? len : 0;
}

/* The root table at pa (entries of esz bytes): its tables, then itself. */
static void seal_root(uint8_t *m, size_t size, uint64_t pa, size_t esz)
{
    size_t len = table_len(m, size, pa);

    if (!len)
        return;
    for (size_t at = pa - BASE + 36; at + esz <= pa - BASE + len; at += esz) {
        uint64_t t = le32(m + at);
        size_t tlen;

        if (esz == 8)
            t |= (uint64_t)le32(m + at + 4) << 32;
        if ((tlen = table_len(m, size, t)) && t != pa)
            seal(m + (t - BASE), tlen, 9);
    }
    seal(m + (pa - BASE), len, 9);
}

static void seal_all(uint8_t *m, size_t size)
{
    size_t len;

    if (size < 20 || memcmp(m, "RSD PTR ", 8) != 0)
        return;
    seal_root(m, size, le32(m + 16), 4);
    if (m[15] >= 2 && size >= 36)
        seal_root(m, size, le32(m + 24) | (uint64_t)le32(m + 28) << 32, 8);
    seal(m, 20, 8);
    if (m[15] >= 2 && size >= 36 && (len = le32(m + 20)) >= 36 && len <= size)
        seal(m, len, 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct acpi_info info;
    static struct machine mach;
    uint8_t *m = malloc(size ? size : 1);
    const char *bad;
    int rc;

    memcpy(m, data, size);
    if (size && data[size - 1] & 3)
        seal_all(m, size);
    mem = m;
    memlen = size;
    rc = acpi_parse(BASE, &info);
    if (rc > 0 || (rc < 0 && !info.error) || info.ncpus > ACPI_MAX_CPUS ||
        info.nioapic > ACPI_MAX_IOAPIC || info.niso > ACPI_MAX_ISO ||
        info.nmcfg > ACPI_MAX_MCFG || info.ngicr > ACPI_MAX_GICR ||
        info.nits > ACPI_MAX_ITS || info.gic_version > 4)
        abort();
    /* The aarch64 description built on it: a GIC version the kernel
       knows or a reason, never more cores or regions than fit. */
    bad = acpi_to_machine(&info, rc, 0, &mach);
    if ((!bad && mach.gic.version != 2 && mach.gic.version != 3) ||
        mach.ncpus > MACH_MAX_CPUS || (!bad && !mach.ncpus) ||
        mach.gic.nredist > MACH_MAX_REDIST)
        abort();
    /* The DSDT's virtio-mmio devices, when the FADT names one: a count,
       and never a window of size 0. */
    if (rc == 0) {
        struct aml_mmio d[4];
        int k = acpi_virtio_mmio(&info, d, 4);

        for (int i = 0; i < k && i < 4; i++)
            if (!d[i].size)
                abort();
    }
    while (nmaps)
        free(maps[--nmaps]);
    free(m);
    return 0;
}
