/*
 * gic.c - the interrupt controller: GICv3 (QEMU virt's default, through
 * the system-register CPU interface) and GICv2 (GIC-400, as on the
 * Raspberry Pi 4, through the memory-mapped CPU interface).  Only the
 * interrupts of a core are used: SGIs 0 (scheduler IPI) and 1 (stop), and
 * the generic timer's PPI, plus the SPIs devices raise (a PCI INTx pin,
 * the console UART's receive and a virtio-mmio device's line:
 * gic_route_spi) and, on v3 with an ITS, the
 * LPIs of their MSIs (its.c, set up from here).  (IHI 0069 for v3, IHI
 * 0048 for v2.)
 *
 * The stop SGI goes to Group 0, which the CPU takes as an FIQ, where the
 * GIC lets us configure Group 0 (v3 with GICD_CTLR.DS set, as on QEMU
 * without a secure world).  FIQs stay unmasked while IRQs are off, so a
 * panic stops a core that spins with interrupts off, as the NMI does on
 * x86_64.  Where firmware owns Group 0 (a secure world, or GICv2, where
 * Group 0 would need the same FIQ set-up), the stop SGI is a plain IRQ
 * and a core with interrupts off stops when it turns them on again.
 */
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

/* Distributor (both versions). */
#define GICD_CTLR       0x0000
#define GICD_TYPER      0x0004
#define GICD_IGROUPR    0x0080
#define GICD_ISENABLER  0x0100
#define GICD_IPRIORITYR 0x0400
#define GICD_ITARGETSR  0x0800
#define GICD_ICFGR      0x0C00
#define GICD_SGIR       0x0F00          /* v2 */
#define GICD_IROUTER    0x6000          /* v3: 64 bits per SPI */
#define CTLR_RWP        (1u << 31)      /* v3: register write pending */
#define CTLR_DS         (1u << 6)       /* v3: no security: Group 0 ours */
#define CTLR_V3_ENABLE  0x13            /* ARE + both groups, either view */

/* v3 redistributor: RD_base frame, then SGI_base 64 KiB above. */
#define GICR_TYPER      0x0008
#define GICR_WAKER      0x0014
#define GICR_SGI        0x10000
#define TYPER_LAST      (1u << 4)
#define WAKER_SLEEP     (1u << 1)
#define WAKER_ASLEEP    (1u << 2)

/* v2 CPU interface. */
#define GICC_CTLR       0x0000
#define GICC_PMR        0x0004
#define GICC_BPR        0x0008
#define GICC_IAR        0x000C
#define GICC_EOIR       0x0010

#define PRIO            0x80

static int version;
static uintptr_t gicd, gicc;
static bool stop_fiq;           /* stop SGI in Group 0 (an FIQ) */

/* SPIs routed to device interrupts: an entry is written before
   nroutes counts it (a store-release that pairs with gic_spi_irq's
   load-acquire), and never changes. */
static struct {
    uint32_t intid;
    int irq;
} routes[ARCH_NIRQ];
static int nroutes;

static void dist_wait(void)
{
    if (version == 3) {
        int spins = 1000000;

        while ((mmio_read32(gicd + GICD_CTLR) & CTLR_RWP) && --spins)
            arch_cpu_relax();
    }
}

void gic_init_dist(void)
{
    const struct mach_gic *g = &boot_info->machine->gic;

    version = g->version;
    gicd = g->dist.base;
    gicc = g->cpuif.base;
    if (version == 3) {
        stop_fiq = mmio_read32(gicd + GICD_CTLR) & CTLR_DS;
        mmio_write32(gicd + GICD_CTLR, CTLR_V3_ENABLE);
    } else {
        mmio_write32(gicd + GICD_CTLR, 1);
    }
    dist_wait();
    printk("gic: v%d, distributor at 0x%lx; stop IPI as %s\n", version,
           gicd, stop_fiq ? "FIQ" : "IRQ");
    its_init();
}

/* v3: the redistributor whose affinity is this core's. */
static uintptr_t find_redist(uint64_t mpidr)
{
    uint32_t aff = (mpidr >> 32 & 0xFF) << 24 | (mpidr & 0xFFFFFF);

    const struct mach_gic *g = &boot_info->machine->gic;

    for (uint32_t i = 0; i < g->nredist; i++) {
        uintptr_t r = g->redist[i].base;
        uintptr_t end = r + g->redist[i].size;

        for (; r + 2 * GICR_SGI <= end; r += 2 * GICR_SGI) {
            uint64_t t = mmio_read64(r + GICR_TYPER);

            if ((t >> 32) == aff)
                return r;
            if (t & TYPER_LAST)
                break;
        }
    }
    return 0;
}

/* Group, priority and enable of this core's private interrupts: in the
   redistributor's SGI frame (v3) or the distributor's banked copy (v2). */
static void setup_private(uintptr_t base)
{
    uint32_t ppis = 1u << SGI_IPI | 1u << SGI_STOP | 1u << timer_intid();
    /* v2: Group 0, which is what a GIC without the Security Extensions
       (QEMU) signals as IRQ with FIQEn clear; with them (a Pi 4 booted
       non-secure) the firmware put everything in Group 1 and this write
       is ignored.  Bit 0 of GICD_CTLR and GICC_CTLR enables the group
       the respective view controls, so 1 suits both. */
    uint32_t group1 = version == 2 ? 0 : ~0u;

    if (stop_fiq)
        group1 &= ~(1u << SGI_STOP);
    mmio_write32(base + GICD_IGROUPR, group1);
    for (int i = 0; i < 32; i += 4)
        mmio_write32(base + GICD_IPRIORITYR + i,
                     PRIO * 0x01010101u);
    mmio_write32(base + GICD_ISENABLER, ppis);
}

void gic_init_cpu(void)
{
    struct cpu *c = this_cpu();

    if (version == 2) {
        /* GICD_ITARGETSR0 reads as this core's own interface bit. */
        c->arch.gic_mask = mmio_read32(gicd + GICD_ITARGETSR) & 0xFF;
        setup_private(gicd);
        mmio_write32(gicc + GICC_PMR, 0xFF);
        mmio_write32(gicc + GICC_BPR, 0);
        mmio_write32(gicc + GICC_CTLR, 1);
        return;
    }
    c->arch.gicr = find_redist(c->arch.mpidr);
    if (!c->arch.gicr)
        panic("gic_init_cpu: no redistributor for MPIDR 0x%lx",
              c->arch.mpidr);
    mmio_write32(c->arch.gicr + GICR_WAKER,
                 mmio_read32(c->arch.gicr + GICR_WAKER) & ~WAKER_SLEEP);
    for (int spins = 1000000; (mmio_read32(c->arch.gicr + GICR_WAKER) &
                               WAKER_ASLEEP) && --spins;)
        arch_cpu_relax();
    setup_private(c->arch.gicr + GICR_SGI);
    sysreg_write(S3_0_C12_C12_5, sysreg_read(S3_0_C12_C12_5) | 1); /* SRE */
    isb();
    sysreg_write(S3_0_C4_C6_0, 0xFF);           /* ICC_PMR_EL1 */
    sysreg_write(S3_0_C12_C12_3, 0);            /* ICC_BPR1_EL1 */
    sysreg_write(S3_0_C12_C12_4, 0);            /* ICC_CTLR_EL1: EOImode 0 */
    sysreg_write(S3_0_C12_C12_7, 1);            /* ICC_IGRPEN1_EL1 */
    if (stop_fiq)
        sysreg_write(S3_0_C12_C12_6, 1);        /* ICC_IGRPEN0_EL1 */
    isb();
    its_init_cpu();
}

/*
 * Enables SPI intid, level-triggered, in the group IRQs come from,
 * aimed at core c.  Boot core, before the device can raise it.
 */
void gic_enable_spi(uint32_t intid, const struct cpu *c)
{
    uint32_t word = 4 * (intid / 32), bit = 1u << (intid % 32);
    uint32_t cfg = GICD_ICFGR + 4 * (intid / 16);
    uint32_t prio = GICD_IPRIORITYR + (intid & ~3u);
    uint32_t shift = 8 * (intid % 4);
    uint32_t g = mmio_read32(gicd + GICD_IGROUPR + word);

    /* v2 IRQs are Group 0 and v3's are Group 1 (setup_private). */
    mmio_write32(gicd + GICD_IGROUPR + word, version == 2 ? g & ~bit : g | bit);
    mmio_write32(gicd + cfg, mmio_read32(gicd + cfg) &
                             ~(2u << 2 * (intid % 16)));   /* level */
    mmio_write32(gicd + prio, (mmio_read32(gicd + prio) & ~(0xFFu << shift)) |
                              (uint32_t)PRIO << shift);
    if (version == 3) {
        uint64_t m = c->arch.mpidr;
        uintptr_t r = gicd + GICD_IROUTER + 8 * intid;

        mmio_write32(r, (uint32_t)(m & 0xFFFFFF));
        mmio_write32(r + 4, (uint32_t)(m >> 32 & 0xFF));
    } else {
        uint32_t t = GICD_ITARGETSR + (intid & ~3u);

        mmio_write32(gicd + t, (mmio_read32(gicd + t) & ~(0xFFu << shift)) |
                               (uint32_t)c->arch.gic_mask << shift);
    }
    dist_wait();
    mmio_write32(gicd + GICD_ISENABLER + word, bit);
}

int gic_spi_irq(uint32_t intid)
{
    int n = __atomic_load_n(&nroutes, __ATOMIC_ACQUIRE);

    for (int i = 0; i < n; i++)
        if (routes[i].intid == intid)
            return routes[i].irq;
    return -1;
}

/*
 * Routes level-triggered SPI intid to device interrupt irq on core c and
 * enables it (gic_enable_spi); false if it has a route already or the
 * table is full.  From G 1 or the boot path, one caller at a time.
 */
bool gic_route_spi(uint32_t intid, int irq, const struct cpu *c)
{
    if (intid < 32 || intid >= 1020 || nroutes == ARCH_NIRQ ||
        gic_spi_irq(intid) >= 0)
        return false;
    routes[nroutes].irq = irq;
    routes[nroutes].intid = intid;
    __atomic_store_n(&nroutes, nroutes + 1, __ATOMIC_RELEASE);
    gic_enable_spi(intid, c);
    return true;
}

/* Acknowledges the highest-priority pending interrupt of the group the
   exception was for; returns the raw IAR value. */
uint32_t gic_ack(bool fiq)
{
    uint32_t iar;

    if (version == 2)
        return mmio_read32(gicc + GICC_IAR);
    iar = fiq ? sysreg_read(S3_0_C12_C8_0) :    /* ICC_IAR0_EL1 */
                sysreg_read(S3_0_C12_C12_0);    /* ICC_IAR1_EL1 */
    __asm__ volatile("dsb sy" : : : "memory");
    return iar;
}

uint32_t gic_intid(uint32_t iar)
{
    return version == 2 ? iar & 0x3FF : iar & 0xFFFFFF;
}

void gic_eoi(uint32_t iar, bool fiq)
{
    if (version == 2) {
        mmio_write32(gicc + GICC_EOIR, iar);
        return;
    }
    if (fiq)
        sysreg_write(S3_0_C12_C8_1, iar);       /* ICC_EOIR0_EL1 */
    else
        sysreg_write(S3_0_C12_C12_1, iar);      /* ICC_EOIR1_EL1 */
    isb();
}

/*
 * Sends SGI intid to the core with affinity mpidr (v2: interface mask),
 * or to every core but the caller.  The DSB makes the caller's earlier
 * stores visible before the SGI can reach the target (the contract of
 * arch_send_ipi); the system-register write is not ordered otherwise.
 */
static void send_sgi(const struct cpu *c, int intid, bool others)
{
    bool g0 = intid == SGI_STOP && stop_fiq;

    __asm__ volatile("dsb ish" : : : "memory");
    if (version == 2) {
        uint32_t v = others ? 1u << 24 : (uint32_t)c->arch.gic_mask << 16;

        mmio_write32(gicd + GICD_SGIR, v | intid);
        return;
    }
    uint64_t v = (uint64_t)intid << 24;

    if (others) {
        v |= 1UL << 40;                         /* IRM: all but self */
    } else {
        uint64_t m = c->arch.mpidr;

        v |= (m >> 32 & 0xFF) << 48 | (m >> 16 & 0xFF) << 32 |
             (m >> 8 & 0xFF) << 16 | ((m & 0xFF) >> 4) << 44 |
             1UL << (m & 0xF);
    }
    if (g0)
        sysreg_write(S3_0_C12_C11_7, v);        /* ICC_SGI0R_EL1 */
    else
        sysreg_write(S3_0_C12_C11_5, v);        /* ICC_SGI1R_EL1 */
    isb();
}

void arch_send_ipi(const struct cpu *c)
{
    send_sgi(c, SGI_IPI, false);
}

void arch_send_ipi_others(void)
{
    send_sgi(0, SGI_IPI, true);
}

void arch_stop_others(void)
{
    if (version)
        send_sgi(0, SGI_STOP, true);
}
