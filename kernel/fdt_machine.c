/*
 * fdt_machine.c - fdt_parse_machine: the summary of the machine a device
 * tree describes, which the aarch64 boot path starts from.  See fdt.h for
 * the contract and the bindings it follows.
 *
 * A client of fdt.c's walkers only (the blob is read through fdt.h, which
 * bounds-checks every access): one pass per kind of node it looks for.
 * Blobs are tens of KiB, so rescanning from the root (to find a parent, or
 * an inherited interrupt-parent) costs microseconds and keeps the walkers
 * stateless.  The short helpers below keep the parser's lines short.
 */
#include <string.h>
#include "fdt.h"

struct dt {
    const void *blob;
};

static const uint8_t *prop(struct dt *v, int node, const char *name,
                           int *len)
{
    return fdt_getprop(v->blob, node, name, len);
}

static const char *prop_str(struct dt *v, int node, const char *name)
{
    return fdt_getprop_str(v->blob, node, name);
}

static uint32_t prop_u32(struct dt *v, int node, const char *name,
                         uint32_t def)
{
    int len;
    const uint8_t *p = prop(v, node, name, &len);

    return p && len == 4 ? fdt32(p) : def;
}

static bool compatible(struct dt *v, int node, const char *compat)
{
    return fdt_node_compatible(v->blob, node, compat);
}

static bool enabled(struct dt *v, int node)
{
    return fdt_node_enabled(v->blob, node);
}

static int find_compat(struct dt *v, int start, const char *compat)
{
    return fdt_find_compatible(v->blob, start, compat);
}

static int first_child(struct dt *v, int node)
{
    return fdt_first_child(v->blob, node);
}

static int next_sibling(struct dt *v, int node)
{
    return fdt_next_sibling(v->blob, node);
}

/* phandle of node's interrupt parent (own or inherited), 0 if none. */
static uint32_t irq_parent(struct dt *v, int node)
{
    for (int n = node; n >= 0; n = fdt_parent_offset(v->blob, n)) {
        uint32_t ph = prop_u32(v, n, "interrupt-parent", 0);

        if (ph)
            return ph;
    }
    return 0;
}

/* The GIC whose interrupt specifiers fdt_parse_machine decodes. */
struct gicref {
    uint32_t phandle;           /* 0: none, so no interrupt is decoded */
    uint32_t cells;             /* #interrupt-cells: 3, or 4 (v3 PPI
                                   partitions); the first 3 are the same */
};

static void add_range(struct fdt_range *a, uint32_t *n, uint32_t max,
                      uint32_t *dropped, uint64_t base, uint64_t size)
{
    if (size == 0 || base + (size - 1) < base)  /* empty, or wraps */
        return;
    if (*n == max) {
        (*dropped)++;
        return;
    }
    a[*n].base = base;
    a[*n].size = size;
    (*n)++;
}

/* Entry i of node's reg, decoded with its parent's cells. */
static bool reg_at(struct dt *v, int node, int i, struct fdt_range *r)
{
    return fdt_reg(v->blob, node, i, &r->base, &r->size);
}

static int first_enabled(struct dt *v, const char *compat)
{
    int n;

    for (n = find_compat(v, -1, compat); n >= 0; n = find_compat(v, n, compat))
        if (enabled(v, n))
            return n;
    return n;
}

/*
 * node's interrupts property, if its interrupt parent is the GIC: the
 * first specifier, with the count in *n; each is 4 * g->cells bytes.
 */
static const uint8_t *gic_irqs(struct dt *v, const struct gicref *g,
                               int node, int *n)
{
    const uint8_t *p;
    int len, stride;

    if (g->phandle == 0 || g->cells < 3 || g->cells > 4 ||
        irq_parent(v, node) != g->phandle)
        return NULL;
    stride = 4 * (int)g->cells;
    p = prop(v, node, "interrupts", &len);
    if (!p || len == 0 || len % stride != 0)
        return NULL;
    *n = len / stride;
    return p;
}

static void chosen(struct dt *v, struct fdt_machine *m)
{
    int c = fdt_path_offset(v->blob, "/chosen");

    if (c < 0)
        return;
    m->bootargs = prop_str(v, c, "bootargs");
    m->stdout_path = prop_str(v, c, "stdout-path");
    if (!m->stdout_path)        /* the pre-2014 name */
        m->stdout_path = prop_str(v, c, "linux,stdout-path");
}

/* Root children with device_type "memory" (§3.4), or named memory[@...]. */
static void memory(struct dt *v, struct fdt_machine *m)
{
    const char *dt, *name;
    uint64_t base, size;

    for (int n = first_child(v, 0); n >= 0; n = next_sibling(v, n)) {
        dt = prop_str(v, n, "device_type");
        name = fdt_node_name(v->blob, n);
        if (dt ? strcmp(dt, "memory") != 0 :
            strcmp(name, "memory") != 0 && strncmp(name, "memory@", 7) != 0)
            continue;
        if (!enabled(v, n))     /* e.g. QEMU's secure-only secram */
            continue;
        for (int i = 0; fdt_reg(v->blob, n, i, &base, &size); i++)
            add_range(m->mem, &m->nmem, FDT_MAX_MEM, &m->dropped, base, size);
    }
}

/* The reservation block (§5.3), then /reserved-memory's children (§3.5). */
static void reserved(struct dt *v, struct fdt_machine *m)
{
    uint64_t base, size;
    int rm;

    for (int i = 0; fdt_mem_rsv(v->blob, i, &base, &size); i++)
        add_range(m->reserved, &m->nreserved, FDT_MAX_RESERVED,
                  &m->dropped, base, size);
    rm = fdt_path_offset(v->blob, "/reserved-memory");
    if (rm < 0)
        return;
    for (int n = first_child(v, rm); n >= 0; n = next_sibling(v, n)) {
        if (!enabled(v, n))
            continue;
        /* Children with only size (allocated at boot) have no reg. */
        for (int i = 0; fdt_reg(v->blob, n, i, &base, &size); i++)
            add_range(m->reserved, &m->nreserved, FDT_MAX_RESERVED,
                      &m->dropped, base, size);
    }
}

/*
 * /cpus children with device_type "cpu" (§3.7-§3.8).  reg[0] is the MPIDR
 * (arm/cpus.yaml; further entries would be SMT threads, which arm64 does
 * not describe that way).  "disabled" CPUs are kept: for spin-table it
 * means parked and waiting to be released.
 */
static int cpus(struct dt *v, struct fdt_machine *m)
{
    const uint8_t *p;
    const char *s;
    int cs, len;

    cs = fdt_path_offset(v->blob, "/cpus");
    if (cs < 0) {
        m->error = "no /cpus node";
        return -FDT_ENOTFOUND;
    }
    for (int n = first_child(v, cs); n >= 0; n = next_sibling(v, n)) {
        struct fdt_cpu c = { 0 };

        s = prop_str(v, n, "device_type");
        if (!s || strcmp(s, "cpu") != 0)
            continue;
        s = prop_str(v, n, "status");
        if (s && strncmp(s, "fail", 4) == 0)
            continue;
        if (!fdt_reg(v->blob, n, 0, &c.mpidr, NULL))
            continue;
        p = prop(v, n, "enable-method", &len);
        if (p && fdt_strlist_has(p, len, "psci")) {
            c.enable = FDT_ENABLE_PSCI;
        } else if (p && fdt_strlist_has(p, len, "spin-table")) {
            c.enable = FDT_ENABLE_SPIN_TABLE;
            p = prop(v, n, "cpu-release-addr", &len);
            if (p && len == 8)
                c.release_addr = fdt64(p);
        }
        if (m->ncpus == FDT_MAX_CPUS)
            m->dropped++;
        else
            m->cpus[m->ncpus++] = c;
    }
    if (m->ncpus == 0) {
        m->error = "no cpu node with a usable reg under /cpus";
        return -FDT_ENOTFOUND;
    }
    return 0;
}

static void psci(struct dt *v, struct fdt_machine *m)
{
    static const struct {
        const char *compat;
        uint32_t version;
    } ids[] = {
        { "arm,psci-1.0", 0x10000 },
        { "arm,psci-0.2", 0x2 },
        { "arm,psci", 0x1 },
    };
    const char *s;
    int n;

    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        n = first_enabled(v, ids[i].compat);
        if (n < 0)
            continue;
        m->psci_version = ids[i].version;
        s = prop_str(v, n, "method");
        if (s && strcmp(s, "hvc") == 0)
            m->psci_conduit = FDT_CONDUIT_HVC;
        else if (s && strcmp(s, "smc") == 0)
            m->psci_conduit = FDT_CONDUIT_SMC;
        m->psci_cpu_on = prop_u32(v, n, "cpu_on", 0);
        return;
    }
}

/*
 * GICv3 reg: GICD, then #redistributor-regions GICR regions (default 1).
 * GICv2 reg: GICD, GICC (then GICH, GICV, unused here).  A GIC without
 * the regions the kernel needs is no GIC at all.
 */
static void gic(struct dt *v, struct fdt_machine *m, struct gicref *g)
{
    static const char *const v2[] = {
        "arm,gic-400", "arm,cortex-a15-gic", "arm,cortex-a7-gic",
    };
    struct fdt_gic *gic = &m->gic;
    struct fdt_range r;
    uint32_t nr;
    int n;

    n = first_enabled(v, "arm,gic-v3");
    gic->version = 3;
    for (size_t i = 0; n < 0 && i < sizeof(v2) / sizeof(v2[0]); i++) {
        n = first_enabled(v, v2[i]);
        gic->version = 2;
    }
    if (n < 0 || !reg_at(v, n, 0, &gic->dist))
        goto none;
    if (gic->version == 3) {
        nr = prop_u32(v, n, "#redistributor-regions", 1);
        for (uint32_t i = 0; i < nr && reg_at(v, n, (int)i + 1, &r); i++)
            add_range(gic->redist, &gic->nredist, FDT_MAX_REDIST,
                      &m->dropped, r.base, r.size);
        if (gic->nredist == 0)
            goto none;
    } else if (!reg_at(v, n, 1, &gic->cpuif)) {
        goto none;
    }
    g->phandle = prop_u32(v, n, "phandle", 0);
    if (g->phandle == 0)
        g->phandle = prop_u32(v, n, "linux,phandle", 0);
    g->cells = prop_u32(v, n, "#interrupt-cells", 0);
    return;
none:
    memset(gic, 0, sizeof(*gic));
}

/* arm,armv8-timer: PPIs in enum fdt_timer order (arm/arch_timer.yaml). */
static void timer(struct dt *v, struct fdt_machine *m,
                  const struct gicref *g)
{
    const uint8_t *p;
    int n, cnt;

    n = first_enabled(v, "arm,armv8-timer");
    if (n < 0 || !(p = gic_irqs(v, g, n, &cnt)))
        return;
    for (int i = 0; i < FDT_NTIMER && i < cnt; i++, p += 4 * g->cells) {
        if (fdt32(p) != 1 || fdt32(p + 4) >= 16)
            continue;           /* not a PPI */
        m->timer[i].intid = 16 + fdt32(p + 4);
        m->timer[i].flags = fdt32(p + 8);
    }
}

static bool pl011(struct dt *v, int n, struct fdt_range *r)
{
    return n >= 0 && compatible(v, n, "arm,pl011") && enabled(v, n) &&
           reg_at(v, n, 0, r);
}

/* The PL011 stdout-path names (its part before ':'), else the first. */
static void uart(struct dt *v, struct fdt_machine *m)
{
    const char *s = m->stdout_path, *colon;
    int n;

    if (s) {
        colon = memchr(s, ':', strlen(s));
        n = fdt_path_offset_n(v->blob, s, colon ? (size_t)(colon - s) : strlen(s));
        if (pl011(v, n, &m->uart))
            return;
    }
    for (n = find_compat(v, -1, "arm,pl011"); n >= 0;
         n = find_compat(v, n, "arm,pl011"))
        if (pl011(v, n, &m->uart))
            return;
}

/* The first enabled PL031 real-time clock (arm,pl031; primecell). */
static void rtc(struct dt *v, struct fdt_machine *m)
{
    int n = first_enabled(v, "arm,pl031");

    if (n >= 0)
        reg_at(v, n, 0, &m->rtc);
}

static void virtio(struct dt *v, struct fdt_machine *m,
                   const struct gicref *g)
{
    const uint8_t *p;
    struct fdt_range r;
    int n, cnt;

    for (n = find_compat(v, -1, "virtio,mmio"); n >= 0;
         n = find_compat(v, n, "virtio,mmio")) {
        struct fdt_virtio d = { 0 };

        if (!enabled(v, n) || !reg_at(v, n, 0, &r))
            continue;
        if (m->nvirtio == FDT_MAX_VIRTIO) {
            m->dropped++;
            continue;
        }
        d.base = r.base;
        d.size = r.size;
        p = gic_irqs(v, g, n, &cnt);
        if (p && fdt32(p) == 0 && fdt32(p + 4) < 988)  /* SPI: INTID < 1020 */
            d.intid = 32 + fdt32(p + 4);
        m->virtio[m->nvirtio++] = d;
    }
}

/*
 * The host's ranges (IEEE 1275 PCI binding §2.2.1.1: a 3-cell child
 * address whose phys.hi bits 24-25 give the space, 01 I/O, 10 32-bit
 * memory, 11 64-bit memory): the first memory range of each width.
 */
static void pci_ranges(struct dt *v, int n, struct fdt_pci *pci)
{
    int pa = fdt_address_cells(v->blob, fdt_parent_offset(v->blob, n));
    int sc = fdt_size_cells(v->blob, n), len, stride;
    const uint8_t *p = prop(v, n, "ranges", &len);

    if (!p || pa < 1 || pa > 2 || sc < 1 || sc > 2 ||
        fdt_address_cells(v->blob, n) != 3)
        return;
    stride = 4 * (3 + pa + sc);
    for (int off = 0; off + stride <= len; off += stride) {
        uint32_t space = fdt32(p + off) >> 24 & 3;
        struct fdt_pci_window w = {
            .bus = fdt64(p + off + 4),
            .cpu = fdt_cells(p + off + 12, pa),
            .size = fdt_cells(p + off + 12 + 4 * pa, sc),
        };
        struct fdt_pci_window *to = space == 2 ? &pci->mem32 :
                                    space == 3 ? &pci->mem64 : NULL;

        if (to && !to->size && w.size && w.cpu + (w.size - 1) >= w.cpu)
            *to = w;
    }
}

/*
 * The host's interrupt-map (IEEE 1275 PCI binding §4.1.1 and the
 * Devicetree Specification §2.4.3): child unit address (3 cells) and pin
 * (1 cell), the parent's phandle, its unit address (its #address-cells)
 * and its specifier (its #interrupt-cells).  Only entries whose parent is
 * the GIC and whose interrupt is an SPI are kept; an entry whose parent
 * cannot be found ends the walk, as its length is then unknown.
 */
static void pci_intx(struct dt *v, int n, const struct gicref *g,
                     struct fdt_pci *pci)
{
    int len, mlen;
    const uint8_t *p = prop(v, n, "interrupt-map", &len);
    const uint8_t *mask = prop(v, n, "interrupt-map-mask", &mlen);

    if (!p || !mask || mlen != 16 || prop_u32(v, n, "#interrupt-cells", 0) != 1)
        return;
    pci->intx_mask_addr = fdt32(mask);
    pci->intx_mask_pin = fdt32(mask + 12);
    for (int off = 0; off + 20 <= len;) {
        uint32_t ph = fdt32(p + off + 16);
        int parent = fdt_node_by_phandle(v->blob, ph), end;
        uint32_t ac, ic;

        if (parent < 0)
            return;
        ac = prop_u32(v, parent, "#address-cells", 0);
        ic = prop_u32(v, parent, "#interrupt-cells", 0);
        if (ac > 4 || ic < 1 || ic > 4)
            return;
        end = off + 20 + 4 * (int)(ac + ic);
        if (end > len)
            return;
        if (ph == g->phandle && ic >= 3 &&
            fdt32(p + off + 20 + 4 * ac) == 0) {     /* an SPI */
            uint32_t spi = fdt32(p + off + 24 + 4 * ac);

            if (spi < 988 && pci->nintx < FDT_MAX_INTX)
                pci->intx[pci->nintx++] = (struct fdt_pci_intx){
                    fdt32(p + off), fdt32(p + off + 12), 32 + spi,
                };
        }
        off = end;
    }
}

/* pci/host-generic-pci.yaml: bus-range defaults to 0..255. */
static void pci(struct dt *v, struct fdt_machine *m, const struct gicref *g)
{
    const uint8_t *p;
    struct fdt_range r;
    uint32_t lo = 0, hi = 255;
    int n, len;

    n = first_enabled(v, "pci-host-ecam-generic");
    if (n < 0 || !reg_at(v, n, 0, &r))
        return;
    p = prop(v, n, "bus-range", &len);
    if (p && len == 8) {
        lo = fdt32(p);
        hi = fdt32(p + 4);
    }
    if (lo > hi || hi > 255)
        return;
    m->pci.ecam = r;
    m->pci.bus_start = lo;
    m->pci.bus_end = hi;
    pci_ranges(v, n, &m->pci);
    pci_intx(v, n, g, &m->pci);
}

int fdt_parse_machine(const void *blob, size_t size, struct fdt_machine *m)
{
    struct gicref g = { 0, 0 };
    struct dt v;
    int rc;

    memset(m, 0, sizeof(*m));
    rc = fdt_check(blob, size, &m->error);
    if (rc)
        return rc;
    v.blob = blob;
    chosen(&v, m);
    memory(&v, m);
    reserved(&v, m);
    rc = cpus(&v, m);
    psci(&v, m);
    gic(&v, m, &g);
    timer(&v, m, &g);
    uart(&v, m);
    rtc(&v, m);
    virtio(&v, m, &g);
    pci(&v, m, &g);
    if (m->nmem == 0) {
        m->error = "no /memory node with a usable reg";
        rc = -FDT_ENOTFOUND;
    }
    return rc;
}
