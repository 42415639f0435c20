/*
 * faultinject_link.c - link faults on the NIC's frames (faultinject.h):
 * the decision for each frame, its bit flip, and the counters.
 *
 * Each queue rolls its own dice (xorshift64*, seeded from its number),
 * under its owner's lock: the hot path shares nothing with another
 * queue.  A frame meets the faults of its direction in a fixed order,
 * each with its own roll: drop (then nothing else), corrupt, then dup or
 * reorder (one at most).  Corruption flips one bit of an IPv4 packet,
 * header or payload, within the length the header claims: IPv4's header
 * checksum or TCP's or UDP's covers every such bit, so the receiving
 * stack rejects the packet; ARP, which has no checksum, is left alone
 * (on a real link the Ethernet FCS rejects a flipped bit anywhere).
 *
 * The counters are written by the queue's owner and read by anyone
 * (fault_counts, the report) with relaxed loads: a reader may miss the
 * frames of the last moment, never see a torn count.
 */
#include <stdio.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"

bool fault_link_on;

/* Every queue's state, for the counters: filled at set-up, read after. */
static struct fault_link *links[MAXCPU];
static int nlinks;                      /* atomic */

void fault_link_init(struct fault_link *fl, int queue)
{
    int k;

    *fl = (struct fault_link){ .dice = 0x9e3779b97f4a7c15ULL *
                                       (uint64_t)(queue + 1) | 1 };
    fl->rx.hold.buf = fl->tx.hold.buf = -1;
    k = __atomic_fetch_add(&nlinks, 1, __ATOMIC_RELAXED);
    if (k < MAXCPU)
        __atomic_store_n(&links[k], fl, __ATOMIC_RELEASE);
}

/* A number in [0, n). */
static uint32_t roll(struct fault_link *fl, uint32_t n)
{
    uint64_t x = fl->dice;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    fl->dice = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

static bool hit(struct fault_link *fl, uint32_t permille)
{
    return permille && roll(fl, 1000) < permille;
}

static uint32_t be16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

/* The bytes of frame's IPv4 packet that its header's checksum or its
   transport's covers (0 if it is not IPv4); *data: a TCP segment with
   data in it. */
static uint32_t ipv4_span(const uint8_t *frame, uint32_t len, bool *data)
{
    uint32_t ihl, tot, th;

    *data = false;
    if (len < 14 + 20 || be16(frame + 12) != 0x0800 ||
        (frame[14] >> 4) != 4)
        return 0;
    ihl = (frame[14] & 0xfu) * 4;
    tot = be16(frame + 16);
    if (tot > len - 14)
        tot = len - 14;
    if (ihl < 20 || tot < ihl)
        return 20;              /* only the header: its checksum */
    th = 14 + ihl;
    if (frame[23] == 6 && tot >= ihl + 20 &&
        tot > ihl + (frame[th + 12] >> 4) * 4u)
        *data = true;
    return tot;
}

enum fault_verdict fault_link_frame(struct fault_link *fl, bool tx,
                                    uint8_t *frame, uint32_t len)
{
    const struct faultlink *c = tx ? &fault_cfg.tx : &fault_cfg.rx;
    struct fault_dir *d = tx ? &fl->tx : &fl->rx;
    bool data;
    uint32_t span = ipv4_span(frame, len, &data), bit;

    if (hit(fl, c->drop)) {
        d->n[FK_DROP]++;
        d->data_lost += data;
        return FV_DROP;
    }
    if (span && hit(fl, c->corrupt)) {
        bit = roll(fl, span * 8);
        frame[14 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
        d->n[FK_CORRUPT]++;
        d->data_lost += data;
    }
    if (hit(fl, c->dup)) {
        d->n[FK_DUP]++;
        return FV_DUP;
    }
    if (d->hold.buf < 0 && hit(fl, c->reorder)) {
        d->n[FK_REORDER]++;
        d->hold.left = 1 + roll(fl, FAULT_HOLD_FRAMES);
        d->hold.due = arch_cycles() + arch_cycles_hz() / 1000000 * c->hold_us;
        return FV_HOLD;
    }
    return FV_PASS;
}

bool fault_hold_overdue(const struct fault_hold *h)
{
    return h->buf >= 0 && arch_cycles() >= h->due;
}

static uint64_t ld(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Adds every queue's counters into c. */
void fault_link_counts(struct fault_counts *c)
{
    int n = __atomic_load_n(&nlinks, __ATOMIC_RELAXED);

    for (int i = 0; i < n && i < MAXCPU; i++) {
        const struct fault_link *fl = __atomic_load_n(&links[i],
                                                      __ATOMIC_ACQUIRE);

        if (!fl)
            continue;
        for (int k = 0; k < FK_KINDS; k++) {
            c->rx[k] += ld(&fl->rx.n[k]);
            c->tx[k] += ld(&fl->tx.n[k]);
        }
        c->rx_data_lost += ld(&fl->rx.data_lost);
        c->tx_data_lost += ld(&fl->tx.data_lost);
    }
}

int fault_link_report(char *buf, size_t len)
{
    struct fault_counts c = { 0 };

    if (!faultcfg_link_any(&fault_cfg))
        return 0;
    fault_link_counts(&c);
    return snprintf(buf, len, "net: link faults: rxdrop %llu txdrop %llu "
        "rxdup %llu txdup %llu rxreorder %llu txreorder %llu rxcorrupt %llu "
        "txcorrupt %llu; TCP data segments lost rx %llu tx %llu",
        (unsigned long long)c.rx[FK_DROP], (unsigned long long)c.tx[FK_DROP],
        (unsigned long long)c.rx[FK_DUP], (unsigned long long)c.tx[FK_DUP],
        (unsigned long long)c.rx[FK_REORDER],
        (unsigned long long)c.tx[FK_REORDER],
        (unsigned long long)c.rx[FK_CORRUPT],
        (unsigned long long)c.tx[FK_CORRUPT],
        (unsigned long long)c.rx_data_lost,
        (unsigned long long)c.tx_data_lost);
}
