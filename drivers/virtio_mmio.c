/*
 * virtio_mmio.c - the virtio-mmio transport, version 2 (see
 * virtio_mmio.h).
 *
 * Every register is read and written with one aligned 32-bit access
 * (§4.2.2.2: the device may ignore any other); 64-bit values go as two
 * halves, low first.  A queue's doorbell is the one QueueNotify
 * register, so virtio_notify stores 32 bits there.  Before the driver
 * writes QueueNum and the addresses it checks that the queue is not in
 * use (QueueReady 0, §4.2.3.2).
 */
#include <stdio.h>
#include "arch/arch.h"
#include "drivers/virtio_mmio.h"
#include "drivers/virtio_mmio_cmdline.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

static uint32_t rd(struct virtio_dev *v, uint32_t off)
{
    return arch_mmio_read32((uintptr_t)(v->mmio.regs + off));
}

static void wr(struct virtio_dev *v, uint32_t off, uint32_t x)
{
    arch_mmio_write32((uintptr_t)(v->mmio.regs + off), x);
}

static void wr64(struct virtio_dev *v, uint32_t lo, uint64_t x)
{
    wr(v, lo, (uint32_t)x);
    wr(v, lo + 4, (uint32_t)(x >> 32));
}

static uint8_t get_status(struct virtio_dev *v)
{
    return (uint8_t)rd(v, VMMIO_STATUS);
}

static void set_status(struct virtio_dev *v, uint8_t s)
{
    wr(v, VMMIO_STATUS, s);
}

static uint64_t device_features(struct virtio_dev *v)
{
    uint64_t f;

    wr(v, VMMIO_DEVICE_FEATURES_SEL, 0);
    f = rd(v, VMMIO_DEVICE_FEATURES);
    wr(v, VMMIO_DEVICE_FEATURES_SEL, 1);
    return f | (uint64_t)rd(v, VMMIO_DEVICE_FEATURES) << 32;
}

static void driver_features(struct virtio_dev *v, uint64_t f)
{
    wr(v, VMMIO_DRIVER_FEATURES_SEL, 0);
    wr(v, VMMIO_DRIVER_FEATURES, (uint32_t)f);
    wr(v, VMMIO_DRIVER_FEATURES_SEL, 1);
    wr(v, VMMIO_DRIVER_FEATURES, (uint32_t)(f >> 32));
}

static uint16_t queue_max(struct virtio_dev *v, uint16_t idx)
{
    uint32_t max;

    wr(v, VMMIO_QUEUE_SEL, idx);
    if (rd(v, VMMIO_QUEUE_READY))
        return 0;
    max = rd(v, VMMIO_QUEUE_NUM_MAX);
    return max > 0xFFFF ? 0x8000 : (uint16_t)max;
}

static bool queue_setup(struct virtio_dev *v, const struct virtio_queue_cfg *c,
                        struct virtio_notify *n, const char **why)
{
    if (c->vector != VIRTIO_NO_VECTOR) {
        *why = "virtio-mmio has no MSI-X vectors";
        return false;
    }
    wr(v, VMMIO_QUEUE_SEL, c->index);
    if (rd(v, VMMIO_QUEUE_READY)) {
        *why = "the queue is in use already";
        return false;
    }
    wr(v, VMMIO_QUEUE_NUM, c->size);
    wr64(v, VMMIO_QUEUE_DESC_LOW, c->desc);
    wr64(v, VMMIO_QUEUE_DRIVER_LOW, c->driver);
    wr64(v, VMMIO_QUEUE_DEVICE_LOW, c->device);
    wr(v, VMMIO_QUEUE_READY, 1);
    if (rd(v, VMMIO_QUEUE_READY) != 1) {
        *why = "the device did not make the queue ready";
        return false;
    }
    *n = (struct virtio_notify){ .reg = v->mmio.regs + VMMIO_QUEUE_NOTIFY,
                                 .queue = c->index, .wide = true };
    return true;
}

static uint32_t config_generation(struct virtio_dev *v)
{
    return rd(v, VMMIO_CONFIG_GENERATION);
}

static uint32_t intr_cause(struct virtio_dev *v)
{
    uint32_t s = rd(v, VMMIO_INTERRUPT_STATUS);

    if (s)
        wr(v, VMMIO_INTERRUPT_ACK, s);
    return s;
}

static const struct virtio_transport mmio_transport = {
    .get_status = get_status, .set_status = set_status,
    .device_features = device_features, .driver_features = driver_features,
    .queue_max = queue_max, .queue_setup = queue_setup,
    .config_generation = config_generation, .intr_cause = intr_cause,
};

int virtio_mmio_open_regs(struct virtio_dev *v, volatile uint8_t *regs,
                          uint64_t size, const char *name)
{
    uint32_t magic, version;

    *v = (struct virtio_dev){ .t = &mmio_transport, .mmio.regs = regs };
    snprintf(v->name, sizeof v->name, "%s", name);
    if (size < VMMIO_CONFIG) {
        printk("virtio-mmio: %s: %llu bytes cannot hold the registers; "
               "not used\n", name, (unsigned long long)size);
        return -1;
    }
    magic = rd(v, VMMIO_MAGIC);
    version = rd(v, VMMIO_VERSION);
    if (magic != VMMIO_MAGIC_VALUE) {
        printk("virtio-mmio: %s: magic value %#x, not \"virt\"; not used\n",
               name, magic);
        return -1;
    }
    if ((v->mmio.device_id = rd(v, VMMIO_DEVICE_ID)) == 0)
        return 1;
    if (version != 2) {
        printk("virtio-mmio: %s: device %u is %s; not used (QEMU: "
               "-global virtio-mmio.force-legacy=false)\n", name,
               v->mmio.device_id, version == 1 ? "a legacy (version 1) one"
                                               : "of an unknown version");
        return -1;
    }
    v->devcfg = regs + VMMIO_CONFIG;
    v->devcfg_len = (uint32_t)(size - VMMIO_CONFIG < 0x1000 ?
                               size - VMMIO_CONFIG : 0x1000);
    return virtio_reset(v);
}

/* ---- The platform's devices ----------------------------------------- */

/* Found on the first virtio_mmio_open, then each opened at most once;
   G 1's alone. */
static struct {
    uint64_t base, size;
    uint32_t line;
    volatile uint8_t *regs;     /* mapped; NULL if it could not be */
    uint32_t device_id;         /* read when found; 0: empty or unusable */
    bool opened;
} devs[VMMIO_MAX_DEVICES];
static int ndevs;
static bool found;

/* Where the machine has no description of virtio-mmio devices (x86_64
   for now, the hosted build) or no way to route their lines. */
__attribute__((weak)) int arch_virtio_mmio_slots(struct arch_mmio_slot *s,
                                                 int max)
{
    (void)s;
    (void)max;
    return 0;
}

__attribute__((weak)) bool arch_irq_line(uint32_t line, int irq)
{
    (void)line;
    (void)irq;
    return false;
}

static void add(uint64_t base, uint64_t size, uint32_t line, const char *src)
{
    for (int i = 0; i < ndevs; i++)
        if (devs[i].base == base)
            return;                     /* described twice: once is enough */
    if (ndevs == VMMIO_MAX_DEVICES) {
        printk("virtio-mmio: more than %d devices; the one at %#llx (%s) "
               "is ignored\n", VMMIO_MAX_DEVICES, (unsigned long long)base,
               src);
        return;
    }
    devs[ndevs++] = (typeof(devs[0])){ base, size, line, NULL, 0, false };
}

static void find_devices(void)
{
    struct arch_mmio_slot slots[VMMIO_MAX_DEVICES];
    struct virtio_mmio_cmdline c;
    const char *val;
    char err[128];
    int n = arch_virtio_mmio_slots(slots, VMMIO_MAX_DEVICES), pos = 0;

    found = true;
    for (int i = 0; i < n; i++)
        add(slots[i].base, slots[i].size, slots[i].line, "firmware");
    while (cmdline_next(VIRTIO_MMIO_CMDLINE_KEY, &pos, &val)) {
        if (virtio_mmio_cmdline_parse(val, &c, err, sizeof err))
            add(c.base, c.size, c.line, "command line");
        else
            printk("virtio-mmio: %s\n", err);
    }
    /* Only the magic value and DeviceID are read here; the rest of the
       checks come when a driver opens the device. */
    for (int i = 0; i < ndevs; i++) {
        volatile uint8_t *r = vm_map_device(devs[i].base, devs[i].size);

        devs[i].regs = r;
        if (!r || devs[i].size < VMMIO_CONFIG ||
            arch_mmio_read32((uintptr_t)r + VMMIO_MAGIC) != VMMIO_MAGIC_VALUE)
            printk("virtio-mmio: no virtio-mmio device at %#llx\n",
                   (unsigned long long)devs[i].base);
        else
            devs[i].device_id =
                arch_mmio_read32((uintptr_t)r + VMMIO_DEVICE_ID);
    }
}

bool virtio_mmio_open(struct virtio_dev *v, uint32_t type, uint32_t *line)
{
    char name[24];

    if (!type)
        return false;
    if (!found)
        find_devices();
    for (int i = 0; i < ndevs; i++) {
        if (devs[i].opened || devs[i].device_id != type)
            continue;
        devs[i].opened = true;
        snprintf(name, sizeof name, "mmio@%#llx",
                 (unsigned long long)devs[i].base);
        if (virtio_mmio_open_regs(v, devs[i].regs, devs[i].size, name) == 0) {
            *line = devs[i].line;
            return true;
        }
    }
    return false;
}
