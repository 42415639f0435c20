/*
 * virtio_mmio.h - the virtio-mmio transport, version 2 ("modern") only
 * (virtio 1.2 §4.2), behind drivers/virtio.h; and the platform's
 * virtio-mmio devices: those its machine description lists
 * (arch_virtio_mmio_slots: on aarch64 the device tree's "virtio,mmio"
 * nodes) and those the command line's virtio_mmio.device= names
 * (drivers/virtio_mmio_cmdline.h).
 *
 * Each device has one interrupt line (no MSI): its handler reads
 * InterruptStatus and acknowledges it (virtio_intr_cause), which drops
 * the line, and then serves every queue of the device.
 */
#ifndef DRIVERS_VIRTIO_MMIO_H
#define DRIVERS_VIRTIO_MMIO_H

#include <stdbool.h>
#include <stdint.h>
#include "drivers/virtio.h"

/* Register offsets (§4.2.2), each 32 bits wide. */
#define VMMIO_MAGIC             0x000   /* "virt": 0x74726976 */
#define VMMIO_VERSION           0x004   /* 2; 1 is legacy */
#define VMMIO_DEVICE_ID         0x008   /* 0: an empty slot */
#define VMMIO_VENDOR_ID         0x00C
#define VMMIO_DEVICE_FEATURES   0x010
#define VMMIO_DEVICE_FEATURES_SEL 0x014
#define VMMIO_DRIVER_FEATURES   0x020
#define VMMIO_DRIVER_FEATURES_SEL 0x024
#define VMMIO_QUEUE_SEL         0x030
#define VMMIO_QUEUE_NUM_MAX     0x034
#define VMMIO_QUEUE_NUM         0x038
#define VMMIO_QUEUE_READY       0x044
#define VMMIO_QUEUE_NOTIFY      0x050
#define VMMIO_INTERRUPT_STATUS  0x060
#define VMMIO_INTERRUPT_ACK     0x064
#define VMMIO_STATUS            0x070
#define VMMIO_QUEUE_DESC_LOW    0x080
#define VMMIO_QUEUE_DESC_HIGH   0x084
#define VMMIO_QUEUE_DRIVER_LOW  0x090
#define VMMIO_QUEUE_DRIVER_HIGH 0x094
#define VMMIO_QUEUE_DEVICE_LOW  0x0A0
#define VMMIO_QUEUE_DEVICE_HIGH 0x0A4
#define VMMIO_CONFIG_GENERATION 0x0FC
#define VMMIO_CONFIG            0x100

#define VMMIO_MAGIC_VALUE       0x74726976u
#define VMMIO_MAX_DEVICES       40      /* the description's and the
                                           command line's together */

/*
 * Opens the registers at regs (mapped, `size` bytes, named `name` in
 * messages) as a virtio-mmio device: checks the magic value and the
 * version (a legacy version 1 device is refused with one line saying
 * how QEMU gives version 2), resets it and sets ACKNOWLEDGE and DRIVER.
 * Returns 0, or -1 with the reason printed; 1, silently, for an empty
 * slot (DeviceID 0).  No kernel service is used: the host tests run it
 * against a simulated device.
 */
int virtio_mmio_open_regs(struct virtio_dev *v, volatile uint8_t *regs,
                          uint64_t size, const char *name);

/*
 * Opens the platform's first virtio-mmio device of type `type`
 * (VIRTIO_ID_*) not opened before, with virtio_mmio_open_regs, and
 * stores its interrupt line (0: none) in *line, for arch_irq_line.  The
 * first call finds the devices (maps each, reads its DeviceID; the
 * command line's bad values are said and ignored, and so are its
 * devices the description lists already).  False if there is none
 * left.  From G 1, one caller at a time.
 */
bool virtio_mmio_open(struct virtio_dev *v, uint32_t type, uint32_t *line);

#endif
