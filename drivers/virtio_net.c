/*
 * virtio_net.c - the virtio-net driver (see virtio_net.h).
 *
 * Every buffer is one descriptor of VNET_BUF bytes: the 12-byte
 * virtio_net_hdr (VERSION_1 always has num_buffers) and a whole frame,
 * since no segmentation offload is negotiated.  RX buffers are posted at
 * start-up and each one is posted again as soon as its frame was
 * delivered, so the ring stays full; the device is notified once per
 * batch.  TX buffers are taken from a free stack and come back lazily,
 * when a sender finds the stack empty, so sending costs no interrupt.
 *
 * The device is not trusted: lengths come through virtq_get, which
 * bounds them by what was posted, and a frame shorter than a header or
 * longer than a frame is dropped and counted.
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "cpu.h"
#include "irq.h"
#include "mem.h"
#include "printk.h"
#include "virtio_net.h"

#define VIRTIO_NET_DEVICE_LO    0x1000      /* transitional */
#define VIRTIO_NET_DEVICE_HI    0x1041      /* modern: 0x1040 + 1 */
#define F_MAC                   (1ULL << 5)
#define F_STATUS                (1ULL << 16)
#define S_LINK_UP               1

#define HDR_LEN     12          /* struct virtio_net_hdr, VERSION_1 */
#define VNET_BUF    2048        /* header + frame, a power of two */
#define QSIZE_MAX   256

static struct virtio_net nic;   /* one device for now */

static uint64_t pages_for(size_t bytes)
{
    return mem_alloc_pages((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
}

static uint8_t *rxbuf(struct vnet_queue *q, uint16_t i)
{
    return q->rxbufs + (size_t)i * VNET_BUF;
}

static uint8_t *txbuf(struct vnet_queue *q, uint16_t i)
{
    return q->txbufs + (size_t)i * VNET_BUF;
}

/* RX buffers are named by their cookie: number + 1 (cookies are not 0). */
static void rx_post(struct vnet_queue *q, uint16_t i)
{
    struct virtq_buf b = { (uintptr_t)rxbuf(q, i), VNET_BUF };

    virtq_add(&q->rx, &b, 0, 1, (void *)(uintptr_t)(i + 1));
}

static void notify(struct virtq *vq, volatile uint16_t *reg, uint16_t idx)
{
    virtq_publish(vq);
    if (virtq_kick_needed(vq))
        *reg = idx;
}

/* Rings and buffers of queue idx; false if the device refuses it. */
static bool setup_vq(struct virtio_net *n, struct virtq *vq, uint16_t idx,
                     uint16_t vector, volatile uint16_t **reg, uint8_t **bufs)
{
    uint16_t size = virtio_queue_max(&n->dev, idx);
    uint64_t mem, slots;

    if (size > QSIZE_MAX)
        size = QSIZE_MAX;
    if (size == 0 || (size & (size - 1)))
        return false;
    mem = pages_for(virtq_mem_size(size));
    slots = pages_for(size * sizeof(struct virtq_slot));
    *bufs = phys_to_virt(pages_for((size_t)size * VNET_BUF));
    if (!mem || !slots || !*bufs)
        return false;
    virtq_init(vq, size, phys_to_virt(mem), mem, phys_to_virt(slots),
               n->dev.features & VIRTIO_F_RING_EVENT_IDX);
    *reg = virtio_queue_setup(&n->dev, idx, size, vq->desc_pa, vq->avail_pa,
                              vq->used_pa, vector);
    return *reg != NULL;
}

static bool setup_queue(struct virtio_net *n, struct vnet_queue *q, int i,
                        uint16_t rxvec)
{
    q->nic = n;
    q->index = i;
    if (!setup_vq(n, &q->rx, 2 * i, rxvec, &q->rx_notify, &q->rxbufs) ||
        !setup_vq(n, &q->tx, 2 * i + 1, VIRTIO_NO_VECTOR, &q->tx_notify,
                  &q->txbufs))
        return false;
    q->txfree = phys_to_virt(pages_for(q->tx.size * sizeof(uint16_t)));
    if (!q->txfree)
        return false;
    for (uint16_t b = 0; b < q->tx.size; b++)
        q->txfree[q->ntxfree++] = b;
    virtq_disable_intr(&q->tx);
    for (uint16_t b = 0; b < q->rx.size; b++)
        rx_post(q, b);
    return true;
}

/* The device's interrupt: quiet it (INTx is level-triggered), then
   tell the driver's user. */
static void vnet_irq(void *arg)
{
    struct virtio_net *n = arg;

    if (!n->msix)
        (void)virtio_isr(&n->dev);
    n->irq_fn(n->irq_arg);
}

/* MSI-X vector 0 for the RX queue when the platform has MSI, else the
   INTx pin; false if neither can be had (the driver then polls). */
static bool setup_irq(struct virtio_net *n, struct pci_dev *d)
{
    uint64_t addr;
    uint32_t data;

    n->irq = irq_alloc(vnet_irq, n);
    if (n->irq < 0)
        return false;
    /* MSI-X on only where the platform can take it: with MSI-X on, the
       device raises no INTx. */
    if (arch_msi_message(n->irq, cpus[0], &addr, &data) &&
        pci_msix_enable(d) && pci_msix_route(d, 0, n->irq, cpus[0]) &&
        virtio_config_vector(&n->dev, VIRTIO_NO_VECTOR)) {
        n->msix = true;
        return true;
    }
    return d->irq_pin && arch_pci_intx(d->bus, d->dev, d->irq_pin, n->irq);
}

static const struct netdev_ops vnet_ops;

struct netdev *vnet_probe(void (*irq_fn)(void *), void *arg)
{
    struct pci_dev *d = pci_find(VIRTIO_VENDOR, VIRTIO_NET_DEVICE_LO,
                                 VIRTIO_NET_DEVICE_HI, NULL);
    struct virtio_net *n = &nic;
    char nm[12];

    /* Transitional ids 0x1000-0x103F name other devices than 0x1000. */
    while (d && d->device != VIRTIO_NET_DEVICE_LO &&
           d->device != VIRTIO_NET_DEVICE_HI)
        d = pci_find(VIRTIO_VENDOR, VIRTIO_NET_DEVICE_LO,
                     VIRTIO_NET_DEVICE_HI, d);
    if (!d)
        return NULL;
    pci_claim(d);
    n->irq = -1;
    n->irq_fn = irq_fn;
    n->irq_arg = arg;
    if (virtio_pci_open(&n->dev, d) < 0 ||
        !virtio_negotiate(&n->dev, F_MAC | F_STATUS | VIRTIO_F_RING_EVENT_IDX))
        return NULL;
    if (!setup_irq(n, d))
        printk("virtio-net: %s: no interrupt; frames wait for a poll\n",
               pci_name(d, nm));
    if (!setup_queue(n, &n->q[0], 0, n->msix ? 0 : VIRTIO_NO_VECTOR)) {
        virtio_fail(&n->dev, "cannot set up queue pair 0");
        return NULL;
    }
    n->nqueues = 1;
    n->has_status = n->dev.features & F_STATUS && n->dev.devcfg_len >= 8;
    if (n->dev.features & F_MAC && n->dev.devcfg_len >= 6)
        for (int i = 0; i < 6; i++)
            n->nd.mac[i] = n->dev.devcfg[i];
    else                        /* a locally administered address */
        memcpy(n->nd.mac, (uint8_t[]){ 0x02, 0x53, 0x50, 0x4E, 0x00, 0x01 },
               6);
    n->nd.ops = &vnet_ops;
    n->nd.irq = n->msix ? "MSI-X" : n->irq >= 0 ? "INTx" : "polled";
    snprintf(n->nd.name, sizeof n->nd.name, "virtio-net at %s",
             pci_name(d, nm));
    virtio_ready(&n->dev);
    notify(&n->q[0].rx, n->q[0].rx_notify, 0);
    return &n->nd;
}

bool vnet_link_up(struct virtio_net *n)
{
    return !n->has_status ||
           (*(volatile uint16_t *)(n->dev.devcfg + 6) & S_LINK_UP);
}

int vnet_rx(struct vnet_queue *q, int budget,
            void (*deliver)(void *arg, const uint8_t *frame, uint32_t len),
            void *arg)
{
    uint32_t bad = virtq_nbad(&q->rx), len;
    int got = 0, seen = 0;
    void *c;

    while (seen < budget && (c = virtq_get(&q->rx, &len))) {
        uint16_t i = (uint16_t)((uintptr_t)c - 1);

        seen++;
        if (len < HDR_LEN + VNET_FRAME_MIN) {
            q->st.rx_runt++;
        } else if (len > HDR_LEN + VNET_FRAME_MAX) {
            q->st.rx_oversize++;
        } else {
            q->st.rx_frames++;
            q->st.rx_bytes += len - HDR_LEN;
            deliver(arg, rxbuf(q, i) + HDR_LEN, len - HDR_LEN);
            got++;
        }
        rx_post(q, i);
    }
    q->st.bad_device += virtq_nbad(&q->rx) - bad;
    if (seen)
        notify(&q->rx, q->rx_notify, 2 * q->index);
    return got;
}

bool vnet_rx_arm(struct vnet_queue *q)
{
    return virtq_enable_intr_check(&q->rx);
}

static void tx_reclaim(struct vnet_queue *q)
{
    uint32_t bad = virtq_nbad(&q->tx);
    void *c;

    while ((c = virtq_get(&q->tx, NULL)))
        q->txfree[q->ntxfree++] = (uint16_t)((uintptr_t)c - 1);
    q->st.bad_device += virtq_nbad(&q->tx) - bad;
}

uint8_t *vnet_tx_buf(struct vnet_queue *q)
{
    if (q->ntxfree == 0)
        tx_reclaim(q);
    if (q->ntxfree == 0) {
        /* Every buffer is with the device: ring its doorbell even if it
           said it needs no kick, so a device that is merely behind and
           one that missed a notification both get on with it. */
        *q->tx_notify = 2 * q->index + 1;
        q->st.tx_full++;
        return NULL;
    }
    return txbuf(q, q->txfree[q->ntxfree - 1]) + HDR_LEN;
}

void vnet_tx_send(struct vnet_queue *q, uint8_t *buf, uint32_t len)
{
    uint16_t i = q->txfree[--q->ntxfree];
    struct virtq_buf b = { (uintptr_t)txbuf(q, i), HDR_LEN + len };

    if (buf != txbuf(q, i) + HDR_LEN || len > VNET_FRAME_MAX) {
        q->ntxfree++;
        q->st.tx_oversize += len > VNET_FRAME_MAX;
        return;
    }
    memset(txbuf(q, i), 0, HDR_LEN);
    if (virtq_add(&q->tx, &b, 1, 0, (void *)(uintptr_t)(i + 1)) < 0) {
        q->ntxfree++;
        q->st.tx_full++;
        return;
    }
    q->st.tx_frames++;
    q->st.tx_bytes += len;
    notify(&q->tx, q->tx_notify, 2 * q->index + 1);
}

const char *vnet_health(struct virtio_net *n)
{
    uint8_t s = virtio_status(&n->dev);

    if (s & VIRTIO_S_FAILED)
        return "failed";
    if (s & VIRTIO_S_NEEDS_RESET)
        return "the device needs a reset";
    if (virtq_is_broken(&n->q[0].rx))
        return n->q[0].rx.broken;
    if (virtq_is_broken(&n->q[0].tx))
        return n->q[0].tx.broken;
    return "ok";
}

/* ---- The stack's view: queue pair 0 ---------------------------------- */

static struct vnet_queue *q0(struct netdev *d)
{
    return &((struct virtio_net *)d)->q[0];
}

static int nd_rx(struct netdev *d, int budget,
                 void (*deliver)(void *, const uint8_t *, uint32_t),
                 void *arg)
{
    return vnet_rx(q0(d), budget, deliver, arg);
}

static bool nd_rx_arm(struct netdev *d)
{
    return vnet_rx_arm(q0(d));
}

static uint8_t *nd_tx_buf(struct netdev *d)
{
    return vnet_tx_buf(q0(d));
}

static void nd_tx_send(struct netdev *d, uint8_t *buf, uint32_t len)
{
    vnet_tx_send(q0(d), buf, len);
}

static bool nd_link_up(struct netdev *d)
{
    return vnet_link_up((struct virtio_net *)d);
}

/* One ring's indices as the driver and the device left them: what a
   stalled transfer is read from.  The device's fields are read once. */
static int ring_report(const char *name, const struct virtq *q, char *buf,
                       size_t len)
{
    return snprintf(buf, len,
        "\nnet: %s ring: published %u, device used %u, driver took %u, "
        "in flight %u, used_event %u, avail_event %u, interrupts %s", name,
        q->avail_pub, __atomic_load_n(&q->used->idx, __ATOMIC_RELAXED),
        q->last_used, virtq_inflight(q),
        __atomic_load_n(q->used_event, __ATOMIC_RELAXED),
        __atomic_load_n(q->avail_event, __ATOMIC_RELAXED),
        q->intr_on ? "on" : "off");
}

static void nd_tx_watchdog(struct netdev *d)
{
    struct vnet_queue *q = q0(d);

    if (virtq_stalled(&q->tx)) {
        *q->tx_notify = 2 * q->index + 1;
        q->st.tx_rekick++;
    }
}

static int nd_report(struct netdev *d, char *buf, size_t len)
{
    const struct vnet_queue *q = q0(d);
    const struct vnet_stats *st = &q->st;
    int n;

    n = snprintf(buf, len,
        "net: rx %llu frames %llu bytes, tx %llu frames %llu bytes\n"
        "net: dropped: runt %llu oversize %llu tx-full %llu bad-device %llu "
        "(device %s); TX notified again %llu times",
        (unsigned long long)st->rx_frames, (unsigned long long)st->rx_bytes,
        (unsigned long long)st->tx_frames, (unsigned long long)st->tx_bytes,
        (unsigned long long)st->rx_runt, (unsigned long long)st->rx_oversize,
        (unsigned long long)st->tx_full, (unsigned long long)st->bad_device,
        vnet_health((struct virtio_net *)d), (unsigned long long)st->tx_rekick);
    if (n >= 0 && (size_t)n < len)
        n += ring_report("rx", &q->rx, buf + n, len - n);
    if (n >= 0 && (size_t)n < len)
        n += ring_report("tx", &q->tx, buf + n, len - n);
    return n;
}

static const struct netdev_ops vnet_ops = {
    .rx = nd_rx, .rx_arm = nd_rx_arm, .tx_buf = nd_tx_buf,
    .tx_send = nd_tx_send, .tx_watchdog = nd_tx_watchdog, .link_up = nd_link_up,
    .report = nd_report,
};
