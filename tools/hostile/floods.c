/*
 * floods.c - the attacks below TCP: fragments of every wrong shape, and
 * ARP, ping and UDP floods (hostile.c lists what each sends and checks).
 */
#include <stdio.h>
#include <string.h>

#include "tools/hostile/hostile.h"

static int big_came(void *arg)
{
    (void)arg;
    return big_done;
}

/* Sends one echo request of len bytes in the pieces [off[i], off[i] +
   l[i]); with want, true if a whole, right answer came within 1.5 s,
   the request sent up to 3 times (a flood beside it may cost a frame);
   without, true if none came within 0.3 s. */
static int frag_ping_once(uint16_t seq, size_t len, const size_t *off,
                          const size_t *l, int n, int want);

static int frag_ping(uint16_t seq, size_t len, const size_t *off,
                     const size_t *l, int n, int want)
{
    for (int i = 0; i < 2 && want; i++)
        if (frag_ping_once(seq, len, off, l, n, want))
            return 1;
    return frag_ping_once(seq, len, off, l, n, want);
}

static int frag_ping_once(uint16_t seq, size_t len, const size_t *off,
                          const size_t *l, int n, int want)
{
    static uint8_t dg[67000], pl[67000];
    uint8_t f[PKT_MAX], me[6];
    uint16_t id = (uint16_t)(0x4000 + seq);
    size_t dl;

    for (size_t i = 0; i < len; i++)
        pl[i] = (uint8_t)(i * 7 + seq);
    dl = pkt_echo(dg, 0x6805, seq, pl, len);
    mac_of(PEER_LO, me);
    big_have = big_len = 0;
    big_done = 0;
    for (int i = 0; i < n; i++) {
        size_t o = off[i], ll = l[i];

        if (o + ll > dl && o < sizeof dg)       /* past 65,535: the excess */
            memset(dg + dl, 0xa5, o + ll - dl); /* is filler */
        tx(f, pkt_frag(f, guest_mac, me, PEER_LO, guest, 1, id, dg,
                       o + ll > dl ? o + ll : dl, o, ll, o + ll < dl));
    }
    if (!want) {
        pump(300);
        return !big_done;
    }
    wait_for(big_came, NULL, 1.5);
    if (!big_done)
        return 0;
    return big_len == dl && big[0] == 0 && pkt_csum(big, big_len, 0) == 0 &&
           !memcmp(big + 8, pl, len);
}

void frags(void)
{
    int k = count ? (int)count : 300;
    size_t off[400], l[400];
    uint8_t f[PKT_MAX], me[6], junk[1024];
    int ok = 0, tries = 0;

    mac_of(PEER_LO, me);
    memset(junk, 0x5a, sizeof junk);
    /* 3,000 bytes in three fragments in order, then reversed. */
    for (int i = 0; i < 3; i++)
        off[i] = (size_t)i * 1000, l[i] = i < 2 ? 1000 : 1008;
    tries++, ok += frag_ping(1, 3000, off, l, 3, 1);
    for (int i = 0; i < 3; i++)
        off[i] = (size_t)(2 - i) * 1000, l[i] = i ? 1000 : 1008;
    tries++, ok += frag_ping(2, 3000, off, l, 3, 1);
    /* Overlapping: every piece 200 bytes longer than its step. */
    for (int i = 0; i < 5; i++)
        off[i] = (size_t)i * 600, l[i] = i < 4 ? 800 : 3008 - 2400;
    if (!frag_ping(3, 3000, off, l, 5, 0))
        fail("frags: a datagram of overlapping fragments was answered");
    /* 8-byte pieces: 376 of them, more than the guest reassembles. */
    for (int i = 0; i < 376; i++)
        off[i] = (size_t)i * 8, l[i] = 8;
    frag_ping(4, 3000, off, l, 376, 0);
    /* A datagram longer than IP allows: 45 pieces of 1,480 up to 66,600. */
    for (int i = 0; i < 45; i++)
        off[i] = (size_t)i * 1480, l[i] = 1480;
    if (!frag_ping(5, 65000, off, l, 45, 0))
        fail("frags: a datagram past 65,535 bytes was answered");
    /* k datagrams whose first fragment alone comes. */
    for (int i = 0; i < k; i++) {
        tx(f, pkt_frag(f, guest_mac, me, PEER_LO + 1 + i % 8, guest, 17,
                       (uint16_t)(0x1000 + i), junk, sizeof junk, 0, 512, 1));
        pump(0);
    }
    pump(200);
    /* Whole ones still answered, in order and reversed. */
    for (int i = 0; i < 3; i++)
        off[i] = (size_t)i * 1000, l[i] = i < 2 ? 1000 : 1008;
    tries++, ok += frag_ping(6, 3000, off, l, 3, 1);
    for (int i = 0; i < 3; i++)
        off[i] = (size_t)(2 - i) * 1000, l[i] = i ? 1000 : 1008;
    tries++, ok += frag_ping(7, 3000, off, l, 3, 1);
    printf("hostile: frags 3,000-byte pings in order and reversed, one of "
           "overlapping pieces, one of 376 8-byte pieces, one past 65,535 "
           "bytes, %d first fragments alone; %d of %d whole pings answered "
           "intact\n", k, ok, tries);
    if (ok != tries)
        fail("frags: %d of %d fragmented pings answered intact", ok, tries);
}

void arp(void)
{
    uint64_t n = count ? count : 5000;
    double r = rate ? rate : 5000, t0 = now();
    uint8_t f[64], m[6], zero[6] = { 0 };
    unsigned r0 = arp_replies;

    for (uint64_t i = 0; i < n; i++) {
        uint32_t a = IP4(192, 0, 2, 128 + rnd() % 127);

        mac_of(a ^ rnd(), m);
        switch (i % 3) {
        case 0:                 /* who has the guest?  from a spoofed one */
            tx(f, pkt_arp(f, bcast, 1, m, a, zero, guest));
            break;
        case 1:                 /* a reply nobody asked for */
            tx(f, pkt_arp(f, guest_mac, 2, m, IP4(192, 0, 2, 3 + rnd() % 60),
                          guest_mac, guest));
            break;
        default:                /* a claim on the guest's own address */
            tx(f, pkt_arp(f, bcast, 2, m, guest, bcast, guest));
            break;
        }
        pace(t0, i, r);
        pump(0);
    }
    pump(200);
    printf("hostile: arp %llu frames in %.2f s (%.0f/s): requests from "
           "spoofed senders, unasked replies, claims on the guest's "
           "address; %u replies back\n", (unsigned long long)n, now() - t0,
           n / (now() - t0), arp_replies - r0);
}

void ping(void)
{
    uint64_t n = count ? count : 5000;
    double r = rate ? rate : 2000, t0 = now();
    uint8_t f[PKT_MAX], me[6], b[128], pl[56];
    size_t off[64], l[64];
    int big_ok = 0;

    mac_of(PEER_LO, me);
    memset(pl, 0x33, sizeof pl);
    for (uint64_t i = 0; i < n; i++) {
        size_t bl = pkt_echo(b, 0x6806, (uint16_t)i, pl, sizeof pl);
        uint8_t *ip = f + pkt_eth(f, guest_mac, me, 0x0800);

        pkt_ip(ip, PEER_LO, guest, 1, (uint16_t)i, 0, bl);
        memcpy(ip + 20, b, bl);
        tx(f, 14 + 20 + bl);
        pace(t0, i, r);
        pump(0);
    }
    pump(300);
    double dt = now() - t0;
    /* Oversized: a full frame, 8,000 bytes in fragments, and 65,507. */
    off[0] = 0, l[0] = 1480;
    big_ok += frag_ping(100, 1472, off, l, 1, 1);
    for (int i = 0; i < 6; i++)
        off[i] = (size_t)i * 1480, l[i] = i < 5 ? 1480 : 8008 - 7400;
    big_ok += frag_ping(101, 8000, off, l, 6, 1);
    for (int i = 0; i < 45; i++)
        off[i] = (size_t)i * 1480, l[i] = i < 44 ? 1480 : 65515 - 65120;
    frag_ping(102, 65507, off, l, 45, 0);
    printf("hostile: ping %llu echo requests in %.2f s (%.0f/s), %u answered; "
           "then 1,472 and 8,000 bytes (%d of 2 answered intact) and 65,507\n",
           (unsigned long long)n, dt, n / dt, echo_replies, big_ok);
    if (big_ok != 2)
        fail("ping: %d of 2 oversized pings answered intact", big_ok);
    if (!echo_replies)
        fail("ping: no echo request answered");
}

/* An honest client's datagram to the echo port: probe k from the
   first peer address, its own source port. */
static void send_probe(unsigned k)
{
    uint8_t f[PKT_MAX], me[6], b[PROBE_LEN];

    mac_of(PEER_LO + 8, me);
    udp_probe(b, k);
    tx(f, pkt_udp(f, guest_mac, me, PEER_LO + 8, guest,
                  (uint16_t)(20000 + k % 1000), (uint16_t)echo_port, b,
                  PROBE_LEN));
}

void udp(void)
{
    uint64_t n = count ? count : 5000;
    double r = rate ? rate : 2000, t0 = now();
    uint8_t f[PKT_MAX], me[6], junk[1472];
    unsigned probes = 0, during, after;

    mac_of(PEER_LO, me);
    memset(junk, 0x77, sizeof junk);
    for (uint64_t i = 0; i < n; i++) {
        uint16_t dport = (uint16_t)(1000 + rnd() % 50000);

        if (dport == 68 || dport == echo_port)
            dport = 69;
        if (echo_port && i % 2)
            dport = (uint16_t)echo_port;
        tx(f, pkt_udp(f, guest_mac, me, PEER_LO + i % 8, guest,
                      (uint16_t)(1024 + rnd() % 60000), dport,
                      junk, rnd() % sizeof junk));
        if (echo_port && i % 50 == 0 && probes < PROBES_MAX - 20)
            send_probe(probes++);
        pace(t0, i, r);
        pump(0);
    }
    pump(300);
    printf("hostile: udp %llu datagrams of 0-1,471 bytes to closed ports%s "
           "in %.2f s (%.0f/s); %u port unreachables back\n",
           (unsigned long long)n, echo_port ? ", half to the echo port" : "",
           now() - t0, n / (now() - t0), icmp_unreach);
    if (!echo_port)
        return;
    /* The flood is over: an honest client's every datagram comes back. */
    during = udp_probes_back;
    for (int k = 0; k < 20; k++) {
        send_probe(probes++);
        pump(20);
    }
    pump(500);
    after = udp_probes_back - during;
    printf("hostile: udp echo: %u of %u probes back during the flood, "
           "%u of 20 after it\n", during, probes - 20, after);
    if (after != 20)
        fail("udp: %u of 20 probes to the echo port came back after the "
             "flood", after);
}
