/*
 * virtq.h - the driver side of a virtio split virtqueue (virtio 1.2,
 * section 2.7), as a pure data structure: no transport, no kernel, no
 * allocation.  A transport (virtio-pci, virtio-mmio) hands the three
 * physical addresses to the device and rings its doorbell; a device
 * driver adds buffer chains and takes completed ones back.
 *
 * Memory, and who owns it:
 *   - mem (virtq_mem_size(qsize) bytes, physically contiguous at mem_pa,
 *     16-byte aligned both virtually and physically): the rings the
 *     device sees.  Supplied by the caller, zeroed by virtq_init.  The
 *     driver writes the descriptor table and the available ring; the
 *     device writes the used ring.  Nothing the driver needs for its own
 *     bookkeeping is read back from here: only the device's used ring,
 *     flags and event index are read, and each value is validated.
 *   - slots (qsize struct virtq_slot): the driver's private per-descriptor
 *     state (free list, chain links, cookies, writable capacities).
 *     Supplied by the caller, in memory the device is never given, so
 *     that a device that scribbles over its rings (or disagrees with us
 *     about their layout) cannot corrupt what get/add rely on.
 *   - struct virtq itself: the caller's memory, filled by virtq_init.  The
 *     transport reads size, desc_pa, avail_pa and used_pa; a driver reads
 *     the counters below; everything else goes through the functions.
 * Both mem and slots must outlive the queue; virtq never frees anything.
 *
 * The layout in mem: descriptor table at offset 0, available ring right
 * after it, used ring at the next 4096-byte boundary.  The spec asks for
 * alignment 16, 2 and 4; the page boundary also makes it the legacy
 * layout (QueueAlign 4096) when mem_pa is page-aligned, so a legacy
 * virtio-mmio device can use it too (QueuePFN = mem_pa >> 12).
 *
 * Byte order: the rings are little-endian (virtio 1.x, and the guest's
 * order for legacy devices).  Both Spindle arches are little-endian, so
 * fields are plain integers; virtq.c refuses to build otherwise.
 *
 * Concurrency: the device runs concurrently with the driver; the driver
 * side is NOT thread-safe: the caller serialises every call on one queue
 * (one lock, or one CPU).  Barriers are inside the functions (virtq.c
 * names each pairing).
 *
 * A hostile or broken device cannot make these functions read or write
 * outside mem and slots, return a cookie twice, or return one that is not
 * in flight.  It can still write into any buffer it was given (or, with
 * no IOMMU, anywhere): that is the transport's problem, not this file's.
 */
#ifndef DRIVERS_VIRTQ_H
#define DRIVERS_VIRTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIRTQ_MAX_SIZE 32768u

/* ---- The ring layout shared with the device (all little-endian) ---- */

#define VIRTQ_DESC_F_NEXT     1     /* next is valid */
#define VIRTQ_DESC_F_WRITE    2     /* device-writable (else readable) */
#define VIRTQ_DESC_F_INDIRECT 4     /* not used by this driver */

struct virtq_desc {
    uint64_t addr;                  /* guest-physical */
    uint32_t len;
    uint16_t flags;
    uint16_t next;
};

/* Written by the driver, read by the device. */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1

struct virtq_avail {
    uint16_t flags;
    uint16_t idx;                   /* free-running, wraps at 2^16 */
    uint16_t ring[];                /* [qsize], then uint16_t used_event */
};

/* Written by the device, read by the driver. */
#define VIRTQ_USED_F_NO_NOTIFY 1

struct virtq_used_elem {
    uint32_t id;                    /* head of the chain */
    uint32_t len;                   /* bytes the device wrote into it */
};

struct virtq_used {
    uint16_t flags;
    uint16_t idx;                   /* free-running, wraps at 2^16 */
    struct virtq_used_elem ring[];  /* [qsize], then uint16_t avail_event */
};

/* ---- The driver's side ---------------------------------------------- */

/* One buffer of a chain: physical address and length. */
struct virtq_buf {
    uint64_t pa;
    uint32_t len;
};

/*
 * Private state of one descriptor; the caller provides an array of qsize
 * and never touches it.  cookie is non-NULL exactly for the head of a
 * chain in flight.
 */
struct virtq_slot {
    void *cookie;                   /* head: the caller's cookie */
    uint32_t cap;                   /* head: device-writable bytes */
    uint16_t next;                  /* next in the chain or free list */
    uint16_t pos;                   /* head: its avail ring index */
};

struct virtq {
    /* Set by virtq_init, constant afterwards. */
    uint16_t size;                  /* qsize, a power of two */
    bool event_idx;                 /* VIRTIO_F_EVENT_IDX negotiated */
    struct virtq_desc *desc;
    struct virtq_avail *avail;
    struct virtq_used *used;
    uint16_t *used_event;           /* avail->ring[size]: ours */
    uint16_t *avail_event;          /* after used->ring[size]: device's */
    struct virtq_slot *slot;
    uint64_t desc_pa, avail_pa, used_pa;    /* for the transport */

    /* Driver bookkeeping: read-only for the caller. */
    uint16_t free_head;             /* first free descriptor, or none */
    uint16_t nfree;                 /* free descriptors */
    uint16_t inflight;              /* chains added and not yet returned */
    uint16_t avail_next;            /* avail index of the next add */
    uint16_t avail_pub;             /* last value stored to avail->idx */
    uint16_t avail_kick;            /* avail->idx at the last kick check */
    uint16_t last_used;             /* used index of the next get */
    uint16_t stall_pub, stall_used; /* avail_pub and used->idx at the last
                                       virtq_stalled */
    bool intr_on;                   /* used notifications enabled */
    uint32_t nbad;                  /* device misbehaviours seen */
    const char *broken;             /* NULL, or why the device is dead */
};

/*
 * Bytes of ring memory for a queue of qsize entries (with room for both
 * event indices, needed or not); 0 if qsize is not a power of two in
 * [1, 32768].
 */
size_t virtq_mem_size(uint16_t qsize);

/*
 * Sets up q over mem (virtq_mem_size(qsize) bytes at physical mem_pa) and
 * slots (qsize entries): zeroes mem, puts every descriptor on the free
 * list, enables used notifications, and fills desc_pa, avail_pa and
 * used_pa.  event_idx says whether VIRTIO_F_EVENT_IDX was negotiated.
 * Returns 0, or -1 (q untouched) if qsize is not a power of two in
 * [1, 32768], or mem or mem_pa is not 16-byte aligned, or a pointer is
 * NULL.  Also the way to reuse a queue after a device reset.
 */
int virtq_init(struct virtq *q, uint16_t qsize, void *mem, uint64_t mem_pa,
               struct virtq_slot *slots, bool event_idx);

/*
 * Chains bufs[0 .. nout) (device-readable) then bufs[nout .. nout + nin)
 * (device-writable) and places the chain in the available ring, not yet
 * visible to the device (see virtq_publish).  cookie comes back from
 * virtq_get when the device is done.  Returns
 *    0  added;
 *   -1  not enough free descriptors now: retry after virtq_get;
 *   -2  can never succeed: cookie NULL, nout or nin negative, no buffer,
 *       more buffers than qsize, more than 2^32 bytes in total, or the
 *       queue is broken.
 * On failure nothing changed.
 */
int virtq_add(struct virtq *q, const struct virtq_buf *bufs, int nout,
              int nin, void *cookie);

/* Makes every chain added so far visible to the device. */
void virtq_publish(struct virtq *q);

/*
 * After virtq_publish: true if the device asked to be notified about
 * what was published since the previous call (then the transport rings
 * the doorbell).  False if nothing new was published or q is broken.
 */
bool virtq_kick_needed(struct virtq *q);

/*
 * For a watchdog called now and then (say every 250 ms): true if chains
 * were published that the device has not used, and neither what was
 * published nor what the device used moved since the previous call.
 * Then the device is waiting for a notification it did not get (a lost
 * kick stalls a queue for good), and the caller rings the doorbell: an
 * extra notification is harmless.
 */
bool virtq_stalled(struct virtq *q);

/*
 * The next chain the device is done with: returns its cookie and stores
 * in *len (if len is not NULL) the bytes the device says it wrote, never
 * more than the chain's device-writable capacity: a larger value is
 * clamped to it (and counted in nbad), so that the caller may trust len
 * as a bound on what it reads.  NULL if there is none, or q is broken.
 *
 * Used elements naming no chain in flight (an id out of range, not a
 * head, not yet published, or already returned) are skipped and counted
 * in nbad.  A used index further ahead than the chains in flight makes q
 * broken: counted, q->broken set for good, and every later call is
 * inert (get NULL, add -2, kick_needed and enable_intr_check false).
 */
void *virtq_get(struct virtq *q, uint32_t *len);

/*
 * Used buffer notifications (interrupts).  Both are hints the device may
 * see late: spurious interrupts happen.  To sleep without losing one,
 * drain with virtq_get, then call virtq_enable_intr_check: true means
 * more arrived meanwhile (call virtq_get again, no interrupt will come);
 * false means an interrupt will come for the next used buffer.
 */
void virtq_disable_intr(struct virtq *q);
void virtq_enable_intr(struct virtq *q);
bool virtq_enable_intr_check(struct virtq *q);

/*
 * Only once the device no longer touches the queue (after a transport
 * reset): returns the cookie of one chain still in flight, published or
 * not, and frees its descriptors; NULL when none is left.  This is how a
 * driver gets its buffers back from a broken device; virtq_init again
 * before reusing q.
 */
void *virtq_detach(struct virtq *q);

/* ---- Counters ------------------------------------------------------- */

static inline unsigned virtq_inflight(const struct virtq *q)
{
    return q->inflight;
}

static inline unsigned virtq_nfree(const struct virtq *q)
{
    return q->nfree;
}

static inline uint32_t virtq_nbad(const struct virtq *q)
{
    return q->nbad;
}

static inline bool virtq_is_broken(const struct virtq *q)
{
    return q->broken != NULL;
}

#endif
