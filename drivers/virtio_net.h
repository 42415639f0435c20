/*
 * virtio_net.h - the virtio network device (virtio 1.2 §5.1) as queue
 * objects a network stack drives: receive frames from a queue, send
 * frames on it, and an interrupt when frames arrive.
 *
 * A queue (one RX/TX pair) is used under its owner's lock: every call
 * taking a struct vnet_queue is serialized by the caller (the network
 * stack's lock).  Counters are written under that lock and may be read
 * without it.
 */
#ifndef DRIVERS_VIRTIO_NET_H
#define DRIVERS_VIRTIO_NET_H

#include <stdbool.h>
#include <stdint.h>
#include "drivers/virtio.h"
#include "drivers/virtq.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"
#include "net/netdev.h"

#define VNET_FRAME_MAX  NETDEV_FRAME_MAX
#define VNET_FRAME_MIN  NETDEV_FRAME_MIN
#define VNET_RSS_TABLE_MAX 128      /* indirection entries Spindle uses */

struct vnet_stats {
    uint64_t rx_frames, rx_bytes;
    uint64_t rx_runt;               /* shorter than a header: dropped */
    uint64_t rx_oversize;           /* longer than a frame: dropped */
    uint64_t tx_frames, tx_bytes;
    uint64_t tx_full;               /* no TX buffer free: dropped */
    uint64_t tx_rekick;             /* the TX watchdog rang again */
    uint64_t tx_oversize;           /* asked to send more than a frame */
    uint64_t bad_device;            /* impossible used ids or lengths */
};

struct vnet_queue {
    _Alignas(64) struct virtio_net *nic;
    uint16_t index;                 /* pair index: RX 2i, TX 2i + 1 */
    int irq;                        /* its RX interrupt (MSI-X), or -1 */
    struct virtq rx, tx;
    struct virtio_notify rx_kick, tx_kick;  /* the queues' doorbells */
    uint8_t *rxbufs, *txbufs;       /* a buffer per descriptor */
    uint16_t *txfree;               /* stack of free TX buffer numbers */
    uint16_t ntxfree;
    struct vnet_stats st;
    struct fault_link fl;           /* link faults (kernel/faultinject.h) */
};

/* The control queue (multiqueue only): commands sent one at a time, at
   set-up, waiting for the device's answer. */
struct vnet_ctrl {
    struct virtq vq;
    struct virtio_notify kick;
    uint16_t index;                 /* 2 * the device's max pairs */
    uint8_t *buf;                   /* a page: the command, its ack at */
    uint64_t buf_pa;                /* the middle; and its address */
};

struct virtio_net {
    struct netdev nd;               /* first: what the stack sees */
    struct virtio_dev dev;
    bool has_status;                /* link status is reported */
    int irq;                        /* the device's one interrupt line (PCI
                                       INTx, MMIO), -1 if none or MSI-X */
    void (*irq_fn)(void *, int);    /* vnet_probe's handler and its arg */
    void *irq_arg;
    bool msix;                      /* a vector per RX queue, else a line */
    int nqueues;                    /* pairs in use: q[0 .. nqueues) */
    uint16_t max_pairs;             /* the device's */
    struct vnet_ctrl ctrl;
    uint16_t rss_table[VNET_RSS_TABLE_MAX];
    struct vnet_queue q[MAXCPU];
};

/*
 * Finds the first virtio-net device, on PCI, else on virtio-mmio, sets
 * it up with every RX buffer posted, and returns it as the stack's
 * netdev; NULL (with the reason printed) if there is none usable.  A
 * multiqueue device gets min(its pairs, ncpu, max_queues) pairs on PCI
 * where the platform has MSI-X (a vector per RX queue, aimed at the
 * queue's core), and on virtio-mmio (its one interrupt line, on the boot
 * core, serves queue 0 and sends the other queues' cores an IPI), with
 * receive-side scaling where the device has it; otherwise one pair.
 * irq_fn(arg, queue) is called when frames arrive (over virtio-mmio for
 * queue 0 only), with interrupts off and the device's interrupt already
 * quieted (see kernel/irq.h).  From the boot path or a G, once.
 */
struct netdev *vnet_probe(void (*irq_fn)(void *, int), void *arg,
                          int max_queues);

/* True if the link is up (always, where the device does not say). */
bool vnet_link_up(struct virtio_net *n);

/*
 * Hands each received frame (at most budget) to deliver(arg, frame, len)
 * and gives its buffer back to the device; the frame is valid only during
 * the call.  Runts, oversize frames and impossible lengths are dropped and
 * counted.  Returns how many frames were delivered.
 */
int vnet_rx(struct vnet_queue *q, int budget,
            void (*deliver)(void *arg, const uint8_t *frame, uint32_t len),
            void *arg);

/*
 * A buffer to build one outgoing frame in (VNET_FRAME_MAX bytes), or NULL
 * if every TX buffer is with the device.  Pass it to vnet_tx_send next.
 */
uint8_t *vnet_tx_buf(struct vnet_queue *q);

/* Sends the first len bytes of buf, from vnet_tx_buf. */
void vnet_tx_send(struct vnet_queue *q, uint8_t *buf, uint32_t len);

/*
 * Re-enables the RX interrupt once the caller has drained the queue;
 * true if frames arrived meanwhile (poll again: no interrupt will say so).
 */
bool vnet_rx_arm(struct vnet_queue *q);

/* Device status and errors, for messages: "ok", or what is wrong. */
const char *vnet_health(struct virtio_net *n);

#endif
