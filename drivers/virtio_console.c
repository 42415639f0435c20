/*
 * virtio_console.c - the virtio console as the host channel (see
 * virtio_console.h and kernel/hostchan.h).
 *
 * Without VIRTIO_CONSOLE_F_MULTIPORT the device has one port, 0, with no
 * control queue: the port is open for the guest once the driver is
 * ready, and QEMU writes whatever its transmit queue (queue 1) carries to
 * the port's chardev.  The receive queue is never set up.
 *
 * Bytes are copied into one of two DMA buffers of VCONS_BUF bytes.  A
 * full one goes to the device as one descriptor while the other fills,
 * and is waited for only when its turn to fill comes round again, so
 * that the host's writing of one overlaps the guest's making of the
 * next (QEMU takes the notification in its I/O thread).  The used ring
 * is polled: no interrupt.  A device that does not use a buffer within
 * VCONS_TIMEOUT_MS is given up on, and the channel is gone for good.
 */
#include <string.h>
#include "arch/arch.h"
#include "drivers/virtio_console.h"
#include "drivers/virtio_mmio.h"
#include "drivers/virtio_pci.h"
#include "drivers/virtq.h"
#include "kernel/hostchan.h"
#include "kernel/mem.h"
#include "kernel/printk.h"

#define VIRTIO_CONSOLE_TRANSITIONAL 0x1003  /* PCI device id */
#define TXQ                 1               /* port 0's transmitq */
#define QSIZE               4               /* two buffers in flight */
#define VCONS_BUF           (64 * 1024)
#define VCONS_TIMEOUT_MS    5000

/* One device; its fields are the one writer's (hostchan.h). */
static struct {
    struct virtio_dev dev;
    struct virtq vq;
    struct virtio_notify kick;
    uint8_t *buf[2];
    bool busy[2];                   /* buf[i] is with the device */
    int cur;                        /* the buffer that fills */
    uint32_t len;                   /* bytes in buf[cur] */
    bool up;                        /* set up and not failed */
} vc;

static void give_up(const char *why)
{
    virtio_fail(&vc.dev, why);
    printk("virtio-console: the host channel is lost\n");
    vc.up = false;
}

/* Waits until the device has used buf[i]; false if it gave up. */
static bool wait_for(int i)
{
    uint64_t end = arch_cycles() + arch_cycles_hz() / 1000 * VCONS_TIMEOUT_MS;
    void *cookie;

    while (vc.up && vc.busy[i]) {
        if ((cookie = virtq_get(&vc.vq, NULL)))
            vc.busy[(uintptr_t)cookie - 1] = false;
        else if (virtq_is_broken(&vc.vq))
            give_up(vc.vq.broken);
        else if (arch_cycles() > end)
            give_up("a buffer not used in time");
        else
            arch_cpu_relax();
    }
    return vc.up;
}

/* Hands buf[cur] to the device and makes the other one current, once
   the device has it back. */
static bool send(void)
{
    struct virtq_buf b = { (uintptr_t)vc.buf[vc.cur], vc.len };

    if (!vc.len)
        return vc.up;
    if (virtq_add(&vc.vq, &b, 1, 0, (void *)(uintptr_t)(vc.cur + 1)) < 0) {
        give_up("the transmit queue refused a buffer");
        return false;
    }
    virtq_publish(&vc.vq);
    if (virtq_kick_needed(&vc.vq))
        virtio_notify(&vc.kick);
    vc.busy[vc.cur] = true;
    vc.cur ^= 1;
    vc.len = 0;
    return wait_for(vc.cur);
}

bool hostchan_present(void)
{
    return vc.up;
}

bool hostchan_write(const void *buf, size_t n)
{
    const uint8_t *p = buf;

    while (n && vc.up) {
        uint32_t k = VCONS_BUF - vc.len < n ? VCONS_BUF - vc.len
                                            : (uint32_t)n;

        memcpy(vc.buf[vc.cur] + vc.len, p, k);
        vc.len += k;
        p += k;
        n -= k;
        if (vc.len == VCONS_BUF)
            send();
    }
    return vc.up;
}

bool hostchan_flush(void)
{
    return send() && wait_for(vc.cur ^ 1);
}

bool vcons_probe(void)
{
    struct pci_dev *d = virtio_pci_find(VIRTIO_ID_CONSOLE,
                                        VIRTIO_CONSOLE_TRANSITIONAL, NULL);
    uint16_t size;
    uint64_t mem, slots, bufs;
    uint32_t line;

    if (d) {
        pci_claim(d);
        if (virtio_pci_open(&vc.dev, d) < 0)
            return false;
    } else if (!virtio_mmio_open(&vc.dev, VIRTIO_ID_CONSOLE, &line)) {
        return false;
    }
    if (!virtio_negotiate(&vc.dev, 0))
        return false;
    size = virtio_queue_max(&vc.dev, TXQ);
    if (size > QSIZE)
        size = QSIZE;
    if (size < 2 || (size & (size - 1))) {
        virtio_fail(&vc.dev, "no transmit queue of 2 or more");
        return false;
    }
    mem = mem_alloc_pages((virtq_mem_size(size) + PAGE_SIZE - 1) / PAGE_SIZE);
    slots = mem_alloc_pages(1);
    bufs = mem_alloc_pages(2 * VCONS_BUF / PAGE_SIZE);
    if (!mem || !slots || !bufs ||
        virtq_init(&vc.vq, size, phys_to_virt(mem), mem, phys_to_virt(slots),
                   false) < 0) {
        virtio_fail(&vc.dev, "cannot set up the transmit queue");
        return false;
    }
    virtq_disable_intr(&vc.vq);
    if (!virtio_queue_setup(&vc.dev, &(struct virtio_queue_cfg){
            TXQ, size, vc.vq.desc_pa, vc.vq.avail_pa, vc.vq.used_pa,
            VIRTIO_NO_VECTOR }, &vc.kick)) {
        virtio_fail(&vc.dev, "refused the transmit queue");
        return false;
    }
    vc.buf[0] = phys_to_virt(bufs);
    vc.buf[1] = vc.buf[0] + VCONS_BUF;
    virtio_ready(&vc.dev);
    vc.up = true;
    printk("virtio-console: %s: the host channel\n", vc.dev.name);
    return true;
}
