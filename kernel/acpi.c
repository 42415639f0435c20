/*
 * acpi.c - find the RSDP, walk the XSDT or RSDT, and read the MADT, MCFG
 * and FADT into a struct acpi_info.
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
 * Interrupt Source Override, Local APIC Address Override and Processor
 * Local x2APIC structures); PCI Firmware Specification 3.3 §4.1.2 MCFG.
 */
#include <string.h>
#include "acpi.h"

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
};

#define MADT_ENABLED        (1u << 0)
#define MADT_ONLINE_CAPABLE (1u << 1)   /* ACPI 6.3+; 0 on older firmware */

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
    uint8_t space;              /* 0 system memory, 1 system I/O, ... */
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_size;
    uint64_t addr;
} PACKED;
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS");

#define GAS_SYSTEM_IO   1

/*
 * The FADT grew with each ACPI revision (116 bytes in 1.0, 244 in 2.0, 276
 * now), so only the fields we read are named, and each is read only if
 * the table's length covers it.
 */
struct acpi_fadt {
    struct acpi_sdt hdr;
    uint8_t pad0[40];
    uint32_t pm_tmr_blk;        /* I/O port, 0 if no PM timer */
    uint8_t pad1[32];
    uint32_t flags;
    uint8_t pad2[92];
    struct acpi_gas x_pm_tmr_blk;   /* ACPI 2.0+; supersedes pm_tmr_blk */
} PACKED;
_Static_assert(offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "PM_TMR_BLK");
_Static_assert(offsetof(struct acpi_fadt, flags) == 112, "FADT flags");
_Static_assert(offsetof(struct acpi_fadt, x_pm_tmr_blk) == 208, "X_PM_TMR");
_Static_assert(sizeof(struct acpi_fadt) == 220, "FADT up to X_PM_TMR_BLK");

#define FADT_TMR_VAL_EXT        (1u << 8)
#define FADT_HW_REDUCED_ACPI    (1u << 20)  /* no fixed hardware: no PM timer */

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
enum { T_MADT, T_MCFG, T_FADT, T_N };
static const char *const want_sig[T_N] = { "APIC", "MCFG", "FACP" };
static const uint32_t want_min[T_N] = {
    sizeof(struct acpi_madt),
    sizeof(struct acpi_mcfg_table),
    sizeof(struct acpi_sdt),    /* fadt_parse checks each field it reads */
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

/* Tallies of what the MADT walk had to drop, reported once at the end. */
struct madt_walk {
    struct acpi_info *out;
    uint32_t cpus_dropped;
    uint32_t ioapics_dropped;
    uint32_t isos_dropped;
};

static void add_cpu(struct madt_walk *w, uint32_t id, uint32_t uid,
                    uint32_t flags, bool x2)
{
    struct acpi_info *out = w->out;
    struct acpi_cpu *c;

    /* Neither enabled nor online capable: firmware says never start it. */
    if (!(flags & (MADT_ENABLED | MADT_ONLINE_CAPABLE)))
        return;
    for (uint32_t i = 0; i < out->ncpus; i++) {
        if (out->cpus[i].apic_id == id) {
            acpi_log("MADT: duplicate APIC id 0x%x ignored\n", id);
            return;
        }
    }
    if (out->ncpus == ACPI_MAX_CPUS) {
        w->cpus_dropped++;
        return;
    }
    c = &out->cpus[out->ncpus++];
    c->apic_id = id;
    c->acpi_uid = uid;
    c->usable = flags & MADT_ENABLED;
    c->x2apic_entry = x2;
}

static void add_ioapic(struct madt_walk *w, const struct madt_ioapic *e)
{
    struct acpi_info *out = w->out;
    struct acpi_ioapic *io;

    if (out->nioapic == ACPI_MAX_IOAPIC) {
        w->ioapics_dropped++;
        return;
    }
    io = &out->ioapics[out->nioapic++];
    io->id = e->id;
    io->addr = e->addr;
    io->gsi_base = e->gsi_base;
}

static void add_iso(struct madt_walk *w, const struct madt_iso *e)
{
    struct acpi_info *out = w->out;
    struct acpi_iso *iso;

    if (out->niso == ACPI_MAX_ISO) {
        w->isos_dropped++;
        return;
    }
    iso = &out->isos[out->niso++];
    iso->bus = e->bus;
    iso->source = e->source;
    iso->gsi = e->gsi;
    iso->flags = e->flags;
}

/* Smallest valid length of each entry type we read; others need only 2. */
static uint32_t madt_min_len(uint8_t type)
{
    switch (type) {
    case MADT_LAPIC:            return sizeof(struct madt_lapic);
    case MADT_IOAPIC:           return sizeof(struct madt_ioapic);
    case MADT_ISO:              return sizeof(struct madt_iso);
    case MADT_LAPIC_OVERRIDE:   return sizeof(struct madt_lapic_override);
    case MADT_X2APIC:           return sizeof(struct madt_x2apic);
    default:                    return sizeof(struct madt_entry);
    }
}

/* Caller checked that e->len >= madt_min_len(e->type). */
static void madt_entry(struct madt_walk *w, const struct madt_entry *e)
{
    const struct madt_lapic *la = (const void *)e;
    const struct madt_x2apic *x2 = (const void *)e;

    switch (e->type) {
    case MADT_LAPIC:
        /* 0xFF is the xAPIC broadcast id: a placeholder, not a CPU. */
        if (la->apic_id != 0xFF)
            add_cpu(w, la->apic_id, la->acpi_id, la->flags, false);
        break;
    case MADT_X2APIC:
        if (x2->x2apic_id != 0xFFFFFFFF)
            add_cpu(w, x2->x2apic_id, x2->uid, x2->flags, true);
        break;
    case MADT_IOAPIC:
        add_ioapic(w, (const void *)e);
        break;
    case MADT_ISO:
        add_iso(w, (const void *)e);
        break;
    case MADT_LAPIC_OVERRIDE:
        w->out->lapic_pa = ((const struct madt_lapic_override *)e)->addr;
        break;
    }
}

static void madt_parse(const struct acpi_madt *m, struct acpi_info *out)
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
        madt_entry(&w, e);
        off += e->len;
    }
    if (w.cpus_dropped)
        acpi_log("MADT: %u CPUs beyond %u ignored\n", w.cpus_dropped,
                 ACPI_MAX_CPUS);
    if (w.ioapics_dropped)
        acpi_log("MADT: %u I/O APICs beyond %u ignored\n",
                 w.ioapics_dropped, ACPI_MAX_IOAPIC);
    if (w.isos_dropped)
        acpi_log("MADT: %u interrupt overrides beyond %u ignored\n",
                 w.isos_dropped, ACPI_MAX_ISO);
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

    /* §4.1: hardware-reduced platforms have no fixed PM timer. */
    if (flags & FADT_HW_REDUCED_ACPI)
        return;
    if (HAS(len, struct acpi_fadt, pm_tmr_blk))
        port = f->pm_tmr_blk;
    if (HAS(len, struct acpi_fadt, x_pm_tmr_blk) && f->x_pm_tmr_blk.addr) {
        /* The kernel reads the timer with inl; an MMIO one is no use. */
        if (f->x_pm_tmr_blk.space == GAS_SYSTEM_IO)
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
    if (!f.tab[T_MADT])
        return fail(out, f.bad[T_MADT] ? -ACPI_ECORRUPT : -ACPI_ENOTFOUND,
                    f.bad[T_MADT] ? "MADT corrupt" : "MADT not found");
    madt_parse((const void *)f.tab[T_MADT], out);
    if (!any_usable(out))
        return fail(out, -ACPI_ECORRUPT, "MADT lists no enabled CPU");
    return 0;
}
