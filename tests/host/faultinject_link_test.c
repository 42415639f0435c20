/*
 * faultinject_link_test.c - host unit test for kernel/faultinject_link.c:
 * each link fault strikes at about its rate and is counted; a corrupted
 * frame differs from the original in exactly one bit, inside its IPv4
 * packet, where IPv4's or TCP's checksum no longer holds; ARP is never
 * corrupted; a held frame goes after the later frames it drew or once
 * its time is up; lost TCP segments are counted as data only when they
 * carried some; two queues roll dice of their own.
 */
#include <string.h>
#include "harness.h"
#include "kernel/faultinject.h"

struct faultcfg fault_cfg;      /* faultinject.c's, which is not linked */

#define HZ 1000000000ULL        /* a cycle a ns */
static uint64_t now;

uint64_t arch_cycles(void)
{
    return now;
}

uint64_t arch_cycles_hz(void)
{
    return HZ;
}

struct cpu *arch_this_cpu(void)
{
    return NULL;
}

static void config(const char *spec)
{
    char err[200];

    CHECK(faultcfg_parse(spec, &fault_cfg, err, sizeof err) > 0 && !err[0]);
}

/* ---- Frames ------------------------------------------------------------ */

static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* The TCP checksum over the pseudo-header and the segment. */
static uint16_t tcp_csum(const uint8_t *f, uint32_t iplen)
{
    uint32_t tl = iplen - 20, sum = 6 + tl;

    for (int i = 26; i < 34; i += 2)
        sum += (uint32_t)f[i] << 8 | f[i + 1];
    return csum(f + 34, tl, sum);
}

/* An Ethernet frame of an IPv4 TCP segment with `data` bytes of payload,
   checksums right, padded to `pad` bytes if that is longer. */
static uint32_t tcp_frame(uint8_t *f, uint32_t data, uint32_t pad)
{
    uint32_t iplen = 20 + 20 + data, len = 14 + iplen;

    memset(f, 0, 1514);
    put16(f + 12, 0x0800);
    f[14] = 0x45;
    put16(f + 16, (uint16_t)iplen);
    f[22] = 64;
    f[23] = 6;
    memcpy(f + 26, (uint8_t[]){ 192, 0, 2, 1, 192, 0, 2, 2 }, 8);
    put16(f + 34, 40000);
    put16(f + 36, 9);
    f[46] = 5 << 4;             /* data offset: 20 bytes */
    f[47] = 0x18;
    for (uint32_t i = 0; i < data; i++)
        f[54 + i] = (uint8_t)(i * 7 + 3);
    put16(f + 24, csum(f + 14, 20, 0));
    put16(f + 50, tcp_csum(f, iplen));
    return len > pad ? len : pad;
}

static bool checksums_hold(const uint8_t *f)
{
    uint32_t iplen = (uint32_t)f[16] << 8 | f[17];

    if (f[14] != 0x45 || csum(f + 14, 20, 0) != 0)
        return false;
    if (iplen < 40 || iplen > 1500)
        return false;
    return tcp_csum(f, iplen) == 0;
}

static uint32_t arp_frame(uint8_t *f)
{
    memset(f, 0, 1514);
    put16(f + 12, 0x0806);
    for (int i = 14; i < 42; i++)
        f[i] = (uint8_t)i;
    return 60;
}

/* ---- Cases ------------------------------------------------------------- */

TEST(rates_and_counts)
{
    static struct fault_link fl;
    uint8_t f[1514];
    int v[4] = { 0 }, n = 100000;

    config("rxdrop:100,rxdup:50,rxreorder:100:1000000");
    fault_link_init(&fl, 0);
    for (int i = 0; i < n; i++) {
        uint32_t len = tcp_frame(f, 100, 0);
        enum fault_verdict r = fault_link_frame(&fl, false, f, len);

        v[r]++;
        if (r == FV_HOLD)
            fl.rx.hold.buf = -1;        /* let the next one be held */
    }
    /* Drop first at 10%; then dup at 5% of the rest; then reorder at
       10% of what is left: within 4 standard deviations. */
    CHECK(v[FV_DROP] > 8800 && v[FV_DROP] < 11200);
    CHECK(v[FV_DUP] > 4500 - 500 && v[FV_DUP] < 4500 + 500);
    CHECK(v[FV_HOLD] > 8550 - 900 && v[FV_HOLD] < 8550 + 900);
    CHECK(fl.rx.n[FK_DROP] == (uint64_t)v[FV_DROP]);
    CHECK(fl.rx.n[FK_DUP] == (uint64_t)v[FV_DUP]);
    CHECK(fl.rx.n[FK_REORDER] == (uint64_t)v[FV_HOLD]);
    CHECK(fl.rx.n[FK_CORRUPT] == 0 && fl.tx.n[FK_DROP] == 0);
    CHECK(fl.rx.data_lost == (uint64_t)v[FV_DROP]);
}

TEST(direction_apart)
{
    static struct fault_link fl;
    uint8_t f[1514];
    int drops = 0;

    config("txdrop:1000");
    fault_link_init(&fl, 1);
    for (int i = 0; i < 1000; i++) {
        uint32_t len = tcp_frame(f, 10, 0);

        CHECK(fault_link_frame(&fl, false, f, len) == FV_PASS);
        drops += fault_link_frame(&fl, true, f, len) == FV_DROP;
    }
    CHECK(drops == 1000 && fl.tx.n[FK_DROP] == 1000 && !fl.rx.n[FK_DROP]);
}

TEST(corrupt_flips_one_bit_checksums_fail)
{
    static struct fault_link fl;
    uint8_t f[1514], orig[1514];
    int bad = 0, flips = 0;

    config("txcorrupt:1000");
    fault_link_init(&fl, 2);
    for (int i = 0; i < 20000; i++) {
        uint32_t data = (uint32_t)(i % 1400), len = tcp_frame(f, data, 60);
        uint32_t iplen = 40 + data;

        if (!CHECK(checksums_hold(f)))
            return;
        memcpy(orig, f, len);
        CHECK(fault_link_frame(&fl, true, f, len) == FV_PASS);
        for (uint32_t k = 0; k < len; k++) {
            uint8_t d = f[k] ^ orig[k];

            if (!d)
                continue;
            flips += __builtin_popcount(d);
            /* Inside the IPv4 packet, never its padding or Ethernet. */
            if (k < 14 || k >= 14 + iplen)
                bad++;
        }
        bad += checksums_hold(f);
    }
    CHECK(flips == 20000);
    CHECK(bad == 0);
    CHECK(fl.tx.n[FK_CORRUPT] == 20000);
    /* Frames with data among them (every one but i % 1400 == 0). */
    CHECK(fl.tx.data_lost == 20000 - 15);
}

TEST(arp_never_corrupted)
{
    static struct fault_link fl;
    uint8_t f[1514], orig[1514];

    config("rxcorrupt:1000");
    fault_link_init(&fl, 3);
    for (int i = 0; i < 1000; i++) {
        uint32_t len = arp_frame(f);

        memcpy(orig, f, len);
        CHECK(fault_link_frame(&fl, false, f, len) == FV_PASS);
        CHECK(!memcmp(f, orig, len));
    }
    CHECK(fl.rx.n[FK_CORRUPT] == 0);
}

TEST(data_lost_only_with_data)
{
    static struct fault_link fl;
    uint8_t f[1514];

    config("rxdrop:1000");
    fault_link_init(&fl, 4);
    CHECK(fault_link_frame(&fl, false, f, tcp_frame(f, 0, 60)) == FV_DROP);
    CHECK(fl.rx.data_lost == 0);                /* a bare ACK */
    CHECK(fault_link_frame(&fl, false, f, arp_frame(f)) == FV_DROP);
    CHECK(fl.rx.data_lost == 0);
    CHECK(fault_link_frame(&fl, false, f, tcp_frame(f, 1, 60)) == FV_DROP);
    CHECK(fl.rx.data_lost == 1);
    CHECK(fl.rx.n[FK_DROP] == 3);
}

TEST(hold_goes_after_later_frames_or_in_time)
{
    static struct fault_link fl;
    uint8_t f[1514];
    uint32_t len = tcp_frame(f, 100, 0);
    struct fault_hold *h = &fl.tx.hold;
    int seen[FAULT_HOLD_FRAMES + 1] = { 0 };

    config("txreorder:1000:500");
    fault_link_init(&fl, 5);
    for (int i = 0; i < 3000; i++) {
        uint32_t left;

        now = 1000000;
        if (!CHECK(fault_link_frame(&fl, true, f, len) == FV_HOLD))
            return;
        h->buf = 7;
        left = h->left;
        if (!CHECK(left >= 1 && left <= FAULT_HOLD_FRAMES))
            return;
        seen[left]++;
        /* While one is held, none other is. */
        CHECK(fault_link_frame(&fl, true, f, len) == FV_PASS);
        CHECK(!fault_hold_overdue(h));
        now += 499999;
        CHECK(!fault_hold_overdue(h));
        now += 1;
        CHECK(fault_hold_overdue(h));
        for (uint32_t k = 1; k < left; k++)
            CHECK(!fault_hold_passed(h));
        CHECK(fault_hold_passed(h));
        h->buf = -1;
    }
    for (int k = 1; k <= FAULT_HOLD_FRAMES; k++)
        CHECK(seen[k] > 3000 / FAULT_HOLD_FRAMES / 2);
    /* Nothing held: neither overdue nor released by a frame. */
    CHECK(!fault_hold_overdue(h) && !fault_hold_passed(h));
}

TEST(queues_roll_their_own_dice)
{
    static struct fault_link a, b;
    uint8_t f[1514];
    uint32_t len = tcp_frame(f, 10, 0);
    int differ = 0;
    struct fault_counts c = { 0 };

    config("rxdrop:500");
    fault_link_init(&a, 6);
    fault_link_init(&b, 7);
    for (int i = 0; i < 200; i++)
        differ += fault_link_frame(&a, false, f, len) !=
                  fault_link_frame(&b, false, f, len);
    CHECK(differ > 50);
    /* fault_link_counts sums every queue set up so far, these two too. */
    fault_link_counts(&c);
    CHECK(c.rx[FK_DROP] >= a.rx.n[FK_DROP] + b.rx.n[FK_DROP]);
}

TEST(off_means_pass)
{
    static struct fault_link fl;
    uint8_t f[1514], orig[1514];
    uint32_t len = tcp_frame(f, 500, 0);

    config("alloc:5");
    fault_link_init(&fl, 8);
    memcpy(orig, f, len);
    for (int i = 0; i < 1000; i++) {
        CHECK(fault_link_frame(&fl, false, f, len) == FV_PASS);
        CHECK(fault_link_frame(&fl, true, f, len) == FV_PASS);
    }
    CHECK(!memcmp(f, orig, len));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
