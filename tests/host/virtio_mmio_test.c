/*
 * virtio_mmio_test.c - host unit test for the virtio-mmio transport
 * (drivers/virtio_mmio.c) and what every transport shares
 * (drivers/virtio.c), against simulated version 2 devices.
 *
 * Each simulated device is a register block whose 32-bit accesses the
 * shim's arch/arch.h hands to shim_mmio_read32 and shim_mmio_write32
 * below: it keeps the device's state (status, feature words, the
 * selected queue and each queue's size, addresses and readiness, the
 * interrupt status) and fails the case on an access the spec forbids (a
 * register written while it must not be, a queue reprogrammed while
 * ready, a size above QueueNumMax, an unknown offset).  Its device
 * configuration at 0x100 and its QueueNotify register are plain memory
 * the driver reads and writes directly, as virtio.c does.  Once a queue
 * is set up, virtq_dev.h's simulated device takes its rings at the
 * addresses the driver wrote, which shows that they are the ring's.
 *
 * The cases: the set-up sequence (status steps, features, queue
 * registers, a buffer round trip with its notification and interrupt),
 * negotiation failures, a legacy device refused, the configuration
 * generation retry, the interrupt's acknowledgement, and discovery from
 * the machine's slots and the command line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "drivers/virtio_mmio.h"
#include "drivers/virtq.h"
#include "harness.h"
#include "kernel/cmdline.h"

#define MAXCH       8
#define RING_PA     0x10000000ull
#define DATA_PA     0x40000000ull
#define DATA_BYTES  65536u
#define QSIZE       8

static uint8_t *ring;               /* the rings: RING_PA */
static size_t ring_bytes;
static uint8_t data[DATA_BYTES];    /* buffers: DATA_PA */

static void *pa2va(uint64_t pa, uint64_t len)
{
    if (pa >= RING_PA && len <= ring_bytes && pa - RING_PA <= ring_bytes - len)
        return ring + (pa - RING_PA);
    if (pa >= DATA_PA && len <= DATA_BYTES && pa - DATA_PA <= DATA_BYTES - len)
        return data + (pa - DATA_PA);
    return NULL;
}

#include "virtq_dev.h"

/* ---- What the kernel gives the transport ---------------------------- */

static char printed[1024];          /* what printk printed, all of it */

void printk(const char *fmt, ...)
{
    size_t n = strlen(printed);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(printed + n, sizeof printed - n, fmt, ap);
    va_end(ap);
}

/* ---- The simulated devices ------------------------------------------ */

#define NSIM        4
#define SIM_BASE    0x0a000000ull   /* device i's registers: + 0x200 * i */
#define NQUEUES     3

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0xaa, 0xaa, 0xaa };
static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0xbb, 0xbb, 0xbb };

static struct sim {
    _Alignas(64) uint8_t regs[0x200];
    uint32_t magic, version, device_id;
    uint64_t offered;           /* device features */
    bool refuse;                /* refuses FEATURES_OK */
    uint32_t dfsel, drfsel;
    uint64_t accepted;          /* driver features */
    uint32_t status;
    uint32_t status_log[16];    /* every value written to Status */
    int nstatus;
    uint32_t qsel;
    struct {
        uint32_t max, num, ready;
        uint64_t desc, driver, device;
    } q[NQUEUES];
    uint32_t isr, acked;
    int nack;
    uint32_t gen;
    int gen_reads;
    int tear;                   /* 2: the next generation read starts a
                                   change of the MAC; -1: changes forever */
} sims[NSIM];

static void sim_init(struct sim *s, uint32_t device_id, uint32_t version)
{
    memset(s, 0, sizeof *s);
    s->magic = VMMIO_MAGIC_VALUE;
    s->version = version;
    s->device_id = device_id;
    s->offered = VIRTIO_F_VERSION_1 | VIRTIO_F_RING_EVENT_IDX | (1ULL << 5);
    for (int i = 0; i < NQUEUES; i++)
        s->q[i].max = 256;
    memcpy(s->regs + VMMIO_CONFIG, mac_a, 6);
    memset(s->regs + VMMIO_QUEUE_NOTIFY, 0xff, 4);
}

/* The device whose registers hold a, and the offset; NULL if none. */
static struct sim *sim_at(uintptr_t a, uint32_t *off)
{
    for (int i = 0; i < NSIM; i++)
        if (a >= (uintptr_t)sims[i].regs &&
            a < (uintptr_t)sims[i].regs + sizeof sims[i].regs) {
            *off = (uint32_t)(a - (uintptr_t)sims[i].regs);
            return &sims[i];
        }
    return NULL;
}

uint32_t shim_mmio_read32(uintptr_t a)
{
    uint32_t off, v;
    struct sim *s = sim_at(a, &off);

    if (!s || (off & 3)) {
        FAIL("read32 of %#lx: no register there", (unsigned long)a);
        return 0;
    }
    switch (off) {
    case VMMIO_MAGIC: return s->magic;
    case VMMIO_VERSION: return s->version;
    case VMMIO_DEVICE_ID: return s->device_id;
    case VMMIO_VENDOR_ID: return 0x554d4551;
    case VMMIO_DEVICE_FEATURES:
        return s->dfsel > 1 ? 0 : (uint32_t)(s->offered >> 32 * s->dfsel);
    case VMMIO_QUEUE_NUM_MAX: return s->qsel < NQUEUES ? s->q[s->qsel].max : 0;
    case VMMIO_QUEUE_READY: return s->qsel < NQUEUES ? s->q[s->qsel].ready : 0;
    case VMMIO_INTERRUPT_STATUS: return s->isr;
    case VMMIO_STATUS: return s->status;
    case VMMIO_CONFIG_GENERATION:
        s->gen_reads++;
        v = s->gen;
        if (s->tear == 2) {             /* half the new MAC, after this read */
            memcpy(s->regs + VMMIO_CONFIG, mac_b, 3);
            s->gen++;
            s->tear = 1;
        } else if (s->tear == 1) {      /* the rest, before it */
            memcpy(s->regs + VMMIO_CONFIG + 3, mac_b + 3, 3);
            v = ++s->gen;
            s->tear = 0;
        } else if (s->tear < 0) {
            v = ++s->gen;
        }
        return v;
    }
    if (off >= VMMIO_CONFIG)
        return *(uint32_t *)(s->regs + off);
    FAIL("read32 of register %#x, which is write-only or not there", off);
    return 0;
}

static void sim_reset(struct sim *s)
{
    s->status = 0;
    s->accepted = 0;
    s->isr = 0;
    for (int i = 0; i < NQUEUES; i++) {
        s->q[i].ready = 0;
        s->q[i].num = 0;
    }
}

static void sim_status(struct sim *s, uint32_t v)
{
    if (s->nstatus < 16)
        s->status_log[s->nstatus++] = v;
    if (v == 0) {
        sim_reset(s);
        return;
    }
    if (v & ~s->status & VIRTIO_S_FEATURES_OK &&
        (s->refuse || (s->accepted & ~s->offered)))
        v &= ~(uint32_t)VIRTIO_S_FEATURES_OK;
    s->status = v;
}

void shim_mmio_write32(uintptr_t a, uint32_t v)
{
    uint32_t off;
    struct sim *s = sim_at(a, &off);
    uint32_t *half;

    if (!s || (off & 3)) {
        FAIL("write32 of %#lx: no register there", (unsigned long)a);
        return;
    }
    if (off >= VMMIO_QUEUE_NUM && off <= VMMIO_QUEUE_DEVICE_HIGH &&
        off != VMMIO_QUEUE_NOTIFY && off != VMMIO_INTERRUPT_ACK &&
        off != VMMIO_STATUS && off != VMMIO_QUEUE_READY &&
        s->qsel < NQUEUES && s->q[s->qsel].ready) {
        FAIL("queue %u: register %#x written while it is ready", s->qsel, off);
        return;
    }
    switch (off) {
    case VMMIO_DEVICE_FEATURES_SEL: s->dfsel = v; return;
    case VMMIO_DRIVER_FEATURES_SEL: s->drfsel = v; return;
    case VMMIO_DRIVER_FEATURES:
        if (s->drfsel < 2)
            s->accepted = (s->accepted & ~(0xffffffffULL << 32 * s->drfsel)) |
                          (uint64_t)v << 32 * s->drfsel;
        return;
    case VMMIO_QUEUE_SEL: s->qsel = v; return;
    case VMMIO_STATUS: sim_status(s, v); return;
    case VMMIO_INTERRUPT_ACK:
        s->nack++;
        s->acked |= v;
        s->isr &= ~v;
        return;
    }
    if (s->qsel >= NQUEUES) {
        FAIL("register %#x of queue %u, which is not there", off, s->qsel);
        return;
    }
    switch (off) {
    case VMMIO_QUEUE_NUM:
        if (v > s->q[s->qsel].max || !v || (v & (v - 1)))
            FAIL("queue %u: QueueNum %u", s->qsel, v);
        s->q[s->qsel].num = v;
        return;
    case VMMIO_QUEUE_READY: s->q[s->qsel].ready = v; return;
    case VMMIO_QUEUE_DESC_LOW: case VMMIO_QUEUE_DESC_HIGH:
        half = (uint32_t *)&s->q[s->qsel].desc + (off == VMMIO_QUEUE_DESC_HIGH);
        *half = v;
        return;
    case VMMIO_QUEUE_DRIVER_LOW: case VMMIO_QUEUE_DRIVER_HIGH:
        half = (uint32_t *)&s->q[s->qsel].driver +
               (off == VMMIO_QUEUE_DRIVER_HIGH);
        *half = v;
        return;
    case VMMIO_QUEUE_DEVICE_LOW: case VMMIO_QUEUE_DEVICE_HIGH:
        half = (uint32_t *)&s->q[s->qsel].device +
               (off == VMMIO_QUEUE_DEVICE_HIGH);
        *half = v;
        return;
    }
    FAIL("write32 of register %#x, which is read-only or not there", off);
}

/* ---- Helpers -------------------------------------------------------- */

static struct virtio_dev v;

/* A fresh device 0 of type `id`, opened; the open's result. */
static int open_sim(uint32_t id, uint32_t version)
{
    printed[0] = '\0';
    sim_init(&sims[0], id, version);
    return virtio_mmio_open_regs(&v, sims[0].regs, sizeof sims[0].regs,
                                 "mmio@test");
}

static struct virtq q;
static struct virtq_slot slots[QSIZE];

/* Rings for a queue of QSIZE at RING_PA. */
static bool make_ring(void)
{
    free(ring);
    ring_bytes = virtq_mem_size(QSIZE);
    if (!CHECK(posix_memalign((void **)&ring, 4096, ring_bytes) == 0))
        return false;
    return CHECK(virtq_init(&q, QSIZE, ring, RING_PA, slots, false) == 0);
}

/* ---- Cases ---------------------------------------------------------- */

TEST(setup_sequence)
{
    struct virtio_notify n;
    struct sim *s = &sims[0];
    struct virtq_buf b = { DATA_PA, 64 };
    uint32_t len;
    int cookie;

    if (!CHECK(open_sim(VIRTIO_ID_NET, 2) == 0))
        return;
    CHECK(s->nstatus == 3 && s->status_log[0] == 0 &&
          s->status_log[1] == VIRTIO_S_ACK &&
          s->status_log[2] == (VIRTIO_S_ACK | VIRTIO_S_DRIVER));
    CHECK(v.devcfg == s->regs + VMMIO_CONFIG && v.devcfg_len == 0x100);
    /* Features: what is wanted and offered, and VERSION_1. */
    CHECK(virtio_negotiate(&v, VIRTIO_F_RING_EVENT_IDX | (1ULL << 22)));
    CHECK(v.features == (VIRTIO_F_VERSION_1 | VIRTIO_F_RING_EVENT_IDX));
    CHECK(s->accepted == v.features);
    CHECK(s->status == (VIRTIO_S_ACK | VIRTIO_S_DRIVER | VIRTIO_S_FEATURES_OK));
    /* Queue 1: its size and addresses, ready, its doorbell. */
    CHECK(virtio_queue_max(&v, 1) == 256 && virtio_queue_max(&v, NQUEUES) == 0);
    if (!make_ring())
        return;
    if (!CHECK(virtio_queue_setup(&v, &(struct virtio_queue_cfg){
            1, QSIZE, q.desc_pa, q.avail_pa, q.used_pa, VIRTIO_NO_VECTOR }, &n)))
        return;
    CHECK(s->q[1].num == QSIZE && s->q[1].ready == 1);
    CHECK(s->q[1].desc == q.desc_pa && s->q[1].driver == q.avail_pa &&
          s->q[1].device == q.used_pa);
    CHECK(n.reg == s->regs + VMMIO_QUEUE_NOTIFY && n.queue == 1 && n.wide);
    CHECK(virtio_queue_max(&v, 1) == 0);        /* in use now */
    virtio_ready(&v);
    CHECK(s->status == (VIRTIO_S_ACK | VIRTIO_S_DRIVER | VIRTIO_S_FEATURES_OK |
                        VIRTIO_S_DRIVER_OK));
    /* A buffer through the rings the registers name. */
    if (!dev_attach_at(s->q[1].desc, s->q[1].driver, s->q[1].device, QSIZE,
                       false))
        return;
    CHECK(virtq_add(&q, &b, 0, 1, &cookie) == 0);
    virtq_publish(&q);
    CHECK(virtq_kick_needed(&q));
    virtio_notify(&n);
    /* All four bytes: one 32-bit store, as the register needs. */
    CHECK(*(uint32_t *)(s->regs + VMMIO_QUEUE_NOTIFY) == 1);
    CHECK(dev_drain() == 1 && dev.nintr == 1);
    s->isr |= VIRTIO_INTR_QUEUE;
    CHECK(virtio_intr_cause(&v) == VIRTIO_INTR_QUEUE && s->isr == 0);
    CHECK(virtq_get(&q, &len) == &cookie && len == 64);
    CHECK(!printed[0]);
}

TEST(queue_refusals)
{
    struct virtio_notify n;
    struct sim *s = &sims[0];

    if (!CHECK(open_sim(VIRTIO_ID_NET, 2) == 0) || !make_ring())
        return;
    /* No MSI-X vectors here. */
    CHECK(!virtio_queue_setup(&v, &(struct virtio_queue_cfg){
        0, QSIZE, q.desc_pa, q.avail_pa, q.used_pa, 0 }, &n));
    CHECK(strstr(printed, "mmio@test: queue 0: virtio-mmio has no MSI-X"));
    CHECK(!s->q[0].ready && !s->q[0].num);
    /* A queue in use already is left alone. */
    s->q[2].ready = 1;
    CHECK(virtio_queue_max(&v, 2) == 0);
    CHECK(!virtio_queue_setup(&v, &(struct virtio_queue_cfg){
        2, QSIZE, q.desc_pa, q.avail_pa, q.used_pa, VIRTIO_NO_VECTOR }, &n));
    CHECK(strstr(printed, "in use already"));
    /* A queue that is not there. */
    s->q[0].max = 0;
    CHECK(virtio_queue_max(&v, 0) == 0);
}

TEST(negotiation_failure)
{
    struct sim *s = &sims[0];

    /* No VERSION_1: a legacy interface in disguise. */
    CHECK(open_sim(VIRTIO_ID_NET, 2) == 0);
    s->offered = VIRTIO_F_RING_EVENT_IDX;
    CHECK(!virtio_negotiate(&v, VIRTIO_F_RING_EVENT_IDX));
    CHECK(s->status & VIRTIO_S_FAILED);
    CHECK(strstr(printed, "mmio@test: the device does not offer VIRTIO_F_VERSION_1"));
    /* The device takes the features back: FEATURES_OK does not stick. */
    CHECK(open_sim(VIRTIO_ID_NET, 2) == 0);
    s->refuse = true;
    CHECK(!virtio_negotiate(&v, 0));
    CHECK(s->status & VIRTIO_S_FAILED && !(s->status & VIRTIO_S_FEATURES_OK));
    CHECK(strstr(printed, "refused the features"));
    /* Never more than offered, whatever is wanted. */
    CHECK(open_sim(VIRTIO_ID_NET, 2) == 0);
    CHECK(virtio_negotiate(&v, ~0ULL) && s->accepted == s->offered);
}

TEST(legacy_refused)
{
    struct sim *s = &sims[0];

    CHECK(open_sim(VIRTIO_ID_NET, 1) == -1);
    CHECK(s->nstatus == 0);                 /* never touched */
    CHECK(strstr(printed, "legacy (version 1)") &&
          strstr(printed, "virtio-mmio.force-legacy=false"));
    CHECK(strchr(printed, '\n') == printed + strlen(printed) - 1);
    CHECK(open_sim(VIRTIO_ID_NET, 3) == -1 && strstr(printed, "unknown version"));
    sim_init(s, VIRTIO_ID_NET, 2);
    s->magic = 0x12345678;
    printed[0] = '\0';
    CHECK(virtio_mmio_open_regs(&v, s->regs, sizeof s->regs, "x") == -1 &&
          strstr(printed, "magic"));
    /* An empty slot: silently. */
    CHECK(open_sim(0, 2) == 1 && !printed[0] && s->nstatus == 0);
    CHECK(open_sim(0, 1) == 1 && !printed[0]);
    /* Too small for the registers. */
    sim_init(s, VIRTIO_ID_NET, 2);
    CHECK(virtio_mmio_open_regs(&v, s->regs, 0xfc, "x") == -1 && s->nstatus == 0);
}

TEST(config_generation_retry)
{
    struct sim *s = &sims[0];
    uint8_t mac[6];

    CHECK(open_sim(VIRTIO_ID_NET, 2) == 0);
    CHECK(virtio_config_read(&v, 0, mac, 6) && !memcmp(mac, mac_a, 6));
    CHECK(s->gen_reads == 2);
    /* The MAC changes under the first pass: read again, whole. */
    s->gen_reads = 0;
    s->tear = 2;
    CHECK(virtio_config_read(&v, 0, mac, 6) && !memcmp(mac, mac_b, 6));
    CHECK(s->gen_reads == 4 && s->tear == 0);
    /* A device that never settles still gets an answer, in bounded time. */
    s->gen_reads = 0;
    s->tear = -1;
    CHECK(virtio_config_read(&v, 0, mac, 6) && !memcmp(mac, mac_b, 6));
    CHECK(s->gen_reads > 2 && s->gen_reads <= 1000);
    s->tear = 0;
    /* Outside the configuration: nothing read. */
    memset(mac, 0x77, sizeof mac);
    CHECK(!virtio_config_read(&v, 0xfc, mac, 6) && mac[0] == 0x77);
    CHECK(!virtio_config_read(&v, 0x101, mac, 1));
    CHECK(virtio_config16(&v, 0xff) == 0);
    memcpy(s->regs + VMMIO_CONFIG + 6, "\x01\x00", 2);
    CHECK(virtio_config16(&v, 6) == 1);
}

TEST(interrupt_ack)
{
    struct sim *s = &sims[0];

    CHECK(open_sim(VIRTIO_ID_NET, 2) == 0);
    s->isr = VIRTIO_INTR_QUEUE | VIRTIO_INTR_CONFIG;
    CHECK(virtio_intr_cause(&v) == (VIRTIO_INTR_QUEUE | VIRTIO_INTR_CONFIG));
    CHECK(s->isr == 0 && s->nack == 1 &&
          s->acked == (VIRTIO_INTR_QUEUE | VIRTIO_INTR_CONFIG));
    /* Nothing pending (another device's interrupt, a spurious one):
       nothing acknowledged. */
    CHECK(virtio_intr_cause(&v) == 0 && s->nack == 1);
    s->isr = VIRTIO_INTR_CONFIG;
    CHECK(virtio_intr_cause(&v) == VIRTIO_INTR_CONFIG && s->nack == 2);
}

/* The machine's slots: devices 0 (empty), 1 (a network device) and 2 (a
   legacy console) at SIM_BASE + 0x200 * i, device 0 twice; device 3 (a
   console) comes from the command line. */
int arch_virtio_mmio_slots(struct arch_mmio_slot *slots, int max)
{
    struct arch_mmio_slot s[] = {
        { SIM_BASE, 0x200, 48 }, { SIM_BASE + 0x200, 0x200, 49 },
        { SIM_BASE + 0x400, 0x200, 50 }, { SIM_BASE, 0x200, 48 },
    };
    int n = 0;

    for (; n < 4 && n < max; n++)
        slots[n] = s[n];
    return n;
}

void *vm_map_device(uint64_t pa, size_t len)
{
    if (pa < SIM_BASE || pa >= SIM_BASE + 0x200 * NSIM || (pa & 0x1ff) ||
        len > 0x200) {
        FAIL("vm_map_device(%#llx, %zu): not a slot", (unsigned long long)pa,
             len);
        return NULL;
    }
    return sims[(pa - SIM_BASE) / 0x200].regs;
}

TEST(discovery)
{
    uint32_t line = 0;

    sim_init(&sims[0], 0, 2);
    sim_init(&sims[1], VIRTIO_ID_NET, 2);
    sim_init(&sims[2], VIRTIO_ID_CONSOLE, 1);
    sim_init(&sims[3], VIRTIO_ID_CONSOLE, 2);
    printed[0] = '\0';
    cmdline_parse("smp=2 virtio_mmio.device=512@0xa000600:51:3 "
                  "virtio_mmio.device=1K@0xa000200:49 "
                  "virtio_mmio.device=512@0xa000600 -- "
                  "virtio_mmio.device=512@0xa000800:52");
    /* Found once: the bad value said, the duplicates dropped quietly. */
    CHECK(virtio_mmio_open(&v, VIRTIO_ID_NET, &line));
    CHECK(line == 49 && v.mmio.regs == sims[1].regs &&
          !strcmp(v.name, "mmio@0xa000200"));
    CHECK(strstr(printed, "virtio_mmio.device=512@0xa000600: no :<irq>"));
    CHECK(!strstr(printed, "0xa000800"));
    /* Opened once only. */
    CHECK(!virtio_mmio_open(&v, VIRTIO_ID_NET, &line));
    /* The legacy console refused, the command line's taken. */
    printed[0] = '\0';
    CHECK(virtio_mmio_open(&v, VIRTIO_ID_CONSOLE, &line));
    CHECK(line == 51 && v.mmio.regs == sims[3].regs);
    CHECK(strstr(printed, "mmio@0xa000400") && strstr(printed, "legacy"));
    CHECK(!virtio_mmio_open(&v, VIRTIO_ID_CONSOLE, &line));
    /* The empty slot was never opened, or spoken of. */
    CHECK(sims[0].nstatus == 0 && !strstr(printed, "0xa000000"));
    CHECK(!virtio_mmio_open(&v, 0, &line));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
