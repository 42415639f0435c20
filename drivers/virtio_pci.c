/*
 * virtio_pci.c - the virtio 1.x PCI transport (see virtio_pci.h).
 *
 * The common configuration is read and written with accesses of each
 * field's own width, and 64-bit fields as two 32-bit halves, low first,
 * which every device must accept (§4.1.3.1).  A queue's doorbell is a
 * 16-bit store of its index at notify + queue_notify_off *
 * notify_off_multiplier, computed once at its set-up.
 */
#include <stdio.h>
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
#define C_CFGGEN        0x15
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

static uint8_t r8(struct virtio_dev *v, uint32_t off)
{
    return *(volatile uint8_t *)(v->pci.common + off);
}

static uint16_t r16(struct virtio_dev *v, uint32_t off)
{
    return *(volatile uint16_t *)(v->pci.common + off);
}

static uint32_t r32(struct virtio_dev *v, uint32_t off)
{
    return *(volatile uint32_t *)(v->pci.common + off);
}

static void w8(struct virtio_dev *v, uint32_t off, uint8_t x)
{
    *(volatile uint8_t *)(v->pci.common + off) = x;
}

static void w16(struct virtio_dev *v, uint32_t off, uint16_t x)
{
    *(volatile uint16_t *)(v->pci.common + off) = x;
}

static void w32(struct virtio_dev *v, uint32_t off, uint32_t x)
{
    *(volatile uint32_t *)(v->pci.common + off) = x;
}

static void w64(struct virtio_dev *v, uint32_t off, uint64_t x)
{
    w32(v, off, (uint32_t)x);
    w32(v, off + 4, (uint32_t)(x >> 32));
}

static uint8_t get_status(struct virtio_dev *v)
{
    return r8(v, C_STATUS);
}

static void set_status(struct virtio_dev *v, uint8_t s)
{
    w8(v, C_STATUS, s);
}

static uint64_t device_features(struct virtio_dev *v)
{
    uint64_t f;

    w32(v, C_DFSELECT, 0);
    f = r32(v, C_DF);
    w32(v, C_DFSELECT, 1);
    return f | (uint64_t)r32(v, C_DF) << 32;
}

static void driver_features(struct virtio_dev *v, uint64_t f)
{
    w32(v, C_GFSELECT, 0);
    w32(v, C_GF, (uint32_t)f);
    w32(v, C_GFSELECT, 1);
    w32(v, C_GF, (uint32_t)(f >> 32));
}

static uint16_t queue_max(struct virtio_dev *v, uint16_t idx)
{
    if (idx >= r16(v, C_NUMQ))
        return 0;
    w16(v, C_Q_SELECT, idx);
    return r16(v, C_Q_SIZE);
}

static bool queue_setup(struct virtio_dev *v, const struct virtio_queue_cfg *c,
                        struct virtio_notify *n, const char **why)
{
    uint64_t off;

    w16(v, C_Q_SELECT, c->index);
    w16(v, C_Q_SIZE, c->size);
    w64(v, C_Q_DESC, c->desc);
    w64(v, C_Q_DRIVER, c->driver);
    w64(v, C_Q_DEVICE, c->device);
    w16(v, C_Q_MSIX, c->vector);
    if (r16(v, C_Q_MSIX) != c->vector) {
        *why = "the device refused its MSI-X vector";
        return false;
    }
    off = (uint64_t)r16(v, C_Q_NOFF) * v->pci.notify_mult;
    if (off + 2 > v->pci.notify_len) {
        *why = "its notify address is outside the notify area";
        return false;
    }
    w16(v, C_Q_ENABLE, 1);
    *n = (struct virtio_notify){ .reg = v->pci.notify + off,
                                 .queue = c->index, .wide = false };
    return true;
}

static uint32_t config_generation(struct virtio_dev *v)
{
    return r8(v, C_CFGGEN);
}

static uint32_t intr_cause(struct virtio_dev *v)
{
    return *v->pci.isr;
}

static const struct virtio_transport pci_transport = {
    .get_status = get_status, .set_status = set_status,
    .device_features = device_features, .driver_features = driver_features,
    .queue_max = queue_max, .queue_setup = queue_setup,
    .config_generation = config_generation, .intr_cause = intr_cause,
};

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

    *v = (struct virtio_dev){ .t = &pci_transport, .pci.dev = d };
    snprintf(v->name, sizeof v->name, "%s", pci_name(d, nm));
    for (uint32_t c = pci_find_cap(d, PCI_CAP_VENDOR, 0); c;
         c = pci_find_cap(d, PCI_CAP_VENDOR, c)) {
        switch (pci_read8(d, c + CAP_TYPE)) {
        case CAP_COMMON:
            if (!v->pci.common)
                v->pci.common = map_cap(d, c, COMMON_LEN, &len);
            break;
        case CAP_NOTIFY:
            if (!v->pci.notify) {
                v->pci.notify = map_cap(d, c, 2, &v->pci.notify_len);
                v->pci.notify_mult = pci_read32(d, c + CAP_NOTIFY_MULT);
            }
            break;
        case CAP_ISR:
            if (!v->pci.isr)
                v->pci.isr = map_cap(d, c, 1, &len);
            break;
        case CAP_DEVICE:
            if (!v->devcfg)
                v->devcfg = map_cap(d, c, 1, &v->devcfg_len);
            break;
        }
    }
    if (!v->pci.common || !v->pci.notify || !v->pci.isr) {
        printk("virtio: %s has no usable modern interface; not used\n",
               v->name);
        return -1;
    }
    v->devcfg_len = v->devcfg ? v->devcfg_len : 0;
    return virtio_reset(v);
}

struct pci_dev *virtio_pci_find(uint16_t type, uint16_t transitional,
                                struct pci_dev *from)
{
    uint16_t modern = (uint16_t)(0x1040 + type);
    uint16_t lo = transitional < modern ? transitional : modern;
    uint16_t hi = transitional < modern ? modern : transitional;
    struct pci_dev *d = from;

    /* The ids between the two name other devices. */
    do
        d = pci_find(VIRTIO_VENDOR, lo, hi, d);
    while (d && d->device != transitional && d->device != modern);
    return d;
}

bool virtio_pci_config_vector(struct virtio_dev *v, uint16_t vector)
{
    w16(v, C_MSIX, vector);
    return r16(v, C_MSIX) == vector;
}
