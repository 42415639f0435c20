/*
 * virtq_test.c - host unit test for drivers/virtq.c.
 *
 * "Physical memory" is two regions: the rings (their own allocation of
 * exactly virtq_mem_size bytes, so ASan sees any overrun) at RING_PA, and
 * a data arena for buffers at DATA_PA.  The simulated device
 * (virtq_dev.h) finds everything through the physical addresses
 * virtq_init reports, as a real one would, and checks what the driver
 * wrote: every descriptor in range, no loops, readable before writable,
 * no descriptor in two chains at once, every buffer inside the arena,
 * the avail index never more than qsize ahead.  It writes data into the writable buffers, returns
 * used elements, and notifies (counts interrupts) by the spec's rules for
 * flags and used_event.  Hostile cases make it lie about used->idx, ids
 * and lengths.
 *
 * Most cases interleave driver and device in one thread, step by step.
 * The concurrent cases run the device in a thread of its own that sleeps
 * until kicked, as a real one does, and the driver sleeps until
 * interrupted: a lost kick or a lost interrupt shows as a timeout.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "drivers/virtq.h"
#include "harness.h"

#define RING_PA 0x10000000ull
#define DATA_PA 0x40000000ull
#define DATA_BYTES (1u << 20)
#define REQ_BYTES 1024u            /* data area of one stress request */
#define MAXCH 64                   /* longest chain the device accepts */

static uint8_t *ring;              /* the rings: RING_PA */
static size_t ring_bytes;
static uint8_t *data;              /* buffers: DATA_PA */
static struct virtq_slot *slots;
static struct virtq q;

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

/* The device's view of physical memory; NULL if [pa, pa + len) is not
 * inside one region. */
static void *pa2va(uint64_t pa, uint64_t len)
{
    if (pa >= RING_PA && len <= ring_bytes && pa - RING_PA <= ring_bytes - len)
        return ring + (pa - RING_PA);
    if (pa >= DATA_PA && len <= DATA_BYTES && pa - DATA_PA <= DATA_BYTES - len)
        return data + (pa - DATA_PA);
    return NULL;
}

static uint64_t data_pa(size_t off)
{
    return DATA_PA + off;
}

/* ---- The simulated device ------------------------------------------- */

#include "virtq_dev.h"

static bool dev_attach(uint16_t qsize, bool event_idx)
{
    return dev_attach_at(q.desc_pa, q.avail_pa, q.used_pa, qsize, event_idx);
}

/* ---- Setup ---------------------------------------------------------- */

static bool setup(uint16_t qsize, bool event_idx)
{
    free(ring);
    free(slots);
    ring = NULL;
    ring_bytes = virtq_mem_size(qsize);
    if (!CHECK(ring_bytes > 0) ||
        !CHECK(posix_memalign((void **)&ring, 4096, ring_bytes) == 0))
        return false;
    memset(ring, 0xa5, ring_bytes);         /* init must zero it */
    slots = malloc(sizeof(*slots) * qsize);
    if (!CHECK(slots != NULL))
        return false;
    if (!CHECK(virtq_init(&q, qsize, ring, RING_PA, slots, event_idx) == 0))
        return false;
    return dev_attach(qsize, event_idx);
}

/* Adds a chain of nout + nin buffers of len bytes each, side by side
 * from data offset off. */
static int add_simple(int nout, int nin, uint32_t len, size_t off,
                      void *cookie)
{
    struct virtq_buf b[MAXCH];

    if (nout + nin > MAXCH) {
        FAIL("add_simple: %d buffers", nout + nin);
        return -3;
    }
    for (int i = 0; i < nout + nin; i++) {
        b[i].pa = data_pa(off + (size_t)i * len);
        b[i].len = len;
    }
    return virtq_add(&q, b, nout, nin, cookie);
}

static int cookies[VIRTQ_MAX_SIZE];     /* addresses used as cookies */

static void *ck(int i)
{
    return &cookies[i];
}

/* ---- Cases: init and layout ----------------------------------------- */

TEST(init_rejects_bad_sizes)
{
    static const uint16_t bad[] = { 0, 3, 6, 100, 32767, 32769, 49152,
                                    65535 };
    struct virtq_slot s[8];
    uint8_t *mem = NULL;
    struct virtq z;

    if (!CHECK(posix_memalign((void **)&mem, 4096, 1 << 21) == 0))
        return;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(virtq_mem_size(bad[i]) == 0);
        memset(&z, 0x5a, sizeof(z));
        CHECK(virtq_init(&z, bad[i], mem, 0x1000, s, false) == -1);
        CHECK(((uint8_t *)&z)[0] == 0x5a);      /* untouched */
    }
    CHECK(virtq_init(&z, 8, mem + 8, 0x1000, s, false) == -1);
    CHECK(virtq_init(&z, 8, mem, 0x1008, s, false) == -1);
    CHECK(virtq_init(&z, 8, NULL, 0x1000, s, false) == -1);
    CHECK(virtq_init(&z, 8, mem, 0x1000, NULL, false) == -1);
    CHECK(virtq_init(NULL, 8, mem, 0x1000, s, false) == -1);
    CHECK(virtq_init(&z, 1, mem, 0x1000, s, false) == 0);
    CHECK(virtq_nfree(&z) == 1);
    CHECK(virtq_init(&z, 8, mem, 0x1000, s, true) == 0);
    CHECK(virtq_nfree(&z) == 8 && virtq_inflight(&z) == 0);
    free(mem);
}

TEST(init_layout)
{
    static const uint16_t sizes[] = { 1, 2, 8, 256, 1024, 32768 };

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint16_t n = sizes[i];
        size_t used_end;

        if (!setup(n, i % 2))
            return;
        /* Spec sizes; used ring on a page boundary (legacy layout). */
        CHECK(q.desc_pa == RING_PA);
        CHECK(q.avail_pa == RING_PA + 16u * n);
        CHECK(q.used_pa % 4096 == 0);
        CHECK(q.used_pa >= q.avail_pa + 6 + 2u * n);
        CHECK(q.used_pa < q.avail_pa + 6 + 2u * n + 4096);
        used_end = q.used_pa - RING_PA + 6 + 8u * n;
        CHECK(ring_bytes == used_end);
        for (size_t k = 0; k < ring_bytes; k++)
            if (ring[k] != 0) {
                FAIL("qsize %u: byte %zu not zeroed", n, k);
                break;
            }
        CHECK((uint8_t *)q.used_event == ring + (q.avail_pa - RING_PA) +
                                         4 + 2u * n);
        CHECK((uint8_t *)q.avail_event == ring + used_end - 2);
        CHECK(virtq_nfree(&q) == n && virtq_inflight(&q) == 0);
        CHECK(!virtq_is_broken(&q) && virtq_nbad(&q) == 0);
    }
}

/* ---- Cases: adding and taking back ---------------------------------- */

TEST(round_trip_data)
{
    static const char msg[] = "hello, device";
    struct virtq_buf b[2];
    struct dchain c;
    uint32_t len = 0;
    uint8_t *out = data, *in = data + 4096;

    if (!setup(8, false))
        return;
    memcpy(out, msg, sizeof(msg));
    memset(in, 0, 64);
    b[0].pa = data_pa(0);
    b[0].len = sizeof(msg);
    b[1].pa = data_pa(4096);
    b[1].len = 64;
    CHECK(virtq_add(&q, b, 1, 1, ck(1)) == 0);
    CHECK(virtq_nfree(&q) == 6 && virtq_inflight(&q) == 1);
    /* Not yet published: the device must not see it. */
    CHECK(dev_avail() == 0);
    virtq_publish(&q);
    CHECK(dev_avail() == 1);
    CHECK(virtq_get(&q, &len) == NULL);
    if (!CHECK(dev_pop(&c)))
        return;
    CHECK(c.n == 2 && c.nout == 1 && c.wcap == 64);
    dev_complete(&c, sizeof(msg));
    CHECK(virtq_get(&q, &len) == ck(1));
    CHECK(len == sizeof(msg));
    for (size_t k = 0; k < sizeof(msg); k++)
        if (in[k] != dev_byte((const uint8_t *)msg, sizeof(msg), k)) {
            FAIL("byte %zu: %#x", k, in[k]);
            break;
        }
    CHECK(in[sizeof(msg)] == 0);
    CHECK(memcmp(out, msg, sizeof(msg)) == 0);
    CHECK(virtq_get(&q, &len) == NULL);
    CHECK(virtq_nfree(&q) == 8 && virtq_inflight(&q) == 0);
    CHECK(virtq_nbad(&q) == 0);
}

TEST(full_ring)
{
    uint8_t snap_ring[4096 + 256];
    struct virtq snap_q;
    struct dchain c;
    int i;

    if (!setup(8, false) || !CHECK(ring_bytes <= sizeof(snap_ring)))
        return;
    for (i = 0; i < 8; i++)
        CHECK(add_simple(0, 1, 16, 64u * i, ck(i)) == 0);
    CHECK(virtq_nfree(&q) == 0 && virtq_inflight(&q) == 8);
    memcpy(snap_ring, ring, ring_bytes);
    snap_q = q;
    CHECK(add_simple(0, 1, 16, 0, ck(8)) == -1);
    CHECK(add_simple(1, 0, 16, 0, ck(8)) == -1);
    CHECK(memcmp(snap_ring, ring, ring_bytes) == 0);
    CHECK(memcmp(&snap_q, &q, sizeof(q)) == 0);
    virtq_publish(&q);

    /* Two back: a chain of three still does not fit, and changes nothing. */
    for (i = 0; i < 2; i++) {
        if (!CHECK(dev_pop(&c)))
            return;
        dev_complete(&c, 16);
        CHECK(virtq_get(&q, NULL) == ck(i));
    }
    CHECK(virtq_nfree(&q) == 2);
    memcpy(snap_ring, ring, ring_bytes);
    snap_q = q;
    CHECK(add_simple(1, 2, 16, 0, ck(9)) == -1);
    CHECK(memcmp(snap_ring, ring, ring_bytes) == 0);
    CHECK(memcmp(&snap_q, &q, sizeof(q)) == 0);
    CHECK(add_simple(1, 1, 16, 0, ck(9)) == 0);
    CHECK(virtq_nfree(&q) == 0);
    virtq_publish(&q);
    CHECK(dev_drain() == 7);
    for (i = 2; i < 8; i++)
        CHECK(virtq_get(&q, NULL) == ck(i));
    CHECK(virtq_get(&q, NULL) == ck(9));
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_nfree(&q) == 8 && virtq_inflight(&q) == 0);
}

TEST(add_rejects_bad_args)
{
    struct virtq_buf b[3] = {
        { data_pa(0), 0x80000000u },
        { data_pa(0), 0x80000000u },
        { data_pa(0), 1 },
    };
    struct virtq snap;
    uint32_t len;

    if (!setup(4, false))
        return;
    snap = q;
    CHECK(add_simple(1, 0, 8, 0, NULL) == -2);
    CHECK(add_simple(0, 0, 8, 0, ck(0)) == -2);
    CHECK(add_simple(-1, 2, 8, 0, ck(0)) == -2);
    CHECK(add_simple(2, -1, 8, 0, ck(0)) == -2);
    CHECK(add_simple(3, 2, 8, 0, ck(0)) == -2);     /* 5 > qsize */
    CHECK(virtq_add(&q, NULL, 1, 0, ck(0)) == -2);
    CHECK(virtq_add(&q, b, 0, 3, ck(0)) == -2);     /* 2^32 + 1 bytes */
    CHECK(virtq_add(&q, b, 1, 2, ck(0)) == -2);
    CHECK(memcmp(&snap, &q, sizeof(q)) == 0);

    /* Exactly 2^32 bytes is allowed; the capacity saturates at 2^32 - 1
     * (never published: the device would refuse the buffers). */
    CHECK(virtq_add(&q, b, 0, 2, ck(0)) == 0);
    virtq_publish(&q);
    dev_push(0, 0xffffffffu);
    CHECK(virtq_get(&q, &len) == ck(0) && len == 0xffffffffu);
    CHECK(virtq_nbad(&q) == 0);
    CHECK(virtq_nfree(&q) == 4);
}

/* > 2^16 chains through a small ring: both indices wrap several times. */
static void wrap(uint16_t qsize)
{
    const uint32_t total = 3 * 65536 + 123;
    uint32_t added = 0, got = 0;

    if (!setup(qsize, false))
        return;
    while (got < total && !h_failed()) {
        uint32_t batch = 1 + rnd_below(qsize);
        int ncomp;

        for (uint32_t i = 0; i < batch && added < total; i++, added++)
            if (!CHECK(add_simple(0, 1, 8, 16u * (added % qsize),
                                  ck(added % qsize)) == 0))
                return;
        virtq_publish(&q);
        CHECK(dev.avail->idx == (uint16_t)added);
        ncomp = dev_drain();
        for (int i = 0; i < ncomp; i++, got++) {
            uint32_t len = 0;

            if (!CHECK(virtq_get(&q, &len) == ck(got % qsize)) ||
                !CHECK(len == 8))
                return;
        }
        CHECK(virtq_get(&q, NULL) == NULL);
    }
    CHECK(got == total);
    CHECK(q.last_used == (uint16_t)total && dev.used->idx == (uint16_t)total);
    CHECK(dev.last_avail == (uint16_t)total);
    CHECK(virtq_nfree(&q) == qsize && virtq_inflight(&q) == 0);
    CHECK(virtq_nbad(&q) == 0);
}

TEST(wraparound_8)
{
    wrap(8);
}

TEST(wraparound_256)
{
    wrap(256);
}

/* Chains of every shape one by one, then five at once filling the ring,
 * back in reverse order.  The free list must come back whole: a chain of
 * all qsize descriptors fits at the end. */
TEST(chains_mixed_no_leak)
{
    enum { N = 16 };
    static const int lens[] = { 1, 2, 3, 4, 6 };   /* 16 descriptors */
    struct dchain c[N];
    int nc = 0, shapes = 0;

    if (!setup(N, false))
        return;
    for (int nout = 0; nout <= N; nout++)
        for (int nin = 0; nout + nin <= N; nin++) {
            if (nout + nin == 0)
                continue;
            if (!CHECK(add_simple(nout, nin, 4, 0, ck(shapes)) == 0))
                return;
            virtq_publish(&q);
            if (!CHECK(dev_pop(&c[0])))
                return;
            CHECK(c[0].n == nout + nin && c[0].nout == nout);
            CHECK(c[0].wcap == 4u * nin);
            dev_complete(&c[0], 4u * nin);
            CHECK(virtq_get(&q, NULL) == ck(shapes));
            CHECK(virtq_nfree(&q) == N);
            shapes++;
        }
    CHECK(shapes == N * (N + 3) / 2);

    for (int i = 0; i < 5; i++)
        CHECK(add_simple(lens[i] / 2, lens[i] - lens[i] / 2, 8,
                         512u * i, ck(i)) == 0);
    CHECK(virtq_nfree(&q) == 0);
    CHECK(add_simple(1, 0, 8, 0, ck(9)) == -1);
    virtq_publish(&q);
    while (nc < N && dev_pop(&c[nc]))
        nc++;
    CHECK(nc == 5);
    for (int i = nc - 1, back = 0; i >= 0; i--) {
        dev_complete(&c[i], (uint32_t)c[i].wcap);
        CHECK(virtq_get(&q, NULL) == ck(i));
        back += lens[i];
        CHECK(virtq_nfree(&q) == (unsigned)back);
    }
    CHECK(virtq_nfree(&q) == N && virtq_inflight(&q) == 0);
    CHECK(add_simple(N / 2, N / 2, 8, 0, ck(10)) == 0);
    CHECK(virtq_nfree(&q) == 0);
    virtq_publish(&q);
    CHECK(dev_drain() == 1);
    CHECK(virtq_get(&q, NULL) == ck(10));
    CHECK(virtq_nfree(&q) == N && virtq_nbad(&q) == 0);
}

/* The largest queue: full of one-descriptor chains, completed in reverse. */
TEST(large_queue_32768)
{
    const uint32_t n = VIRTQ_MAX_SIZE;
    static struct dchain c;
    static uint16_t heads[VIRTQ_MAX_SIZE];

    if (!setup((uint16_t)n, true))
        return;
    for (uint32_t i = 0; i < n; i++)
        if (!CHECK(add_simple(1, 0, 4, 4u * (i % 1024), ck((int)i)) == 0))
            return;
    CHECK(add_simple(1, 0, 4, 0, ck(0)) == -1);
    virtq_publish(&q);
    for (uint32_t i = 0; i < n; i++) {
        if (!CHECK(dev_pop(&c)))
            return;
        heads[i] = c.head;
        for (int k = 0; k < c.n; k++)
            dev.owned[c.idx[k]] = 0;
    }
    for (uint32_t i = n; i-- > 0;)
        dev_push(heads[i], 0);
    for (uint32_t i = n; i-- > 0;)
        if (!CHECK(virtq_get(&q, NULL) == ck((int)i)))
            return;
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_nfree(&q) == n && virtq_nbad(&q) == 0);
}

/* ---- Cases: notifications ------------------------------------------- */

TEST(kick_flags)
{
    if (!setup(8, false))
        return;
    CHECK(!virtq_kick_needed(&q));          /* nothing published */
    CHECK(add_simple(1, 0, 4, 0, ck(0)) == 0);
    CHECK(!virtq_kick_needed(&q));          /* added, not published */
    virtq_publish(&q);
    CHECK(virtq_kick_needed(&q));
    CHECK(!virtq_kick_needed(&q));          /* nothing new since */
    dev.used->flags = VIRTQ_USED_F_NO_NOTIFY;
    CHECK(add_simple(1, 0, 4, 0, ck(1)) == 0);
    virtq_publish(&q);
    CHECK(!virtq_kick_needed(&q));
    dev.used->flags = 0;
    CHECK(add_simple(1, 0, 4, 0, ck(2)) == 0);
    CHECK(add_simple(1, 0, 4, 0, ck(3)) == 0);
    virtq_publish(&q);
    CHECK(virtq_kick_needed(&q));
    /* Without EVENT_IDX, avail_event means nothing. */
    *dev.avail_event = 100;
    CHECK(add_simple(1, 0, 4, 0, ck(4)) == 0);
    virtq_publish(&q);
    CHECK(virtq_kick_needed(&q));
    CHECK(dev_drain() == 5);
}

/*
 * The watchdog's test: a stall is published chains the device has not
 * used, with nothing moving between two calls; progress on either side,
 * or a device that has used everything, is no stall.
 */
TEST(stalled)
{
    struct dchain c;

    if (!setup(8, true))
        return;
    CHECK(!virtq_stalled(&q));              /* nothing published */
    CHECK(add_simple(1, 0, 4, 0, ck(0)) == 0);
    CHECK(add_simple(1, 0, 4, 0, ck(1)) == 0);
    virtq_publish(&q);
    CHECK(!virtq_stalled(&q));              /* new since the last call */
    CHECK(virtq_stalled(&q));               /* unused, nothing moved */
    CHECK(virtq_stalled(&q));               /* and still */
    CHECK(dev_pop(&c));
    dev_complete(&c, 0);                    /* the device used one */
    CHECK(!virtq_stalled(&q));
    CHECK(virtq_stalled(&q));               /* the other sits there */
    CHECK(add_simple(1, 0, 4, 0, ck(2)) == 0);
    virtq_publish(&q);
    CHECK(!virtq_stalled(&q));              /* the driver published more */
    CHECK(dev_drain() == 2);
    CHECK(!virtq_stalled(&q));              /* all used */
    CHECK(!virtq_stalled(&q));
}

/*
 * With EVENT_IDX the device wants a kick exactly when a batch writes the
 * avail entry at index avail_event.  The oracle enumerates the batch's
 * indices, across several wraps of the 16-bit index; used->flags must be
 * ignored.
 */
TEST(kick_event_idx_exact)
{
    uint16_t idx = 0;
    int kicks = 0, wanted = 0;

    if (!setup(16, true))
        return;
    dev.used->flags = VIRTQ_USED_F_NO_NOTIFY;
    for (int round = 0; round < 40000 && !h_failed(); round++) {
        uint32_t batch = 1 + rnd_below(16);
        uint16_t ev = idx + (uint16_t)rnd_below(40) - 12;
        bool want = false, got;

        if (rnd_below(8) == 0)
            ev = (uint16_t)rnd();
        *dev.avail_event = ev;
        for (uint32_t i = 0; i < batch; i++) {
            want = want || (uint16_t)(idx + i) == ev;
            CHECK(add_simple(0, 1, 4, 0, ck(0)) == 0);
            /* Sometimes published in two steps, checked once. */
            if (i == 0 && rnd_below(2))
                virtq_publish(&q);
        }
        virtq_publish(&q);
        got = virtq_kick_needed(&q);
        if (got != want)
            FAIL("round %d: idx %u batch %u event %u: kick %d, wanted %d",
                 round, idx, batch, ev, got, want);
        kicks += got;
        wanted += want;
        idx += batch;
        dev_drain();
        while (virtq_get(&q, NULL) != NULL)
            ;
    }
    CHECK(kicks == wanted && kicks > 0);
    CHECK(virtq_nfree(&q) == 16 && virtq_nbad(&q) == 0);
}

/*
 * A device that goes to sleep when it runs out of work asks for a kick
 * first (clears NO_NOTIFY, or sets avail_event to its next index), then
 * looks once more.  While awake it suppresses kicks.  A kick must come
 * exactly when it sleeps with work published: none lost, none wasted.
 */
static void sleepy(bool event_idx)
{
    bool asleep = true;             /* idle at start, kicks wanted */
    int kicks = 0, sleeps = 1;
    struct dchain c;

    if (!setup(32, event_idx))
        return;
    for (int round = 0; round < 50000 && !h_failed(); round++) {
        uint32_t batch = rnd_below(5), work;
        bool kick;

        for (uint32_t i = 0; i < batch && virtq_nfree(&q) > 0; i++)
            CHECK(add_simple(0, 1, 4, 0, ck(0)) == 0);
        virtq_publish(&q);
        kick = virtq_kick_needed(&q);
        if (kick != (asleep && dev_avail() > 0))
            FAIL("round %d: kick %d, device asleep %d with %u waiting",
                 round, kick, asleep, dev_avail());
        if (kick) {
            /* Woken: suppress further kicks before doing anything. */
            kicks++;
            asleep = false;
            if (event_idx)
                *dev.avail_event = dev.last_avail - 1;
            else
                dev.used->flags = VIRTQ_USED_F_NO_NOTIFY;
        }
        if (asleep)
            continue;
        /* Awake: do some of the work, suppressing kicks meanwhile. */
        work = rnd_below(6);
        for (uint32_t i = 0; i < work && dev_pop(&c); i++) {
            dev_complete(&c, 4);
            if (event_idx)
                *dev.avail_event = dev.last_avail - 1;
            else
                dev.used->flags = VIRTQ_USED_F_NO_NOTIFY;
        }
        if (dev_avail() == 0 && rnd_below(3) == 0) {
            if (event_idx)
                *dev.avail_event = dev.last_avail;
            else
                dev.used->flags = 0;
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            if (dev_avail() == 0) {
                asleep = true;
                sleeps++;
            }
        }
        while (virtq_get(&q, NULL) != NULL)
            ;
    }
    CHECK(kicks > 100 && kicks <= sleeps);
    CHECK(virtq_nbad(&q) == 0);
}

TEST(kick_sleepy_device_flags)
{
    sleepy(false);
}

TEST(kick_sleepy_device_event_idx)
{
    sleepy(true);
}

/*
 * Interrupt suppression and the re-enable race: with interrupts off a
 * used buffer arrives silently; enable_intr_check must report it (no
 * interrupt would ever come for it); with nothing pending it reports
 * false and the next used buffer interrupts.
 */
static void intr_check(bool event_idx)
{
    struct dchain c[4];
    uint32_t len;

    if (!setup(8, event_idx))
        return;
    for (int i = 0; i < 4; i++)
        CHECK(add_simple(0, 1, 8, 64u * i, ck(i)) == 0);
    virtq_publish(&q);
    for (int i = 0; i < 4; i++)
        if (!CHECK(dev_pop(&c[i])))
            return;

    /* Enabled at init: the first used buffer interrupts. */
    dev_complete(&c[0], 8);
    CHECK(dev.nintr == 1);
    CHECK(virtq_get(&q, &len) == ck(0) && len == 8);

    virtq_disable_intr(&q);
    if (event_idx)
        CHECK(dev.avail->flags == 0);
    else
        CHECK(dev.avail->flags == VIRTQ_AVAIL_F_NO_INTERRUPT);
    dev_complete(&c[1], 8);
    CHECK(dev.nintr == 1);                  /* suppressed */
    CHECK(virtq_enable_intr_check(&q));     /* ...but caught here */
    CHECK(virtq_get(&q, NULL) == ck(1));
    CHECK(!virtq_enable_intr_check(&q));
    CHECK(dev.avail->flags == 0);
    dev_complete(&c[2], 8);
    CHECK(dev.nintr == 2);                  /* armed again */

    /* Interrupts on and not consumed yet: with EVENT_IDX the device
     * interrupts once per consumption, by flags every time. */
    dev_complete(&c[3], 8);
    CHECK(dev.nintr == (event_idx ? 2 : 3));
    CHECK(virtq_get(&q, NULL) == ck(2));
    CHECK(virtq_get(&q, NULL) == ck(3));
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(!virtq_enable_intr_check(&q));
    virtq_disable_intr(&q);
    virtq_enable_intr(&q);
    if (event_idx)
        CHECK(*dev.used_event == q.last_used && dev.avail->flags == 0);
    else
        CHECK(dev.avail->flags == 0);
    CHECK(virtq_nbad(&q) == 0);
}

TEST(intr_check_flags)
{
    intr_check(false);
}

TEST(intr_check_event_idx)
{
    intr_check(true);
}

/* With EVENT_IDX, consuming with interrupts on moves used_event along, so
 * a driver that sleeps after get (without re-enabling) still wakes. */
TEST(intr_event_idx_follows_get)
{
    struct dchain c;

    if (!setup(8, true))
        return;
    for (int i = 0; i < 20 && !h_failed(); i++) {
        CHECK(add_simple(0, 1, 8, 0, ck(i)) == 0);
        virtq_publish(&q);
        if (!CHECK(dev_pop(&c)))
            return;
        dev_complete(&c, 8);
        CHECK(dev.nintr == i + 1);
        CHECK(virtq_get(&q, NULL) == ck(i));
    }
    /* Disabled: nothing moves, no interrupt for 2^16 - 1 elements. */
    virtq_disable_intr(&q);
    for (int i = 0; i < 300 && !h_failed(); i++) {
        CHECK(add_simple(0, 1, 8, 0, ck(i)) == 0);
        virtq_publish(&q);
        dev_drain();
        CHECK(virtq_get(&q, NULL) == ck(i));
    }
    CHECK(dev.nintr == 20);
}

/* ---- Cases: a device that lies -------------------------------------- */

/* Adds n published one-buffer chains and has the device take them. */
static bool post(int n, struct dchain *c)
{
    for (int i = 0; i < n; i++)
        if (!CHECK(add_simple(0, 1, 16, 64u * i, ck(i)) == 0))
            return false;
    virtq_publish(&q);
    for (int i = 0; i < n; i++) {
        if (!CHECK(dev_pop(&c[i])))
            return false;
    }
    return true;
}

TEST(broken_used_idx_ahead)
{
    struct dchain c[3];
    bool seen[3] = { false, false, false };
    void *p;

    if (!setup(8, false) || !post(3, c))
        return;
    dev.used->idx = 4;                      /* 4 used, 3 in flight */
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_is_broken(&q) && q.broken != NULL);
    CHECK(virtq_nbad(&q) == 1);
    /* Sticky: even a sane-looking state is refused now. */
    dev.used->idx = 1;
    dev.used->ring[0].id = c[0].head;
    dev.used->ring[0].len = 1;
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_nbad(&q) == 1);
    CHECK(add_simple(0, 1, 16, 0, ck(7)) == -2);
    CHECK(!virtq_kick_needed(&q));
    CHECK(!virtq_enable_intr_check(&q));
    CHECK(virtq_inflight(&q) == 3 && virtq_nfree(&q) == 5);
    /* After a reset the driver takes every buffer back, once. */
    while ((p = virtq_detach(&q)) != NULL) {
        int i = (int *)p - cookies;

        if (!CHECK(i >= 0 && i < 3 && !seen[i]))
            return;
        seen[i] = true;
    }
    CHECK(seen[0] && seen[1] && seen[2]);
    CHECK(virtq_inflight(&q) == 0 && virtq_nfree(&q) == 8);
    /* And init makes the queue usable again. */
    CHECK(virtq_init(&q, 8, ring, RING_PA, slots, false) == 0);
    if (!dev_attach(8, false))
        return;
    CHECK(!virtq_is_broken(&q));
    CHECK(add_simple(0, 1, 16, 0, ck(5)) == 0);
    virtq_publish(&q);
    CHECK(dev_drain() == 1);
    CHECK(virtq_get(&q, NULL) == ck(5));
}

TEST(broken_used_idx_backwards)
{
    struct dchain c[2];

    if (!setup(8, true) || !post(2, c))
        return;
    dev_complete(&c[0], 16);
    CHECK(virtq_get(&q, NULL) == ck(0));
    dev.used->idx = 0;                      /* went back: 65535 ahead */
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_is_broken(&q) && virtq_nbad(&q) == 1);
    CHECK(virtq_inflight(&q) == 1);
}

/* Chains added but not published cannot have been used. */
TEST(broken_counts_only_published)
{
    struct dchain c[1];

    if (!setup(8, false) || !post(1, c))
        return;
    CHECK(add_simple(0, 1, 16, 512, ck(5)) == 0);   /* not published */
    dev_push(c[0].head, 16);
    dev_push(dev.avail->ring[1], 16);     /* read early, "used" */
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_is_broken(&q));
    CHECK(virtq_inflight(&q) == 2);
}

TEST(bad_id_out_of_range)
{
    struct dchain c[3];
    uint32_t len;

    if (!setup(8, false) || !post(3, c))
        return;
    dev_push(8, 16);
    dev_push(0xffffffffu, 16);
    dev_complete(&c[1], 16);
    CHECK(virtq_get(&q, &len) == ck(1) && len == 16);
    CHECK(virtq_nbad(&q) == 2 && !virtq_is_broken(&q));
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_inflight(&q) == 2 && virtq_nfree(&q) == 6);
    dev_complete(&c[0], 16);
    dev_complete(&c[2], 16);
    CHECK(virtq_get(&q, NULL) == ck(0));
    CHECK(virtq_get(&q, NULL) == ck(2));
    CHECK(virtq_nfree(&q) == 8 && virtq_nbad(&q) == 2);
}

/* Ids in range that name no chain in flight: a duplicate completion, a
 * descriptor in the middle of a chain, and a head not yet published. */
TEST(id_not_in_flight)
{
    struct dchain c[3], big, extra;
    uint16_t unpub;

    if (!setup(8, false) || !post(3, c))
        return;
    dev_complete(&c[0], 16);
    dev_push(c[0].head, 16);                /* again */
    dev_complete(&c[1], 16);
    CHECK(virtq_get(&q, NULL) == ck(0));
    CHECK(virtq_get(&q, NULL) == ck(1));
    CHECK(virtq_nbad(&q) == 1);

    /* Three bogus elements need three chains in flight, else the used
     * index alone would be impossible (see broken_*). */
    CHECK(add_simple(1, 2, 16, 1024, ck(4)) == 0);
    CHECK(add_simple(0, 1, 16, 1536, ck(5)) == 0);
    virtq_publish(&q);
    if (!CHECK(dev_pop(&big)) || !CHECK(dev_pop(&extra)))
        return;
    CHECK(add_simple(0, 1, 16, 2048, ck(6)) == 0);  /* not published */
    unpub = dev.avail->ring[(uint16_t)(q.avail_next - 1) & 7];
    dev_push(big.idx[1], 16);               /* not a head */
    dev_push(unpub, 16);
    dev_complete(&c[2], 16);
    CHECK(virtq_get(&q, NULL) == ck(2));
    CHECK(virtq_nbad(&q) == 3 && !virtq_is_broken(&q));
    dev_complete(&big, 32);
    dev_complete(&extra, 16);
    CHECK(virtq_get(&q, NULL) == ck(4));
    CHECK(virtq_get(&q, NULL) == ck(5));
    virtq_publish(&q);
    CHECK(dev_drain() == 1);
    CHECK(virtq_get(&q, NULL) == ck(6));
    CHECK(virtq_get(&q, NULL) == NULL);
    CHECK(virtq_nfree(&q) == 8 && virtq_inflight(&q) == 0);
    CHECK(virtq_nbad(&q) == 3);
}

/* A len beyond the writable capacity is clamped (and counted): the
 * caller gets its buffer back and may trust len as a bound. */
TEST(len_clamped)
{
    struct virtq_buf b[3] = {
        { data_pa(0), 10 }, { data_pa(64), 16 }, { data_pa(128), 8 },
    };
    struct dchain c;
    uint32_t len;

    if (!setup(8, false))
        return;
    CHECK(virtq_add(&q, b, 1, 2, ck(0)) == 0);
    CHECK(virtq_add(&q, b, 1, 0, ck(1)) == 0);  /* nothing writable */
    CHECK(virtq_add(&q, b, 1, 2, ck(2)) == 0);
    virtq_publish(&q);
    if (!CHECK(dev_pop(&c)))
        return;
    dev_finish(&c, 24, 1000);
    CHECK(virtq_get(&q, &len) == ck(0) && len == 24);
    CHECK(virtq_nbad(&q) == 1);
    if (!CHECK(dev_pop(&c)))
        return;
    dev_finish(&c, 0, 5);
    CHECK(virtq_get(&q, &len) == ck(1) && len == 0);
    CHECK(virtq_nbad(&q) == 2);
    if (!CHECK(dev_pop(&c)))
        return;
    dev_complete(&c, 24);                   /* exactly the capacity */
    CHECK(virtq_get(&q, &len) == ck(2) && len == 24);
    CHECK(virtq_nbad(&q) == 2 && !virtq_is_broken(&q));
    CHECK(virtq_nfree(&q) == 8);
}

/*
 * A device writing garbage: random used->idx, ids (often plausible ones
 * read from the avail ring), lengths, flags and avail_event, between
 * random driver calls.  Nothing may crash or overrun (ASan), no cookie
 * may come back that is not in flight, none twice, no len beyond the
 * capacity, and the counters must stay exact.  When the queue goes broken
 * the driver detaches everything and starts over.
 */
struct fuzzreq {
    bool live;
    int ndesc;
    uint32_t wcap;
};

static struct fuzzreq fz[16];

static bool fuzz_take(void *p, uint32_t len, bool check_len)
{
    int k = (int)((int *)p - cookies);

    if (!CHECK(k >= 0 && k < 16) || !CHECK(fz[k].live))
        return false;
    if (check_len && !CHECK(len <= fz[k].wcap))
        return false;
    fz[k].live = false;
    return true;
}

static bool fuzz_detach_all(void)
{
    void *p;

    while ((p = virtq_detach(&q)) != NULL)
        if (!fuzz_take(p, 0, false))
            return false;
    for (int k = 0; k < 16; k++)
        if (!CHECK(!fz[k].live))
            return false;
    return CHECK(virtq_nfree(&q) == 16 && virtq_inflight(&q) == 0);
}

static void fuzz_garbage(void)
{
    uint32_t r = rnd_below(100);
    uint16_t slot = (uint16_t)rnd_below(16);
    struct virtq_used_elem *e = &dev.used->ring[slot];

    if (r < 30) {
        uint16_t ahead = (uint16_t)rnd_below(4);

        dev.used->idx = rnd_below(10) ? (uint16_t)(q.last_used + ahead)
                                      : (uint16_t)rnd();
    } else if (r < 80) {
        uint32_t w = rnd_below(10);

        e->id = w < 6 ? dev.avail->ring[rnd_below(16)]
              : w < 9 ? rnd_below(20) : (uint32_t)rnd();
        e->len = rnd_below(2) ? rnd_below(200) : (uint32_t)rnd();
    } else if (r < 90) {
        dev.used->flags = (uint16_t)rnd();
    } else {
        *dev.avail_event = (uint16_t)rnd();
    }
}

static void fuzz_add(void)
{
    int k, nout = (int)rnd_below(4), nin = (int)rnd_below(4);

    for (k = 0; k < 16 && fz[k].live; k++)
        ;
    if (k == 16 || nout + nin == 0)
        return;
    int room = (int)virtq_nfree(&q);
    int rc = add_simple(nout, nin, 8, 0, ck(k));

    if (virtq_is_broken(&q)) {
        CHECK(rc == -2);
    } else if (nout + nin > room) {
        CHECK(rc == -1);
    } else if (CHECK(rc == 0)) {
        fz[k].live = true;
        fz[k].ndesc = nout + nin;
        fz[k].wcap = 8u * (uint32_t)nin;
    }
}

TEST(hostile_device_fuzz)
{
    long broken = 0, returned = 0;

    if (!setup(16, false))
        return;
    memset(fz, 0, sizeof(fz));
    for (int it = 0; it < 200000 && !h_failed(); it++) {
        uint32_t op = rnd_below(100), len, ndesc = 0, nlive = 0;
        void *p;

        if (op < 25)
            fuzz_add();
        else if (op < 35)
            virtq_publish(&q);
        else if (op < 40)
            (void)virtq_kick_needed(&q);
        else if (op < 70)
            fuzz_garbage();
        else if (op < 85) {
            if ((p = virtq_get(&q, &len)) != NULL) {
                if (!fuzz_take(p, len, true))
                    return;
                returned++;
            }
        } else if (op < 90)
            virtq_disable_intr(&q);
        else if (op < 95)
            (void)virtq_enable_intr_check(&q);
        else
            virtq_enable_intr(&q);

        for (int k = 0; k < 16; k++)
            if (fz[k].live) {
                ndesc += (uint32_t)fz[k].ndesc;
                nlive++;
            }
        if (virtq_nfree(&q) + ndesc != 16 || virtq_inflight(&q) != nlive) {
            FAIL("iteration %d: nfree %u + %u live descriptors, inflight %u"
                 " of %u", it, virtq_nfree(&q), ndesc, virtq_inflight(&q),
                 nlive);
            return;
        }
        if (virtq_is_broken(&q)) {
            broken++;
            if (!fuzz_detach_all() || !setup(16, rnd_below(2)))
                return;
        }
    }
    CHECK(fuzz_detach_all());
    /* Both outcomes must have happened many times. */
    CHECK(broken > 100 && returned > 1000);
}

/* ---- Case: randomized stress ---------------------------------------- */

struct req {
    bool live;
    int nout, nin;
    struct virtq_buf b[6];
    uint8_t out[6 * 128];           /* what the readable buffers held */
    size_t outlen;
    uint32_t wcap;
};

/* Checks what came back for r: the readable part untouched, the first
 * len bytes of the writable part what the device computes. */
static void check_req(const struct req *r, uint32_t len)
{
    size_t k = 0, o = 0;

    if (len > r->wcap) {
        FAIL("len %u > capacity %u", len, r->wcap);
        return;
    }
    for (int i = 0; i < r->nout; i++) {
        if (memcmp(data + (r->b[i].pa - DATA_PA), r->out + o,
                   r->b[i].len) != 0) {
            FAIL("readable buffer %d written by the device", i);
            return;
        }
        o += r->b[i].len;
    }
    for (int i = r->nout; i < r->nout + r->nin && k < len; i++) {
        const uint8_t *p = data + (r->b[i].pa - DATA_PA);

        for (uint32_t j = 0; j < r->b[i].len && k < len; j++, k++)
            if (p[j] != dev_byte(r->out, r->outlen, k)) {
                FAIL("writable byte %zu wrong", k);
                return;
            }
    }
}

static bool stress_add(struct req *reqs, int *freelist, int *nfreereq)
{
    int k, nout, nin, n;
    struct req *r;
    size_t off;

    if (*nfreereq == 0)
        return false;
    n = 1 + rnd_below(6);
    nout = rnd_below(n + 1);
    nin = n - nout;
    if (n > (int)virtq_nfree(&q)) {
        int rc = add_simple(nout, nin, 8, 0, ck(0));

        CHECK(rc == -1);
        return false;
    }
    k = freelist[--*nfreereq];
    r = &reqs[k];
    off = (size_t)k * REQ_BYTES;
    r->nout = nout;
    r->nin = nin;
    r->outlen = 0;
    r->wcap = 0;
    for (int i = 0; i < n; i++) {
        uint32_t len = 1 + rnd_below(128);

        r->b[i].pa = data_pa(off);
        r->b[i].len = len;
        if (i < nout) {
            for (uint32_t j = 0; j < len; j++)
                r->out[r->outlen + j] = (uint8_t)rnd();
            memcpy(data + off, r->out + r->outlen, len);
            r->outlen += len;
        } else {
            memset(data + off, 0xee, len);
            r->wcap += len;
        }
        off += len;
    }
    if (!CHECK(virtq_add(&q, r->b, nout, nin, r) == 0))
        return false;
    r->live = true;
    return true;
}

static void stress(uint16_t qsize, bool event_idx, bool in_order)
{
    const int iters = 200000;
    static struct req reqs[256];
    static struct dchain pend[256];
    int freelist[256], nfreereq = 0, npend = 0;
    long adds = 0, gets = 0;

    if (!CHECK(qsize <= 256) || !setup(qsize, event_idx))
        return;
    if (!CHECK((size_t)qsize * REQ_BYTES <= DATA_BYTES))
        return;
    memset(reqs, 0, sizeof(reqs));
    for (int k = qsize - 1; k >= 0; k--)
        freelist[nfreereq++] = k;

    for (int it = 0; it < iters && !h_failed(); it++) {
        uint32_t op = rnd_below(100);

        if (op < 35) {
            adds += stress_add(reqs, freelist, &nfreereq);
        } else if (op < 45) {
            virtq_publish(&q);
            (void)virtq_kick_needed(&q);
        } else if (op < 65) {
            while (npend < qsize && rnd_below(4) != 0 && dev_pop(&pend[npend]))
                npend++;
        } else if (op < 80 && npend > 0) {
            int i = in_order ? 0 : (int)rnd_below(npend);
            struct dchain c = pend[i];
            uint32_t wlen = (uint32_t)c.wcap;

            if (rnd_below(4) == 0)          /* an honest short write */
                wlen = rnd_below(wlen + 1);
            memmove(&pend[i], &pend[i + 1], sizeof(pend[0]) * (npend - i - 1));
            npend--;
            dev_complete(&c, wlen);
        } else {
            struct req *r;
            uint32_t len;

            if (rnd_below(4) == 0)
                virtq_disable_intr(&q);
            else if (virtq_enable_intr_check(&q) !=
                     (dev.used_idx != q.last_used))
                FAIL("enable_intr_check wrong");
            while ((r = virtq_get(&q, &len)) != NULL) {
                if (!CHECK(r >= reqs && r < reqs + qsize) ||
                    !CHECK(r->live))
                    return;
                check_req(r, len);
                r->live = false;
                freelist[nfreereq++] = (int)(r - reqs);
                gets++;
            }
        }
        if (virtq_nfree(&q) + 0u > qsize ||
            virtq_inflight(&q) != (unsigned)(qsize - nfreereq))
            FAIL("iteration %d: nfree %u, inflight %u, requests out %d", it,
                 virtq_nfree(&q), virtq_inflight(&q), qsize - nfreereq);
    }
    /* Drain: everything comes back exactly once. */
    virtq_publish(&q);
    while (npend > 0) {
        npend--;
        dev_complete(&pend[npend], (uint32_t)pend[npend].wcap);
    }
    dev_drain();
    for (struct req *r; (r = virtq_get(&q, NULL)) != NULL; gets++) {
        if (!CHECK(r >= reqs && r < reqs + qsize) || !CHECK(r->live))
            return;
        r->live = false;
    }
    CHECK(gets == adds && adds > iters / 10);
    CHECK(virtq_nfree(&q) == qsize && virtq_inflight(&q) == 0);
    CHECK(virtq_nbad(&q) == 0 && !virtq_is_broken(&q));
    for (int k = 0; k < qsize; k++)
        CHECK(!reqs[k].live);
}

TEST(stress_in_order)
{
    stress(16, false, true);
}

TEST(stress_out_of_order)
{
    stress(64, true, false);
}

TEST(stress_out_of_order_flags)
{
    stress(128, false, false);
}

/* ---- Cases: a device in another thread ------------------------------ */

#define CONC_REQS 100000
#define CONC_QSIZE 64
#define CONC_TIMEOUT_NS (10ull * 1000000000ull)

static struct {
    uint32_t doorbell;          /* driver -> device kicks */
    uint32_t stop;              /* driver: all done */
    uint32_t lost_kick;         /* device slept with work published */
    uint32_t bad_chain;         /* device saw a malformed chain */
    uint64_t done;              /* chains the device completed */
} conc;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t load32(const uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The device asks for a kick (true) or says none is needed (false). */
static void dev_want_kicks(bool on)
{
    if (dev.event_idx)
        __atomic_store_n(dev.avail_event,
                         (uint16_t)(dev.last_avail - (on ? 0 : 1)),
                         __ATOMIC_RELAXED);
    else
        __atomic_store_n(&dev.used->flags,
                         on ? 0 : VIRTQ_USED_F_NO_NOTIFY, __ATOMIC_RELAXED);
}

/*
 * Serves chains until told to stop.  Idle protocol: note the doorbell,
 * ask for kicks, full fence, look at avail->idx once more, and only then
 * wait for the doorbell to move.  Waiting CONC_TIMEOUT_NS without a kick
 * is taken as a lost one (the driver always has work in flight while it
 * waits): it is counted, which ends the driver's loop, and the device
 * goes on serving until told to stop.
 */
static void *dev_thread(void *arg)
{
    struct dchain c;
    (void)arg;

    while (!load32(&conc.stop)) {
        uint32_t db;
        uint64_t t0;

        dev_want_kicks(false);
        while (dev_avail() > 0) {
            if (!dev_pop(&c)) {
                __atomic_store_n(&conc.bad_chain, 1, __ATOMIC_RELAXED);
                return NULL;
            }
            dev_complete(&c, (uint32_t)c.wcap);
            __atomic_fetch_add(&conc.done, 1, __ATOMIC_RELAXED);
        }
        db = load32(&conc.doorbell);
        dev_want_kicks(true);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (dev_avail() > 0)
            continue;
        t0 = now_ns();
        while (load32(&conc.doorbell) == db && !load32(&conc.stop)) {
            if (now_ns() - t0 > CONC_TIMEOUT_NS) {
                __atomic_store_n(&conc.lost_kick, 1, __ATOMIC_RELAXED);
                break;
            }
            sched_yield();
        }
    }
    return NULL;
}

/*
 * The driver: keeps up to qsize random requests (stress_add's) in flight
 * until CONC_REQS came back checked; when it can neither add nor get, it
 * re-arms interrupts and waits for one.
 */
static void concurrent(bool event_idx)
{
    static struct req reqs[CONC_QSIZE];
    int freelist[CONC_QSIZE], nfreereq = 0;
    long adds = 0, gets = 0;
    pthread_t th;

    if (!setup(CONC_QSIZE, event_idx))
        return;
    memset(&conc, 0, sizeof(conc));
    memset(reqs, 0, sizeof(reqs));
    for (int k = CONC_QSIZE - 1; k >= 0; k--)
        freelist[nfreereq++] = k;
    if (!CHECK(pthread_create(&th, NULL, dev_thread, NULL) == 0))
        return;

    while (gets < CONC_REQS && !h_failed() && !load32(&conc.lost_kick)) {
        bool progress = false;
        struct req *r;
        uint32_t len, irq;

        while (adds < CONC_REQS && stress_add(reqs, freelist, &nfreereq)) {
            adds++;
            progress = true;
            if (rnd_below(4) == 0)
                break;
        }
        virtq_publish(&q);
        if (virtq_kick_needed(&q))
            __atomic_fetch_add(&conc.doorbell, 1, __ATOMIC_RELEASE);

        if (rnd_below(2))
            virtq_disable_intr(&q);
        while ((r = virtq_get(&q, &len)) != NULL) {
            if (!CHECK(r >= reqs && r < reqs + CONC_QSIZE) ||
                !CHECK(r->live) || !CHECK(len == r->wcap))
                break;
            check_req(r, len);
            r->live = false;
            freelist[nfreereq++] = (int)(r - reqs);
            gets++;
            progress = true;
        }
        if (progress)
            continue;
        /* Nothing to do: re-arm, then sleep unless more came meanwhile. */
        irq = __atomic_load_n(&dev.nintr, __ATOMIC_SEQ_CST);
        if (virtq_enable_intr_check(&q))
            continue;
        for (uint64_t t0 = now_ns();
             __atomic_load_n(&dev.nintr, __ATOMIC_SEQ_CST) == (int)irq;) {
            if (now_ns() - t0 > CONC_TIMEOUT_NS) {
                FAIL("lost interrupt: %ld of %d back", gets, CONC_REQS);
                break;
            }
            sched_yield();
        }
    }
    __atomic_store_n(&conc.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    CHECK(!conc.lost_kick);
    CHECK(!conc.bad_chain);
    CHECK(gets == CONC_REQS && adds == CONC_REQS);
    CHECK(conc.done == CONC_REQS);
    CHECK(virtq_nfree(&q) == CONC_QSIZE && virtq_nbad(&q) == 0);
}

TEST(concurrent_device_flags)
{
    concurrent(false);
}

TEST(concurrent_device_event_idx)
{
    concurrent(true);
}

int main(int argc, char **argv)
{
    int rc;

    data = calloc(1, DATA_BYTES);
    if (data == NULL) {
        fprintf(stderr, "virtq_test: no memory for the arena\n");
        return 1;
    }
    rc = h_run(argc, argv);
    free(ring);
    free(slots);
    free(data);
    return rc;
}
