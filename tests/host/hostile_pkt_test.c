/*
 * hostile_pkt_test.c - tools/hostile/pkt.c, the frames of the hostile
 * peer: checksums against published values (RFC 1071's example, a
 * textbook IPv4 header), each frame kind built and parsed back field for
 * field with its checksums verified, a flipped bit caught, and
 * fragments that cover a datagram exactly.
 */
#include "harness.h"
#include "tools/hostile/pkt.h"

static const uint8_t A[6] = { 2, 0, 0, 0, 0, 1 }, B[6] = { 2, 0, 0, 0, 0, 2 };

TEST(csum_rfc1071)
{
    /* RFC 1071 4.1: these words sum to 0xddf2 (one's complement). */
    static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5,
                                 0xf6, 0xf7 };

    CHECK(pkt_csum(b, sizeof b, 0) == (uint16_t)~0xddf2);
    /* An odd length pads with a zero byte. */
    CHECK(pkt_csum(b, 3, 0) == (uint16_t)~(0x0001 + 0xf200));
}

TEST(ip_header_known)
{
    /* 45 00 00 73 00 00 40 00 40 11 b8 61 c0 a8 00 01 c0 a8 00 c7 */
    uint8_t h[20];

    pkt_ip(h, 0xc0a80001, 0xc0a800c7, 17, 0, 0x4000, 0x73 - 20);
    CHECK(h[10] == 0xb8 && h[11] == 0x61);
    CHECK(pkt_csum(h, 20, 0) == 0);
}

TEST(tcp_round_trip)
{
    uint8_t f[PKT_MAX];
    struct parsed p;
    struct tcpseg s = { 0xc0000240, 0xc0000202, 40000, 80, 0x12345678,
                        0x9abcdef0, TH_SYN | TH_ACK, 512, 1460, "hello", 5 };
    size_t n = pkt_tcp(f, A, B, &s);

    CHECK(n == 14 + 20 + 24 + 5);
    if (!CHECK(pkt_parse(f, n, &p)))
        return;
    CHECK(p.type == 0x0800 && p.proto == 6 && p.csum_ok);
    CHECK(!memcmp(p.edst, A, 6) && !memcmp(p.esrc, B, 6));
    CHECK(p.tcp.src == s.src && p.tcp.dst == s.dst);
    CHECK(p.tcp.sport == 40000 && p.tcp.dport == 80);
    CHECK(p.tcp.seq == s.seq && p.tcp.ack == s.ack);
    CHECK(p.tcp.flags == (TH_SYN | TH_ACK) && p.tcp.win == 512);
    CHECK(p.tcp.mss == 1460);
    CHECK(p.tcp.len == 5 && !memcmp(p.tcp.data, "hello", 5));
    f[n - 1] ^= 0x10;           /* a bit of the data */
    CHECK(pkt_parse(f, n, &p) && !p.csum_ok);
}

TEST(tcp_too_long)
{
    static uint8_t big[1500];
    uint8_t f[PKT_MAX];
    struct tcpseg s = { 1, 2, 3, 4, 5, 6, TH_ACK, 7, 0, big, 1461 };

    CHECK(pkt_tcp(f, A, B, &s) == 0);
    s.len = 1460;
    CHECK(pkt_tcp(f, A, B, &s) == PKT_MAX);
}

TEST(udp_and_echo)
{
    uint8_t f[PKT_MAX], e[64];
    struct parsed p;
    size_t n = pkt_udp(f, A, B, 0xc0000240, 0xc0000202, 1234, 9, "abc", 3);
    const uint8_t *u;

    if (!CHECK(pkt_parse(f, n, &p)) || !CHECK(p.proto == 17))
        return;
    u = p.l4;
    CHECK(p.l4len == 11 && u[0] == 0x04 && u[1] == 0xd2 && u[3] == 9);
    CHECK(pkt_csum(u, p.l4len, pkt_pseudo(p.src, p.dst, 17, 11)) == 0);
    n = pkt_echo(e, 7, 9, "ping", 4);
    CHECK(n == 12 && e[0] == 8 && pkt_csum(e, n, 0) == 0);
}

TEST(arp_round_trip)
{
    uint8_t f[64], bc[6] = { 255, 255, 255, 255, 255, 255 };
    struct parsed p;

    CHECK(pkt_arp(f, bc, 2, A, 0xc0000240, B, 0xc0000202) == 42);
    if (!CHECK(pkt_parse(f, 42, &p)))
        return;
    CHECK(p.type == 0x0806 && p.arp_op == 2 && !memcmp(p.sha, A, 6));
    CHECK(p.spa == 0xc0000240 && p.tpa == 0xc0000202);
}

TEST(fragments_cover)
{
    uint8_t dg[3000], f[PKT_MAX], got[3000] = { 0 };
    struct parsed p;
    size_t off;

    for (size_t i = 0; i < sizeof dg; i++)
        dg[i] = (uint8_t)(i * 13);
    for (off = 0; off < sizeof dg; off += 1000) {
        size_t n = pkt_frag(f, A, B, 1, 2, 1, 77, dg, sizeof dg, off, 1000,
                            false);

        if (!CHECK(n == 14 + 20 + 1000) || !CHECK(pkt_parse(f, n, &p)))
            return;
        CHECK(p.id == 77 && p.csum_ok);
        CHECK((p.frag & 0x1fff) * 8u == off);
        CHECK(!!(p.frag & 0x2000) == (off + 1000 < sizeof dg));
        memcpy(got + off, p.l4, p.l4len);
    }
    CHECK(!memcmp(got, dg, sizeof dg));
    /* An offset off the 8-byte grid, or past the datagram, is refused. */
    CHECK(pkt_frag(f, A, B, 1, 2, 1, 77, dg, sizeof dg, 4, 8, false) == 0);
    CHECK(pkt_frag(f, A, B, 1, 2, 1, 77, dg, sizeof dg, 2992, 16, false) == 0);
}

TEST(parse_short)
{
    uint8_t f[PKT_MAX];
    struct parsed p;
    struct tcpseg s = { 1, 2, 3, 4, 5, 6, TH_ACK, 7, 0, NULL, 0 };
    size_t n = pkt_tcp(f, A, B, &s);

    CHECK(!pkt_parse(f, 10, &p));
    CHECK(!pkt_parse(f, n - 1, &p));    /* IP's length says more */
    f[14 + 20 + 12] = 0x20;             /* a TCP header of 8 bytes */
    CHECK(!pkt_parse(f, n, &p));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
