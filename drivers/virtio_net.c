/*
 * virtio_net.c - the virtio-net driver (see virtio_net.h).
 *
 * Every buffer is one descriptor of VNET_BUF bytes: the 12-byte
 * virtio_net_hdr (VERSION_1 always has num_buffers) and a whole frame,
 * since no segmentation offload is negotiated.  RX buffers are posted at
 * start-up (the ring's size, or rxbufs= of them) and each one is posted
 * again as soon as its frame was delivered, so the ring stays full; the
 * device is notified once per batch, when it asked (rx_kick_others says
 * why the other RX queues are then notified too).  TX buffers are taken
 * from a free stack and come back lazily, when a sender finds the stack
 * empty, so sending costs no interrupt.
 *
 * The device is not trusted: lengths come through virtq_get, which
 * bounds them by what was posted, and a frame shorter than a header or
 * longer than a frame is dropped and counted.
 *
 * Link faults (fault=rxdrop:..., kernel/faultinject.h) sit here, where a
 * frame is a buffer of the queue's: a frame received is delivered or not,
 * twice, or later, and one sent is put on the ring or not, twice, or
 * later.  A frame held back keeps its buffer (an RX buffer not posted
 * again, a TX buffer not on the ring) until it goes after the later
 * frames or its time ran out, which rx, tx and the TX watchdog look at.
 */
#include <stdio.h>
#include <string.h>
#include "arch/arch.h"
#include "drivers/virtio_mmio.h"
#include "drivers/virtio_net.h"
#include "drivers/virtio_pci.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"
#include "kernel/irq.h"
#include "kernel/mem.h"
#include "kernel/printk.h"

#define VIRTIO_NET_TRANSITIONAL 0x1000      /* PCI device id */
#define F_MAC                   (1ULL << 5)
#define F_STATUS                (1ULL << 16)
#define F_CTRL_VQ               (1ULL << 17)
#define F_MQ                    (1ULL << 22)
#define F_RSS                   (1ULL << 60)
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

/* Publishes what was added to vq and notifies the device if it asked:
   true if it did. */
static bool notify(struct virtq *vq, const struct virtio_notify *kick)
{
    virtq_publish(vq);
    if (!virtq_kick_needed(vq))
        return false;
    virtio_notify(kick);
    return true;
}

/* Rings and buffers of queue idx; false if the device refuses it. */
static bool setup_vq(struct virtio_net *n, struct virtq *vq, uint16_t idx,
                     uint16_t vector, struct virtio_notify *kick,
                     uint8_t **bufs)
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
    return virtio_queue_setup(&n->dev, &(struct virtio_queue_cfg){
        idx, size, vq->desc_pa, vq->avail_pa, vq->used_pa, vector }, kick);
}

/* RX buffers posted per queue (rxbufs=): 0 for all the ring holds. */
static uint16_t rx_wanted;

static void read_rxbufs(void)
{
    const char *raw;
    long v;

    switch (cmdline_long("rxbufs", 2, QSIZE_MAX, &v)) {
    case CMDLINE_ABSENT:
        return;
    case CMDLINE_OK:
        rx_wanted = (uint16_t)v;
        return;
    default:
        cmdline_get("rxbufs", &raw);
        printk("virtio-net: rxbufs=%s is not a buffer count (2..%d); "
               "filling the ring\n", raw, QSIZE_MAX);
    }
}

/* Queue pair i, whose nic and index setup_irqs filled in. */
static bool setup_queue(struct virtio_net *n, struct vnet_queue *q, int i,
                        uint16_t rxvec)
{
    uint16_t posted;

    if (!setup_vq(n, &q->rx, 2 * i, rxvec, &q->rx_kick, &q->rxbufs) ||
        !setup_vq(n, &q->tx, 2 * i + 1, VIRTIO_NO_VECTOR, &q->tx_kick,
                  &q->txbufs))
        return false;
    q->txfree = phys_to_virt(pages_for(q->tx.size * sizeof(uint16_t)));
    if (!q->txfree)
        return false;
    for (uint16_t b = 0; b < q->tx.size; b++)
        q->txfree[q->ntxfree++] = b;
    virtq_disable_intr(&q->tx);
    posted = rx_wanted && rx_wanted < q->rx.size ? rx_wanted : q->rx.size;
    for (uint16_t b = 0; b < posted; b++)
        rx_post(q, b);
    fault_link_init(&q->fl, i);
    return true;
}

/* An RX queue's MSI-X vector: tell the driver's user which queue has
   frames. */
static void vnet_msix_irq(void *arg)
{
    struct vnet_queue *q = arg;

    q->nic->irq_fn(q->nic->irq_arg, q->index);
}

/*
 * The device's one line (PCI INTx, MMIO), level-triggered, on the boot
 * core: read and acknowledge the cause, which drops the line, then do
 * what queue 0's vector would.  Queue q > 0 belongs to core q, which
 * alone polls it (sched/netpoll.c): a core that has frames waiting is
 * sent an IPI, and polls its queue before it halts again; a core busy
 * with a G polls at its next pass through the scheduler, or at the
 * latest from its timer once the queue went unpolled a netpoll period.
 * The look at the used index is a hint, read without the queue's lock:
 * a frame it misses is found by that poll.  nqueues is 0 until
 * vnet_probe is done: the stack's first poll of each queue
 * (netpoll_kick) covers an interrupt that came before.
 */
static void vnet_line_irq(void *arg)
{
    struct virtio_net *n = arg;
    int nq = __atomic_load_n(&n->nqueues, __ATOMIC_ACQUIRE);

    (void)virtio_intr_cause(&n->dev);
    if (nq > 0)
        n->irq_fn(n->irq_arg, 0);
    for (int i = 1; i < nq; i++) {
        const struct virtq *rx = &n->q[i].rx;

        if (__atomic_load_n(&rx->used->idx, __ATOMIC_RELAXED) !=
            __atomic_load_n(&rx->last_used, __ATOMIC_RELAXED))
            arch_send_ipi(cpus[i]);
    }
}

/*
 * MSI-X vectors 0 .. *nq - 1 for the RX queues, vector i aimed at core i,
 * when the platform has MSI; *nq shrinks to the vectors the device has
 * and the platform could route.  Else the INTx pin, and one queue pair
 * (its frames cannot be told apart by queue).  False if neither can be
 * had: the driver then polls one pair.
 */
static bool setup_pci_irqs(struct virtio_net *n, struct pci_dev *d, int *nq)
{
    uint64_t addr;
    uint32_t data;
    int i;

    if ((n->q[0].irq = irq_alloc(vnet_msix_irq, &n->q[0])) < 0) {
        *nq = 1;
        return false;
    }
    /* MSI-X on only where the platform can take it: with MSI-X on, the
       device raises no INTx. */
    if (arch_msi_message(pci_rid(d), 0, n->q[0].irq, cpus[0], &addr, &data) &&
        pci_msix_enable(d) &&
        virtio_pci_config_vector(&n->dev, VIRTIO_NO_VECTOR)) {
        if ((uint32_t)*nq > d->msix_n)
            *nq = (int)d->msix_n;
        for (i = 0; i < *nq; i++) {
            struct vnet_queue *q = &n->q[i];

            if ((q->irq < 0 && (q->irq = irq_alloc(vnet_msix_irq, q)) < 0) ||
                !pci_msix_route(d, (uint32_t)i, q->irq, cpus[i]))
                break;
        }
        if (i > 0) {
            *nq = i;
            n->msix = true;
            return true;
        }
    }
    /* The line's handler is not a vector's, so it takes a number of its
       own; vector 0's stays unused (numbers are never given back). */
    *nq = 1;
    n->q[0].irq = -1;
    if (d->irq_pin && (n->irq = irq_alloc(vnet_line_irq, n)) >= 0 &&
        arch_pci_intx(d->bus, d->dev, d->irq_pin, n->irq))
        return true;
    n->irq = -1;
    return false;
}

/*
 * A virtio-mmio device's interrupt line, routed to the boot core; every
 * queue pair shares it.  False if the platform cannot route it: the
 * driver then polls one pair.
 */
static bool setup_mmio_irq(struct virtio_net *n, uint32_t line, int *nq)
{
    if (line && (n->irq = irq_alloc(vnet_line_irq, n)) >= 0 &&
        arch_irq_line(line, n->irq))
        return true;
    n->irq = -1;
    *nq = 1;
    return false;
}

/* ---- The control queue ----------------------------------------------- */

#define CTRL_MQ             4       /* class */
#define CTRL_MQ_PAIRS_SET   0       /* le16 pairs */
#define CTRL_MQ_RSS_CONFIG  1       /* struct virtio_net_rss_config */
#define CTRL_OK             0       /* the ack byte */
#define CTRL_TIMEOUT_MS     1000

#define HASH_TCPV4  (1u << 1)

static bool setup_ctrl(struct virtio_net *n)
{
    struct vnet_ctrl *c = &n->ctrl;
    uint16_t size = virtio_queue_max(&n->dev, c->index);
    uint64_t mem, slots, page;

    if (size > 16)
        size = 16;
    if (size < 2 || (size & (size - 1)))
        return false;
    mem = pages_for(virtq_mem_size(size));
    slots = pages_for(size * sizeof(struct virtq_slot));
    page = pages_for(PAGE_SIZE);
    if (!mem || !slots || !page)
        return false;
    c->buf = phys_to_virt(page);
    c->buf_pa = page;
    virtq_init(&c->vq, size, phys_to_virt(mem), mem, phys_to_virt(slots),
               false);
    virtq_disable_intr(&c->vq);
    return virtio_queue_setup(&n->dev, &(struct virtio_queue_cfg){
        c->index, size, c->vq.desc_pa, c->vq.avail_pa, c->vq.used_pa,
        VIRTIO_NO_VECTOR }, &c->kick);
}

/*
 * Sends the command whose class, code and len bytes of data are at the
 * start of ctrl.buf and waits for the device's ack (set-up only, one at
 * a time).  False, with the reason printed, if the device refused it or
 * did not answer within CTRL_TIMEOUT_MS.
 */
static bool ctrl_send(struct virtio_net *n, const char *what, uint32_t len)
{
    struct vnet_ctrl *c = &n->ctrl;
    uint8_t *ack = c->buf + PAGE_SIZE / 2;
    struct virtq_buf b[2] = {
        { c->buf_pa, 2 + len },
        { c->buf_pa + PAGE_SIZE / 2, 1 },
    };
    uint64_t end = arch_cycles() + arch_cycles_hz() / 1000 * CTRL_TIMEOUT_MS;
    void *cookie;

    *ack = 0xFF;
    if (virtq_add(&c->vq, b, 1, 1, c->buf) < 0) {
        printk("virtio-net: %s: the control queue is broken\n", what);
        return false;
    }
    virtq_publish(&c->vq);
    virtio_notify(&c->kick);
    while (!(cookie = virtq_get(&c->vq, NULL))) {
        if (arch_cycles() > end) {
            printk("virtio-net: %s: no answer from the device in %d ms\n",
                   what, CTRL_TIMEOUT_MS);
            return false;
        }
        arch_cpu_relax();
    }
    if (*(volatile uint8_t *)ack != CTRL_OK) {
        printk("virtio-net: %s: the device refused it\n", what);
        return false;
    }
    return true;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static bool set_pairs(struct virtio_net *n, int pairs)
{
    uint8_t *b = n->ctrl.buf;

    b[0] = CTRL_MQ;
    b[1] = CTRL_MQ_PAIRS_SET;
    put16(b + 2, (uint16_t)pairs);
    return ctrl_send(n, "setting the queue pairs", 2);
}

static uint16_t cfg16(struct virtio_net *n, uint32_t off)
{
    return virtio_config16(&n->dev, off);
}

/*
 * Receive-side scaling over queues 0 .. pairs - 1: IPv4 TCP hashed by
 * addresses and ports under rss_key, the table's entries taking the
 * queues in turn; anything else (UDP, ICMP, ARP, fragments) to queue 0,
 * whose stack alone has UDP sockets and DHCP (net/netimpl.h).
 * Fills n->rss_table.  False if the device cannot do it or refused.
 */
static bool set_rss(struct virtio_net *n, int pairs)
{
    uint8_t *b = n->ctrl.buf, *p;
    uint32_t types = HASH_TCPV4, entries;
    uint8_t sup[4] = { 0 }, keylen = 0;
    uint32_t supported;
    uint16_t tmax = cfg16(n, 18);

    (void)virtio_config_read(&n->dev, 17, &keylen, 1);
    (void)virtio_config_read(&n->dev, 20, sup, 4);
    supported = sup[0] | sup[1] << 8 | sup[2] << 16 | (uint32_t)sup[3] << 24;
    if ((supported & types) != types || keylen < RSS_KEY_LEN || tmax == 0) {
        printk("virtio-net: RSS: the device cannot hash IPv4 TCP "
               "(hash types %#x, key %u bytes, table %u)\n",
               supported, keylen, tmax);
        return false;
    }
    for (entries = VNET_RSS_TABLE_MAX; entries > tmax; entries /= 2)
        ;
    b[0] = CTRL_MQ;
    b[1] = CTRL_MQ_RSS_CONFIG;
    p = b + 2;
    put16(p, (uint16_t)types);
    put16(p + 2, (uint16_t)(types >> 16));
    put16(p + 4, (uint16_t)(entries - 1));      /* indirection_table_mask */
    put16(p + 6, 0);                            /* unclassified_queue */
    p += 8;
    for (uint32_t i = 0; i < entries; i++, p += 2) {
        n->rss_table[i] = (uint16_t)(i % (uint32_t)pairs);
        put16(p, n->rss_table[i]);
    }
    put16(p, (uint16_t)pairs);                  /* max_tx_vq */
    p[2] = RSS_KEY_LEN;
    memcpy(p + 3, rss_key, RSS_KEY_LEN);
    p += 3 + RSS_KEY_LEN;
    if (!ctrl_send(n, "configuring RSS", (uint32_t)(p - (b + 2))))
        return false;
    n->nd.rss_table = n->rss_table;
    n->nd.rss_entries = entries;
    return true;
}

/*
 * Queue pairs 1 .. nq - 1 on (pair 0 is on from reset), and RSS over them
 * where the device has it; the number of pairs in use, 1 if the device
 * would not take more.  After DRIVER_OK: the control queue works only
 * from then on.
 */
static int start_pairs(struct virtio_net *n, int nq)
{
    if (nq > 1 && !set_pairs(n, nq))
        return 1;
    if (nq > 1 && n->dev.features & F_RSS && !set_rss(n, nq))
        printk("virtio-net: %d queue pairs without RSS: the device steers "
               "flows by its own rule\n", nq);
    return nq;
}

static const struct netdev_ops vnet_ops;

/*
 * Opens the first virtio-net device, on PCI, else on virtio-mmio, and
 * takes its interrupts: MSI-X vectors or its PCI INTx pin (setup_pci_irqs),
 * or its MMIO line.  *nq comes in as the pairs wanted and leaves as those
 * the interrupts allow.  False if there is no device or it cannot be
 * used (said).
 */
static bool open_device(struct virtio_net *n, int *nq, uint64_t features)
{
    struct pci_dev *d = virtio_pci_find(VIRTIO_ID_NET, VIRTIO_NET_TRANSITIONAL,
                                        NULL);
    uint32_t line;
    int want;

    if (d) {
        pci_claim(d);
        if (virtio_pci_open(&n->dev, d) < 0 ||
            !virtio_negotiate(&n->dev, features))
            return false;
    } else if (virtio_mmio_open(&n->dev, VIRTIO_ID_NET, &line)) {
        if (!virtio_negotiate(&n->dev, features))
            return false;
    } else {
        return false;
    }
    n->max_pairs = 1;
    if (n->dev.features & F_CTRL_VQ && n->dev.features & (F_MQ | F_RSS) &&
        cfg16(n, 8) > 1)
        n->max_pairs = cfg16(n, 8);
    if (*nq > n->max_pairs)
        *nq = n->max_pairs;
    want = *nq;
    for (int i = 0; i < *nq; i++) {
        n->q[i].nic = n;
        n->q[i].index = (uint16_t)i;
        n->q[i].irq = -1;
    }
    if (!(d ? setup_pci_irqs(n, d, nq) : setup_mmio_irq(n, line, nq)))
        printk("virtio-net: %s: no interrupt; frames wait for a poll\n",
               n->dev.name);
    if (*nq < want)
        printk("virtio-net: %s: %d of %d queue pairs: %s\n", n->dev.name,
               *nq, want, n->msix ? "too few MSI-X vectors" :
               d ? "no MSI-X on this platform" : "no interrupt");
    n->nd.irq = n->msix ? "MSI-X" : n->irq < 0 ? "polled" :
                d ? "INTx" : "MMIO line";
    return true;
}

struct netdev *vnet_probe(void (*irq_fn)(void *, int), void *arg,
                          int max_queues)
{
    struct virtio_net *n = &nic;
    int nq = ncpu < max_queues ? ncpu : max_queues;

    n->irq = -1;
    n->irq_fn = irq_fn;
    n->irq_arg = arg;
    read_rxbufs();
    if (!open_device(n, &nq, F_MAC | F_STATUS | VIRTIO_F_RING_EVENT_IDX |
                             F_CTRL_VQ | F_MQ | F_RSS))
        return NULL;
    for (int i = 0; i < nq; i++)
        if (!setup_queue(n, &n->q[i], i,
                         n->msix ? (uint16_t)i : VIRTIO_NO_VECTOR)) {
            virtio_fail(&n->dev, "cannot set up a queue pair");
            return NULL;
        }
    n->ctrl.index = (uint16_t)(2 * n->max_pairs);
    if (nq > 1 && !setup_ctrl(n)) {
        printk("virtio-net: %s: no control queue; one queue pair\n",
               n->dev.name);
        nq = 1;
    }
    n->has_status = n->dev.features & F_STATUS && n->dev.devcfg_len >= 8;
    if (!(n->dev.features & F_MAC) ||
        !virtio_config_read(&n->dev, 0, n->nd.mac, 6))
        /* a locally administered address */
        memcpy(n->nd.mac, (uint8_t[]){ 0x02, 0x53, 0x50, 0x4E, 0x00, 0x01 },
               6);
    n->nd.ops = &vnet_ops;
    virtio_ready(&n->dev);
    nq = start_pairs(n, nq);
    n->nd.nqueues = nq;
    snprintf(n->nd.name, sizeof n->nd.name, "virtio-net at %.23s", n->dev.name);
    for (int i = 0; i < nq; i++)
        notify(&n->q[i].rx, &n->q[i].rx_kick);
    /* Release: the line's handler reads the queues' set-up after it. */
    __atomic_store_n(&n->nqueues, nq, __ATOMIC_RELEASE);
    return &n->nd;
}

bool vnet_link_up(struct virtio_net *n)
{
    return !n->has_status || (virtio_config16(&n->dev, 6) & S_LINK_UP);
}

/* ---- Link faults (fault_link_on only) ------------------------------- */

typedef void deliver_fn(void *arg, const uint8_t *frame, uint32_t len);

static void tx_put(struct vnet_queue *q, uint16_t i, uint32_t len);
static void tx_reclaim(struct vnet_queue *q);

/* The held RX frame to the stack, its buffer back to the device. */
static void rx_release(struct vnet_queue *q, deliver_fn *deliver, void *arg)
{
    struct fault_hold *h = &q->fl.rx.hold;
    uint16_t i = (uint16_t)h->buf;

    h->buf = -1;
    deliver(arg, rxbuf(q, i) + HDR_LEN, h->len);
    rx_post(q, i);
}

/* The held TX frame onto the ring. */
static void tx_release(struct vnet_queue *q)
{
    struct fault_hold *h = &q->fl.tx.hold;
    uint16_t i = (uint16_t)h->buf;

    h->buf = -1;
    tx_put(q, i, h->len);
}

/* Held frames whose time is up go (under the queue's lock, as all). */
static void release_overdue(struct vnet_queue *q, deliver_fn *deliver,
                            void *arg)
{
    if (deliver && fault_hold_overdue(&q->fl.rx.hold))
        rx_release(q, deliver, arg);
    if (fault_hold_overdue(&q->fl.tx.hold))
        tx_release(q);
}

/* Received frame i of len bytes, through the link faults: true if its
   buffer is held (the caller must not post it again). */
static bool rx_faulty(struct vnet_queue *q, uint16_t i, uint32_t len,
                      deliver_fn *deliver, void *arg)
{
    struct fault_hold *h = &q->fl.rx.hold;
    uint8_t *f = rxbuf(q, i) + HDR_LEN;

    switch (fault_link_frame(&q->fl, false, f, len)) {
    case FV_DROP:
        return false;
    case FV_HOLD:
        h->buf = i;
        h->len = len;
        return true;
    case FV_DUP:
        deliver(arg, f, len);
        /* fall through */
    case FV_PASS:
        deliver(arg, f, len);
        break;
    }
    if (fault_hold_passed(h))
        rx_release(q, deliver, arg);
    return false;
}

/* TX buffer i of len bytes, through the link faults. */
static void tx_faulty(struct vnet_queue *q, uint16_t i, uint32_t len)
{
    struct fault_hold *h = &q->fl.tx.hold;
    uint16_t j;

    switch (fault_link_frame(&q->fl, true, txbuf(q, i) + HDR_LEN, len)) {
    case FV_DROP:
        q->txfree[q->ntxfree++] = i;
        return;
    case FV_HOLD:
        h->buf = i;
        h->len = len;
        return;
    case FV_DUP:
        if (q->ntxfree == 0)
            tx_reclaim(q);
        if (q->ntxfree > 0) {   /* else the copy is lost, as by a drop */
            j = q->txfree[--q->ntxfree];
            memcpy(txbuf(q, j), txbuf(q, i), HDR_LEN + len);
            tx_put(q, j, len);
        }
        /* fall through */
    case FV_PASS:
        tx_put(q, i, len);
        break;
    }
    if (fault_hold_passed(h))
        tx_release(q);
}

/* ---- Frames in and out ---------------------------------------------- */

/*
 * Notifies every RX queue but q, after q's refill needed a notification:
 * the device had found q without buffers.  QEMU's virtio-net, when it
 * steers frames itself (its RSS in software, used where its eBPF program
 * cannot load), takes a frame from the TAP queue that feeds queue h and
 * hands it to the queue RSS chose; if that queue has no buffer, the frame
 * waits on h's backlog and QEMU stops reading h's TAP queue until h is
 * notified.  A driver that keeps h supplied never notifies it (the device
 * asks for no notification while it has buffers), so every flow the host
 * sends through h would stop for good.  Notifying the other queues when
 * one had run dry lets QEMU retry what waits on their backlogs, now that
 * q has buffers again.  Doorbell writes only: any core may ring them.
 */
static void rx_kick_others(struct vnet_queue *q)
{
    struct virtio_net *n = q->nic;
    int nq = __atomic_load_n(&n->nqueues, __ATOMIC_ACQUIRE);

    for (int i = 0; i < nq; i++)
        if (&n->q[i] != q)
            virtio_notify(&n->q[i].rx_kick);
}

int vnet_rx(struct vnet_queue *q, int budget, deliver_fn *deliver, void *arg)
{
    uint32_t bad = virtq_nbad(&q->rx), len;
    int got = 0, seen = 0;
    void *c;

    if (__builtin_expect(fault_link_on, 0))
        release_overdue(q, deliver, arg);
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
            got++;
            if (__builtin_expect(fault_link_on, 0)) {
                if (rx_faulty(q, i, len - HDR_LEN, deliver, arg))
                    continue;
            } else {
                deliver(arg, rxbuf(q, i) + HDR_LEN, len - HDR_LEN);
            }
        }
        rx_post(q, i);
    }
    q->st.bad_device += virtq_nbad(&q->rx) - bad;
    if (seen && notify(&q->rx, &q->rx_kick))
        rx_kick_others(q);
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
        virtio_notify(&q->tx_kick);
        q->st.tx_full++;
        return NULL;
    }
    return txbuf(q, q->txfree[q->ntxfree - 1]) + HDR_LEN;
}

/* TX buffer i, whose frame is len bytes, onto the ring. */
static void tx_put(struct vnet_queue *q, uint16_t i, uint32_t len)
{
    struct virtq_buf b = { (uintptr_t)txbuf(q, i), HDR_LEN + len };

    memset(txbuf(q, i), 0, HDR_LEN);
    if (virtq_add(&q->tx, &b, 1, 0, (void *)(uintptr_t)(i + 1)) < 0) {
        q->txfree[q->ntxfree++] = i;
        q->st.tx_full++;
        return;
    }
    q->st.tx_frames++;
    q->st.tx_bytes += len;
    notify(&q->tx, &q->tx_kick);
}

void vnet_tx_send(struct vnet_queue *q, uint8_t *buf, uint32_t len)
{
    uint16_t i = q->txfree[--q->ntxfree];

    if (buf != txbuf(q, i) + HDR_LEN || len > VNET_FRAME_MAX) {
        q->ntxfree++;
        q->st.tx_oversize += len > VNET_FRAME_MAX;
        return;
    }
    if (__builtin_expect(fault_link_on, 0))
        tx_faulty(q, i, len);
    else
        tx_put(q, i, len);
}

const char *vnet_health(struct virtio_net *n)
{
    uint8_t s = virtio_status(&n->dev);

    if (s & VIRTIO_S_FAILED)
        return "failed";
    if (s & VIRTIO_S_NEEDS_RESET)
        return "the device needs a reset";
    for (int i = 0; i < n->nqueues; i++) {
        if (virtq_is_broken(&n->q[i].rx))
            return n->q[i].rx.broken;
        if (virtq_is_broken(&n->q[i].tx))
            return n->q[i].tx.broken;
    }
    return "ok";
}

/* ---- The stack's view ----------------------------------------------- */

static struct vnet_queue *nq(struct netdev *d, int q)
{
    return &((struct virtio_net *)d)->q[q];
}

static int nd_rx(struct netdev *d, int q, int budget,
                 void (*deliver)(void *, const uint8_t *, uint32_t),
                 void *arg)
{
    return vnet_rx(nq(d, q), budget, deliver, arg);
}

static bool nd_rx_arm(struct netdev *d, int q)
{
    return vnet_rx_arm(nq(d, q));
}

static uint8_t *nd_tx_buf(struct netdev *d, int q)
{
    return vnet_tx_buf(nq(d, q));
}

static void nd_tx_send(struct netdev *d, int q, uint8_t *buf, uint32_t len)
{
    vnet_tx_send(nq(d, q), buf, len);
}

static bool nd_link_up(struct netdev *d)
{
    return vnet_link_up((struct virtio_net *)d);
}

/* One ring's indices as the driver and the device left them: what a
   stalled transfer is read from.  The device's fields are read once. */
static int ring_report(const char *name, int qi, const struct virtq *q,
                       char *buf, size_t len)
{
    return snprintf(buf, len,
        "\nnet: %s%d ring: published %u, device used %u, driver took %u, "
        "in flight %u, used_event %u, avail_event %u, interrupts %s", name,
        qi, q->avail_pub, __atomic_load_n(&q->used->idx, __ATOMIC_RELAXED),
        q->last_used, virtq_inflight(q),
        __atomic_load_n(q->used_event, __ATOMIC_RELAXED),
        __atomic_load_n(q->avail_event, __ATOMIC_RELAXED),
        q->intr_on ? "on" : "off");
}

static void nd_tx_watchdog(struct netdev *d, int qi)
{
    struct vnet_queue *q = nq(d, qi);

    if (__builtin_expect(fault_link_on, 0))
        release_overdue(q, NULL, NULL);
    if (virtq_stalled(&q->tx)) {
        virtio_notify(&q->tx_kick);
        q->st.tx_rekick++;
    }
}

#define ADD(buf, len, n, ...)                                              \
    do {                                                                  \
        if ((n) >= 0 && (size_t)(n) < (len))                              \
            (n) += snprintf((buf) + (n), (len) - (n), __VA_ARGS__);       \
    } while (0)

/* The device's counters summed over its queues, then each queue's frame
   counts where there are several, then every ring's indices. */
static int nd_report(struct netdev *d, char *buf, size_t len)
{
    struct virtio_net *n = (struct virtio_net *)d;
    struct vnet_stats t = { 0 };
    int k = 0;

    for (int i = 0; i < n->nqueues; i++) {
        const struct vnet_stats *st = &n->q[i].st;

        t.rx_frames += st->rx_frames;
        t.rx_bytes += st->rx_bytes;
        t.tx_frames += st->tx_frames;
        t.tx_bytes += st->tx_bytes;
        t.rx_runt += st->rx_runt;
        t.rx_oversize += st->rx_oversize;
        t.tx_full += st->tx_full;
        t.bad_device += st->bad_device;
        t.tx_rekick += st->tx_rekick;
    }
    ADD(buf, len, k,
        "net: rx %llu frames %llu bytes, tx %llu frames %llu bytes\n"
        "net: dropped: runt %llu oversize %llu tx-full %llu bad-device %llu "
        "(device %s); TX notified again %llu times",
        (unsigned long long)t.rx_frames, (unsigned long long)t.rx_bytes,
        (unsigned long long)t.tx_frames, (unsigned long long)t.tx_bytes,
        (unsigned long long)t.rx_runt, (unsigned long long)t.rx_oversize,
        (unsigned long long)t.tx_full, (unsigned long long)t.bad_device,
        vnet_health(n), (unsigned long long)t.tx_rekick);
    if (n->nqueues > 1) {
        ADD(buf, len, k, "\nnet: %d queue pairs (RSS %s), rx/tx frames by queue:",
            n->nqueues, d->rss_table ? "on" : "off");
        for (int i = 0; i < n->nqueues; i++)
            ADD(buf, len, k, " q%d %llu/%llu", i,
                (unsigned long long)n->q[i].st.rx_frames,
                (unsigned long long)n->q[i].st.tx_frames);
    }
    if (faultcfg_link_any(&fault_cfg))
        ADD(buf, len, k, "\n");
    if (k >= 0 && (size_t)k < len)
        k += fault_link_report(buf + k, len - k);
    for (int i = 0; i < n->nqueues; i++) {
        if (k >= 0 && (size_t)k < len)
            k += ring_report("rx", i, &n->q[i].rx, buf + k, len - k);
        if (k >= 0 && (size_t)k < len)
            k += ring_report("tx", i, &n->q[i].tx, buf + k, len - k);
    }
    return k;
}

static const struct netdev_ops vnet_ops = {
    .rx = nd_rx, .rx_arm = nd_rx_arm, .tx_buf = nd_tx_buf,
    .tx_send = nd_tx_send, .tx_watchdog = nd_tx_watchdog, .link_up = nd_link_up,
    .report = nd_report,
};
