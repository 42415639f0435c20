/*
 * virtio_pci.h - the virtio 1.x PCI transport, modern interface only
 * (virtio 1.2 §4.1): the common, notify, ISR and device-specific
 * configuration structures that the device's vendor capabilities point
 * into, behind drivers/virtio.h; and what only PCI has, MSI-X vectors.
 */
#ifndef DRIVERS_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include "drivers/pci.h"
#include "drivers/virtio.h"

#define VIRTIO_VENDOR           0x1AF4

/*
 * Finds the device's virtio capabilities, maps them, resets the device
 * and sets ACKNOWLEDGE and DRIVER.  Returns 0, or -1 with the reason
 * printed (no modern interface: a legacy-only device).
 */
int virtio_pci_open(struct virtio_dev *v, struct pci_dev *d);

/*
 * The first device of virtio type `type` (VIRTIO_ID_*) after `from`
 * (NULL: from the start), by its modern id or its transitional one
 * (`transitional`, 0x1000 + something); NULL if there is none.
 */
struct pci_dev *virtio_pci_find(uint16_t type, uint16_t transitional,
                                struct pci_dev *from);

/* Routes configuration-change interrupts to vector; false if refused. */
bool virtio_pci_config_vector(struct virtio_dev *v, uint16_t vector);

#endif
