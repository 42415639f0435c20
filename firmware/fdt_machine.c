/*
 * fdt_machine.c - fdt_parse_machine: the summary of the machine a device
 * tree describes, which the aarch64 boot path starts from.  See fdt.h for
 * the contract and the bindings it follows.
 *
 * A client of fdt.h's walkers only (they bounds-check every access): one
 * pass per kind of node it looks for.  Blobs are tens of KiB, so
 * rescanning from the root (to find a parent, or an inherited
 * interrupt-parent) costs microseconds and keeps the walkers stateless.
 */
#include <string.h>
#include "firmware/fdt.h"

/* The GIC whose interrupt specifiers fdt_parse_machine decodes. */
struct gicref {
    uint32_t phandle;           /* 0: none, so no interrupt is decoded */
    uint32_t cells;             /* #interrupt-cells: 3, or 4 (v3 PPI
                                   partitions); the first 3 are the same */
    uint32_t its;               /* phandle of machine.gic.its's node; 0 */
};

static void add_range(struct mach_range *a, uint32_t *n, uint32_t max,
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
static bool reg_at(const void *blob, int node, int i, struct mach_range *r)
{
    return fdt_reg(blob, node, i, &r->base, &r->size);
}

static int first_enabled(const void *blob, const char *compat)
{
    int n;

    for (n = fdt_find_compatible(blob, -1, compat); n >= 0;
         n = fdt_find_compatible(blob, n, compat))
        if (fdt_node_enabled(blob, n))
            return n;
    return n;
}

/*
 * node's interrupts property, if its interrupt parent is the GIC: the
 * first specifier, with the count in *n; each is 4 * g->cells bytes.
 */
static const uint8_t *gic_irqs(const void *blob, const struct gicref *g,
                               int node, int *n)
{
    const uint8_t *p;
    int len, stride;

    if (g->phandle == 0 || g->cells < 3 || g->cells > 4 ||
        fdt_interrupt_parent_phandle(blob, node) != g->phandle)
        return NULL;
    stride = 4 * (int)g->cells;
    p = fdt_getprop(blob, node, "interrupts", &len);
    if (!p || len == 0 || len % stride != 0)
        return NULL;
    *n = len / stride;
    return p;
}

/* A property of one or two cells (as Linux reads linux,initrd-*):
   true with its value in *v, false if absent or of another length. */
static bool cells_1or2(const void *blob, int node, const char *name, uint64_t *v)
{
    int len;
    const void *p = fdt_getprop(blob, node, name, &len);

    if (!p || (len != 4 && len != 8))
        return false;
    *v = len == 8 ? fdt64(p) : fdt32(p);
    return true;
}

static void chosen(const void *blob, struct machine *m)
{
    int c = fdt_path_offset(blob, "/chosen");
    uint64_t start, end;

    if (c < 0)
        return;
    m->bootargs = fdt_getprop_str(blob, c, "bootargs");
    m->stdout_path = fdt_getprop_str(blob, c, "stdout-path");
    if (!m->stdout_path)        /* the pre-2014 name */
        m->stdout_path = fdt_getprop_str(blob, c, "linux,stdout-path");
    if (cells_1or2(blob, c, "linux,initrd-start", &start) &&
        cells_1or2(blob, c, "linux,initrd-end", &end)) {
        m->initrd_start = start;
        m->initrd_end = end;
    }
}

/* Root children with device_type "memory" (§3.4), or named memory[@...]. */
static void memory(const void *blob, struct machine *m)
{
    const char *dt, *name;
    uint64_t base, size;

    for (int n = fdt_first_child(blob, 0); n >= 0;
         n = fdt_next_sibling(blob, n)) {
        dt = fdt_getprop_str(blob, n, "device_type");
        name = fdt_node_name(blob, n);
        if (dt ? strcmp(dt, "memory") != 0 :
            strcmp(name, "memory") != 0 && strncmp(name, "memory@", 7) != 0)
            continue;
        /* Not, e.g., QEMU's secure-only secram. */
        if (!fdt_node_enabled(blob, n))
            continue;
        for (int i = 0; fdt_reg(blob, n, i, &base, &size); i++)
            add_range(m->mem, &m->nmem, MACH_MAX_MEM, &m->dropped, base, size);
    }
}

/* The reservation block (§5.3), then /reserved-memory's children (§3.5). */
static void reserved(const void *blob, struct machine *m)
{
    uint64_t base, size;
    int rm;

    for (int i = 0; fdt_mem_rsv(blob, i, &base, &size); i++)
        add_range(m->reserved, &m->nreserved, MACH_MAX_RESERVED,
                  &m->dropped, base, size);
    rm = fdt_path_offset(blob, "/reserved-memory");
    if (rm < 0)
        return;
    for (int n = fdt_first_child(blob, rm); n >= 0;
         n = fdt_next_sibling(blob, n)) {
        if (!fdt_node_enabled(blob, n))
            continue;
        /* Children with only size (allocated at boot) have no reg. */
        for (int i = 0; fdt_reg(blob, n, i, &base, &size); i++)
            add_range(m->reserved, &m->nreserved, MACH_MAX_RESERVED,
                      &m->dropped, base, size);
    }
}

/*
 * /cpus children with device_type "cpu" (§3.7-§3.8).  reg[0] is the MPIDR
 * (arm/cpus.yaml; further entries would be SMT threads, which arm64 does
 * not describe that way).  "disabled" CPUs are kept: for spin-table it
 * means parked and waiting to be released.
 */
static int cpus(const void *blob, struct machine *m)
{
    const uint8_t *p;
    const char *s;
    int cs, len;

    cs = fdt_path_offset(blob, "/cpus");
    if (cs < 0) {
        m->error = "no /cpus node";
        return -FDT_ENOTFOUND;
    }
    for (int n = fdt_first_child(blob, cs); n >= 0;
         n = fdt_next_sibling(blob, n)) {
        struct mach_cpu c = { 0 };

        s = fdt_getprop_str(blob, n, "device_type");
        if (!s || strcmp(s, "cpu") != 0)
            continue;
        s = fdt_getprop_str(blob, n, "status");
        if (s && strncmp(s, "fail", 4) == 0)
            continue;
        if (!fdt_reg(blob, n, 0, &c.mpidr, NULL))
            continue;
        p = fdt_getprop(blob, n, "enable-method", &len);
        if (p && fdt_strlist_has(p, len, "psci")) {
            c.enable = MACH_ENABLE_PSCI;
        } else if (p && fdt_strlist_has(p, len, "spin-table")) {
            c.enable = MACH_ENABLE_SPIN_TABLE;
            p = fdt_getprop(blob, n, "cpu-release-addr", &len);
            if (p && len == 8)
                c.release_addr = fdt64(p);
        }
        if (m->ncpus == MACH_MAX_CPUS)
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

static void psci(const void *blob, struct machine *m)
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
        n = first_enabled(blob, ids[i].compat);
        if (n < 0)
            continue;
        m->psci_version = ids[i].version;
        s = fdt_getprop_str(blob, n, "method");
        if (s && strcmp(s, "hvc") == 0)
            m->psci_conduit = MACH_CONDUIT_HVC;
        else if (s && strcmp(s, "smc") == 0)
            m->psci_conduit = MACH_CONDUIT_SMC;
        m->psci_cpu_on = fdt_getprop_u32(blob, n, "cpu_on", 0);
        return;
    }
}

/*
 * GICv3 reg: GICD, then #redistributor-regions GICR regions (default 1);
 * its first enabled "arm,gic-v3-its" child, if any, is the ITS (reg[0]:
 * both of its 64 KiB frames).  GICv2 reg: GICD, GICC (then GICH, GICV,
 * unused here).  A GIC without the regions the kernel needs is no GIC at
 * all.
 */
static void gic(const void *blob, struct machine *m, struct gicref *g)
{
    static const char *const v2[] = {
        "arm,gic-400", "arm,cortex-a15-gic", "arm,cortex-a7-gic",
    };
    struct mach_gic *gic = &m->gic;
    struct mach_range r;
    uint32_t nr;
    int n;

    n = first_enabled(blob, "arm,gic-v3");
    gic->version = 3;
    for (size_t i = 0; n < 0 && i < sizeof(v2) / sizeof(v2[0]); i++) {
        n = first_enabled(blob, v2[i]);
        gic->version = 2;
    }
    if (n < 0 || !reg_at(blob, n, 0, &gic->dist))
        goto none;
    if (gic->version == 3) {
        nr = fdt_getprop_u32(blob, n, "#redistributor-regions", 1);
        for (uint32_t i = 0; i < nr && reg_at(blob, n, (int)i + 1, &r); i++)
            add_range(gic->redist, &gic->nredist, MACH_MAX_REDIST,
                      &m->dropped, r.base, r.size);
        if (gic->nredist == 0)
            goto none;
        for (int c = fdt_first_child(blob, n); c >= 0;
             c = fdt_next_sibling(blob, c))
            if (fdt_node_compatible(blob, c, "arm,gic-v3-its") &&
                fdt_node_enabled(blob, c) && reg_at(blob, c, 0, &r) &&
                r.size >= 0x20000) {
                gic->its = r;
                g->its = fdt_getprop_u32(blob, c, "phandle", 0);
                break;
            }
    } else if (!reg_at(blob, n, 1, &gic->cpuif)) {
        goto none;
    }
    g->phandle = fdt_getprop_u32(blob, n, "phandle", 0);
    if (g->phandle == 0)
        g->phandle = fdt_getprop_u32(blob, n, "linux,phandle", 0);
    g->cells = fdt_getprop_u32(blob, n, "#interrupt-cells", 0);
    return;
none:
    memset(gic, 0, sizeof(*gic));
}

/* arm,armv8-timer: PPIs in enum mach_timer order (arm/arch_timer.yaml). */
static void timer(const void *blob, struct machine *m,
                  const struct gicref *g)
{
    const uint8_t *p;
    int n, cnt;

    n = first_enabled(blob, "arm,armv8-timer");
    if (n < 0 || !(p = gic_irqs(blob, g, n, &cnt)))
        return;
    for (int i = 0; i < MACH_NTIMER && i < cnt; i++, p += 4 * g->cells) {
        if (fdt32(p) != 1 || fdt32(p + 4) >= 16)
            continue;           /* not a PPI */
        m->timer[i].intid = 16 + fdt32(p + 4);
        m->timer[i].flags = fdt32(p + 8);
    }
}

/* Node n, if an enabled PL011 with a reg: its registers in m->uart and
   its first interrupt, when an SPI of the GIC, in m->uart_irq. */
static bool pl011(const void *blob, int n, struct machine *m,
                  const struct gicref *g)
{
    const uint8_t *p;
    int cnt;

    if (n < 0 || !fdt_node_compatible(blob, n, "arm,pl011") ||
        !fdt_node_enabled(blob, n) || !reg_at(blob, n, 0, &m->uart))
        return false;
    p = gic_irqs(blob, g, n, &cnt);
    if (p && fdt32(p) == 0 && fdt32(p + 4) < 988) {    /* SPI: INTID < 1020 */
        m->uart_irq.intid = 32 + fdt32(p + 4);
        m->uart_irq.flags = fdt32(p + 8);
    }
    return true;
}

/* The PL011 stdout-path names (its part before ':'), else the first. */
static void uart(const void *blob, struct machine *m, const struct gicref *g)
{
    const char *s = m->stdout_path, *colon;
    int n;

    if (s) {
        colon = memchr(s, ':', strlen(s));
        n = fdt_path_offset_n(blob, s,
                              colon ? (size_t)(colon - s) : strlen(s));
        if (pl011(blob, n, m, g))
            return;
    }
    for (n = fdt_find_compatible(blob, -1, "arm,pl011"); n >= 0;
         n = fdt_find_compatible(blob, n, "arm,pl011"))
        if (pl011(blob, n, m, g))
            return;
}

/* The first enabled PL031 real-time clock (arm,pl031; primecell). */
static void rtc(const void *blob, struct machine *m)
{
    int n = first_enabled(blob, "arm,pl031");

    if (n >= 0)
        reg_at(blob, n, 0, &m->rtc);
}

static void virtio(const void *blob, struct machine *m,
                   const struct gicref *g)
{
    const uint8_t *p;
    struct mach_range r;
    int n, cnt;

    for (n = fdt_find_compatible(blob, -1, "virtio,mmio"); n >= 0;
         n = fdt_find_compatible(blob, n, "virtio,mmio")) {
        struct mach_virtio d = { 0 };

        if (!fdt_node_enabled(blob, n) || !reg_at(blob, n, 0, &r))
            continue;
        if (m->nvirtio == MACH_MAX_VIRTIO) {
            m->dropped++;
            continue;
        }
        d.base = r.base;
        d.size = r.size;
        p = gic_irqs(blob, g, n, &cnt);
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
static void pci_ranges(const void *blob, int n, struct mach_pci *pci)
{
    int pa = fdt_address_cells(blob, fdt_parent_offset(blob, n));
    int sc = fdt_size_cells(blob, n), len, stride;
    const uint8_t *p = fdt_getprop(blob, n, "ranges", &len);

    if (!p || pa < 1 || pa > 2 || sc < 1 || sc > 2 ||
        fdt_address_cells(blob, n) != 3)
        return;
    stride = 4 * (3 + pa + sc);
    for (int off = 0; off + stride <= len; off += stride) {
        uint32_t space = fdt32(p + off) >> 24 & 3;
        struct mach_pci_window w = {
            .bus = fdt64(p + off + 4),
            .cpu = fdt_cells(p + off + 12, pa),
            .size = fdt_cells(p + off + 12 + 4 * pa, sc),
        };
        struct mach_pci_window *to = space == 2 ? &pci->mem32 :
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
static void pci_intx(const void *blob, int n, const struct gicref *g,
                     struct mach_pci *pci)
{
    int len, mlen;
    const uint8_t *p = fdt_getprop(blob, n, "interrupt-map", &len);
    const uint8_t *mask = fdt_getprop(blob, n, "interrupt-map-mask", &mlen);

    if (!p || !mask || mlen != 16 ||
        fdt_getprop_u32(blob, n, "#interrupt-cells", 0) != 1)
        return;
    pci->intx_mask_addr = fdt32(mask);
    pci->intx_mask_pin = fdt32(mask + 12);
    for (int off = 0; off + 20 <= len;) {
        uint32_t ph = fdt32(p + off + 16);
        int parent = fdt_node_by_phandle(blob, ph), end;
        uint32_t ac, ic;

        if (parent < 0)
            return;
        ac = fdt_getprop_u32(blob, parent, "#address-cells", 0);
        ic = fdt_getprop_u32(blob, parent, "#interrupt-cells", 0);
        if (ac > 4 || ic < 1 || ic > 4)
            return;
        end = off + 20 + 4 * (int)(ac + ic);
        if (end > len)
            return;
        if (ph == g->phandle && ic >= 3 &&
            fdt32(p + off + 20 + 4 * ac) == 0) {     /* an SPI */
            uint32_t spi = fdt32(p + off + 24 + 4 * ac);

            if (spi < 988 && pci->nintx < MACH_MAX_INTX)
                pci->intx[pci->nintx++] = (struct mach_pci_intx){
                    fdt32(p + off), fdt32(p + off + 12), 32 + spi,
                };
        }
        off = end;
    }
}

/*
 * Where the host's MSIs go (pci/pci-msi.txt): msi-map entries <rid-base
 * controller msi-base length>, msi-base in the controller's #msi-cells,
 * of which those aimed at the ITS (one cell) are kept; else msi-parent
 * naming the ITS, which passes requester IDs through as DeviceIDs.
 */
static void pci_msi(const void *blob, int n, const struct gicref *g,
                    struct mach_pci *pci)
{
    const uint8_t *p;
    int len, ctl;

    pci->msi_mask = fdt_getprop_u32(blob, n, "msi-map-mask", 0xFFFF);
    if (!g->its)
        return;
    p = fdt_getprop(blob, n, "msi-map", &len);
    if (!p) {
        p = fdt_getprop(blob, n, "msi-parent", &len);
        if (p && len == 4 && fdt32(p) == g->its)
            pci->msi[pci->nmsi++] = (struct mach_pci_msi){ 0, 0, 0x10000 };
        return;
    }
    while (len >= 8) {
        uint32_t ph = fdt32(p + 4), cells = 0;
        int stride;

        ctl = fdt_node_by_phandle(blob, ph);
        if (ctl >= 0)
            cells = fdt_getprop_u32(blob, ctl, "#msi-cells", 0);
        if (ctl < 0 || cells > 2)
            return;
        stride = 4 * (3 + (int)cells);
        if (len < stride)
            return;
        if (ph == g->its && cells == 1 && pci->nmsi < MACH_MAX_MSI &&
            fdt32(p + 12))
            pci->msi[pci->nmsi++] = (struct mach_pci_msi){
                fdt32(p), fdt32(p + 8), fdt32(p + 12) };
        p += stride;
        len -= stride;
    }
}

/* pci/host-generic-pci.yaml: bus-range defaults to 0..255. */
static void pci(const void *blob, struct machine *m,
                const struct gicref *g)
{
    const uint8_t *p;
    struct mach_range r;
    uint32_t lo = 0, hi = 255;
    int n, len;

    n = first_enabled(blob, "pci-host-ecam-generic");
    if (n < 0 || !reg_at(blob, n, 0, &r))
        return;
    p = fdt_getprop(blob, n, "bus-range", &len);
    if (p && len == 8) {
        lo = fdt32(p);
        hi = fdt32(p + 4);
    }
    if (lo > hi || hi > 255)
        return;
    m->pci.ecam = r;
    m->pci.bus_start = lo;
    m->pci.bus_end = hi;
    pci_ranges(blob, n, &m->pci);
    pci_intx(blob, n, g, &m->pci);
    pci_msi(blob, n, g, &m->pci);
}

int fdt_parse_machine(const void *blob, size_t size, struct machine *m)
{
    struct gicref g = { 0, 0, 0 };
    int rc;

    memset(m, 0, sizeof(*m));
    rc = fdt_check(blob, size, &m->error);
    if (rc)
        return rc;
    chosen(blob, m);
    memory(blob, m);
    reserved(blob, m);
    rc = cpus(blob, m);
    psci(blob, m);
    gic(blob, m, &g);
    timer(blob, m, &g);
    uart(blob, m, &g);
    rtc(blob, m);
    virtio(blob, m, &g);
    pci(blob, m, &g);
    if (m->nmem == 0) {
        m->error = "no /memory node with a usable reg";
        rc = -FDT_ENOTFOUND;
    }
    return rc;
}
