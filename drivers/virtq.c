/*
 * virtq.c - the driver side of a split virtqueue; the contract is in
 * virtq.h.
 *
 * Descriptors are linked through the private slot array, never through
 * desc[].next: the descriptor table is written, never read back, so what
 * add and get rely on is out of the device's reach.  A chain's tail and
 * the free list's last entry have next == NONE.
 *
 * Indices: avail->idx and used->idx run freely and wrap at 2^16; qsize
 * divides 2^16, so "idx & (qsize - 1)" is the ring slot and "a - b" in
 * uint16_t is a distance, right across the wrap.  Chains in flight never
 * exceed qsize <= 2^15, so a distance is never ambiguous.
 *
 * Memory ordering.  The device is another agent on the same memory, so
 * every access to a field it reads or writes concurrently is an __atomic
 * access (also so that each value the device writes is loaded exactly
 * once: no re-reading a value after it was checked).  The pairs:
 *   M1. publish: descriptors and avail ring entries (plain stores), then
 *       store-release of avail->idx.  Pairs with the device's read barrier
 *       between its load of avail->idx and its loads of ring entries and
 *       descriptors (the spec's "suitable memory barrier" on both sides).
 *   M2. get: load-acquire of used->idx, then loads of used elements and
 *       of the buffers' contents (by the caller).  Pairs with the
 *       device's write barrier between writing a used element (and the
 *       data) and storing used->idx.
 *   M3. kick_needed: seq_cst fence between the avail->idx store and the
 *       load of used->flags / avail_event.  The device does the mirror
 *       image when it goes idle: it asks for notifications (clears
 *       NO_NOTIFY or sets avail_event), full barrier, then looks at
 *       avail->idx once more before sleeping.  Without our fence the load
 *       of its flags may be satisfied before our idx store is visible
 *       (store->load reordering, allowed even on x86): we see "no notify"
 *       and do not kick, the device sees no new idx and sleeps, and the
 *       buffers sit there forever.  With both fences one side sees the
 *       other's store.
 *   M4. enable_intr_check: the same with the roles swapped: store
 *       used_event / clear NO_INTERRUPT, seq_cst fence, load used->idx;
 *       the device writes used->idx, full barrier, reads our flags.
 *
 * These are CPU-to-CPU orderings: plain moves plus a locked instruction
 * (the full fence) on x86_64; ldar/stlr plus dmb ish on aarch64, i.e.
 * the inner-shareable domain.  That is enough for a device emulated by a
 * hypervisor (every virtio device Spindle meets): it runs on other CPUs
 * of the same inner-shareable domain and sees memory as they do.  Real
 * DMA to an outer-shareable device on aarch64 would need the DMA forms
 * instead: dmb oshst before the idx store, dmb oshld after the idx load,
 * dmb osh as the full fence (and non-cacheable rings if the device is
 * not coherent); x86_64 needs nothing more.  The doorbell is the
 * transport's MMIO write and must be ordered after the idx store: on
 * aarch64 a barrier before the MMIO store (dmb oshst or dsb st), as any
 * writel does.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "drivers/virtq.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "virtq: the rings are little-endian and are accessed as plain integers"
#endif

_Static_assert(sizeof(struct virtq_desc) == 16, "virtq_desc is 16 bytes");
_Static_assert(offsetof(struct virtq_desc, addr) == 0, "desc.addr");
_Static_assert(offsetof(struct virtq_desc, len) == 8, "desc.len");
_Static_assert(offsetof(struct virtq_desc, flags) == 12, "desc.flags");
_Static_assert(offsetof(struct virtq_desc, next) == 14, "desc.next");
_Static_assert(sizeof(struct virtq_avail) == 4, "avail header");
_Static_assert(offsetof(struct virtq_avail, idx) == 2, "avail.idx");
_Static_assert(offsetof(struct virtq_avail, ring) == 4, "avail.ring");
_Static_assert(sizeof(struct virtq_used_elem) == 8, "used elem");
_Static_assert(offsetof(struct virtq_used_elem, len) == 4, "used elem len");
_Static_assert(sizeof(struct virtq_used) == 4, "used header");
_Static_assert(offsetof(struct virtq_used, idx) == 2, "used.idx");
_Static_assert(offsetof(struct virtq_used, ring) == 4, "used.ring");

#define NONE ((uint16_t)0xffff)     /* end of a chain or of the free list */
#define USED_ALIGN 4096             /* the spec asks 4; see virtq.h */

/* ---- Layout ---------------------------------------------------------- */

static bool size_ok(uint16_t qsize)
{
    return qsize != 0 && (qsize & (qsize - 1)) == 0;
}

static size_t avail_off(uint16_t qsize)
{
    return sizeof(struct virtq_desc) * (size_t)qsize;
}

static size_t used_off(uint16_t qsize)
{
    /* flags, idx, ring[qsize], used_event */
    size_t end = avail_off(qsize) + sizeof(uint16_t) * (3 + (size_t)qsize);

    return (end + USED_ALIGN - 1) & ~(size_t)(USED_ALIGN - 1);
}

size_t virtq_mem_size(uint16_t qsize)
{
    if (!size_ok(qsize))
        return 0;
    /* flags, idx, ring[qsize], avail_event */
    return used_off(qsize) + sizeof(struct virtq_used) +
           sizeof(struct virtq_used_elem) * (size_t)qsize + sizeof(uint16_t);
}

/* ---- Device-shared fields (see M1-M4) -------------------------------- */

static uint16_t mask(const struct virtq *q)
{
    return q->size - 1;
}

static void store16(uint16_t *p, uint16_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static uint16_t load16(const uint16_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/*
 * A full barrier between a store and the loads after it (M3, M4).  gcc
 * refuses fences under ThreadSanitizer (the hosted TSan build compiles
 * this file too), so there it is a seq-cst read-modify-write of a dummy
 * word, still a full barrier on the hardware.
 */
#if defined(__SANITIZE_THREAD__)
static int fence_word;

static void full_fence(void)
{
    __atomic_fetch_add(&fence_word, 0, __ATOMIC_SEQ_CST);
}
#else
static void full_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

/* The spec's rule: is event in [old, new), i.e. was it just crossed? */
static bool need_event(uint16_t event, uint16_t new_idx, uint16_t old_idx)
{
    return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old_idx);
}

/* ---- Init ------------------------------------------------------------ */

int virtq_init(struct virtq *q, uint16_t qsize, void *mem, uint64_t mem_pa,
               struct virtq_slot *slots, bool event_idx)
{
    uint8_t *m = mem;

    if (q == NULL || mem == NULL || slots == NULL || !size_ok(qsize))
        return -1;
    if ((uintptr_t)mem % 16 != 0 || mem_pa % 16 != 0)
        return -1;

    memset(mem, 0, virtq_mem_size(qsize));
    memset(q, 0, sizeof(*q));
    q->size = qsize;
    q->event_idx = event_idx;
    q->desc = (struct virtq_desc *)m;
    q->avail = (struct virtq_avail *)(m + avail_off(qsize));
    q->used = (struct virtq_used *)(m + used_off(qsize));
    q->used_event = &q->avail->ring[qsize];
    q->avail_event = (uint16_t *)&q->used->ring[qsize];
    q->slot = slots;
    q->desc_pa = mem_pa;
    q->avail_pa = mem_pa + avail_off(qsize);
    q->used_pa = mem_pa + used_off(qsize);

    for (uint32_t i = 0; i < qsize; i++) {
        slots[i].cookie = NULL;
        slots[i].cap = 0;
        slots[i].pos = 0;
        slots[i].next = i + 1 < qsize ? (uint16_t)(i + 1) : NONE;
    }
    q->free_head = 0;
    q->nfree = qsize;
    /* Zeroed flags and used_event: interrupt on the first used buffer. */
    q->intr_on = true;
    return 0;
}

/* ---- Adding ---------------------------------------------------------- */

/* -2 unless the request is well-formed; sets *cap to its writable bytes. */
static int check_add(const struct virtq *q, const struct virtq_buf *bufs,
                     int nout, int nin, const void *cookie, uint32_t *cap)
{
    uint64_t total = 0, wr = 0;

    if (q->broken != NULL || cookie == NULL || bufs == NULL)
        return -2;
    if (nout < 0 || nin < 0 || nout > q->size || nin > q->size)
        return -2;
    if (nout + nin == 0 || nout + nin > q->size)
        return -2;
    for (int i = 0; i < nout + nin; i++) {
        total += bufs[i].len;
        if (i >= nout)
            wr += bufs[i].len;
    }
    /* The spec's limit on a chain; used.len is 32 bits. */
    if (total > ((uint64_t)1 << 32))
        return -2;
    *cap = wr > UINT32_MAX ? UINT32_MAX : (uint32_t)wr;
    return 0;
}

int virtq_add(struct virtq *q, const struct virtq_buf *bufs, int nout,
              int nin, void *cookie)
{
    int n = nout + nin, err;
    uint32_t cap;
    uint16_t head, d;

    err = check_add(q, bufs, nout, nin, cookie, &cap);
    if (err != 0)
        return err;
    if (n > q->nfree)
        return -1;

    head = d = q->free_head;
    for (int i = 0; i < n; i++) {
        struct virtq_desc *dp = &q->desc[d];
        uint16_t next = q->slot[d].next;
        bool last = i == n - 1;

        dp->addr = bufs[i].pa;
        dp->len = bufs[i].len;
        dp->flags = (i >= nout ? VIRTQ_DESC_F_WRITE : 0) |
                    (last ? 0 : VIRTQ_DESC_F_NEXT);
        dp->next = last ? 0 : next;
        if (last) {
            q->free_head = next;
            q->slot[d].next = NONE;
        }
        d = next;
    }
    q->nfree -= (uint16_t)n;
    q->inflight++;
    q->slot[head].cookie = cookie;
    q->slot[head].cap = cap;
    q->slot[head].pos = q->avail_next;
    /* Plain store: the device may read it only after M1's release. */
    q->avail->ring[q->avail_next & mask(q)] = head;
    q->avail_next++;
    return 0;
}

void virtq_publish(struct virtq *q)
{
    if (q->avail_pub == q->avail_next)
        return;
    /* M1: descriptors and ring entries before the index. */
    __atomic_store_n(&q->avail->idx, q->avail_next, __ATOMIC_RELEASE);
    q->avail_pub = q->avail_next;
}

bool virtq_kick_needed(struct virtq *q)
{
    uint16_t old = q->avail_kick, new_idx = q->avail_pub;

    if (q->broken != NULL || old == new_idx)
        return false;
    q->avail_kick = new_idx;
    /* M3: our avail->idx store before the load of the device's wish. */
    full_fence();
    if (q->event_idx)
        return need_event(load16(q->avail_event), new_idx, old);
    return !(load16(&q->used->flags) & VIRTQ_USED_F_NO_NOTIFY);
}

bool virtq_stalled(struct virtq *q)
{
    uint16_t used = load16(&q->used->idx);
    bool stalled = q->broken == NULL && used != q->avail_pub &&
                   used == q->stall_used && q->avail_pub == q->stall_pub;

    q->stall_pub = q->avail_pub;
    q->stall_used = used;
    return stalled;
}

/* ---- Taking back ----------------------------------------------------- */

static uint16_t published_inflight(const struct virtq *q)
{
    return q->inflight - (uint16_t)(q->avail_next - q->avail_pub);
}

/* Was id handed to the device, and not returned since? */
static bool head_in_flight(const struct virtq *q, uint32_t id)
{
    const struct virtq_slot *s;
    uint16_t unpub = q->avail_next - q->avail_pub;

    if (id >= q->size)
        return false;
    s = &q->slot[id];
    /* Unpublished heads sit at avail indices [avail_pub, avail_next). */
    return s->cookie != NULL && (uint16_t)(s->pos - q->avail_pub) >= unpub;
}

/* Puts the chain starting at head back on the free list. */
static void free_chain(struct virtq *q, uint16_t head)
{
    uint16_t d = head, n = 1;

    while (q->slot[d].next != NONE && n < q->size) {
        d = q->slot[d].next;
        n++;
    }
    q->slot[d].next = q->free_head;
    q->free_head = head;
    q->nfree += n;
    q->inflight--;
    q->slot[head].cookie = NULL;
}

static void set_broken(struct virtq *q, const char *why)
{
    q->nbad++;
    q->broken = why;
}

/*
 * Reads the used element at last_used and steps past it; false if it
 * names no chain in flight.  id and len are loaded once each: the device
 * may rewrite them meanwhile, and only the checked values are used.
 */
static bool next_used(struct virtq *q, uint32_t *id, uint32_t *len)
{
    struct virtq_used_elem *e = &q->used->ring[q->last_used & mask(q)];

    *id = __atomic_load_n(&e->id, __ATOMIC_RELAXED);
    *len = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
    q->last_used++;
    if (q->event_idx && q->intr_on)
        store16(q->used_event, q->last_used);
    return head_in_flight(q, *id);
}

void *virtq_get(struct virtq *q, uint32_t *len)
{
    uint16_t idx;

    if (q->broken != NULL)
        return NULL;
    /* M2: used->idx before the elements it covers. */
    idx = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
    if ((uint16_t)(idx - q->last_used) > published_inflight(q)) {
        set_broken(q, "used idx ahead of the chains in flight");
        return NULL;
    }
    /* Only up to this idx: at most qsize steps, whatever the device
     * keeps writing meanwhile. */
    while (q->last_used != idx) {
        uint32_t id, n;
        void *cookie;

        if (!next_used(q, &id, &n)) {
            q->nbad++;
            continue;
        }
        if (n > q->slot[id].cap) {
            q->nbad++;
            n = q->slot[id].cap;
        }
        cookie = q->slot[id].cookie;
        free_chain(q, (uint16_t)id);
        if (len != NULL)
            *len = n;
        return cookie;
    }
    return NULL;
}

/* ---- Used buffer notifications --------------------------------------- */

void virtq_disable_intr(struct virtq *q)
{
    q->intr_on = false;
    if (q->event_idx)
        /* Behind last_used: reached only 2^16 - 1 elements from now,
         * and at most qsize <= 2^15 can be outstanding. */
        store16(q->used_event, q->last_used - 1);
    else
        store16(&q->avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
}

void virtq_enable_intr(struct virtq *q)
{
    q->intr_on = true;
    if (q->event_idx)
        store16(q->used_event, q->last_used);   /* the very next one */
    else
        store16(&q->avail->flags, 0);
}

bool virtq_enable_intr_check(struct virtq *q)
{
    virtq_enable_intr(q);
    if (q->broken != NULL)
        return false;
    /* M4: our used_event / flags store before the load of used->idx. */
    full_fence();
    return load16(&q->used->idx) != q->last_used;
}

/* ---- Teardown -------------------------------------------------------- */

void *virtq_detach(struct virtq *q)
{
    for (uint32_t i = 0; i < q->size; i++) {
        void *cookie = q->slot[i].cookie;

        if (cookie != NULL) {
            free_chain(q, (uint16_t)i);
            return cookie;
        }
    }
    return NULL;
}
