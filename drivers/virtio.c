/*
 * virtio.c - what every virtio transport shares (see virtio.h): the
 * reset and status handshake, feature negotiation and configuration
 * reads, over the transport's operations.
 */
#include "arch/arch.h"
#include "drivers/virtio.h"
#include "kernel/printk.h"

#define RESET_SPINS         1000000
#define CONFIG_READ_TRIES   100

void virtio_fail(struct virtio_dev *v, const char *why)
{
    printk("virtio: %s: %s\n", v->name, why);
    v->t->set_status(v, v->t->get_status(v) | VIRTIO_S_FAILED);
}

int virtio_reset(struct virtio_dev *v)
{
    v->t->set_status(v, 0);                     /* reset (§2.1.2) */
    for (int i = 0; v->t->get_status(v) && i < RESET_SPINS; i++)
        arch_cpu_relax();
    if (v->t->get_status(v)) {
        printk("virtio: %s does not finish its reset; not used\n", v->name);
        return -1;
    }
    v->t->set_status(v, VIRTIO_S_ACK);
    v->t->set_status(v, VIRTIO_S_ACK | VIRTIO_S_DRIVER);
    return 0;
}

bool virtio_negotiate(struct virtio_dev *v, uint64_t wanted)
{
    uint64_t offered = v->t->device_features(v);

    if (!(offered & VIRTIO_F_VERSION_1)) {
        virtio_fail(v, "the device does not offer VIRTIO_F_VERSION_1");
        return false;
    }
    v->features = offered & (wanted | VIRTIO_F_VERSION_1);
    v->t->driver_features(v, v->features);
    v->t->set_status(v, v->t->get_status(v) | VIRTIO_S_FEATURES_OK);
    if (!(v->t->get_status(v) & VIRTIO_S_FEATURES_OK)) {
        virtio_fail(v, "the device refused the features it offered");
        return false;
    }
    return true;
}

bool virtio_queue_setup(struct virtio_dev *v, const struct virtio_queue_cfg *c,
                        struct virtio_notify *n)
{
    const char *why = "refused";

    if (v->t->queue_setup(v, c, n, &why))
        return true;
    printk("virtio: %s: queue %u: %s\n", v->name, c->index, why);
    return false;
}

void virtio_ready(struct virtio_dev *v)
{
    v->t->set_status(v, v->t->get_status(v) | VIRTIO_S_DRIVER_OK);
}

/* One pass over the field, with accesses of its width. */
static void config_copy(volatile uint8_t *p, uint8_t *out, uint32_t len)
{
    uint32_t x;

    if (len == 2 && !((uintptr_t)p & 1)) {
        uint16_t h = *(volatile uint16_t *)p;

        out[0] = (uint8_t)h;
        out[1] = (uint8_t)(h >> 8);
    } else if ((len == 4 || len == 8) && !((uintptr_t)p & 3)) {
        for (uint32_t i = 0; i < len; i += 4) {
            x = *(volatile uint32_t *)(p + i);
            for (int b = 0; b < 4; b++)
                out[i + b] = (uint8_t)(x >> 8 * b);
        }
    } else {
        for (uint32_t i = 0; i < len; i++)
            out[i] = p[i];
    }
}

bool virtio_config_read(struct virtio_dev *v, uint32_t off, void *buf,
                        uint32_t len)
{
    uint8_t tmp[64];
    uint32_t gen;
    int tries = 0;

    if (!v->devcfg || off > v->devcfg_len || len > v->devcfg_len - off ||
        len > sizeof tmp)
        return false;
    /* A device that keeps changing its configuration gets the last
       pass's bytes: better than none, and the kernel goes on. */
    do {
        gen = v->t->config_generation(v);
        config_copy(v->devcfg + off, tmp, len);
    } while (gen != v->t->config_generation(v) && ++tries < CONFIG_READ_TRIES);
    for (uint32_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = tmp[i];
    return true;
}

uint16_t virtio_config16(struct virtio_dev *v, uint32_t off)
{
    uint8_t b[2];

    return virtio_config_read(v, off, b, 2) ? (uint16_t)(b[0] | b[1] << 8) : 0;
}
