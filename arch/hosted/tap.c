/*
 * tap.c - the hosted build's NIC: a Linux TAP device, named by tap= on
 * the kernel command line (the process must run where that device is,
 * e.g. in a network namespace the test made; see tools/run/hosted.sh).
 *
 * The stack reads and writes frames on the TAP's file descriptor without
 * blocking, under its stack lock, from whatever core polls.  The receive
 * interrupt comes from a host thread of the device's own (the watcher):
 * once the stack re-arms the interrupt (rx_arm, an eventfd write), the
 * watcher waits until the TAP is readable and raises the device
 * interrupt on core 0 (hosted_raise), as a NIC's MSI would; it then
 * waits to be armed again, so a burst of frames costs one interrupt.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/irq.h"
#include "kernel/printk.h"
#include "net/netdev.h"

struct tap {
    struct netdev nd;
    int fd;                     /* the TAP, non-blocking */
    int ev;                     /* eventfd: the stack armed the watcher */
    int irq;
    void (*irq_fn)(void *, int);    /* the probe's handler and its arg */
    void *irq_arg;
    /* Under the stack lock: */
    uint8_t rxbuf[65536];       /* larger than a frame, to see oversize */
    uint8_t txbuf[NETDEV_FRAME_MAX];
    uint64_t rx_frames, rx_bytes, rx_runt, rx_oversize;
    uint64_t tx_frames, tx_bytes, tx_full;
};

static struct tap tap;

static void *watch(void *arg)
{
    struct tap *t = arg;
    sigset_t all;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);     /* not a core */
    for (;;) {
        struct pollfd p = { .fd = t->fd, .events = POLLIN };
        uint64_t n;

        if (read(t->ev, &n, sizeof n) < 0 && errno != EINTR)
            return NULL;
        while (poll(&p, 1, -1) < 0 && errno == EINTR)
            ;
        hosted_raise(cpus[0], t->irq);
    }
}

static int tap_rx(struct netdev *d, int q, int budget,
                  void (*deliver)(void *, const uint8_t *, uint32_t),
                  void *arg)
{
    struct tap *t = (struct tap *)d;
    int got = 0;

    for (int i = 0; i < budget; i++) {
        ssize_t n = read(t->fd, t->rxbuf, sizeof t->rxbuf);

        if (n < 0)
            break;              /* EAGAIN: drained */
        if (n < NETDEV_FRAME_MIN) {
            t->rx_runt++;
        } else if (n > NETDEV_FRAME_MAX) {
            t->rx_oversize++;
        } else {
            t->rx_frames++;
            t->rx_bytes += n;
            deliver(arg, t->rxbuf, (uint32_t)n);
            got++;
        }
    }
    return got;
}

static bool tap_rx_arm(struct netdev *d, int q)
{
    struct tap *t = (struct tap *)d;
    struct pollfd p = { .fd = t->fd, .events = POLLIN };
    uint64_t one = 1;

    if (poll(&p, 1, 0) > 0)
        return true;
    if (write(t->ev, &one, sizeof one) < 0)
        printk("tap: cannot arm the receive interrupt (errno %d)\n", errno);
    return false;
}

static uint8_t *tap_tx_buf(struct netdev *d, int q)
{
    return ((struct tap *)d)->txbuf;
}

static void tap_tx_send(struct netdev *d, int q, uint8_t *buf, uint32_t len)
{
    struct tap *t = (struct tap *)d;

    if (write(t->fd, buf, len) != (ssize_t)len) {
        t->tx_full++;           /* the TAP's queue is full: dropped */
        return;
    }
    t->tx_frames++;
    t->tx_bytes += len;
}

static bool tap_link_up(struct netdev *d)
{
    return true;
}

static int tap_report(struct netdev *d, char *buf, size_t len)
{
    struct tap *t = (struct tap *)d;

    return snprintf(buf, len,
        "net: rx %llu frames %llu bytes, tx %llu frames %llu bytes\n"
        "net: dropped: runt %llu oversize %llu tx-full %llu",
        (unsigned long long)t->rx_frames, (unsigned long long)t->rx_bytes,
        (unsigned long long)t->tx_frames, (unsigned long long)t->tx_bytes,
        (unsigned long long)t->rx_runt, (unsigned long long)t->rx_oversize,
        (unsigned long long)t->tx_full);
}

static const struct netdev_ops tap_ops = {
    .rx = tap_rx, .rx_arm = tap_rx_arm, .tx_buf = tap_tx_buf,
    .tx_send = tap_tx_send, .link_up = tap_link_up, .report = tap_report,
};

/* The host thread's interrupt: frames on the one queue. */
static void tap_irq(void *arg)
{
    struct tap *t = arg;

    t->irq_fn(t->irq_arg, 0);
}

struct netdev *arch_netdev_probe(void (*irq_fn)(void *, int), void *arg)
{
    struct tap *t = &tap;
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
    const char *name;
    pthread_t th;

    if (!cmdline_get("tap", &name))
        return NULL;
    if (strlen(name) >= IFNAMSIZ) {
        printk("tap: tap=%s: the name is too long\n", name);
        return NULL;
    }
    strcpy(ifr.ifr_name, name);
    t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (t->fd < 0 || ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
        printk("tap: cannot attach to %s (errno %d: %s); no NIC\n", name,
               errno, strerror(errno));
        if (t->fd >= 0)
            close(t->fd);
        return NULL;
    }
    t->ev = eventfd(0, EFD_CLOEXEC);
    t->irq_fn = irq_fn;
    t->irq_arg = arg;
    t->irq = irq_alloc(tap_irq, t);
    if (t->ev < 0 || t->irq < 0 || pthread_create(&th, NULL, watch, t)) {
        printk("tap: cannot start the receive interrupt; no NIC\n");
        close(t->fd);
        return NULL;
    }
    pthread_detach(th);
    t->nd.ops = &tap_ops;
    t->nd.nqueues = 1;
    t->nd.irq = "interrupt from a host thread";
    snprintf(t->nd.name, sizeof t->nd.name, "tap %s", name);
    memcpy(t->nd.mac, (uint8_t[]){ 0x02, 0x53, 0x50, 0x4E, 0x00, 0x02 }, 6);
    return &t->nd;
}
