/*
 * pci.c - what PCI and virtio-mmio devices need of the aarch64
 * platform: the host bridge's ECAM and windows from the device tree,
 * INTx pins routed through its interrupt-map to GIC SPIs, MSIs through
 * the GICv3 ITS (its.c), and the device tree's virtio-mmio devices with
 * their SPIs.
 *
 * An MSI is an LPI: the device's requester ID becomes its ITS DeviceID
 * through the host's msi-map (on QEMU's virt, the identity), the vector
 * its EventID.  Without an ITS (GICv2, a GICv3 without one, or ACPI,
 * whose IORT is not read) there is no MSI, and devices use their INTx
 * pin, aimed at the boot core.
 */
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"

bool arch_msi_message(uint32_t rid, uint32_t vector, int irq,
                      const struct cpu *c, uint64_t *addr, uint32_t *data)
{
    const struct mach_pci *pci = &boot_info->machine->pci;

    rid &= pci->msi_mask;
    for (uint32_t i = 0; i < pci->nmsi; i++) {
        const struct mach_pci_msi *e = &pci->msi[i];

        if (rid >= e->rid && rid - e->rid < e->len)
            return its_map(e->devid + (rid - e->rid), vector, irq, c, addr,
                           data);
    }
    return false;
}

bool arch_pci_intx(uint32_t bus, uint32_t dev, uint32_t pin, int irq)
{
    const struct mach_pci *pci = &boot_info->machine->pci;
    uint32_t addr = (bus << 16 | dev << 11) & pci->intx_mask_addr;

    pin &= pci->intx_mask_pin;
    for (uint32_t i = 0; i < pci->nintx; i++) {
        const struct mach_pci_intx *e = &pci->intx[i];

        if ((e->addr & pci->intx_mask_addr) != addr || e->pin != pin)
            continue;
        return gic_route_spi(e->intid, irq, cpus[0]);
    }
    return false;
}

bool arch_pci_host(struct pci_host *h)
{
    const struct mach_pci *pci = &boot_info->machine->pci;

    if (!pci->ecam.size)
        return false;
    *h = (struct pci_host){
        .ecam = pci->ecam.base - ((uint64_t)pci->bus_start << 20),
        .bus_start = pci->bus_start, .bus_end = pci->bus_end,
        .mem32 = { pci->mem32.cpu, pci->mem32.bus, pci->mem32.size },
        .mem64 = { pci->mem64.cpu, pci->mem64.bus, pci->mem64.size },
    };
    return true;
}

int arch_virtio_mmio_slots(struct arch_mmio_slot *slots, int max)
{
    const struct machine *m = boot_info->machine;
    int n = 0;

    for (uint32_t i = 0; i < m->nvirtio && n < max; i++)
        slots[n++] = (struct arch_mmio_slot){ m->virtio[i].base,
                                              m->virtio[i].size,
                                              m->virtio[i].intid };
    return n;
}

bool arch_irq_line(uint32_t line, int irq)
{
    return gic_route_spi(line, irq, cpus[0]);
}

/* Every NIC of this platform is a virtio device (drivers/). */
struct netdev *arch_netdev_probe(void (*irq_fn)(void *, int), void *arg)
{
    return NULL;
}
