/*
 * virtio_pci.h - the virtio 1.x PCI transport, modern interface only
 * (virtio 1.2 §4.1): the common, notify, ISR and device-specific
 * configuration structures that the device's vendor capabilities point
 * into, device status, feature negotiation and queue set-up.
 *
 * One struct virtio_dev per device, owned by its driver; nothing here
 * locks: the driver serializes set-up (the boot path) and each queue's
 * notifications (its own lock).
 */
#ifndef DRIVERS_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include "drivers/pci.h"

#define VIRTIO_VENDOR           0x1AF4
#define VIRTIO_F_VERSION_1      (1ULL << 32)
#define VIRTIO_F_RING_EVENT_IDX (1ULL << 29)
#define VIRTIO_NO_VECTOR        0xFFFF

/* Device status bits (§2.1). */
#define VIRTIO_S_ACK            1
#define VIRTIO_S_DRIVER         2
#define VIRTIO_S_DRIVER_OK      4
#define VIRTIO_S_FEATURES_OK    8
#define VIRTIO_S_NEEDS_RESET    64
#define VIRTIO_S_FAILED         128

struct virtio_dev {
    struct pci_dev *pci;
    volatile uint8_t *common;   /* struct virtio_pci_common_cfg */
    volatile uint8_t *notify;   /* notification area */
    uint32_t notify_len;        /* bytes mapped at notify */
    uint32_t notify_mult;       /* notify_off_multiplier */
    volatile uint8_t *isr;      /* read to learn and clear the cause */
    volatile uint8_t *devcfg;   /* device-specific configuration */
    uint32_t devcfg_len;
    uint64_t features;          /* negotiated */
};

/*
 * Finds the device's virtio capabilities, maps them, resets the device
 * and sets ACKNOWLEDGE and DRIVER.  Returns 0, or -1 with the reason
 * printed (no modern interface: a legacy-only device).
 */
int virtio_pci_open(struct virtio_dev *v, struct pci_dev *d);

/*
 * Accepts the features in `wanted` that the device offers, VERSION_1
 * always, and checks that the device agrees (FEATURES_OK).  Returns
 * false, with the device marked FAILED, if it does not.
 */
bool virtio_negotiate(struct virtio_dev *v, uint64_t wanted);

/* The largest size queue idx may have; 0 if there is no such queue. */
uint16_t virtio_queue_max(struct virtio_dev *v, uint16_t idx);

/*
 * Gives queue idx its size, ring addresses (physical) and MSI-X vector
 * (VIRTIO_NO_VECTOR: none), and enables it.  Returns the address the
 * driver writes the queue index to to notify the device, or NULL if the
 * device refused the vector or the notify address is out of its BAR.
 */
volatile uint16_t *virtio_queue_setup(struct virtio_dev *v, uint16_t idx,
                                      uint16_t size, uint64_t desc,
                                      uint64_t driver, uint64_t device,
                                      uint16_t vector);

/* Routes configuration-change interrupts to vector; false if refused. */
bool virtio_config_vector(struct virtio_dev *v, uint16_t vector);

/* Sets DRIVER_OK: the device may use its queues from now on. */
void virtio_ready(struct virtio_dev *v);

/* Marks the device FAILED (it gives up on us) and prints why. */
void virtio_fail(struct virtio_dev *v, const char *why);

uint8_t virtio_status(struct virtio_dev *v);

/* Reads (and so clears) the ISR status: bit 0 queue, bit 1 config. */
uint8_t virtio_isr(struct virtio_dev *v);

#endif
