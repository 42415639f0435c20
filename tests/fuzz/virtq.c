/*
 * virtq.c - libFuzzer target for drivers/virtq.c: the input is a script
 * of driver calls and of what a hostile device does to the rings (used
 * elements with any id and length, used index jumps, scribbles anywhere
 * in the ring memory).  Whatever the device does, every cookie virtq_get
 * returns must be one in flight, returned once, with a length within the
 * chain's device-writable capacity, and the driver's counts must agree
 * with the chains this target holds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/virtq.h"

#define QSIZE  8
#define NCHAIN 64

struct chain {
    bool inflight;
    uint32_t cap;               /* device-writable bytes */
};

static const uint8_t *in;
static size_t left;

/* The next input byte, or 0 once the script has run out. */
static uint8_t next(void)
{
    if (!left)
        return 0;
    left--;
    return *in++;
}

static uint32_t next32(void)
{
    uint32_t v = next();

    v |= (uint32_t)next() << 8;
    v |= (uint32_t)next() << 16;
    return v | (uint32_t)next() << 24;
}

static void check_cookie(struct chain *chains, void *c, uint32_t len,
                         int *nflight)
{
    struct chain *ch = c;

    if (ch < chains || ch >= chains + NCHAIN || !ch->inflight ||
        len > ch->cap)
        abort();
    ch->inflight = false;
    (*nflight)--;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct chain chains[NCHAIN];
    struct virtq_slot slots[QSIZE];
    size_t memsize = virtq_mem_size(QSIZE);
    uint8_t *mem = aligned_alloc(4096, (memsize + 4095) & ~(size_t)4095);
    struct virtq q;
    int nflight = 0, nchain = 0;
    uint32_t len;
    void *c;

    in = data;
    left = size;
    memset(chains, 0, sizeof chains);
    if (virtq_init(&q, QSIZE, mem, (uintptr_t)mem, slots, next() & 1))
        abort();
    while (left) {
        switch (next() % 8) {
        case 0: {                               /* driver: add a chain */
            struct virtq_buf b[4];
            int nout = next() % 3, nin = next() % 3;

            if (nchain == NCHAIN)
                break;
            for (int i = 0; i < nout + nin; i++)
                b[i] = (struct virtq_buf){ 0x1000 * (i + 1), next() * 16u };
            if (virtq_add(&q, b, nout, nin, &chains[nchain]) == 0) {
                chains[nchain].inflight = true;
                for (int i = nout; i < nout + nin; i++)
                    chains[nchain].cap += b[i].len;
                nflight++;
            }
            nchain++;
            break;
        }
        case 1:                                 /* driver: publish */
            virtq_publish(&q);
            (void)virtq_kick_needed(&q);
            break;
        case 2: {                               /* device: a used element */
            uint16_t i = q.used->idx;

            q.used->ring[i % QSIZE].id = next32() % (QSIZE + 2);
            q.used->ring[i % QSIZE].len = next32();
            q.used->idx = i + 1;
            break;
        }
        case 3:                                 /* device: jump the index */
            q.used->idx += next();
            break;
        case 4:                                 /* driver: take what is done */
            while ((c = virtq_get(&q, &len)))
                check_cookie(chains, c, len, &nflight);
            break;
        case 5:                                 /* device: flags, events */
            q.used->flags = next();
            *q.avail_event = next() | next() << 8;
            break;
        case 6:                                 /* driver: interrupts */
            if (next() & 1)
                virtq_disable_intr(&q);
            else if (virtq_enable_intr_check(&q))
                while ((c = virtq_get(&q, &len)))
                    check_cookie(chains, c, len, &nflight);
            break;
        case 7: {                               /* device: scribble */
            size_t at = (next() | next() << 8) % memsize;

            mem[at] = next();
            break;
        }
        }
        if (virtq_inflight(&q) != (unsigned)nflight ||
            virtq_nfree(&q) > QSIZE)
            abort();
    }
    /* The device is gone: every chain still in flight comes back once. */
    while ((c = virtq_detach(&q)))
        check_cookie(chains, c, 0, &nflight);
    if (nflight != 0 || virtq_nfree(&q) != QSIZE)
        abort();
    free(mem);
    return 0;
}
