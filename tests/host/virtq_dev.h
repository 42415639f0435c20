/*
 * virtq_dev.h - the device side of a split virtqueue, simulated for the
 * host tests (virtq_test.c, virtio_mmio_test.c): it finds the rings
 * through the physical addresses the driver gave it, as a real device
 * does, and checks what the driver wrote: every descriptor in range, no
 * loops, readable before writable, no descriptor in two chains at once,
 * every buffer inside the data arena, the avail index never more than
 * qsize ahead.  It writes data into the writable buffers, returns used
 * elements, and notifies (counts interrupts) by the spec's rules for
 * flags and used_event.
 *
 * One queue at a time, in the globals below.  The including test
 * defines first: MAXCH (the longest chain taken), DATA_PA (where the
 * data arena starts), and pa2va(pa, len), its view of physical memory
 * (NULL outside it); and includes harness.h for CHECK and FAIL.
 */
#ifndef TESTS_HOST_VIRTQ_DEV_H
#define TESTS_HOST_VIRTQ_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "drivers/virtq.h"

struct dchain {
    uint16_t head;
    int n, nout;
    uint16_t idx[MAXCH];
    uint64_t pa[MAXCH];
    uint32_t len[MAXCH];
    uint64_t wcap;
};

static struct dev {
    uint16_t size;
    bool event_idx;
    struct virtq_desc *desc;
    struct virtq_avail *avail;
    struct virtq_used *used;
    uint16_t *used_event;
    uint16_t *avail_event;
    uint16_t last_avail;        /* next avail entry to read */
    uint16_t used_idx;          /* next used entry to write */
    int nintr;                  /* notifications sent to the driver */
    uint8_t owned[VIRTQ_MAX_SIZE];  /* descriptor held by a popped chain */
} dev;

/* Takes the queue whose rings the driver placed at these physical
   addresses; false (and a failure) if they are misaligned, outside
   memory or overlap. */
static bool dev_attach_at(uint64_t desc_pa, uint64_t avail_pa,
                          uint64_t used_pa, uint16_t qsize, bool event_idx)
{
    size_t dsz = 16u * qsize, asz = 6 + 2u * qsize, usz = 6 + 8u * qsize;

    memset(&dev, 0, sizeof(dev));
    dev.size = qsize;
    dev.event_idx = event_idx;
    if (!CHECK(desc_pa % 16 == 0 && avail_pa % 2 == 0 && used_pa % 4 == 0))
        return false;
    dev.desc = pa2va(desc_pa, dsz);
    dev.avail = pa2va(avail_pa, asz);
    dev.used = pa2va(used_pa, usz);
    if (!CHECK(dev.desc != NULL && dev.avail != NULL && dev.used != NULL))
        return false;
    /* The parts must not overlap. */
    if (!CHECK(desc_pa + dsz <= avail_pa && avail_pa + asz <= used_pa))
        return false;
    dev.used_event = &dev.avail->ring[qsize];
    dev.avail_event = (uint16_t *)&dev.used->ring[qsize];
    return true;
}

static uint16_t dmask(void)
{
    return dev.size - 1;
}

/* Walks the chain at head; false (and a failure) on any violation. */
static bool dev_walk(uint16_t head, struct dchain *c)
{
    uint16_t d = head;

    c->head = head;
    c->n = c->nout = 0;
    c->wcap = 0;
    for (;;) {
        struct virtq_desc de;

        if (d >= dev.size) {
            FAIL("chain %u: descriptor %u out of range", head, d);
            return false;
        }
        if (c->n >= dev.size || c->n >= MAXCH) {
            FAIL("chain %u: too long or a loop", head);
            return false;
        }
        if (dev.owned[d]) {
            FAIL("descriptor %u in two chains at once", d);
            return false;
        }
        de = dev.desc[d];
        if (de.flags & ~(VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE)) {
            FAIL("descriptor %u: flags %#x", d, de.flags);
            return false;
        }
        if (!(de.flags & VIRTQ_DESC_F_WRITE) && c->n > c->nout) {
            FAIL("chain %u: readable after writable", head);
            return false;
        }
        if (pa2va(de.addr, de.len) == NULL || de.addr < DATA_PA) {
            FAIL("descriptor %u: buffer %#llx+%u outside the arena", d,
                 (unsigned long long)de.addr, de.len);
            return false;
        }
        dev.owned[d] = 1;
        c->idx[c->n] = d;
        c->pa[c->n] = de.addr;
        c->len[c->n] = de.len;
        if (de.flags & VIRTQ_DESC_F_WRITE)
            c->wcap += de.len;
        else
            c->nout++;
        c->n++;
        if (!(de.flags & VIRTQ_DESC_F_NEXT))
            return true;
        d = de.next;
    }
}

/* Number of published chains the device has not read yet. */
static uint16_t dev_avail(void)
{
    uint16_t idx = __atomic_load_n(&dev.avail->idx, __ATOMIC_ACQUIRE);

    return idx - dev.last_avail;
}

/* Takes the next published chain; false if there is none. */
static bool dev_pop(struct dchain *c)
{
    uint16_t n = dev_avail(), head;

    if (n == 0)
        return false;
    if (n > dev.size) {
        FAIL("avail idx %u chains ahead, qsize %u", n, dev.size);
        return false;
    }
    head = dev.avail->ring[dev.last_avail & dmask()];
    dev.last_avail++;
    return dev_walk(head, c);
}

/* Writes a used element as told, and notifies if the driver asked. */
static void dev_push(uint32_t id, uint32_t len)
{
    uint16_t pos = dev.used_idx;

    dev.used->ring[pos & dmask()].id = id;
    dev.used->ring[pos & dmask()].len = len;
    dev.used_idx++;
    __atomic_store_n(&dev.used->idx, dev.used_idx, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (dev.event_idx) {
        if (__atomic_load_n(dev.used_event, __ATOMIC_RELAXED) == pos)
            __atomic_fetch_add(&dev.nintr, 1, __ATOMIC_SEQ_CST);
    } else if (!(__atomic_load_n(&dev.avail->flags, __ATOMIC_RELAXED) &
                 VIRTQ_AVAIL_F_NO_INTERRUPT)) {
        __atomic_fetch_add(&dev.nintr, 1, __ATOMIC_SEQ_CST);
    }
}

/* What the device writes at offset k of the writable part. */
static uint8_t dev_byte(const uint8_t *in, size_t inlen, size_t k)
{
    return (uint8_t)((inlen ? in[k % inlen] : 0x33) ^ (uint8_t)k);
}

/* Gathers the readable part of c into in (at most cap bytes). */
static size_t dev_gather(const struct dchain *c, uint8_t *in, size_t cap)
{
    size_t n = 0;

    for (int i = 0; i < c->nout; i++) {
        const uint8_t *p = pa2va(c->pa[i], c->len[i]);

        for (uint32_t k = 0; k < c->len[i] && n < cap; k++)
            in[n++] = p[k];
    }
    return n;
}

/* Does c's work, writing wlen bytes (<= wcap), and returns it as used
 * with len = reported (a liar's value, or wlen). */
static void dev_finish(const struct dchain *c, uint32_t wlen,
                       uint32_t reported)
{
    uint8_t in[MAXCH * 128];
    size_t inlen = dev_gather(c, in, sizeof(in)), k = 0;

    for (int i = c->nout; i < c->n && k < wlen; i++) {
        uint8_t *p = pa2va(c->pa[i], c->len[i]);

        for (uint32_t j = 0; j < c->len[i] && k < wlen; j++, k++)
            p[j] = dev_byte(in, inlen, k);
    }
    for (int i = 0; i < c->n; i++)
        dev.owned[c->idx[i]] = 0;
    dev_push(c->head, reported);
}

static void dev_complete(const struct dchain *c, uint32_t wlen)
{
    dev_finish(c, wlen, wlen);
}

/* Pops and completes everything published, in order, writing it all. */
static int dev_drain(void)
{
    struct dchain c;
    int n = 0;

    while (dev_pop(&c)) {
        dev_complete(&c, (uint32_t)c.wcap);
        n++;
    }
    return n;
}

#endif
