/*
 * virtio.h - a virtio 1.x device as its drivers (virtio_net.c,
 * virtio_console.c) see it, whatever transport reaches it: status,
 * feature negotiation, queue set-up (split rings), notification, the
 * interrupt's cause, and the device-specific configuration.
 *
 * Two transports implement it: PCI (virtio_pci.c, virtio 1.2 §4.1, the
 * modern interface) and MMIO (virtio_mmio.c, §4.2, version 2).  Each
 * fills a struct virtio_transport with its set-up operations when it
 * opens a device; those are called at set-up and on the slow paths
 * only.  The per-packet operation, notification, is no call at all: a
 * queue's set-up computes its doorbell once (struct virtio_notify), and
 * virtio_notify is one store of the width the transport needs.
 *
 * One struct virtio_dev per device, owned by its driver; nothing here
 * locks: the driver serializes set-up (the boot path) and each queue's
 * notifications (its own lock).
 */
#ifndef DRIVERS_VIRTIO_H
#define DRIVERS_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

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

/* The interrupt's cause (virtio_intr_cause): the PCI ISR's and MMIO's
   InterruptStatus bits alike. */
#define VIRTIO_INTR_QUEUE       1
#define VIRTIO_INTR_CONFIG      2

/* Device types (§5): the MMIO DeviceID; PCI's modern id is 0x1040 + it. */
#define VIRTIO_ID_NET           1
#define VIRTIO_ID_CONSOLE       3

struct pci_dev;
struct virtio_dev;

/*
 * A queue's doorbell: storing `queue` at `reg` tells the device that
 * queue has new buffers.  `wide` is the store's width: 32 bits (MMIO's
 * QueueNotify register takes no narrower access) or 16 (PCI's notify
 * area, where a wider store could reach the next queue's doorbell).
 * virtio_notify adds no barrier: the store must come after the ring's
 * avail index is published, which virtq_kick_needed's full fence
 * orders for a device that a hypervisor emulates (drivers/virtq.c).
 */
struct virtio_notify {
    volatile void *reg;
    uint16_t queue;
    bool wide;
};

static inline void virtio_notify(const struct virtio_notify *n)
{
    if (n->wide)
        *(volatile uint32_t *)n->reg = n->queue;
    else
        *(volatile uint16_t *)n->reg = n->queue;
}

/* What queue set-up hands the device: the ring's size and physical
   addresses (virtq.h's desc_pa, avail_pa, used_pa), and on PCI the
   MSI-X vector of its interrupts (VIRTIO_NO_VECTOR: none; transports
   without vectors take only that). */
struct virtio_queue_cfg {
    uint16_t index, size;
    uint64_t desc, driver, device;
    uint16_t vector;
};

/* A transport's operations; every one from set-up or a slow path. */
struct virtio_transport {
    uint8_t (*get_status)(struct virtio_dev *v);
    void (*set_status)(struct virtio_dev *v, uint8_t s);
    uint64_t (*device_features)(struct virtio_dev *v);
    void (*driver_features)(struct virtio_dev *v, uint64_t f);
    /* The largest size queue idx may have; 0 if there is no such queue
       or it is in use already. */
    uint16_t (*queue_max)(struct virtio_dev *v, uint16_t idx);
    /* Programs and enables the queue, and fills *n with its doorbell;
       false if the device refused it (the reason in why). */
    bool (*queue_setup)(struct virtio_dev *v, const struct virtio_queue_cfg *c,
                        struct virtio_notify *n, const char **why);
    uint32_t (*config_generation)(struct virtio_dev *v);
    /* Reads the interrupt's cause (VIRTIO_INTR_*) and acknowledges it, so
       that a level-triggered line drops. */
    uint32_t (*intr_cause)(struct virtio_dev *v);
};

struct virtio_dev {
    const struct virtio_transport *t;
    char name[24];              /* for messages: "00:02.0", "mmio@0xa003e00" */
    volatile uint8_t *devcfg;   /* device-specific configuration; NULL: none */
    uint32_t devcfg_len;
    uint64_t features;          /* negotiated */
    union {
        struct {                /* virtio_pci.c */
            struct pci_dev *dev;
            volatile uint8_t *common;   /* struct virtio_pci_common_cfg */
            volatile uint8_t *notify;   /* notification area */
            uint32_t notify_len;        /* bytes mapped at notify */
            uint32_t notify_mult;       /* notify_off_multiplier */
            volatile uint8_t *isr;      /* read to learn and clear the cause */
        } pci;
        struct {                /* virtio_mmio.c */
            volatile uint8_t *regs;
            uint32_t device_id;
        } mmio;
    };
};

/*
 * Accepts the features in `wanted` that the device offers, VERSION_1
 * always, and checks that the device agrees (FEATURES_OK).  Returns
 * false, with the device marked FAILED and the reason printed, if it
 * does not.  After the transport's open.
 */
bool virtio_negotiate(struct virtio_dev *v, uint64_t wanted);

/* The largest size queue idx may have; 0 if there is no such queue. */
static inline uint16_t virtio_queue_max(struct virtio_dev *v, uint16_t idx)
{
    return v->t->queue_max(v, idx);
}

/*
 * Gives queue c->index its size, ring addresses and vector, enables it,
 * and fills *n with its doorbell.  False, with the reason printed, if
 * the device refused.
 */
bool virtio_queue_setup(struct virtio_dev *v, const struct virtio_queue_cfg *c,
                        struct virtio_notify *n);

/*
 * Copies len bytes of the device-specific configuration at off into buf,
 * each field with one access of its own width (len 1, 2, 4; 8 as two
 * 4-byte halves, low first; anything else byte by byte), and again until
 * the configuration generation is the same before and after, so that a
 * field the device changes meanwhile is never read torn (§2.5.1).  False
 * (buf untouched) if [off, off + len) is outside the configuration.
 */
bool virtio_config_read(struct virtio_dev *v, uint32_t off, void *buf,
                        uint32_t len);

/* A little-endian 16-bit field of the configuration; 0 if out of it. */
uint16_t virtio_config16(struct virtio_dev *v, uint32_t off);

/* Sets DRIVER_OK: the device may use its queues from now on. */
void virtio_ready(struct virtio_dev *v);

/* Marks the device FAILED (it gives up on us) and prints why. */
void virtio_fail(struct virtio_dev *v, const char *why);

static inline uint8_t virtio_status(struct virtio_dev *v)
{
    return v->t->get_status(v);
}

/* Reads and acknowledges the interrupt's cause: VIRTIO_INTR_QUEUE,
   VIRTIO_INTR_CONFIG, or 0 (the interrupt was another device's). */
static inline uint32_t virtio_intr_cause(struct virtio_dev *v)
{
    return v->t->intr_cause(v);
}

/*
 * The transports' common start: resets the device (status 0, then waits
 * until the device reads back 0), then sets ACKNOWLEDGE and DRIVER.
 * Returns 0, or -1 with the reason printed.  For virtio_pci.c and
 * virtio_mmio.c, once they have filled v->t and v->name.
 */
int virtio_reset(struct virtio_dev *v);

#endif
