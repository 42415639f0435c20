/*
 * mptable.c - the MP specification's tables (mptable.h).
 *
 * The floating pointer ("_MP_", 16 bytes, 16-byte aligned, its bytes
 * summing to 0) gives the configuration table's address; feature byte 1
 * nonzero would mean one of the specification's default configurations
 * instead of a table, which no machine of this century uses: refused.
 * The table ("PCMP") is a 44-byte header, then entries whose first byte
 * is their type: processor (0, 20 bytes: local APIC id, version, flags
 * with bit 0 enabled and bit 1 the bootstrap processor), bus (1), I/O
 * APIC (2: id, version, flags with bit 0 enabled, address), I/O and
 * local interrupt assignments (3, 4), 8 bytes each.
 * The walk goes by the base table's length, not its entry count, which
 * some writers leave 0 (qboot's, on microvm); an entry of another type
 * ends it: its length is unknown.
 */
#include <string.h>
#include "firmware/acpi.h"
#include "firmware/mptable.h"

#define FP_LEN      16
#define HDR_LEN     44
#define TABLE_MAX   65536       /* the base table's length is 16 bits */

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;

    while (n--)
        s += *p++;
    return s;
}

static uint32_t le(const uint8_t *p, int n)
{
    uint32_t v = 0;

    while (n--)
        v = v << 8 | p[n];
    return v;
}

/* A valid floating pointer at pa? */
static bool fp_at(uint64_t pa)
{
    const uint8_t *p = acpi_map(pa, FP_LEN);

    return p && !memcmp(p, "_MP_", 4) && p[8] == 1 && sum(p, FP_LEN) == 0;
}

static uint64_t scan(uint64_t lo, uint64_t hi)
{
    for (uint64_t pa = lo; pa + FP_LEN <= hi; pa += 16)
        if (fp_at(pa))
            return pa;
    return 0;
}

uint64_t mp_find(void)
{
    uint64_t pa;

    /* The EBDA's first KiB would come first, but its segment is in the
       BIOS data area on page 0, which the kernel leaves unmapped
       (kernel/acpi_env.c); machines that put the pointer there also put
       it in the last KiB of base memory or the BIOS area. */
    if ((pa = scan(0x9FC00, 0xA0000)))
        return pa;
    return scan(0xF0000, 0x100000);
}

int mp_parse(uint64_t pa, struct mp_info *out)
{
    const uint8_t *fp = acpi_map(pa, FP_LEN), *t, *e, *end;
    uint32_t len;
    uint64_t tpa;

    memset(out, 0, sizeof *out);
    out->bsp = -1;
    if (!fp || !fp_at(pa)) {
        out->error = "no MP floating pointer there";
        return -1;
    }
    if (fp[11]) {
        out->error = "an MP default configuration (no table): not supported";
        return -1;
    }
    if (!(tpa = le(fp + 4, 4)) || !(t = acpi_map(tpa, HDR_LEN)) ||
        memcmp(t, "PCMP", 4)) {
        out->error = "the MP configuration table is missing";
        return -1;
    }
    len = le(t + 4, 2);
    if (len < HDR_LEN || !(t = acpi_map(tpa, len)) || sum(t, len)) {
        out->error = "the MP configuration table fails its checksum";
        return -1;
    }
    out->lapic_pa = le(t + 36, 4);
    end = t + len;
    e = t + HDR_LEN;
    while (e < end) {
        size_t n = e[0] == 0 ? 20 : e[0] <= 4 ? 8 : 0;

        if (!n || (size_t)(end - e) < n)
            break;
        if (e[0] == 0 && (e[3] & 1) && out->ncpus < MP_MAX_CPUS) {
            if (e[3] & 2)
                out->bsp = (int)out->ncpus;
            out->apic_ids[out->ncpus++] = e[1];
        }
        if (e[0] == 2 && (e[3] & 1) && out->nioapic < MP_MAX_IOAPIC) {
            out->ioapics[out->nioapic].id = e[1];
            out->ioapics[out->nioapic++].addr = le(e + 4, 4);
        }
        e += n;
    }
    if (!out->ncpus) {
        out->error = "the MP configuration table lists no enabled processor";
        return -1;
    }
    return 0;
}
