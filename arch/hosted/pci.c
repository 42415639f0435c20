/*
 * pci.c - the hosted build has no PCI: a process reaches no PCI devices.
 * Its NIC, if any, is a TAP device (tap.c).
 */
#include "arch/arch.h"

bool arch_msi_message(uint32_t rid, uint32_t vector, int irq,
                      const struct cpu *c, uint64_t *addr, uint32_t *data)
{
    return false;
}

bool arch_pci_intx(uint32_t bus, uint32_t dev, uint32_t pin, int irq)
{
    return false;
}

bool arch_pci_host(struct pci_host *h)
{
    return false;
}
