/*
 * pci.c - what PCI devices need of the x86_64 platform: the ECAM window
 * (ACPI MCFG), a window for BARs nobody placed, and MSI messages.
 *
 * MSI messages go straight to a local APIC (SDM Vol. 3A §11.11): the
 * address names the destination APIC id in physical mode, the data the
 * vector, fixed delivery, edge-triggered.  There is no INTx path: routing
 * a pin through the I/O APIC needs the ACPI _PRT, which is AML, and every
 * device Spindle drives has MSI-X.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "firmware/acpi.h"
#include "kernel/cpu.h"

#define MSI_ADDR        0xFEE00000u

/*
 * QEMU's q35 leaves BARs unplaced when it boots a kernel directly (qboot
 * does not place them).  Its 32-bit PCI hole always spans this range,
 * above the ECAM window and below the I/O APIC, whatever the RAM size;
 * firmware on a PC places every BAR itself, and placed BARs are kept.
 */
#define Q35_MEM32_BASE  0xC0000000UL
#define Q35_MEM32_END   0xFEC00000UL

bool arch_msi_message(uint32_t rid, uint32_t vector, int irq,
                      const struct cpu *c, uint64_t *addr, uint32_t *data)
{
    /* APIC ids above 255 need interrupt remapping. */
    if (irq < 0 || irq >= ARCH_NIRQ || c->arch.apic_id > 255)
        return false;
    *addr = MSI_ADDR | c->arch.apic_id << 12;
    *data = VEC_DEV0 + irq;
    return true;
}

bool arch_pci_intx(uint32_t bus, uint32_t dev, uint32_t pin, int irq)
{
    return false;
}

bool arch_pci_host(struct pci_host *h)
{
    const struct acpi_mcfg *m = &acpi.mcfg[0];

    if (!acpi.nmcfg || m->segment != 0)
        return false;
    *h = (struct pci_host){
        .ecam = m->base, .bus_start = m->start_bus, .bus_end = m->end_bus,
    };
    if (m->base + ((uint64_t)m->end_bus + 1) * (1 << 20) <= Q35_MEM32_BASE)
        h->mem32 = (struct pci_window){ Q35_MEM32_BASE, Q35_MEM32_BASE,
                                        Q35_MEM32_END - Q35_MEM32_BASE };
    return true;
}

/* Every NIC of this platform is a PCI device (drivers/). */
struct netdev *arch_netdev_probe(void (*irq_fn)(void *, int), void *arg)
{
    return NULL;
}
