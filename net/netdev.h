/*
 * netdev.h - what the stack needs of a NIC: frames in, frames out, an
 * interrupt when frames arrive.  The virtio-net driver is one
 * (drivers/virtio_net.c); the hosted build's TAP device is another
 * (arch/hosted/tap.c).  A table of functions, as there can be several
 * kinds of NIC in one image.
 *
 * A device has nqueues RX/TX queue pairs (1 unless it is multiqueue).
 * Every operation on queue q but link_up is called under the lock of
 * the stack that receives or sends on q (net/netimpl.h), so a
 * device's queue needs no lock of its own; report, under every stack's.  The device's interrupt for
 * queue q calls the irq_fn its probe was given as irq_fn(arg, q), on
 * core q where the platform can aim it (queue q belongs to core q, and
 * a device offers at most ncpu queues), else on the boot core.
 */
#ifndef NET_NETDEV_H
#define NET_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETDEV_FRAME_MAX  1514      /* Ethernet frame without FCS */
#define NETDEV_FRAME_MIN  14        /* an Ethernet header */

#define RSS_KEY_LEN     40      /* bytes: enough for IPv6 with ports */

/* The key a device that steers by RSS hashes with (the RSS
   specification's example key, which spreads flows well; secrecy is not
   the point for a unikernel).  The stack picks ports by the same key
   (net/rss.h). */
extern const uint8_t rss_key[RSS_KEY_LEN];

struct netdev;

struct netdev_ops {
    /* Hands each frame received on queue q (at most budget) to
       deliver(arg, frame, len), valid during the call only; returns how
       many it delivered. */
    int (*rx)(struct netdev *d, int q, int budget,
              void (*deliver)(void *arg, const uint8_t *frame,
                              uint32_t len), void *arg);
    /* Re-enables queue q's receive interrupt once rx found nothing more;
       true if frames came meanwhile (call rx again: no interrupt will). */
    bool (*rx_arm)(struct netdev *d, int q);
    /* A buffer of NETDEV_FRAME_MAX bytes to build a frame for queue q
       in, NULL if none is free; tx_send sends its first len bytes. */
    uint8_t *(*tx_buf)(struct netdev *d, int q);
    void (*tx_send)(struct netdev *d, int q, uint8_t *buf, uint32_t len);
    /* Optional; under the lock of the stack that sends on TX queue q,
       every lwIP timer tick: notifies the device again if the queue's
       sent frames sit unread since the last call (a lost notification
       would stall it for good). */
    void (*tx_watchdog)(struct netdev *d, int q);
    bool (*link_up)(struct netdev *d);
    /* Its counters for a person (frames, bytes, drops), as snprintf. */
    int (*report)(struct netdev *d, char *buf, size_t len);
};

struct netdev {
    const struct netdev_ops *ops;
    char name[40];              /* "virtio-net at 00:02.0" */
    const char *irq;            /* "MSI-X", "INTx", "polled", ... */
    uint8_t mac[6];
    int nqueues;                /* RX/TX pairs, 1..ncpu */
    /* Receive-side scaling, when the device steers by it: a received
       IPv4 TCP packet goes to queue rss_table[hash % rss_entries]
       (net/rss.h's hash under rss_key), anything else to queue 0.
       NULL otherwise. */
    const uint16_t *rss_table;
    uint32_t rss_entries;
};

#endif
