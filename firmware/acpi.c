/*
 * acpi.c - find the RSDP, walk the XSDT or RSDT, and read the MADT, MCFG,
 * FADT, GTDT and SPCR into a struct acpi_info.
 *
 * Everything here is firmware input, so nothing is trusted: a table is used
 * only after its signature, length (header size .. ACPI_TABLE_MAX) and
 * checksum pass, and every read is bounded by the length that was mapped.
 * Loops run over counts derived from those checked lengths, and the MADT
 * walk advances by each entry's nonzero length, so every loop ends.  A bad
 * table is skipped with a message; parsing goes on with the rest.
 *
 * Specs: ACPI 6.5 §5.2.5 RSDP, §5.2.6 table header, §5.2.7 RSDT, §5.2.8
 * XSDT, §5.2.9 FADT, §5.2.12 MADT (its Processor Local APIC, I/O APIC,
 * Interrupt Source Override, Local APIC Address Override, Processor
 * Local x2APIC, GICC, GICD, GICR and GIC ITS structures), §5.2.25 GTDT;
 * PCI Firmware Specification 3.3 §4.1.2 MCFG; Microsoft's Serial Port
 * Console Redirection Table (SPCR) and Debug Port Table 2 (its interface
 * types) specifications.
 */
#include <string.h>
#include "firmware/acpi.h"

#define PACKED __attribute__((packed))

/* Real tables are at most tens of KiB; more than this is corruption. */
#define ACPI_TABLE_MAX  (1u << 20)
#define RSDP_V1_LEN     20
#define RSDP_MAX        1024

struct acpi_rsdp {
    char sig[8];                /* "RSD PTR " */
    uint8_t checksum;           /* over the first 20 bytes */
    char oem[6];
    uint8_t revision;           /* 0: ACPI 1.0, only the fields above rsdt */
    uint32_t rsdt;
    uint32_t length;            /* revision >= 2 from here on */
    uint64_t xsdt;
    uint8_t ext_checksum;       /* over length bytes */
    uint8_t reserved[3];
} PACKED;
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP is 36 bytes");
_Static_assert(offsetof(struct acpi_rsdp, length) == RSDP_V1_LEN, "RSDP v1");

struct acpi_sdt {
    char sig[4];
    uint32_t length;            /* whole table, header included */
    uint8_t revision;
    uint8_t checksum;           /* makes all length bytes sum to 0 */
    char oem[6];
    char oem_table[8];
    uint32_t oem_revision;
    uint32_t creator;
    uint32_t creator_revision;
} PACKED;
_Static_assert(sizeof(struct acpi_sdt) == 36, "SDT header is 36 bytes");

struct acpi_madt {
    struct acpi_sdt hdr;
    uint32_t lapic;
    uint32_t flags;             /* PCAT_COMPAT: 8259s present */
} PACKED;
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT header is 44 bytes");

struct madt_entry {
    uint8_t type;
    uint8_t len;
} PACKED;

enum {
    MADT_LAPIC = 0,
    MADT_IOAPIC = 1,
    MADT_ISO = 2,
    MADT_LAPIC_OVERRIDE = 5,
    MADT_X2APIC = 9,
    MADT_GICC = 0xB,
    MADT_GICD = 0xC,
    MADT_GICR = 0xE,
    MADT_GIC_ITS = 0xF,
    MADT_NTYPES
};

#define MADT_ENABLED        (1u << 0)
#define MADT_ONLINE_CAPABLE (1u << 1)   /* ACPI 6.3+; 0 on older firmware */
#define GICC_ENABLED        (1u << 0)
#define GICC_ONLINE_CAPABLE (1u << 3)   /* ACPI 6.5+; 0 on older firmware */

/* The affinity fields of MPIDR_EL1: Aff3 (39:32) and Aff2..Aff0 (23:0). */
#define MPIDR_AFFINITY      0xFF00FFFFFFull

struct madt_lapic {
    struct madt_entry h;
    uint8_t acpi_id;
    uint8_t apic_id;
    uint32_t flags;
} PACKED;
_Static_assert(sizeof(struct madt_lapic) == 8, "MADT type 0");

struct madt_ioapic {
    struct madt_entry h;
    uint8_t id;
    uint8_t reserved;
    uint32_t addr;
    uint32_t gsi_base;
} PACKED;
_Static_assert(sizeof(struct madt_ioapic) == 12, "MADT type 1");

struct madt_iso {
    struct madt_entry h;
    uint8_t bus;
    uint8_t source;
    uint32_t gsi;
    uint16_t flags;
} PACKED;
_Static_assert(sizeof(struct madt_iso) == 10, "MADT type 2");

struct madt_lapic_override {
    struct madt_entry h;
    uint16_t reserved;
    uint64_t addr;
} PACKED;
_Static_assert(sizeof(struct madt_lapic_override) == 12, "MADT type 5");

struct madt_x2apic {
    struct madt_entry h;
    uint16_t reserved;
    uint32_t x2apic_id;
    uint32_t flags;
    uint32_t uid;
} PACKED;
_Static_assert(sizeof(struct madt_x2apic) == 16, "MADT type 9");

/*
 * GICC, one per core.  76 bytes in ACPI 5.1, 80 in 6.0 (efficiency class),
 * 82 in 6.5 (TRBE interrupt): only the 5.1 fields, up to the MPIDR, are
 * named and required.
 */
struct madt_gicc {
    struct madt_entry h;
    uint16_t reserved;
    uint32_t cpu_if;            /* GICv2 CPU interface number */
    uint32_t uid;
    uint32_t flags;
    uint32_t parking_version;
    uint32_t perf_gsiv;
    uint64_t parked_addr;
    uint64_t gicc_pa;           /* GICv2 CPU interface */
    uint64_t gicv_pa;
    uint64_t gich_pa;
    uint32_t vgic_gsiv;
    uint64_t gicr_pa;
    uint64_t mpidr;
} PACKED;
_Static_assert(offsetof(struct madt_gicc, gicc_pa) == 32, "GICC base");
_Static_assert(offsetof(struct madt_gicc, gicr_pa) == 60, "GICC GICR base");
_Static_assert(sizeof(struct madt_gicc) == 76, "MADT type 0xB, ACPI 5.1");

struct madt_gicd {
    struct madt_entry h;
    uint16_t reserved;
    uint32_t gic_id;
    uint64_t addr;
    uint32_t vector_base;       /* reserved, 0 */
    uint8_t version;            /* 0: not given, 1..4: GICv1..GICv4 */
    uint8_t reserved2[3];
} PACKED;
_Static_assert(sizeof(struct madt_gicd) == 24, "MADT type 0xC");

struct madt_gicr {
    struct madt_entry h;
    uint16_t reserved;
    uint64_t base;
    uint32_t length;
} PACKED;
_Static_assert(sizeof(struct madt_gicr) == 16, "MADT type 0xE");

struct madt_gic_its {
    struct madt_entry h;
    uint16_t reserved;
    uint32_t its_id;
    uint64_t addr;
    uint32_t reserved2;
} PACKED;
_Static_assert(sizeof(struct madt_gic_its) == 20, "MADT type 0xF");

struct acpi_mcfg_table {
    struct acpi_sdt hdr;
    uint8_t reserved[8];
} PACKED;
_Static_assert(sizeof(struct acpi_mcfg_table) == 44, "MCFG header");

struct mcfg_alloc {
    uint64_t base;
    uint16_t segment;
    uint8_t start_bus;
    uint8_t end_bus;
    uint32_t reserved;
} PACKED;
_Static_assert(sizeof(struct mcfg_alloc) == 16, "MCFG allocation");

/* Generic Address Structure, §5.2.3.2. */
struct acpi_gas {
    uint8_t space;              /* ACPI_SPACE_MEMORY, ACPI_SPACE_IO, ... */
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_size;
    uint64_t addr;
} PACKED;
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS");

/*
 * The FADT grew with each ACPI revision (116 bytes in 1.0, 244 in 2.0, 276
 * now), so only the fields we read are named, and each is read only if
 * the table's length covers it.
 */
struct acpi_fadt {
    struct acpi_sdt hdr;
    uint32_t firmware_ctrl;
    uint32_t dsdt;              /* the DSDT, 32-bit */
    uint8_t pad0[32];
    uint32_t pm_tmr_blk;        /* I/O port, 0 if no PM timer */
    uint8_t pad1[32];
    uint32_t flags;
    uint8_t pad2[13];
    uint16_t arm_boot_arch;     /* ACPI 5.1+; reserved (0) before */
    uint8_t pad3[9];
    uint64_t x_dsdt;            /* ACPI 2.0+; supersedes dsdt when set */
    uint8_t pad4[60];
    struct acpi_gas x_pm_tmr_blk;   /* ACPI 2.0+; supersedes pm_tmr_blk */
} PACKED;
_Static_assert(offsetof(struct acpi_fadt, dsdt) == 40, "DSDT");
_Static_assert(offsetof(struct acpi_fadt, x_dsdt) == 140, "X_DSDT");
_Static_assert(offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "PM_TMR_BLK");
_Static_assert(offsetof(struct acpi_fadt, flags) == 112, "FADT flags");
_Static_assert(offsetof(struct acpi_fadt, arm_boot_arch) == 129, "ARM_BOOT");
_Static_assert(offsetof(struct acpi_fadt, x_pm_tmr_blk) == 208, "X_PM_TMR");
_Static_assert(sizeof(struct acpi_fadt) == 220, "FADT up to X_PM_TMR_BLK");

#define FADT_TMR_VAL_EXT        (1u << 8)
#define FADT_HW_REDUCED_ACPI    (1u << 20)  /* no fixed hardware: no PM timer */
#define FADT_ARM_PSCI           (1u << 0)   /* PSCI_COMPLIANT */
#define FADT_ARM_PSCI_HVC       (1u << 1)   /* PSCI_USE_HVC, else SMC */

/*
 * GTDT: revision 2 (ACPI 5.1) is 96 bytes, 3 (6.3) 104; the timers read
 * here sit in the first 80, which is all that is required.
 */
struct acpi_gtdt {
    struct acpi_sdt hdr;
    uint64_t cnt_control_base;
    uint32_t reserved;
    uint32_t secure_el1_gsiv;
    uint32_t secure_el1_flags;
    struct {
        uint32_t gsiv;
        uint32_t flags;
    } el1_phys, el1_virt, el2_phys;
} PACKED;
_Static_assert(offsetof(struct acpi_gtdt, el1_phys) == 56, "NS EL1 timer");
_Static_assert(offsetof(struct acpi_gtdt, el1_virt) == 64, "virtual timer");
_Static_assert(sizeof(struct acpi_gtdt) == 80, "GTDT up to the EL2 timer");

/*
 * SPCR: 80 bytes in revision 2, more later; the layout of the fields read
 * here has not changed since revision 1, so any revision is taken.  A
 * table that ends after its base gives no interrupt.
 */
struct acpi_spcr {
    struct acpi_sdt hdr;
    uint8_t type;               /* DBG2 serial subtype: ACPI_SPCR_* */
    uint8_t reserved[3];
    struct acpi_gas base;       /* address 0: console redirection off */
    uint8_t int_type;           /* ACPI_SPCR_INT_* bits */
    uint8_t pc_irq;             /* the 8259's IRQ (int_type bit 0) */
    uint32_t gsi;               /* the other kinds' interrupt */
} PACKED;
_Static_assert(offsetof(struct acpi_spcr, int_type) == 52, "SPCR base ends");
_Static_assert(sizeof(struct acpi_spcr) == 58, "SPCR up to its GSI");

/* True if a table of length len contains member f of struct type t. */
#define HAS(len, t, f) \
    ((len) >= offsetof(t, f) + sizeof(((t *)0)->f))

/* acpi_map, refusing ranges that wrap past the top of the address space. */
static const void *map(uint64_t pa, size_t len)
{
    if (pa + len < pa)
        return NULL;
    return acpi_map(pa, len);
}

static uint8_t sum8(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint8_t s = 0;

    while (n--)
        s += *b++;
    return s;
}

/*
 * Maps and validates the RSDP at pa; NULL with *why set if it is unusable.
 * Only the first RSDP_V1_LEN bytes are mapped when revision < 2, so callers
 * must not read length or xsdt then.
 */
static const struct acpi_rsdp *rsdp_get(uint64_t pa, const char **why)
{
    const struct acpi_rsdp *r = map(pa, RSDP_V1_LEN);

    *why = "RSDP unmappable";
    if (!r)
        return NULL;
    *why = "RSDP signature missing";
    if (memcmp(r->sig, "RSD PTR ", 8) != 0)
        return NULL;
    *why = "RSDP checksum bad";
    if (sum8(r, RSDP_V1_LEN) != 0)
        return NULL;
    if (r->revision < 2)
        return r;
    *why = "RSDP v2 unmappable";
    if (!(r = map(pa, sizeof(*r))))
        return NULL;
    *why = "RSDP v2 length bad";
    if (r->length < sizeof(*r) || r->length > RSDP_MAX)
        return NULL;
    /* The extended checksum covers length bytes, which may exceed 36. */
    *why = "RSDP extended checksum bad";
    if (!(r = map(pa, r->length)) || sum8(r, r->length) != 0)
        return NULL;
    *why = NULL;
    return r;
}

uint64_t acpi_find_rsdp_bios(void)
{
    const char *why;
    const uint16_t *seg = map(0x40E, sizeof(*seg));
    uint64_t ebda = seg ? (uint64_t)*seg << 4 : 0;

    /*
     * The BDA word is garbage on machines whose firmware never set it up
     * (UEFI); an EBDA lives in conventional memory, above the BDA and
     * below the 640 KiB hole, so anything else is not one.
     */
    if (ebda >= 0x500 && ebda + 1024 <= 0xA0000) {
        for (uint64_t pa = ebda; pa < ebda + 1024; pa += 16)
            if (rsdp_get(pa, &why))
                return pa;
    }
    for (uint64_t pa = 0xE0000; pa < 0x100000; pa += 16)
        if (rsdp_get(pa, &why))
            return pa;
    return 0;
}

/* A table's 4-character signature as a printable string. */
static const char *signame(const char sig[4], char buf[5])
{
    for (int i = 0; i < 4; i++)
        buf[i] = (sig[i] >= ' ' && sig[i] < 0x7f) ? sig[i] : '?';
    buf[4] = '\0';
    return buf;
}

/*
 * Maps the table at pa and checks it carries sig, a length between min and
 * ACPI_TABLE_MAX, and a zero checksum.  NULL, with a message, otherwise.
 */
static const struct acpi_sdt *table_get(uint64_t pa, const char *sig,
                                        uint32_t min)
{
    const struct acpi_sdt *h = map(pa, sizeof(*h));
    const struct acpi_sdt *t;
    uint32_t len;
    char name[5];

    if (!h) {
        acpi_log("%s at 0x%llx unmappable\n", sig,
                 (unsigned long long)pa);
        return NULL;
    }
    if (memcmp(h->sig, sig, 4) != 0) {
        acpi_log("expected %s at 0x%llx, found '%s'\n", sig,
                 (unsigned long long)pa, signame(h->sig, name));
        return NULL;
    }
    len = h->length;
    if (len < min || len > ACPI_TABLE_MAX) {
        acpi_log("%s at 0x%llx has absurd length %u, skipped\n", sig,
                 (unsigned long long)pa, len);
        return NULL;
    }
    t = map(pa, len);
    /* Re-check the length: the checksum only vouches for the bytes mapped. */
    if (!t || t->length != len || sum8(t, len) != 0) {
        acpi_log("%s at 0x%llx %s, skipped\n", sig, (unsigned long long)pa,
                 t ? "has a bad checksum" : "unmappable");
        return NULL;
    }
    return t;
}

/* The tables acpi_parse uses, and the minimum length each must have. */
enum { T_MADT, T_MCFG, T_FADT, T_GTDT, T_SPCR, T_N };
static const char *const want_sig[T_N] = {
    "APIC", "MCFG", "FACP", "GTDT", "SPCR"
};
static const uint32_t want_min[T_N] = {
    sizeof(struct acpi_madt),
    sizeof(struct acpi_mcfg_table),
    sizeof(struct acpi_sdt),    /* fadt_parse checks each field it reads */
    sizeof(struct acpi_gtdt),
    offsetof(struct acpi_spcr, int_type),   /* spcr_parse checks the rest */
};

struct found {
    const struct acpi_sdt *tab[T_N];    /* first valid one of each */
    bool bad[T_N];                      /* one was present but failed */
};

static uint64_t root_entry(const struct acpi_sdt *root, size_t esz, uint32_t i)
{
    const uint8_t *p = (const uint8_t *)(root + 1) + (size_t)i * esz;
    uint32_t v32;
    uint64_t v64;

    /* XSDT entries sit at offset 36, so they are never 8-byte aligned. */
    if (esz == 8) {
        memcpy(&v64, p, 8);
        return v64;
    }
    memcpy(&v32, p, 4);
    return v32;
}

/* Picks the XSDT if the RSDP offers a valid one, else the RSDT. */
static const struct acpi_sdt *root_get(const struct acpi_rsdp *r, size_t *esz)
{
    const struct acpi_sdt *t;

    if (r->revision >= 2 && r->xsdt) {
        if ((t = table_get(r->xsdt, "XSDT", sizeof(*t)))) {
            *esz = 8;
            return t;
        }
        acpi_log("XSDT unusable, falling back to RSDT\n");
    }
    if (!r->rsdt)
        return NULL;
    *esz = 4;
    return table_get(r->rsdt, "RSDT", sizeof(*t));
}

static void find_tables(const struct acpi_sdt *root, size_t esz,
                        struct found *f)
{
    uint32_t n = (uint32_t)((root->length - sizeof(*root)) / esz);
    uint32_t unmappable = 0;
    char name[5];

    for (uint32_t i = 0; i < n; i++) {
        uint64_t pa = root_entry(root, esz, i);
        const struct acpi_sdt *h;

        if (!pa)
            continue;
        if (!(h = map(pa, sizeof(*h)))) {
            unmappable++;
            continue;
        }
        for (int k = 0; k < T_N; k++) {
            if (f->tab[k] || memcmp(h->sig, want_sig[k], 4) != 0)
                continue;
            f->tab[k] = table_get(pa, want_sig[k], want_min[k]);
            f->bad[k] |= !f->tab[k];
        }
    }
    /* One line, not one per entry: a corrupt root can hold 256Ki entries. */
    if (unmappable)
        acpi_log("%s: %u unmappable entries skipped\n",
                 signame(root->sig, name), unmappable);
}

/* The kind of CPU entries a MADT lists: the first one decides. */
enum cpu_kind { KIND_NONE, KIND_APIC, KIND_GICC };

/* Tallies of what the MADT walk had to drop, reported once at the end. */
struct madt_walk {
    struct acpi_info *out;
    enum cpu_kind kind;
    uint32_t cpus_dropped;
    uint32_t ioapics_dropped;
    uint32_t isos_dropped;
    uint32_t other_kind;        /* CPU entries not of w->kind */
    uint32_t gicds_dropped;
    uint32_t gicrs_dropped;
    uint32_t its_dropped;
};

/*
 * True if a CPU entry of this kind may be used: the MADT's first CPU entry
 * sets the kind, and entries of the other kind (a firmware bug) are
 * counted and ignored.
 */
static bool cpu_kind_ok(struct madt_walk *w, enum cpu_kind kind)
{
    if (w->kind == KIND_NONE)
        w->kind = kind;
    if (w->kind == kind)
        return true;
    w->other_kind++;
    return false;
}

/*
 * True if a list holding n of at most max entries has room for one more;
 * otherwise counts one more dropped entry.
 */
static bool room(uint32_t n, uint32_t max, uint32_t *dropped)
{
    if (n < max)
        return true;
    (*dropped)++;
    return false;
}

/* Two CPUs of the same kind are the same core: same APIC id or MPIDR. */
static bool same_cpu(const struct acpi_cpu *a, const struct acpi_cpu *b)
{
    return a->gicc_entry ? a->mpidr == b->mpidr : a->apic_id == b->apic_id;
}

/*
 * Adds *c, whose usable field says whether the firmware enabled it, unless
 * it is neither enabled nor online capable (never to be started) or lists
 * a core that is already in.
 */
static void add_cpu(struct madt_walk *w, const struct acpi_cpu *c,
                    bool online_capable)
{
    struct acpi_info *out = w->out;

    if (!c->usable && !online_capable)
        return;
    for (uint32_t i = 0; i < out->ncpus; i++) {
        if (!same_cpu(&out->cpus[i], c))
            continue;
        if (c->gicc_entry)
            acpi_log("MADT: duplicate MPIDR 0x%llx ignored\n",
                     (unsigned long long)c->mpidr);
        else
            acpi_log("MADT: duplicate APIC id 0x%x ignored\n", c->apic_id);
        return;
    }
    if (room(out->ncpus, ACPI_MAX_CPUS, &w->cpus_dropped))
        out->cpus[out->ncpus++] = *c;
}

/*
 * One handler per MADT entry type.  Each is called only once the entry's
 * length has been checked against madt_types[type].min_len.
 */

static void madt_lapic(struct madt_walk *w, const void *entry)
{
    const struct madt_lapic *e = entry;

    /* 0xFF is the xAPIC broadcast id: a placeholder, not a CPU. */
    if (!cpu_kind_ok(w, KIND_APIC) || e->apic_id == 0xFF)
        return;
    add_cpu(w, &(struct acpi_cpu){
                .apic_id = e->apic_id,
                .acpi_uid = e->acpi_id,
                .usable = e->flags & MADT_ENABLED,
            }, e->flags & MADT_ONLINE_CAPABLE);
}

static void madt_x2apic(struct madt_walk *w, const void *entry)
{
    const struct madt_x2apic *e = entry;

    if (!cpu_kind_ok(w, KIND_APIC) || e->x2apic_id == 0xFFFFFFFF)
        return;
    add_cpu(w, &(struct acpi_cpu){
                .apic_id = e->x2apic_id,
                .acpi_uid = e->uid,
                .usable = e->flags & MADT_ENABLED,
                .x2apic_entry = true,
            }, e->flags & MADT_ONLINE_CAPABLE);
}

static void madt_ioapic(struct madt_walk *w, const void *entry)
{
    const struct madt_ioapic *e = entry;
    struct acpi_info *out = w->out;

    if (room(out->nioapic, ACPI_MAX_IOAPIC, &w->ioapics_dropped))
        out->ioapics[out->nioapic++] = (struct acpi_ioapic){
            .addr = e->addr,
            .gsi_base = e->gsi_base,
            .id = e->id,
        };
}

static void madt_iso(struct madt_walk *w, const void *entry)
{
    const struct madt_iso *e = entry;
    struct acpi_info *out = w->out;

    if (room(out->niso, ACPI_MAX_ISO, &w->isos_dropped))
        out->isos[out->niso++] = (struct acpi_iso){
            .gsi = e->gsi,
            .flags = e->flags,
            .bus = e->bus,
            .source = e->source,
        };
}

static void madt_lapic_override(struct madt_walk *w, const void *entry)
{
    w->out->lapic_pa = ((const struct madt_lapic_override *)entry)->addr;
}

static void madt_gicc(struct madt_walk *w, const void *entry)
{
    const struct madt_gicc *e = entry;

    if (!cpu_kind_ok(w, KIND_GICC))
        return;
    add_cpu(w, &(struct acpi_cpu){
                .acpi_uid = e->uid,
                .usable = e->flags & GICC_ENABLED,
                .gicc_entry = true,
                .mpidr = e->mpidr & MPIDR_AFFINITY,
                .gicr_pa = e->gicr_pa,
                .gicc_pa = e->gicc_pa,
            }, e->flags & GICC_ONLINE_CAPABLE);
}

/* A system has one distributor: the first GICD entry counts. */
static void madt_gicd(struct madt_walk *w, const void *entry)
{
    const struct madt_gicd *e = entry;
    struct acpi_info *out = w->out;

    if (out->gicd_pa) {
        w->gicds_dropped++;
        return;
    }
    out->gicd_pa = e->addr;
    if (e->version <= 4)
        out->gic_version = e->version;
    else
        acpi_log("MADT: GICD version %u unknown, taken as not given\n",
                 e->version);
}

static void madt_gicr(struct madt_walk *w, const void *entry)
{
    const struct madt_gicr *e = entry;
    struct acpi_info *out = w->out;

    if (room(out->ngicr, ACPI_MAX_GICR, &w->gicrs_dropped))
        out->gicr[out->ngicr++] = (struct acpi_gicr){
            .base = e->base,
            .length = e->length,
        };
}

static void madt_gic_its(struct madt_walk *w, const void *entry)
{
    struct acpi_info *out = w->out;

    if (room(out->nits, ACPI_MAX_ITS, &w->its_dropped))
        out->its_pa[out->nits++] = ((const struct madt_gic_its *)entry)->addr;
}

/* The entry types read, by type; the others are stepped over. */
static const struct {
    uint8_t min_len;            /* smallest valid length */
    void (*read)(struct madt_walk *w, const void *entry);
} madt_types[MADT_NTYPES] = {
    [MADT_LAPIC] = { sizeof(struct madt_lapic), madt_lapic },
    [MADT_IOAPIC] = { sizeof(struct madt_ioapic), madt_ioapic },
    [MADT_ISO] = { sizeof(struct madt_iso), madt_iso },
    [MADT_LAPIC_OVERRIDE] = { sizeof(struct madt_lapic_override),
                              madt_lapic_override },
    [MADT_X2APIC] = { sizeof(struct madt_x2apic), madt_x2apic },
    [MADT_GICC] = { sizeof(struct madt_gicc), madt_gicc },
    [MADT_GICD] = { sizeof(struct madt_gicd), madt_gicd },
    [MADT_GICR] = { sizeof(struct madt_gicr), madt_gicr },
    [MADT_GIC_ITS] = { sizeof(struct madt_gic_its), madt_gic_its },
};

/* Smallest valid length of each entry type we read; others need only 2. */
static uint32_t madt_min_len(uint8_t type)
{
    if (type < MADT_NTYPES && madt_types[type].read)
        return madt_types[type].min_len;
    return sizeof(struct madt_entry);
}

/* One line per kind of thing the walk dropped. */
static void madt_report(const struct madt_walk *w)
{
    if (w->cpus_dropped)
        acpi_log("MADT: %u CPUs beyond %u ignored\n", w->cpus_dropped,
                 ACPI_MAX_CPUS);
    if (w->ioapics_dropped)
        acpi_log("MADT: %u I/O APICs beyond %u ignored\n",
                 w->ioapics_dropped, ACPI_MAX_IOAPIC);
    if (w->isos_dropped)
        acpi_log("MADT: %u interrupt overrides beyond %u ignored\n",
                 w->isos_dropped, ACPI_MAX_ISO);
    if (w->other_kind)
        acpi_log("MADT: firmware bug: mixes local APIC and GICC entries; "
                 "%u %s entries ignored\n", w->other_kind,
                 w->kind == KIND_APIC ? "GICC" : "local APIC");
    if (w->gicds_dropped)
        acpi_log("MADT: %u GIC distributors beyond the first ignored\n",
                 w->gicds_dropped);
    if (w->gicrs_dropped)
        acpi_log("MADT: %u GICR ranges beyond %u ignored\n",
                 w->gicrs_dropped, ACPI_MAX_GICR);
    if (w->its_dropped)
        acpi_log("MADT: %u GIC ITSs beyond %u ignored\n", w->its_dropped,
                 ACPI_MAX_ITS);
}

/* Returns the kind of CPU entries the MADT lists. */
static enum cpu_kind madt_parse(const struct acpi_madt *m,
                                struct acpi_info *out)
{
    const uint8_t *base = (const uint8_t *)m;
    uint32_t len = m->hdr.length;
    uint32_t off = sizeof(*m);
    struct madt_walk w = { .out = out };

    out->lapic_pa = m->lapic;
    /* off <= len <= ACPI_TABLE_MAX throughout, so nothing here overflows. */
    while (len - off >= sizeof(struct madt_entry)) {
        const struct madt_entry *e = (const void *)(base + off);

        if (e->len < madt_min_len(e->type) || e->len > len - off) {
            acpi_log("MADT entry type %u at offset %u has bad length "
                     "%u, ignoring the rest\n", e->type, off, e->len);
            break;
        }
        if (e->type < MADT_NTYPES && madt_types[e->type].read)
            madt_types[e->type].read(&w, e);
        off += e->len;
    }
    madt_report(&w);
    return w.kind;
}

static void mcfg_parse(const struct acpi_mcfg_table *t, struct acpi_info *out)
{
    const struct mcfg_alloc *a = (const void *)(t + 1);
    uint32_t n = (uint32_t)((t->hdr.length - sizeof(*t)) / sizeof(*a));

    for (uint32_t i = 0; i < n; i++, a++) {
        if (a->start_bus > a->end_bus) {
            acpi_log("MCFG entry %u: bus range %u-%u inverted, "
                     "skipped\n", i, a->start_bus, a->end_bus);
            continue;
        }
        if (out->nmcfg == ACPI_MAX_MCFG) {
            acpi_log("MCFG: entries beyond %u ignored\n", ACPI_MAX_MCFG);
            break;
        }
        out->mcfg[out->nmcfg++] = (struct acpi_mcfg){
            .base = a->base,
            .segment = a->segment,
            .start_bus = a->start_bus,
            .end_bus = a->end_bus,
        };
    }
}

static void fadt_parse(const struct acpi_fadt *f, struct acpi_info *out)
{
    uint32_t len = f->hdr.length;
    uint32_t flags = HAS(len, struct acpi_fadt, flags) ? f->flags : 0;
    uint64_t port = 0;

    if (HAS(len, struct acpi_fadt, arm_boot_arch)) {
        out->psci = f->arm_boot_arch & FADT_ARM_PSCI;
        out->psci_hvc = out->psci && (f->arm_boot_arch & FADT_ARM_PSCI_HVC);
    }
    if (HAS(len, struct acpi_fadt, dsdt))
        out->dsdt_pa = f->dsdt;
    if (HAS(len, struct acpi_fadt, x_dsdt) && f->x_dsdt)
        out->dsdt_pa = f->x_dsdt;
    out->hw_reduced = flags & FADT_HW_REDUCED_ACPI;
    /* §4.1: hardware-reduced platforms have no fixed PM timer. */
    if (out->hw_reduced)
        return;
    if (HAS(len, struct acpi_fadt, pm_tmr_blk))
        port = f->pm_tmr_blk;
    if (HAS(len, struct acpi_fadt, x_pm_tmr_blk) && f->x_pm_tmr_blk.addr) {
        /* The kernel reads the timer with inl; an MMIO one is no use. */
        if (f->x_pm_tmr_blk.space == ACPI_SPACE_IO)
            port = f->x_pm_tmr_blk.addr;
        else
            acpi_log("FADT: X_PM_TMR_BLK not in I/O space, ignored\n");
    }
    if (port > 0xFFFF) {
        acpi_log("FADT: PM timer port 0x%llx out of range, ignored\n",
                 (unsigned long long)port);
        port = 0;
    }
    out->pm_tmr_port = (uint16_t)port;
    out->pm_tmr_32bit = port && (flags & FADT_TMR_VAL_EXT);
}

static void timer_irq(struct acpi_timer_irq *t, uint32_t gsiv, uint32_t flags)
{
    t->gsiv = gsiv;
    t->flags = flags & (ACPI_TIMER_EDGE | ACPI_TIMER_ACTIVE_LOW |
                        ACPI_TIMER_ALWAYS_ON);
}

/* table_get made sure the GTDT holds every field read here. */
static void gtdt_parse(const struct acpi_gtdt *g, struct acpi_info *out)
{
    timer_irq(&out->timer_el1_phys, g->el1_phys.gsiv, g->el1_phys.flags);
    timer_irq(&out->timer_el1_virt, g->el1_virt.gsiv, g->el1_virt.flags);
    timer_irq(&out->timer_el2_phys, g->el2_phys.gsiv, g->el2_phys.flags);
}

/* table_get made sure the SPCR holds every field up to its base; the
   interrupt is read only if the table holds it too. */
static void spcr_parse(const struct acpi_spcr *t, struct acpi_info *out)
{
    if (!t->base.addr)
        return;         /* console redirection off */
    if (t->base.space != ACPI_SPACE_MEMORY && t->base.space != ACPI_SPACE_IO) {
        acpi_log("SPCR: UART in address space %u, ignored\n", t->base.space);
        return;
    }
    out->spcr_base = t->base.addr;
    out->spcr_type = t->type;
    out->spcr_space = t->base.space;
    out->spcr_access_size = t->base.access_size;
    if (HAS(t->hdr.length, struct acpi_spcr, gsi)) {
        out->spcr_int_type = t->int_type;
        out->spcr_gsi = t->gsi;
    }
}

/* Not logged: the caller prints out->error with what it does instead. */
static int fail(struct acpi_info *out, int err, const char *msg)
{
    out->error = msg;
    return err;
}

static bool any_usable(const struct acpi_info *out)
{
    for (uint32_t i = 0; i < out->ncpus; i++)
        if (out->cpus[i].usable)
            return true;
    return false;
}

int acpi_parse(uint64_t rsdp_pa, struct acpi_info *out)
{
    const struct acpi_rsdp *r;
    const struct acpi_sdt *root;
    struct found f = { 0 };
    const char *why;
    size_t esz = 4;
    enum cpu_kind kind;

    memset(out, 0, sizeof(*out));
    if (!rsdp_pa)
        return fail(out, -ACPI_ENOTFOUND, "RSDP not found");
    if (!(r = rsdp_get(rsdp_pa, &why)))
        return fail(out, -ACPI_ECORRUPT, why);
    if (!(root = root_get(r, &esz)))
        return fail(out, -ACPI_ECORRUPT, "no valid XSDT or RSDT");

    find_tables(root, esz, &f);
    if (f.tab[T_FADT])
        fadt_parse((const void *)f.tab[T_FADT], out);
    if (f.tab[T_MCFG])
        mcfg_parse((const void *)f.tab[T_MCFG], out);
    if (f.tab[T_GTDT])
        gtdt_parse((const void *)f.tab[T_GTDT], out);
    if (f.tab[T_SPCR])
        spcr_parse((const void *)f.tab[T_SPCR], out);
    if (!f.tab[T_MADT])
        return fail(out, f.bad[T_MADT] ? -ACPI_ECORRUPT : -ACPI_ENOTFOUND,
                    f.bad[T_MADT] ? "MADT corrupt" : "MADT not found");
    kind = madt_parse((const void *)f.tab[T_MADT], out);
    if (any_usable(out))
        return 0;
    if (kind == KIND_GICC)
        return fail(out, -ACPI_ENOCORE, "the MADT lists no usable core");
    return fail(out, -ACPI_ECORRUPT, "MADT lists no enabled CPU");
}

int acpi_virtio_mmio(const struct acpi_info *a, struct aml_mmio *out,
                     int max)
{
    const struct acpi_sdt *t;

    if (!a->dsdt_pa ||
        !(t = table_get(a->dsdt_pa, "DSDT", sizeof(struct acpi_sdt))))
        return 0;
    return aml_virtio_mmio((const uint8_t *)(t + 1),
                           t->length - sizeof(*t), out, max);
}
