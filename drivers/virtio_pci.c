/*
 * virtio_pci.c - the virtio 1.x PCI transport (see virtio_pci.h).
 *
 * The common configuration is read and written with accesses of each
 * field's own width, and 64-bit fields as two 32-bit halves, low first,
 * which every device must accept (§4.1.3.1).
 */
#include "arch/arch.h"
#include "drivers/virtio_pci.h"
#include "kernel/printk.h"

/* struct virtio_pci_common_cfg (§4.1.4.3), byte offsets. */
#define C_DFSELECT      0x00
#define C_DF            0x04
#define C_GFSELECT      0x08
#define C_GF            0x0C
#define C_MSIX          0x10
#define C_NUMQ          0x12
#define C_STATUS        0x14
#define C_Q_SELECT      0x16
#define C_Q_SIZE        0x18
#define C_Q_MSIX        0x1A
#define C_Q_ENABLE      0x1C
#define C_Q_NOFF        0x1E
#define C_Q_DESC        0x20
#define C_Q_DRIVER      0x28
#define C_Q_DEVICE      0x30
#define COMMON_LEN      0x38

/* struct virtio_pci_cap (§4.1.4): cfg_type values and field offsets. */
#define CAP_COMMON      1
#define CAP_NOTIFY      2
#define CAP_ISR         3
#define CAP_DEVICE      4
#define CAP_TYPE        3
#define CAP_BAR         4
#define CAP_OFFSET      8
#define CAP_LENGTH      12
#define CAP_NOTIFY_MULT 16

#define RESET_SPINS     1000000

static uint8_t r8(struct virtio_dev *v, uint32_t off)
{
    return *(volatile uint8_t *)(v->common + off);
}

static uint16_t r16(struct virtio_dev *v, uint32_t off)
{
    return *(volatile uint16_t *)(v->common + off);
}

static uint32_t r32(struct virtio_dev *v, uint32_t off)
{
    return *(volatile uint32_t *)(v->common + off);
}

static void w8(struct virtio_dev *v, uint32_t off, uint8_t x)
{
    *(volatile uint8_t *)(v->common + off) = x;
}

static void w16(struct virtio_dev *v, uint32_t off, uint16_t x)
{
    *(volatile uint16_t *)(v->common + off) = x;
}

static void w32(struct virtio_dev *v, uint32_t off, uint32_t x)
{
    *(volatile uint32_t *)(v->common + off) = x;
}

static void w64(struct virtio_dev *v, uint32_t off, uint64_t x)
{
    w32(v, off, (uint32_t)x);
    w32(v, off + 4, (uint32_t)(x >> 32));
}

uint8_t virtio_status(struct virtio_dev *v)
{
    return r8(v, C_STATUS);
}

uint8_t virtio_isr(struct virtio_dev *v)
{
    return *v->isr;
}

void virtio_fail(struct virtio_dev *v, const char *why)
{
    char nm[12];

    printk("virtio: %s: %s\n", pci_name(v->pci, nm), why);
    w8(v, C_STATUS, r8(v, C_STATUS) | VIRTIO_S_FAILED);
}

/* Maps the structure a capability points at; NULL if it is unusable. */
static volatile uint8_t *map_cap(struct pci_dev *d, uint32_t cap,
                                 uint32_t min, uint32_t *len)
{
    uint8_t bar = pci_read8(d, cap + CAP_BAR);
    uint32_t off = pci_read32(d, cap + CAP_OFFSET);

    *len = pci_read32(d, cap + CAP_LENGTH);
    if (bar > 5 || *len < min)
        return NULL;
    return pci_map_bar(d, bar, off, *len);
}

int virtio_pci_open(struct virtio_dev *v, struct pci_dev *d)
{
    uint32_t len;
    char nm[12];

    *v = (struct virtio_dev){ .pci = d };
    for (uint32_t c = pci_find_cap(d, PCI_CAP_VENDOR, 0); c;
         c = pci_find_cap(d, PCI_CAP_VENDOR, c)) {
        switch (pci_read8(d, c + CAP_TYPE)) {
        case CAP_COMMON:
            if (!v->common)
                v->common = map_cap(d, c, COMMON_LEN, &len);
            break;
        case CAP_NOTIFY:
            if (!v->notify) {
                v->notify = map_cap(d, c, 2, &v->notify_len);
                v->notify_mult = pci_read32(d, c + CAP_NOTIFY_MULT);
            }
            break;
        case CAP_ISR:
            if (!v->isr)
                v->isr = map_cap(d, c, 1, &len);
            break;
        case CAP_DEVICE:
            if (!v->devcfg)
                v->devcfg = map_cap(d, c, 1, &v->devcfg_len);
            break;
        }
    }
    if (!v->common || !v->notify || !v->isr) {
        printk("virtio: %s has no usable modern interface; not used\n",
               pci_name(d, nm));
        return -1;
    }
    v->devcfg_len = v->devcfg ? v->devcfg_len : 0;
    w8(v, C_STATUS, 0);                         /* reset (§4.1.4.3.1) */
    for (int i = 0; r8(v, C_STATUS) && i < RESET_SPINS; i++)
        arch_cpu_relax();
    if (r8(v, C_STATUS)) {
        printk("virtio: %s does not finish its reset; not used\n",
               pci_name(d, nm));
        return -1;
    }
    w8(v, C_STATUS, VIRTIO_S_ACK);
    w8(v, C_STATUS, VIRTIO_S_ACK | VIRTIO_S_DRIVER);
    return 0;
}

bool virtio_negotiate(struct virtio_dev *v, uint64_t wanted)
{
    uint64_t offered;

    w32(v, C_DFSELECT, 0);
    offered = r32(v, C_DF);
    w32(v, C_DFSELECT, 1);
    offered |= (uint64_t)r32(v, C_DF) << 32;
    if (!(offered & VIRTIO_F_VERSION_1)) {
        virtio_fail(v, "the device does not offer VIRTIO_F_VERSION_1");
        return false;
    }
    v->features = offered & (wanted | VIRTIO_F_VERSION_1);
    w32(v, C_GFSELECT, 0);
    w32(v, C_GF, (uint32_t)v->features);
    w32(v, C_GFSELECT, 1);
    w32(v, C_GF, (uint32_t)(v->features >> 32));
    w8(v, C_STATUS, r8(v, C_STATUS) | VIRTIO_S_FEATURES_OK);
    if (!(r8(v, C_STATUS) & VIRTIO_S_FEATURES_OK)) {
        virtio_fail(v, "the device refused the features it offered");
        return false;
    }
    return true;
}

uint16_t virtio_queue_max(struct virtio_dev *v, uint16_t idx)
{
    if (idx >= r16(v, C_NUMQ))
        return 0;
    w16(v, C_Q_SELECT, idx);
    return r16(v, C_Q_SIZE);
}

volatile uint16_t *virtio_queue_setup(struct virtio_dev *v, uint16_t idx,
                                      uint16_t size, uint64_t desc,
                                      uint64_t driver, uint64_t device,
                                      uint16_t vector)
{
    uint64_t off;

    w16(v, C_Q_SELECT, idx);
    w16(v, C_Q_SIZE, size);
    w64(v, C_Q_DESC, desc);
    w64(v, C_Q_DRIVER, driver);
    w64(v, C_Q_DEVICE, device);
    w16(v, C_Q_MSIX, vector);
    if (r16(v, C_Q_MSIX) != vector)
        return NULL;
    off = (uint64_t)r16(v, C_Q_NOFF) * v->notify_mult;
    if (off + 2 > v->notify_len)
        return NULL;
    w16(v, C_Q_ENABLE, 1);
    return (volatile uint16_t *)(v->notify + off);
}

bool virtio_config_vector(struct virtio_dev *v, uint16_t vector)
{
    w16(v, C_MSIX, vector);
    return r16(v, C_MSIX) == vector;
}

void virtio_ready(struct virtio_dev *v)
{
    w8(v, C_STATUS, r8(v, C_STATUS) | VIRTIO_S_DRIVER_OK);
}
