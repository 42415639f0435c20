/*
 * acpi_test.c - host unit test for firmware/acpi.c.
 *
 * Tables are built byte by byte (offsets from the ACPI spec, not from
 * acpi.c's structs, so a wrong struct layout shows up) in a fake physical
 * memory arena.  acpi_map hands out a fresh malloc'd copy of exactly the
 * bytes asked for, so ASan catches any read past what acpi.c mapped, not
 * just past the arena.  Cases cover normal, x2APIC, disabled, duplicate and
 * capped CPUs, the BIOS-area scan, every checksum, malformed MADT entries,
 * MCFG and the FADT PM timer; for arm64, an AAVMF-like table set (GIC
 * entries in the MADT, GTDT, SPCR, the FADT's PSCI flags) and its
 * malformed variants.  Two fuzz cases, x86 and arm64, flip bytes in a
 * valid table set (re-sealing checksums most of the time so the flips
 * reach the parsers).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "firmware/acpi.h"
#include "firmware/machine.h"
#include "harness.h"

#define ARENA_SIZE  (4u << 20)

/* Where the standard table set lives in the arena. */
#define RSDP_PA     0xF0000ull      /* in the BIOS scan area */
#define XSDT_PA     0x100000ull
#define RSDT_PA     0x100800ull
#define MADT_PA     0x101000ull
#define MADT2_PA    0x108000ull
#define MCFG_PA     0x120000ull
#define FADT_PA     0x121000ull
#define GTDT_PA     0x122000ull
#define SPCR_PA     0x123000ull
#define LAPIC       0xFEE00000u

static uint8_t *arena;
static struct acpi_info info;

/* ---- acpi_map / acpi_log for the code under test ---- */

static void **maps;
static size_t nmaps, capmaps;

void *acpi_map(uint64_t pa, size_t len)
{
    void *p;

    if (len == 0 || pa > ARENA_SIZE || len > ARENA_SIZE - pa)
        return NULL;
    if (nmaps == capmaps) {
        capmaps = capmaps ? 2 * capmaps : 64;
        maps = realloc(maps, capmaps * sizeof(*maps));
    }
    p = malloc(len);
    memcpy(p, arena + pa, len);
    maps[nmaps++] = p;
    return p;
}

static void unmap_all(void)
{
    while (nmaps)
        free(maps[--nmaps]);
}

static char logbuf[1 << 16];
static size_t loglen;
static bool verbose;

void acpi_log(const char *fmt, ...)
{
    va_list ap;
    int n;

    if (loglen > sizeof(logbuf) - 512)
        loglen = 0;     /* the fuzz case logs a lot; keep the tail */
    va_start(ap, fmt);
    n = vsnprintf(logbuf + loglen, sizeof(logbuf) - loglen, fmt, ap);
    va_end(ap);
    if (verbose)
        fputs(logbuf + loglen, stderr);
    if (n > 0)
        loglen += (size_t)n < sizeof(logbuf) - loglen ?
                  (size_t)n : sizeof(logbuf) - loglen - 1;
}

static bool logged(const char *s)
{
    return strstr(logbuf, s) != NULL;
}

static void reset(void)
{
    unmap_all();
    memset(arena, 0, ARENA_SIZE);
    memset(&info, 0, sizeof(info));
    loglen = 0;
    logbuf[0] = '\0';
}

static int parse(uint64_t rsdp)
{
    int rc = acpi_parse(rsdp, &info);

    unmap_all();
    return rc;
}

static uint64_t scan(void)
{
    uint64_t pa = acpi_find_rsdp_bios();

    unmap_all();
    return pa;
}

/* ---- table builders ---- */

static void w8(uint64_t pa, uint8_t v) { arena[pa] = v; }
static void w16(uint64_t pa, uint16_t v) { memcpy(arena + pa, &v, 2); }
static void w32(uint64_t pa, uint32_t v) { memcpy(arena + pa, &v, 4); }
static void w64(uint64_t pa, uint64_t v) { memcpy(arena + pa, &v, 8); }
static uint32_t r32(uint64_t pa)
{
    uint32_t v;

    memcpy(&v, arena + pa, 4);
    return v;
}

static uint8_t sum(uint64_t pa, uint32_t len)
{
    uint8_t s = 0;

    for (uint32_t i = 0; i < len; i++)
        s += arena[pa + i];
    return s;
}

/* Sets the byte at pa + at so that len bytes from pa sum to zero. */
static void fix_sum(uint64_t pa, uint32_t len, uint32_t at)
{
    arena[pa + at] = 0;
    arena[pa + at] = (uint8_t)-sum(pa, len);
}

static void put_rsdp(uint64_t pa, int rev, uint32_t rsdt, uint64_t xsdt)
{
    memcpy(arena + pa, "RSD PTR ", 8);
    memcpy(arena + pa + 9, "SPNDL ", 6);
    w8(pa + 15, rev);
    w32(pa + 16, rsdt);
    if (rev >= 2) {
        w32(pa + 20, 36);
        w64(pa + 24, xsdt);
    }
    fix_sum(pa, 20, 8);
    if (rev >= 2)
        fix_sum(pa, 36, 32);
}

/* A table under construction: header written, body appended. */
struct tb {
    uint64_t pa;
    uint32_t len;
};

static struct tb tb_begin(uint64_t pa, const char *sig, uint32_t hdrlen)
{
    memcpy(arena + pa, sig, 4);
    w8(pa + 8, 1);
    memcpy(arena + pa + 10, "SPNDL ", 6);
    memcpy(arena + pa + 16, "SPINDLE ", 8);
    return (struct tb){ pa, hdrlen };
}

static void tb_put(struct tb *t, const void *p, uint32_t n)
{
    memcpy(arena + t->pa + t->len, p, n);
    t->len += n;
}

static void tb_end(struct tb *t)
{
    w32(t->pa + 4, t->len);
    fix_sum(t->pa, t->len, 9);
}

static void put_root(uint64_t pa, const char *sig, const uint64_t *tabs,
                     int n)
{
    struct tb t = tb_begin(pa, sig, 36);
    bool x = sig[0] == 'X';

    for (int i = 0; i < n; i++) {
        uint32_t v = (uint32_t)tabs[i];

        tb_put(&t, x ? (const void *)&tabs[i] : (const void *)&v, x ? 8 : 4);
    }
    tb_end(&t);
}

/* RSDP at RSDP_PA, and an XSDT and RSDT that both list tabs. */
static void put_roots(int rev, const uint64_t *tabs, int n)
{
    put_root(RSDT_PA, "RSDT", tabs, n);
    if (rev >= 2)
        put_root(XSDT_PA, "XSDT", tabs, n);
    put_rsdp(RSDP_PA, rev, RSDT_PA, XSDT_PA);
}

static struct tb madt_begin(uint64_t pa, uint32_t lapic)
{
    struct tb t = tb_begin(pa, "APIC", 44);

    w32(pa + 36, lapic);
    w32(pa + 40, 1);    /* PCAT_COMPAT */
    return t;
}

static void madt_lapic(struct tb *t, uint8_t uid, uint8_t id, uint32_t flags)
{
    uint8_t e[8] = { 0, 8, uid, id };

    memcpy(e + 4, &flags, 4);
    tb_put(t, e, sizeof(e));
}

static void madt_x2apic(struct tb *t, uint32_t id, uint32_t flags,
                        uint32_t uid)
{
    uint8_t e[16] = { 9, 16 };

    memcpy(e + 4, &id, 4);
    memcpy(e + 8, &flags, 4);
    memcpy(e + 12, &uid, 4);
    tb_put(t, e, sizeof(e));
}

static void madt_ioapic(struct tb *t, uint8_t id, uint32_t addr,
                        uint32_t gsi_base)
{
    uint8_t e[12] = { 1, 12, id, 0 };

    memcpy(e + 4, &addr, 4);
    memcpy(e + 8, &gsi_base, 4);
    tb_put(t, e, sizeof(e));
}

static void madt_iso(struct tb *t, uint8_t source, uint32_t gsi,
                     uint16_t flags)
{
    uint8_t e[10] = { 2, 10, 0, source };

    memcpy(e + 4, &gsi, 4);
    memcpy(e + 8, &flags, 2);
    tb_put(t, e, sizeof(e));
}

static void madt_lapic_override(struct tb *t, uint64_t addr)
{
    uint8_t e[12] = { 5, 12 };

    memcpy(e + 4, &addr, 8);
    tb_put(t, e, sizeof(e));
}

/* A QEMU-like MADT: n CPUs, one I/O APIC, the usual two overrides. */
static void put_madt(uint64_t pa, int n)
{
    struct tb t = madt_begin(pa, LAPIC);

    for (int i = 0; i < n; i++)
        madt_lapic(&t, i, i, 1);
    madt_ioapic(&t, 0, 0xFEC00000, 0);
    madt_iso(&t, 0, 2, 0);
    madt_iso(&t, 9, 9, 0xD);
    tb_end(&t);
}

static void mcfg_alloc(struct tb *t, uint64_t base, uint16_t seg,
                       uint8_t start, uint8_t end)
{
    uint8_t e[16] = { 0 };

    memcpy(e, &base, 8);
    memcpy(e + 8, &seg, 2);
    e[10] = start;
    e[11] = end;
    tb_put(t, e, sizeof(e));
}

static void put_mcfg(uint64_t pa)
{
    struct tb t = tb_begin(pa, "MCFG", 44);

    mcfg_alloc(&t, 0xB0000000, 0, 0, 255);
    tb_end(&t);
}

/* A FADT of length len: PM_TMR_BLK, flags and X_PM_TMR_BLK if they fit. */
static void put_fadt(uint64_t pa, uint32_t len, uint32_t port, uint32_t flags,
                     uint8_t xspace, uint64_t xaddr)
{
    struct tb t = tb_begin(pa, "FACP", len);

    w8(pa + 8, len >= 244 ? 6 : 1);
    w32(pa + 76, port);
    w8(pa + 91, port ? 4 : 0);  /* PM_TMR_LEN */
    if (len >= 116)
        w32(pa + 112, flags);
    if (len >= 220) {
        w8(pa + 208, xspace);
        w8(pa + 209, 32);
        w8(pa + 211, 3);
        w64(pa + 212, xaddr);
    }
    tb_end(&t);
}

/* A FADT of length len with its flags and, if it fits, ARM_BOOT_ARCH. */
static void put_fadt_arm(uint64_t pa, uint32_t len, uint32_t flags,
                         uint16_t arm_boot)
{
    struct tb t = tb_begin(pa, "FACP", len);

    w8(pa + 8, 6);
    w8(pa + 131, 5);                    /* FADT minor version: 6.5 */
    if (len >= 116)
        w32(pa + 112, flags);
    if (len >= 131)
        w16(pa + 129, arm_boot);
    tb_end(&t);
}

/* A GICC entry of length len (76: ACPI 5.1, 80: 6.0, 82: 6.5). */
static void madt_gicc_len(struct tb *t, uint8_t len, uint32_t uid,
                          uint64_t mpidr, uint32_t flags, uint64_t gicr,
                          uint64_t gicc)
{
    uint8_t e[82] = { 0xB, len };

    memcpy(e + 4, &uid, 4);             /* CPU interface number = uid */
    memcpy(e + 8, &uid, 4);
    memcpy(e + 12, &flags, 4);
    memcpy(e + 32, &gicc, 8);
    memcpy(e + 60, &gicr, 8);
    memcpy(e + 68, &mpidr, 8);
    tb_put(t, e, len);
}

static void madt_gicc(struct tb *t, uint32_t uid, uint64_t mpidr,
                      uint32_t flags)
{
    madt_gicc_len(t, 80, uid, mpidr, flags, 0, 0);
}

static void madt_gicd(struct tb *t, uint64_t addr, uint8_t version)
{
    uint8_t e[24] = { 0xC, 24 };

    memcpy(e + 8, &addr, 8);
    e[20] = version;
    tb_put(t, e, sizeof(e));
}

static void madt_gicr(struct tb *t, uint64_t base, uint32_t len)
{
    uint8_t e[16] = { 0xE, 16 };

    memcpy(e + 4, &base, 8);
    memcpy(e + 12, &len, 4);
    tb_put(t, e, sizeof(e));
}

static void madt_its(struct tb *t, uint32_t id, uint64_t addr)
{
    uint8_t e[20] = { 0xF, 20 };

    memcpy(e + 4, &id, 4);
    memcpy(e + 8, &addr, 8);
    tb_put(t, e, sizeof(e));
}

/* A GTDT of length len (80: the timers only; 104: revision 3). */
static void put_gtdt(uint64_t pa, uint32_t len, uint32_t virt_gsiv,
                     uint32_t virt_flags)
{
    struct tb t = tb_begin(pa, "GTDT", len);

    w8(pa + 8, 3);
    w64(pa + 36, 0xFFFFFFFFFFFFFFFFull);    /* CntControlBase: none */
    w32(pa + 48, 29);                   /* secure EL1 */
    w32(pa + 52, 0);
    w32(pa + 56, 30);                   /* non-secure EL1 */
    w32(pa + 60, 0x4);                  /* always on */
    w32(pa + 64, virt_gsiv);
    w32(pa + 68, virt_flags);
    w32(pa + 72, 26);                   /* EL2 */
    w32(pa + 76, 0x3 | 0x100);          /* edge, active low, reserved bit */
    if (len >= 96)
        w64(pa + 80, 0xFFFFFFFFFFFFFFFFull);    /* CntReadBase: none */
    tb_end(&t);
}

/* An SPCR (revision 2, 80 bytes) whose UART is type at addr in space. */
static void put_spcr(uint64_t pa, uint8_t type, uint8_t space, uint64_t addr)
{
    struct tb t = tb_begin(pa, "SPCR", 80);

    w8(pa + 8, 2);
    w8(pa + 36, type);
    w8(pa + 40, space);
    w8(pa + 41, 32);                    /* bit width */
    w8(pa + 43, 3);                     /* dword access */
    w64(pa + 44, addr);
    w8(pa + 52, 0x8);                   /* interrupt type: GIC */
    w32(pa + 54, 33);                   /* GSIV */
    w8(pa + 58, 7);                     /* 115200 */
    tb_end(&t);
}

/*
 * An MADT like AAVMF's on QEMU virt with GICv3: GICD, four GICCs with
 * MPIDRs 0..3 (the third online capable but off, the fourth neither), one
 * GICR range, one ITS.
 */
static void put_aavmf_madt(uint64_t pa)
{
    struct tb t = madt_begin(pa, 0);

    w32(pa + 40, 0);                    /* no 8259s */
    madt_gicd(&t, 0x08000000, 3);
    madt_gicc(&t, 0, 0, 1);
    madt_gicc(&t, 1, 1, 1);
    madt_gicc(&t, 2, 2, 1u << 3);
    madt_gicc(&t, 3, 3, 0);
    madt_gicr(&t, 0x080A0000, 0x00F60000);
    madt_its(&t, 0, 0x08080000);
    tb_end(&t);
}

#define AAVMF_MADT_LEN  (44 + 24 + 4 * 80 + 16 + 20)

/* The AAVMF-like set: FADT, MADT, GTDT, SPCR and MCFG under an XSDT. */
static void put_aavmf(void)
{
    put_fadt_arm(FADT_PA, 276, 1u << 20, 0x3);     /* PSCI over HVC */
    put_aavmf_madt(MADT_PA);
    put_gtdt(GTDT_PA, 104, 27, 0);      /* virtual timer: level, high */
    put_spcr(SPCR_PA, 0x03, 0, 0x09000000);
    put_mcfg(MCFG_PA);
    put_roots(2, (const uint64_t[]){ FADT_PA, MADT_PA, GTDT_PA, SPCR_PA,
                                      MCFG_PA }, 5);
}

/* The full set the fuzz case starts from. */
static void put_standard(void)
{
    struct tb t = madt_begin(MADT_PA, LAPIC);

    for (int i = 0; i < 4; i++)
        madt_lapic(&t, i, i, 1);
    madt_x2apic(&t, 0x100, 1, 4);
    madt_x2apic(&t, 0x101, 2, 5);
    madt_ioapic(&t, 0, 0xFEC00000, 0);
    madt_iso(&t, 0, 2, 0);
    madt_iso(&t, 9, 9, 0xD);
    madt_lapic_override(&t, 0xFEE00000);
    tb_end(&t);
    put_mcfg(MCFG_PA);
    put_fadt(FADT_PA, 276, 0x608, 1u << 8, 1, 0x608);
    put_roots(2, (const uint64_t[]){ FADT_PA, MADT_PA, MCFG_PA }, 3);
}

static bool error_is(const char *prefix)
{
    return info.error && strncmp(info.error, prefix, strlen(prefix)) == 0;
}

/* ---- cases ---- */

TEST(xapic_4cpu)
{
    reset();
    put_madt(MADT_PA, 4);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0))
        return;
    CHECK(info.error == NULL);
    CHECK(info.ncpus == 4);
    for (uint32_t i = 0; i < 4 && i < info.ncpus; i++) {
        CHECK(info.cpus[i].apic_id == i);
        CHECK(info.cpus[i].acpi_uid == i);
        CHECK(info.cpus[i].usable);
        CHECK(!info.cpus[i].x2apic_entry);
    }
    CHECK(info.lapic_pa == LAPIC);
    CHECK(info.nioapic == 1);
    CHECK(info.ioapics[0].addr == 0xFEC00000 && info.ioapics[0].gsi_base == 0);
    CHECK(info.niso == 2);
    CHECK(info.isos[0].source == 0 && info.isos[0].gsi == 2);
    CHECK(info.isos[1].source == 9 && info.isos[1].gsi == 9);
    CHECK(info.isos[1].flags == 0xD && info.isos[1].bus == 0);
    CHECK(info.nmcfg == 0 && info.pm_tmr_port == 0);
}

TEST(rsdp_v1_uses_rsdt)
{
    reset();
    put_madt(MADT_PA, 2);
    put_roots(0, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 2);
}

TEST(x2apic_entries)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_lapic(&t, 1, 0xFF, 1);             /* broadcast id: placeholder */
    madt_x2apic(&t, 0x100, 1, 10);
    madt_x2apic(&t, 0x101, 0, 11);          /* neither enabled nor capable */
    madt_x2apic(&t, 0x102, 2, 12);          /* online capable, off */
    madt_x2apic(&t, 0xFFFFFFFF, 1, 13);     /* broadcast id */
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 3))
        return;
    CHECK(info.cpus[0].apic_id == 0 && !info.cpus[0].x2apic_entry);
    CHECK(info.cpus[1].apic_id == 0x100 && info.cpus[1].x2apic_entry);
    CHECK(info.cpus[1].acpi_uid == 10 && info.cpus[1].usable);
    CHECK(info.cpus[2].apic_id == 0x102 && info.cpus[2].acpi_uid == 12);
    CHECK(!info.cpus[2].usable);
}

TEST(disabled_and_online_capable)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_lapic(&t, 1, 1, 0);        /* dropped */
    madt_lapic(&t, 2, 2, 2);        /* kept, not usable */
    madt_lapic(&t, 3, 3, 3);        /* enabled wins */
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 3))
        return;
    CHECK(info.cpus[0].apic_id == 0 && info.cpus[0].usable);
    CHECK(info.cpus[1].apic_id == 2 && !info.cpus[1].usable);
    CHECK(info.cpus[2].apic_id == 3 && info.cpus[2].usable);
}

TEST(only_offline_cpus_is_error)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 2);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) < 0);
    CHECK(error_is("MADT"));
    CHECK(info.ncpus == 1);
}

TEST(duplicate_ids)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_lapic(&t, 1, 1, 1);
    madt_lapic(&t, 2, 1, 1);        /* same APIC id as uid 1 */
    madt_x2apic(&t, 0, 1, 3);       /* same id as the xAPIC entry */
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 2))
        return;
    CHECK(info.cpus[1].apic_id == 1 && info.cpus[1].acpi_uid == 1);
    CHECK(logged("duplicate"));
}

TEST(lapic_override)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_lapic_override(&t, 0x123456789000ull);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.lapic_pa == 0x123456789000ull);
}

TEST(cpus_capped)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    for (uint32_t i = 0; i < 300; i++)
        madt_x2apic(&t, i, 1, i);
    for (int i = 0; i < 10; i++)
        madt_ioapic(&t, i, 0xFEC00000 + 0x1000 * i, 24 * i);
    for (int i = 0; i < 10; i++)
        madt_iso(&t, i, i, 0);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0))
        return;
    CHECK(info.ncpus == ACPI_MAX_CPUS);
    CHECK(info.cpus[255].apic_id == 255);
    CHECK(info.nioapic == ACPI_MAX_IOAPIC);
    CHECK(info.ioapics[7].gsi_base == 7 * 24);
    CHECK(info.niso == ACPI_MAX_ISO);
    CHECK(logged("44 CPUs beyond 256"));
}

TEST(madt_entry_len0)
{
    struct tb t;
    uint8_t bad[8] = { 0, 0, 2, 2, 1 };

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_lapic(&t, 1, 1, 1);
    tb_put(&t, bad, sizeof(bad));
    madt_lapic(&t, 3, 3, 1);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 2);
    CHECK(logged("bad length 0"));
}

TEST(madt_entry_past_end)
{
    struct tb t;
    uint8_t cut[6] = { 0, 8, 2, 2, 1, 0 };  /* claims 8, table has 6 left */

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_lapic(&t, 1, 1, 1);
    tb_put(&t, cut, sizeof(cut));
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 2);
    CHECK(logged("bad length 8"));
}

TEST(madt_entry_too_short)
{
    struct tb t;
    uint8_t shrt[4] = { 9, 4, 0, 0 };       /* an x2APIC entry needs 16 */

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    tb_put(&t, shrt, sizeof(shrt));
    madt_x2apic(&t, 0x100, 1, 1);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 1);
}

TEST(madt_unknown_entry_skipped)
{
    struct tb t;
    uint8_t gicc[80] = { 0xB, 80 };

    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    tb_put(&t, gicc, sizeof(gicc));
    madt_lapic(&t, 1, 1, 1);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 2);
}

TEST(bad_madt_checksum)
{
    reset();
    put_madt(MADT_PA, 4);
    arena[MADT_PA + 50] ^= 0x10;
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) < 0);
    CHECK(error_is("MADT"));
    CHECK(info.ncpus == 0);
    CHECK(logged("checksum"));
}

TEST(madt_absurd_length)
{
    static const uint32_t lens[] = { 20, 40, (1u << 20) + 4 };

    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        reset();
        put_madt(MADT_PA, 4);
        w32(MADT_PA + 4, lens[i]);
        fix_sum(MADT_PA, lens[i], 9);
        put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
        CHECK(parse(RSDP_PA) < 0);
        CHECK(error_is("MADT corrupt"));
        CHECK(logged("absurd length"));
    }
}

TEST(second_madt_used_if_first_bad)
{
    reset();
    put_madt(MADT_PA, 4);
    arena[MADT_PA + 50] ^= 0x10;
    put_madt(MADT2_PA, 3);
    put_roots(2, (const uint64_t[]){ MADT_PA, MADT2_PA }, 2);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 3);
}

TEST(no_madt)
{
    reset();
    put_mcfg(MCFG_PA);
    put_fadt(FADT_PA, 116, 0x408, 0, 0, 0);
    put_roots(2, (const uint64_t[]){ MCFG_PA, FADT_PA }, 2);
    CHECK(parse(RSDP_PA) == -ACPI_ENOTFOUND);
    CHECK(error_is("MADT not found"));
    /* The rest is still reported: the kernel can use the PM timer. */
    CHECK(info.nmcfg == 1);
    CHECK(info.pm_tmr_port == 0x408);
}

TEST(xsdt_preferred)
{
    reset();
    put_madt(MADT_PA, 2);
    put_madt(MADT2_PA, 3);
    put_root(XSDT_PA, "XSDT", (const uint64_t[]){ MADT_PA }, 1);
    put_root(RSDT_PA, "RSDT", (const uint64_t[]){ MADT2_PA }, 1);
    put_rsdp(RSDP_PA, 2, RSDT_PA, XSDT_PA);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 2);
}

TEST(bad_xsdt_falls_back)
{
    reset();
    put_madt(MADT_PA, 2);
    put_madt(MADT2_PA, 3);
    put_root(XSDT_PA, "XSDT", (const uint64_t[]){ MADT_PA }, 1);
    put_root(RSDT_PA, "RSDT", (const uint64_t[]){ MADT2_PA }, 1);
    arena[XSDT_PA + 20] ^= 1;
    put_rsdp(RSDP_PA, 2, RSDT_PA, XSDT_PA);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 3);
    CHECK(logged("falling back to RSDT"));
}

TEST(bad_xsdt_and_rsdt)
{
    reset();
    put_madt(MADT_PA, 2);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    arena[XSDT_PA + 20] ^= 1;
    arena[RSDT_PA + 20] ^= 1;
    CHECK(parse(RSDP_PA) == -ACPI_ECORRUPT);
    CHECK(error_is("no valid XSDT or RSDT"));
}

TEST(unmappable_entries_skipped)
{
    reset();
    put_madt(MADT_PA, 4);
    put_roots(2, (const uint64_t[]){ 0xFFFFFFFFFFFFFFF0ull, 0x7FFFFFFF00ull,
                                      0, MADT_PA }, 4);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 4);
    CHECK(logged("2 unmappable"));
    CHECK(parse(ARENA_SIZE + 16) == -ACPI_ECORRUPT);
    CHECK(error_is("RSDP"));
}

TEST(scan_ebda)
{
    reset();
    put_standard();
    memset(arena + RSDP_PA, 0, 36);
    w16(0x40E, 0x9FC0);
    put_rsdp(0x9FC40, 2, RSDT_PA, XSDT_PA);
    CHECK(scan() == 0x9FC40);
    CHECK(parse(0x9FC40) == 0);
    CHECK(info.ncpus == 6);
}

TEST(scan_bios_area)
{
    reset();
    put_standard();
    memset(arena + RSDP_PA, 0, 36);
    w16(0x40E, 0xFFFF);                 /* garbage EBDA pointer */
    put_rsdp(0xE0010, 2, RSDT_PA, XSDT_PA);
    arena[0xE0010 + 8] ^= 1;            /* decoy: bad checksum */
    put_rsdp(0xE0108, 0, RSDT_PA, 0);   /* decoy: not 16-byte aligned */
    put_rsdp(0xF5A40, 2, RSDT_PA, XSDT_PA);
    CHECK(scan() == 0xF5A40);
    CHECK(parse(0xF5A40) == 0);
    CHECK(info.ncpus == 6);

    memset(arena + 0xF5A40, 0, 36);     /* v1 RSDP in the last slot */
    put_rsdp(0xFFFE0, 0, RSDT_PA, 0);
    CHECK(scan() == 0xFFFE0);
}

TEST(bad_rsdp_checksum)
{
    reset();
    put_standard();
    arena[RSDP_PA + 9] ^= 0x40;         /* OEM id, under the v1 checksum */
    CHECK(scan() == 0);
    CHECK(parse(RSDP_PA) == -ACPI_ECORRUPT);
    CHECK(error_is("RSDP checksum bad"));
}

TEST(bad_rsdp_ext_checksum)
{
    reset();
    put_standard();
    arena[RSDP_PA + 33] ^= 0x40;        /* reserved, only under ext sum */
    CHECK(scan() == 0);
    CHECK(parse(RSDP_PA) == -ACPI_ECORRUPT);
    CHECK(error_is("RSDP extended checksum bad"));
}

TEST(no_rsdp)
{
    reset();
    CHECK(scan() == 0);
    CHECK(parse(0) == -ACPI_ENOTFOUND);
    CHECK(error_is("RSDP not found"));
    put_madt(MADT_PA, 1);
    CHECK(parse(MADT_PA) == -ACPI_ECORRUPT);
    CHECK(error_is("RSDP signature missing"));
}

TEST(mcfg_parsed)
{
    struct tb t;

    reset();
    t = tb_begin(MCFG_PA, "MCFG", 44);
    mcfg_alloc(&t, 0xB0000000, 0, 0, 255);
    mcfg_alloc(&t, 0x4000000000ull, 1, 0x10, 0x3F);
    mcfg_alloc(&t, 0xC0000000, 2, 9, 8);    /* inverted: skipped */
    tb_end(&t);
    put_madt(MADT_PA, 1);
    put_roots(2, (const uint64_t[]){ MADT_PA, MCFG_PA }, 2);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.nmcfg == 2))
        return;
    CHECK(info.mcfg[0].base == 0xB0000000 && info.mcfg[0].segment == 0);
    CHECK(info.mcfg[0].start_bus == 0 && info.mcfg[0].end_bus == 255);
    CHECK(info.mcfg[1].base == 0x4000000000ull);
    CHECK(info.mcfg[1].segment == 1);
    CHECK(info.mcfg[1].start_bus == 0x10 && info.mcfg[1].end_bus == 0x3F);
    CHECK(logged("inverted"));
}

TEST(fadt_pm_timer)
{
    const uint64_t tabs[] = { MADT_PA, FADT_PA };

    reset();
    put_madt(MADT_PA, 1);
    put_fadt(FADT_PA, 276, 0x608, 1u << 8, 0, 0);
    put_roots(2, tabs, 2);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.pm_tmr_port == 0x608 && info.pm_tmr_32bit);

    /* X_PM_TMR_BLK in I/O space supersedes PM_TMR_BLK ... */
    put_fadt(FADT_PA, 276, 0x608, 0, 1, 0xB008);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.pm_tmr_port == 0xB008 && !info.pm_tmr_32bit);

    /* ... but one in memory space is no use for inl. */
    put_fadt(FADT_PA, 276, 0x608, 1u << 8, 0, 0xFED000F0);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.pm_tmr_port == 0x608 && info.pm_tmr_32bit);
    CHECK(logged("not in I/O space"));

    /* ACPI 1.0 FADT, 24-bit timer. */
    memset(arena + FADT_PA, 0, 276);
    put_fadt(FADT_PA, 116, 0x408, 0, 0, 0);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.pm_tmr_port == 0x408 && !info.pm_tmr_32bit);

    /* Hardware-reduced ACPI: no PM timer even if the field is set. */
    put_fadt(FADT_PA, 276, 0x608, 1u << 20, 0, 0);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.pm_tmr_port == 0);

    /* A FADT with a bad checksum is skipped; the MADT still counts. */
    put_fadt(FADT_PA, 276, 0x608, 0, 0, 0);
    arena[FADT_PA + 100] ^= 1;
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.pm_tmr_port == 0 && info.ncpus == 1);
}

/* ---- arm64 ---- */

TEST(aavmf_virt)
{
    reset();
    put_aavmf();
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.error == NULL))
        return;
    /* The core that is neither enabled nor online capable is left out. */
    if (!CHECK(info.ncpus == 3))
        return;
    for (uint32_t i = 0; i < 3; i++) {
        CHECK(info.cpus[i].gicc_entry && !info.cpus[i].x2apic_entry);
        CHECK(info.cpus[i].mpidr == i && info.cpus[i].acpi_uid == i);
        CHECK(info.cpus[i].apic_id == 0);
        CHECK(info.cpus[i].gicr_pa == 0 && info.cpus[i].gicc_pa == 0);
    }
    CHECK(info.cpus[0].usable && info.cpus[1].usable);
    CHECK(!info.cpus[2].usable);
    CHECK(info.gicd_pa == 0x08000000 && info.gic_version == 3);
    CHECK(info.ngicr == 1);
    CHECK(info.gicr[0].base == 0x080A0000);
    CHECK(info.gicr[0].length == 0x00F60000);
    CHECK(info.nits == 1 && info.its_pa[0] == 0x08080000);
    CHECK(info.lapic_pa == 0 && info.nioapic == 0 && info.niso == 0);

    CHECK(info.timer_el1_phys.gsiv == 30);
    CHECK(info.timer_el1_phys.flags == ACPI_TIMER_ALWAYS_ON);
    CHECK(info.timer_el1_virt.gsiv == 27 && info.timer_el1_virt.flags == 0);
    CHECK(info.timer_el2_phys.gsiv == 26);
    /* Only the defined flag bits are kept. */
    CHECK(info.timer_el2_phys.flags ==
          (ACPI_TIMER_EDGE | ACPI_TIMER_ACTIVE_LOW));

    CHECK(info.spcr_type == ACPI_SPCR_PL011);
    CHECK(info.spcr_base == 0x09000000);
    CHECK(info.spcr_space == ACPI_SPACE_MEMORY);
    CHECK(info.spcr_access_size == 3);
    CHECK(info.spcr_int_type == ACPI_SPCR_INT_GIC && info.spcr_gsi == 33);

    CHECK(info.hw_reduced && info.psci && info.psci_hvc);
    CHECK(info.pm_tmr_port == 0);
    CHECK(info.nmcfg == 1 && info.mcfg[0].base == 0xB0000000);
    CHECK(loglen == 0);
}

/* The AAVMF-like set as the aarch64 kernel's machine description: the
   usable cores started by PSCI over HVC, GICv3 with its GICR range, the
   timer PPIs in device tree terms, the SPCR's PL011, the MCFG's ECAM. */
TEST(aavmf_machine)
{
    static struct machine m;
    int r;

    reset();
    put_aavmf();
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 1, &m) == NULL);
    CHECK(m.error == NULL && m.dropped == 0);
    if (!CHECK(m.ncpus == 2))
        return;
    CHECK(m.cpus[0].mpidr == 0 && m.cpus[1].mpidr == 1);
    CHECK(m.cpus[0].enable == MACH_ENABLE_PSCI && m.cpus[1].enable == MACH_ENABLE_PSCI);
    CHECK(m.psci_conduit == MACH_CONDUIT_HVC);
    CHECK(m.gic.version == 3);
    CHECK(m.gic.dist.base == 0x08000000 && m.gic.dist.size == 0x10000);
    CHECK(m.gic.nredist == 1 && m.gic.redist[0].base == 0x080A0000 &&
          m.gic.redist[0].size == 0x00F60000);
    CHECK(m.gic.cpuif.base == 0);
    /* The ITS, but no DeviceID map without the IORT. */
    CHECK(m.gic.its.base == 0x08080000 && m.gic.its.size == 0x20000);
    CHECK(m.pci.nmsi == 0);
    CHECK(m.timer[MACH_TIMER_VIRT].intid == 27 && m.timer[MACH_TIMER_VIRT].flags == 4);
    CHECK(m.timer[MACH_TIMER_PHYS].intid == 30);
    CHECK(m.timer[MACH_TIMER_HYP].intid == 26 && m.timer[MACH_TIMER_HYP].flags == 2);
    CHECK(m.uart.base == 0x09000000);
    CHECK(m.uart_irq.intid == 33 && m.uart_irq.flags == 4);    /* level */
    CHECK(m.pci.ecam.base == 0xB0000000 && m.pci.bus_start == 0);
    CHECK(m.pci.ecam.size == (uint64_t)(m.pci.bus_end + 1) << 20);
    CHECK(m.nmem == 0 && m.rtc.base == 0 && m.bootargs == NULL);
}

/* What the kernel falls back to: a MADT without a usable core gives the
   boot core alone (and says why); SMC when the FADT says so; no PSCI, no
   conduit; a 16550 console is not a PL011; no GIC, no machine. */
TEST(machine_fallbacks)
{
    static struct machine m;
    struct tb t;
    int r;

    reset();
    put_aavmf();
    t = madt_begin(MADT_PA, 0);
    madt_gicd(&t, 0x08000000, 3);
    madt_gicc(&t, 0, 0, 1u << 3);
    madt_gicr(&t, 0x080A0000, 0x00F60000);
    tb_end(&t);
    r = parse(RSDP_PA);
    CHECK(r == -ACPI_ENOCORE);
    CHECK(acpi_to_machine(&info, r, 0x101, &m) == NULL);
    CHECK(m.ncpus == 1 && m.cpus[0].mpidr == 0x101);
    CHECK(m.error && strstr(m.error, "no usable core"));
    CHECK(m.gic.version == 3 && m.uart.base == 0x09000000);

    reset();
    put_aavmf();
    put_fadt_arm(FADT_PA, 276, 1u << 20, 0x1);     /* PSCI over SMC */
    put_spcr(SPCR_PA, 0x00, 0, 0x09000000);
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL);
    CHECK(m.psci_conduit == MACH_CONDUIT_SMC);
    CHECK(m.uart.base == 0 && m.uart_irq.intid == 0);

    reset();
    put_aavmf();
    put_fadt_arm(FADT_PA, 276, 1u << 20, 0);       /* no PSCI */
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL);
    CHECK(m.psci_conduit == MACH_CONDUIT_NONE);
    CHECK(m.cpus[1].enable == MACH_ENABLE_NONE);

    reset();
    put_aavmf();
    t = madt_begin(MADT_PA, 0);
    madt_gicc(&t, 0, 0, 1);
    tb_end(&t);
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 0, &m) != NULL);

    reset();
    r = parse(0);
    CHECK(r < 0);
    CHECK(acpi_to_machine(&info, r, 0, &m) != NULL);
}

TEST(x86_fields_clear_of_arm)
{
    reset();
    put_standard();
    if (!CHECK(parse(RSDP_PA) == 0))
        return;
    for (uint32_t i = 0; i < info.ncpus; i++)
        CHECK(!info.cpus[i].gicc_entry && info.cpus[i].mpidr == 0);
    CHECK(info.gicd_pa == 0 && info.gic_version == 0);
    CHECK(info.ngicr == 0 && info.nits == 0);
    CHECK(info.timer_el1_virt.gsiv == 0 && info.spcr_base == 0);
    CHECK(!info.hw_reduced && !info.psci && !info.psci_hvc);
}

TEST(gicc_fields)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, 0);
    /* ACPI 5.1 length; every MPIDR bit set: only the affinity stays. */
    madt_gicc_len(&t, 76, 7, 0xFFFFFFFFFFFFFFFFull, 1, 0x080A0000,
                  0x08010000);
    /* ACPI 6.5 length, Aff3 and Aff1 set, U and MT bits set. */
    madt_gicc_len(&t, 82, 8, 0x0000002A41000300ull, 1, 0x080C0000,
                  0x08020000);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 2))
        return;
    CHECK(info.cpus[0].mpidr == 0xFF00FFFFFFull);
    CHECK(info.cpus[0].acpi_uid == 7);
    CHECK(info.cpus[0].gicr_pa == 0x080A0000);
    CHECK(info.cpus[0].gicc_pa == 0x08010000);
    CHECK(info.cpus[1].mpidr == 0x2A00000300ull);
    CHECK(info.cpus[1].gicr_pa == 0x080C0000);
    CHECK(info.cpus[1].gicc_pa == 0x08020000);
    CHECK(info.gicd_pa == 0 && info.gic_version == 0);
}

TEST(gicc_duplicate_mpidr)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, 0);
    madt_gicc(&t, 0, 0x100, 1);
    madt_gicc(&t, 1, 0x100, 1);
    /* Equal once the non-affinity bits are masked off. */
    madt_gicc(&t, 2, 0x80000100ull, 1);
    madt_gicc(&t, 3, 0x101, 1);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 2))
        return;
    CHECK(info.cpus[0].acpi_uid == 0 && info.cpus[1].acpi_uid == 3);
    CHECK(logged("duplicate MPIDR 0x100"));
}

TEST(gicc_truncated)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, 0);
    madt_gicd(&t, 0x08000000, 2);
    madt_gicc(&t, 0, 0, 1);
    madt_gicc(&t, 1, 1, 1);
    t.len -= 40;                        /* the table ends mid-entry */
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.ncpus == 1 && info.cpus[0].mpidr == 0);
    CHECK(info.gicd_pa == 0x08000000 && info.gic_version == 2);
    CHECK(logged("type 11 at offset 148 has bad length 80"));
}

TEST(gicc_length_bad)
{
    /* 40: an ACPI 5.0 GICC, without the MPIDR; 0 and 2 must not loop. */
    static const uint8_t lens[] = { 40, 75, 2, 0 };

    for (size_t i = 0; i < sizeof(lens); i++) {
        struct tb t;
        char want[64];

        reset();
        t = madt_begin(MADT_PA, 0);
        madt_gicc(&t, 0, 0, 1);
        madt_gicc(&t, 1, 1, 1);
        arena[MADT_PA + 44 + 80 + 1] = lens[i];
        madt_gicc(&t, 2, 2, 1);
        madt_its(&t, 0, 0x08080000);
        tb_end(&t);
        put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
        CHECK(parse(RSDP_PA) == 0);
        CHECK(info.ncpus == 1 && info.nits == 0);
        snprintf(want, sizeof(want), "bad length %u,", lens[i]);
        CHECK(logged(want));
    }
}

TEST(gicc_none_usable)
{
    struct tb t;

    reset();
    put_aavmf();
    t = madt_begin(MADT_PA, 0);
    madt_gicd(&t, 0x08000000, 3);
    madt_gicc(&t, 0, 0, 1u << 3);       /* online capable, off */
    madt_gicc(&t, 1, 1, 0);             /* never */
    madt_gicr(&t, 0x080A0000, 0x00F60000);
    tb_end(&t);
    CHECK(parse(RSDP_PA) == -ACPI_ENOCORE);
    CHECK(error_is("the MADT lists no usable core"));
    CHECK(info.ncpus == 1 && !info.cpus[0].usable);
    /* Everything else is there for the boot core to run alone. */
    CHECK(info.gicd_pa == 0x08000000 && info.gic_version == 3);
    CHECK(info.ngicr == 1);
    CHECK(info.timer_el1_virt.gsiv == 27);
    CHECK(info.spcr_base == 0x09000000);
    CHECK(info.psci && info.psci_hvc && info.hw_reduced);
    CHECK(info.nmcfg == 1);

    /* No GICC at all: only a GICD. */
    t = madt_begin(MADT_PA, 0);
    madt_gicd(&t, 0x08000000, 3);
    tb_end(&t);
    CHECK(parse(RSDP_PA) < 0);
    CHECK(error_is("MADT"));
    CHECK(info.ncpus == 0 && info.gicd_pa == 0x08000000);
    CHECK(info.spcr_base == 0x09000000);
}

TEST(madt_mixed_kinds)
{
    struct tb t;

    /* Local APIC first: the GICCs are the firmware bug. */
    reset();
    t = madt_begin(MADT_PA, LAPIC);
    madt_lapic(&t, 0, 0, 1);
    madt_gicc(&t, 1, 1, 1);
    madt_x2apic(&t, 0x100, 1, 2);
    madt_gicc(&t, 2, 2, 1);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 2))
        return;
    CHECK(!info.cpus[0].gicc_entry && !info.cpus[1].gicc_entry);
    CHECK(info.cpus[1].apic_id == 0x100);
    CHECK(logged("mixes local APIC and GICC entries; 2 GICC entries"));

    /* GICC first: the local APICs are dropped, even a disabled GICC
       decides. */
    reset();
    t = madt_begin(MADT_PA, 0);
    madt_gicc(&t, 0, 0, 0);
    madt_lapic(&t, 1, 1, 1);
    madt_gicc(&t, 2, 5, 1);
    madt_x2apic(&t, 0x100, 1, 3);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0) || !CHECK(info.ncpus == 1))
        return;
    CHECK(info.cpus[0].gicc_entry && info.cpus[0].mpidr == 5);
    CHECK(logged("2 local APIC entries ignored"));

    /* Only local APICs enabled, listed after a GICC: no usable core. */
    reset();
    t = madt_begin(MADT_PA, 0);
    madt_gicc(&t, 0, 0, 0);
    madt_lapic(&t, 1, 1, 1);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    CHECK(parse(RSDP_PA) == -ACPI_ENOCORE);
    CHECK(info.ncpus == 0);
}

TEST(gic_caps)
{
    struct tb t;

    reset();
    t = madt_begin(MADT_PA, 0);
    madt_gicd(&t, 0x08000000, 9);       /* no such GIC version */
    madt_gicd(&t, 0x09000000, 3);       /* a second distributor */
    madt_gicc(&t, 0, 0, 1);
    for (uint32_t i = 0; i < ACPI_MAX_GICR + 2; i++)
        madt_gicr(&t, 0x080A0000 + 0x01000000ull * i, 0x20000 * (i + 1));
    for (uint32_t i = 0; i < ACPI_MAX_ITS + 3; i++)
        madt_its(&t, i, 0x08080000 + 0x20000ull * i);
    tb_end(&t);
    put_roots(2, (const uint64_t[]){ MADT_PA }, 1);
    if (!CHECK(parse(RSDP_PA) == 0))
        return;
    CHECK(info.gicd_pa == 0x08000000 && info.gic_version == 0);
    CHECK(logged("GICD version 9 unknown"));
    CHECK(logged("1 GIC distributors beyond the first ignored"));
    CHECK(info.ngicr == ACPI_MAX_GICR);
    CHECK(info.gicr[3].base == 0x080A0000 + 0x03000000ull);
    CHECK(info.gicr[3].length == 0x80000);
    CHECK(logged("2 GICR ranges beyond 4 ignored"));
    CHECK(info.nits == ACPI_MAX_ITS);
    CHECK(info.its_pa[3] == 0x08080000 + 0x60000ull);
    CHECK(logged("3 GIC ITSs beyond 4 ignored"));
}

TEST(gtdt_lengths)
{
    reset();
    put_aavmf();
    /* 80 bytes hold every timer read: taken. */
    put_gtdt(GTDT_PA, 80, 27, ACPI_TIMER_EDGE);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.timer_el1_virt.gsiv == 27);
    CHECK(info.timer_el1_virt.flags == ACPI_TIMER_EDGE);
    CHECK(info.timer_el2_phys.gsiv == 26);

    /* 76 bytes end inside the EL2 timer's flags: ignored, not read. */
    put_gtdt(GTDT_PA, 76, 27, 0);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.timer_el1_phys.gsiv == 0 && info.timer_el1_virt.gsiv == 0);
    CHECK(info.timer_el2_phys.gsiv == 0);
    CHECK(logged("GTDT at 0x122000 has absurd length 76"));
    CHECK(info.spcr_base == 0x09000000 && info.ncpus == 3);
}

TEST(spcr_variants)
{
    reset();
    put_aavmf();

    /* A 16550 in I/O space. */
    put_spcr(SPCR_PA, ACPI_SPCR_16550, ACPI_SPACE_IO, 0x3F8);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.spcr_type == ACPI_SPCR_16550 && info.spcr_base == 0x3F8);
    CHECK(info.spcr_space == ACPI_SPACE_IO);

    /* Base 0: console redirection off. */
    put_spcr(SPCR_PA, ACPI_SPCR_SBSA, ACPI_SPACE_MEMORY, 0);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.spcr_base == 0 && info.spcr_type == 0);

    /* A UART in PCI configuration space: of no use, ignored. */
    put_spcr(SPCR_PA, ACPI_SPCR_16550_GAS, 2, 0x1000);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.spcr_base == 0);
    CHECK(logged("address space 2"));

    /* 48 bytes end inside the base address: ignored, not read. */
    put_spcr(SPCR_PA, ACPI_SPCR_PL011, ACPI_SPACE_MEMORY, 0x09000000);
    w32(SPCR_PA + 4, 48);
    fix_sum(SPCR_PA, 48, 9);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.spcr_base == 0);
    CHECK(logged("SPCR at 0x123000 has absurd length 48"));
    CHECK(info.timer_el1_virt.gsiv == 27);
}

/* The SPCR's interrupt reaches the machine description only when the
   table holds it and it is an SPI of the GIC. */
TEST(spcr_interrupt)
{
    static struct machine m;
    int r;

    /* 52 bytes end with the base: the UART, without an interrupt. */
    reset();
    put_aavmf();
    w32(SPCR_PA + 4, 52);
    fix_sum(SPCR_PA, 52, 9);
    r = parse(RSDP_PA);
    CHECK(r == 0 && info.spcr_base == 0x09000000);
    CHECK(info.spcr_int_type == 0 && info.spcr_gsi == 0);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL);
    CHECK(m.uart.base == 0x09000000 && m.uart_irq.intid == 0);

    /* 57 bytes end inside the GSIV: the same. */
    reset();
    put_aavmf();
    w32(SPCR_PA + 4, 57);
    fix_sum(SPCR_PA, 57, 9);
    r = parse(RSDP_PA);
    CHECK(r == 0 && info.spcr_base == 0x09000000 && info.spcr_int_type == 0);

    /* An I/O APIC interrupt is not a GIC's. */
    reset();
    put_aavmf();
    w8(SPCR_PA + 52, ACPI_SPCR_INT_IOAPIC);
    fix_sum(SPCR_PA, 80, 9);
    r = parse(RSDP_PA);
    CHECK(info.spcr_int_type == ACPI_SPCR_INT_IOAPIC && info.spcr_gsi == 33);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL);
    CHECK(m.uart.base == 0x09000000 && m.uart_irq.intid == 0);

    /* A GSIV below 32 (a PPI or SGI) or past the SPIs is no SPI. */
    reset();
    put_aavmf();
    w32(SPCR_PA + 54, 27);
    fix_sum(SPCR_PA, 80, 9);
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL && m.uart_irq.intid == 0);
    w32(SPCR_PA + 54, 1020);
    fix_sum(SPCR_PA, 80, 9);
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL && m.uart_irq.intid == 0);
    w32(SPCR_PA + 54, 1019);
    fix_sum(SPCR_PA, 80, 9);
    r = parse(RSDP_PA);
    CHECK(acpi_to_machine(&info, r, 0, &m) == NULL && m.uart_irq.intid == 1019);
}

TEST(gtdt_spcr_bad_checksum)
{
    reset();
    put_aavmf();
    arena[GTDT_PA + 64] ^= 1;
    arena[SPCR_PA + 44] ^= 1;
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.timer_el1_virt.gsiv == 0 && info.timer_el1_phys.gsiv == 0);
    CHECK(info.spcr_base == 0);
    CHECK(logged("GTDT at 0x122000 has a bad checksum"));
    CHECK(logged("SPCR at 0x123000 has a bad checksum"));
    /* The rest of the set is unaffected. */
    CHECK(info.ncpus == 3 && info.gicd_pa == 0x08000000 && info.psci);
}

TEST(fadt_arm_boot_flags)
{
    reset();
    put_aavmf();

    /* 130 bytes end inside ARM_BOOT_ARCH: not read. */
    put_fadt_arm(FADT_PA, 130, 1u << 20, 0);
    arena[FADT_PA + 129] = 0x3;
    fix_sum(FADT_PA, 130, 9);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(!info.psci && !info.psci_hvc && info.hw_reduced);

    /* 131 bytes hold it. */
    put_fadt_arm(FADT_PA, 131, 1u << 20, 0x1);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(info.psci && !info.psci_hvc);

    /* HVC without PSCI_COMPLIANT means nothing. */
    put_fadt_arm(FADT_PA, 276, 0, 0x2);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(!info.psci && !info.psci_hvc && !info.hw_reduced);

    /* Too short for the flags: neither read. */
    memset(arena + FADT_PA, 0, 276);
    put_fadt_arm(FADT_PA, 100, 1u << 20, 0x3);
    CHECK(parse(RSDP_PA) == 0);
    CHECK(!info.hw_reduced && !info.psci);
}

/* ---- fuzz ---- */

static uint64_t rng = 0x5b1d1e5eedull;

static uint32_t rnd(void)
{
    /* xorshift64*: deterministic, so a failure can be replayed. */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Every byte the fuzz case changed, to put back before the next round. */
static struct { uint32_t pa; uint8_t old; } undo[256];
static int nundo;

static void poke(uint64_t pa, uint8_t v)
{
    if (nundo < (int)(sizeof(undo) / sizeof(undo[0]))) {
        undo[nundo].pa = pa;
        undo[nundo++].old = arena[pa];
        arena[pa] = v;
    }
}

static void reseal(uint64_t pa, uint32_t at)
{
    uint32_t len = r32(pa + 4);

    if (len >= 36 && len <= (1u << 20) + 64 && pa + len <= ARENA_SIZE) {
        poke(pa + at, 0);
        poke(pa + at, (uint8_t)-sum(pa, len));
    }
}

static void reseal_all(void)
{
    static const uint64_t tabs[] = { XSDT_PA, RSDT_PA, MADT_PA, MCFG_PA,
                                     FADT_PA, GTDT_PA, SPCR_PA };
    uint32_t rlen = r32(RSDP_PA + 20);

    for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
        reseal(tabs[i], 9);
    poke(RSDP_PA + 8, 0);
    poke(RSDP_PA + 8, (uint8_t)-sum(RSDP_PA, 20));
    if (rlen >= 36 && rlen <= 1024) {
        poke(RSDP_PA + 32, 0);
        poke(RSDP_PA + 32, (uint8_t)-sum(RSDP_PA, rlen));
    }
}

/* One kind of CPU per list, no core twice, and the GICC-only fields
   clear on x86 entries. */
static bool cpus_sane(void)
{
    for (uint32_t i = 0; i < info.ncpus; i++) {
        const struct acpi_cpu *a = &info.cpus[i];

        if (a->gicc_entry != info.cpus[0].gicc_entry)
            return false;
        if (a->gicc_entry ? a->apic_id || a->x2apic_entry ||
                            (a->mpidr & ~0xFF00FFFFFFull)
                          : a->mpidr || a->gicr_pa || a->gicc_pa)
            return false;
        for (uint32_t j = i + 1; j < info.ncpus; j++)
            if (a->gicc_entry ? a->mpidr == info.cpus[j].mpidr
                              : a->apic_id == info.cpus[j].apic_id)
                return false;
    }
    return true;
}

static bool info_sane(int rc)
{
    if (rc != 0 && (rc >= 0 || info.error == NULL))
        return false;
    if (rc == 0 && (info.error != NULL || info.ncpus == 0))
        return false;
    if (info.ncpus > ACPI_MAX_CPUS || info.nioapic > ACPI_MAX_IOAPIC ||
        info.niso > ACPI_MAX_ISO || info.nmcfg > ACPI_MAX_MCFG ||
        info.ngicr > ACPI_MAX_GICR || info.nits > ACPI_MAX_ITS)
        return false;
    if (info.gic_version > 4 || (info.psci_hvc && !info.psci) ||
        (info.spcr_base && info.spcr_space > ACPI_SPACE_IO))
        return false;
    return cpus_sane();
}

/* A stretch of the arena the fuzz cases flip bytes in. */
struct region {
    uint64_t pa;
    uint32_t len;
};

/* regions[3] is the MADT. */
static void fuzz_one(const struct region *tabs, int ntabs)
{
    int nflip = 1 + rnd() % 4;

    for (int i = 0; i < nflip; i++) {
        /* Half the flips go to the MADT, the most structured table. */
        int k = rnd() % 2 ? 3 : rnd() % ntabs;
        uint64_t pa = tabs[k].pa + rnd() % (tabs[k].len + 8);
        uint8_t v[4] = { 0, 0xFF, arena[pa] ^ (1u << rnd() % 8), rnd() };

        poke(pa, v[rnd() % 4]);
    }
    if (rnd() % 4)
        reseal_all();
}

/*
 * iters rounds of fuzz_one over the table set in the arena, each parse
 * checked and then undone.  Returns how many parses succeeded, or -1
 * after a FAIL.
 */
static int fuzz_rounds(const struct region *tabs, int ntabs, int iters)
{
    int ok = 0;

    for (int it = 0; it < iters; it++) {
        int rc;

        nundo = 0;
        fuzz_one(tabs, ntabs);
        rc = parse(RSDP_PA);
        if (!info_sane(rc)) {
            FAIL("iteration %d: rc %d, ncpus %u, error %s", it, rc,
                 info.ncpus, info.error ? info.error : "(none)");
            return -1;
        }
        ok += rc == 0;
        if (it % 64 == 0) {
            uint64_t pa = scan();

            if (!CHECK(pa == 0 || pa == RSDP_PA))
                return -1;
        }
        while (nundo--)
            arena[undo[nundo].pa] = undo[nundo].old;
    }
    return ok;
}

TEST(fuzz)
{
    static const struct region tabs[] = {
        { RSDP_PA, 36 }, { XSDT_PA, 60 }, { RSDT_PA, 48 },
        { MADT_PA, 152 }, { MCFG_PA, 60 }, { FADT_PA, 276 },
    };
    const int iters = 20000;
    int ok;

    reset();
    put_standard();
    /* The MADT size fuzz_one assumes: header, 4 + 2 + 1 + 2 + 1 entries. */
    if (!CHECK(r32(MADT_PA + 4) == 44 + 4 * 8 + 2 * 16 + 12 + 2 * 10 + 12))
        return;
    if ((ok = fuzz_rounds(tabs, 6, iters)) < 0)
        return;
    /* Undo restored the set; and the fuzz must not have been all errors. */
    CHECK(parse(RSDP_PA) == 0 && info.ncpus == 6 && info.nmcfg == 1);
    CHECK(ok > iters / 10 && ok < iters);
}

TEST(fuzz_arm)
{
    static const struct region tabs[] = {
        { RSDP_PA, 36 }, { XSDT_PA, 76 }, { RSDT_PA, 56 },
        { MADT_PA, AAVMF_MADT_LEN }, { MCFG_PA, 60 }, { FADT_PA, 276 },
        { GTDT_PA, 104 }, { SPCR_PA, 80 },
    };
    const int iters = 20000;
    int ok;

    reset();
    put_aavmf();
    if (!CHECK(r32(MADT_PA + 4) == AAVMF_MADT_LEN))
        return;
    if ((ok = fuzz_rounds(tabs, 8, iters)) < 0)
        return;
    CHECK(parse(RSDP_PA) == 0 && info.ncpus == 3 && info.ngicr == 1);
    CHECK(info.timer_el1_virt.gsiv == 27 && info.spcr_base == 0x09000000);
    CHECK(ok > iters / 10 && ok < iters);
}

int main(int argc, char **argv)
{
    int rc;

    verbose = getenv("ACPI_TEST_VERBOSE") != NULL;
    arena = calloc(1, ARENA_SIZE);
    if (!arena)
        return 1;
    rc = h_run(argc, argv);
    unmap_all();
    free(maps);
    free(arena);
    return rc;
}
