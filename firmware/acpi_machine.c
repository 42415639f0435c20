/*
 * acpi_machine.c - the aarch64 machine description (machine.h) from what
 * acpi_parse read, for machines whose firmware hands over ACPI and no
 * device tree: AAVMF on QEMU virt, SBSA servers.  Pure C, like a->c:
 * the host test and the fuzz target run it too.
 *
 *   MADT GICC   the cores (MPIDR), GICv2 CPU interface, per-core GICR
 *   MADT GICD   the distributor and the GIC version
 *   MADT GICR   redistributor ranges
 *   GTDT        the timer PPIs
 *   SPCR        the console UART (a PL011 or SBSA UART at an MMIO address),
 *               and its interrupt when the table gives a GIC one
 *   FADT        PSCI and its conduit (HVC or SMC)
 *   MCFG        the PCIe ECAM window
 * What ACPI keeps in AML (PCI windows and INTx routing in the DSDT) is not
 * read: PCI devices keep the BARs the firmware gave them, and INTx has
 * no route (drivers that need an interrupt say so).
 */
#include <string.h>
#include "firmware/acpi.h"
#include "firmware/machine.h"

#define GICD_SIZE       0x10000
#define GICC_SIZE       0x2000
#define GICR_FRAMES     0x20000     /* one core's RD and SGI frames */
#define ITS_SIZE        0x20000     /* control and translation frames */

/* ACPI timer flags as the device tree's trigger bits (machine.h). */
static struct mach_irq timer_irq(const struct acpi_timer_irq *t)
{
    uint32_t trig = t->flags & ACPI_TIMER_EDGE ? 1 : 4;

    if (t->flags & ACPI_TIMER_ACTIVE_LOW)
        trig = trig == 1 ? 2 : 8;
    return (struct mach_irq){ t->gsiv, t->gsiv ? trig : 0 };
}

/* The redistributors: the MADT's GICR ranges, else the cores' own
   frames, merged where they sit back to back. */
static void redistributors(const struct acpi_info *a, struct machine *m)
{
    struct mach_gic *g = &m->gic;

    for (uint32_t i = 0; i < a->ngicr && g->nredist < MACH_MAX_REDIST; i++)
        g->redist[g->nredist++] = (struct mach_range){ a->gicr[i].base,
                                                       a->gicr[i].length };
    if (a->ngicr)
        return;
    for (uint32_t i = 0; i < a->ncpus; i++) {
        uint64_t pa = a->cpus[i].gicr_pa;
        struct mach_range *last = g->nredist ? &g->redist[g->nredist - 1] : NULL;

        if (!pa)
            continue;
        if (last && last->base + last->size == pa)
            last->size += GICR_FRAMES;
        else if (g->nredist < MACH_MAX_REDIST)
            g->redist[g->nredist++] = (struct mach_range){ pa, GICR_FRAMES };
        else
            m->dropped++;
    }
}

const char *acpi_to_machine(const struct acpi_info *a, int parsed,
                            uint64_t boot, struct machine *m)
{
    memset(m, 0, sizeof *m);
    if (parsed < 0 && !a->gicd_pa)
        return a->error ? a->error : "no usable ACPI tables";
    for (uint32_t i = 0; i < a->ncpus; i++) {
        const struct acpi_cpu *c = &a->cpus[i];

        if (!c->gicc_entry || !c->usable)
            continue;
        if (m->ncpus == MACH_MAX_CPUS) {
            m->dropped++;
            continue;
        }
        m->cpus[m->ncpus++] = (struct mach_cpu){
            .mpidr = c->mpidr,
            .enable = a->psci ? MACH_ENABLE_PSCI : MACH_ENABLE_NONE,
        };
        if (c->mpidr == boot && c->gicc_pa)
            m->gic.cpuif = (struct mach_range){ c->gicc_pa, GICC_SIZE };
    }
    if (!m->ncpus) {            /* -ACPI_ENOCORE: the boot core alone */
        m->ncpus = 1;
        m->cpus[0].mpidr = boot;
    }
    if (a->psci)
        m->psci_conduit = a->psci_hvc ? MACH_CONDUIT_HVC : MACH_CONDUIT_SMC;
    m->gic.dist = (struct mach_range){ a->gicd_pa, GICD_SIZE };
    redistributors(a, m);
    if (a->nits)
        m->gic.its = (struct mach_range){ a->its_pa[0], ITS_SIZE };
    switch (a->gic_version) {
    case 2:
        m->gic.version = 2;
        break;
    case 3: case 4:
        m->gic.version = 3;
        break;
    default:                    /* not given: what the entries imply */
        m->gic.version = m->gic.nredist ? 3 : m->gic.cpuif.base ? 2 : 0;
        break;
    }
    m->timer[MACH_TIMER_PHYS] = timer_irq(&a->timer_el1_phys);
    m->timer[MACH_TIMER_VIRT] = timer_irq(&a->timer_el1_virt);
    m->timer[MACH_TIMER_HYP] = timer_irq(&a->timer_el2_phys);
    if (a->spcr_base && a->spcr_space == ACPI_SPACE_MEMORY &&
        (a->spcr_type == ACPI_SPCR_PL011 || a->spcr_type == ACPI_SPCR_SBSA ||
         a->spcr_type == ACPI_SPCR_SBSA_32BIT)) {
        m->uart = (struct mach_range){ a->spcr_base, 0x1000 };
        if ((a->spcr_int_type & ACPI_SPCR_INT_GIC) && a->spcr_gsi >= 32 &&
            a->spcr_gsi < 1020)
            m->uart_irq = (struct mach_irq){ a->spcr_gsi, 4 };  /* level */
    }
    if (a->nmcfg) {
        const struct acpi_mcfg *w = &a->mcfg[0];

        m->pci.bus_start = w->start_bus;
        m->pci.bus_end = w->end_bus;
        m->pci.ecam = (struct mach_range){
            w->base + ((uint64_t)w->start_bus << 20),
            (uint64_t)(w->end_bus - w->start_bus + 1) << 20 };
    }
    m->error = parsed < 0 ? a->error : NULL;
    if (!m->gic.version)
        return "the MADT describes no GIC";
    return NULL;
}
