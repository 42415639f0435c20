/*
 * netdev.h - what the stack needs of a NIC: frames in, frames out, an
 * interrupt when frames arrive.  The virtio-net driver is one
 * (drivers/virtio_net.c); the hosted build's TAP device is another
 * (arch/hosted/tap.c).  A table of functions, as there can be several
 * kinds of NIC in one image.
 *
 * Every operation but link_up is called under the stack lock, so a
 * device's queue needs no lock of its own.
 */
#ifndef KERNEL_NET_NETDEV_H
#define KERNEL_NET_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETDEV_FRAME_MAX  1514      /* Ethernet frame without FCS */
#define NETDEV_FRAME_MIN  14        /* an Ethernet header */

struct netdev;

struct netdev_ops {
    /* Hands each received frame (at most budget) to deliver(arg, frame,
       len), valid during the call only; returns how many it delivered. */
    int (*rx)(struct netdev *d, int budget,
              void (*deliver)(void *arg, const uint8_t *frame,
                              uint32_t len), void *arg);
    /* Re-enables the receive interrupt once rx found nothing more; true
       if frames came meanwhile (call rx again: no interrupt will). */
    bool (*rx_arm)(struct netdev *d);
    /* A buffer of NETDEV_FRAME_MAX bytes to build a frame in, NULL if
       none is free; tx_send sends its first len bytes. */
    uint8_t *(*tx_buf)(struct netdev *d);
    void (*tx_send)(struct netdev *d, uint8_t *buf, uint32_t len);
    /* Optional; under the stack lock, every lwIP timer tick: notifies the
       device again if sent frames sit unread since the last call (a lost
       notification would stall transmission for good). */
    void (*tx_watchdog)(struct netdev *d);
    bool (*link_up)(struct netdev *d);
    /* Its counters for a person (frames, bytes, drops), as snprintf. */
    int (*report)(struct netdev *d, char *buf, size_t len);
};

struct netdev {
    const struct netdev_ops *ops;
    char name[32];              /* "virtio-net at 00:02.0" */
    const char *irq;            /* "MSI-X", "INTx", "polled", ... */
    uint8_t mac[6];
};

#endif
