/*
 * rss_test.c - host unit test for net/rss.c: the Toeplitz hash
 * against the verification vectors Microsoft publishes with its RSS
 * specification (the key of rss_key; IPv4 addresses alone and with TCP
 * ports, each hashed as the NIC would see the packet: source address,
 * destination address, source port, destination port), and the port
 * choice that steers a connection's replies to a given queue, checked
 * by hashing every port it returns.
 */
#include <stdint.h>
#include <string.h>
#include "harness.h"
#include "net/rss.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static const struct {
    uint32_t dst, src;
    uint16_t dport, sport;
    uint32_t ipv4, tcp4;
} vec[] = {
    { IP(161, 142, 100, 80), IP(66, 9, 149, 187), 1766, 2794, 0x323e8fc2, 0x51ccc178 },
    { IP(65, 69, 140, 83), IP(199, 92, 111, 2), 4739, 14230, 0xd718262a, 0xc626b0ea },
    { IP(12, 22, 207, 184), IP(24, 19, 198, 95), 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
    { IP(209, 142, 163, 6), IP(38, 27, 205, 30), 2217, 48228, 0x82989176, 0xafc7327f },
    { IP(202, 188, 127, 2), IP(153, 39, 163, 191), 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

TEST(microsoft_vectors)
{
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        uint32_t h4 = rss_hash_ipv4(rss_key, vec[i].src, vec[i].dst);
        uint32_t ht = rss_hash_tcp4(rss_key, vec[i].src, vec[i].dst,
                                    vec[i].sport, vec[i].dport);

        if (h4 != vec[i].ipv4)
            FAIL("vector %zu: IPv4 hash 0x%08x, expected 0x%08x", i, h4, vec[i].ipv4);
        if (ht != vec[i].tcp4)
            FAIL("vector %zu: TCPv4 hash 0x%08x, expected 0x%08x", i, ht, vec[i].tcp4);
    }
}

/* The hash is linear: h(a ^ b) = h(a) ^ h(b), and one input bit set
   gives the 32 key bits at its position. */
TEST(toeplitz_structure)
{
    uint8_t a[12], b[12], x[12];

    for (int bit = 0; bit < 96; bit++) {
        uint32_t want = 0;

        memset(a, 0, sizeof a);
        a[bit / 8] = 0x80 >> bit % 8;
        for (int k = 0; k < 32; k++)
            want = want << 1 | (rss_key[(bit + k) / 8] >> (7 - (bit + k) % 8) & 1);
        if (rss_toeplitz(rss_key, RSS_KEY_LEN, a, sizeof a) != want)
            FAIL("bit %d alone hashes wrong", bit);
    }
    for (int i = 0; i < 12; i++) {
        a[i] = (uint8_t)(37 * i + 11);
        b[i] = (uint8_t)(91 * i + 3);
        x[i] = a[i] ^ b[i];
    }
    CHECK(rss_toeplitz(rss_key, RSS_KEY_LEN, x, 12) ==
          (rss_toeplitz(rss_key, RSS_KEY_LEN, a, 12) ^ rss_toeplitz(rss_key, RSS_KEY_LEN, b, 12)));
    /* A key too short for the input: 0, not a read past the key. */
    CHECK(rss_toeplitz(rss_key, 8, a, 12) == 0);
}

static int odd_only(uint16_t p, void *arg)
{
    (*(int *)arg)++;
    return p & 1;
}

/* Every port the choice returns steers the replies to the asked queue,
   over 4 queues in a 128-entry table; a usable() veto is honoured; a
   queue no entry holds gives 0. */
TEST(port_for_queue)
{
    uint16_t table[128];
    uint32_t laddr = IP(192, 0, 2, 2), raddr = IP(192, 0, 2, 1);
    int calls = 0;

    for (int i = 0; i < 128; i++)
        table[i] = i % 4;
    for (uint16_t q = 0; q < 4; q++)
        for (uint16_t start = 49152; start < 49152 + 64; start++) {
            uint16_t p = rss_port_for_queue(rss_key, table, 128, q, laddr, raddr, 80,
                                            49152, 65535, start, NULL, NULL);

            if (!p || p < 49152) {
                FAIL("queue %u from %u: no port", q, start);
                return;
            }
            if (table[rss_hash_tcp4(rss_key, raddr, laddr, 80, p) % 128] != q)
                FAIL("queue %u: port %u hashes elsewhere", q, p);
            if (p < start)
                FAIL("queue %u: port %u is before the start %u", q, p, start);
        }
    CHECK(rss_port_for_queue(rss_key, table, 128, 2, laddr, raddr, 80, 49152, 65535,
                             49152, odd_only, &calls) % 2 == 1);
    CHECK(calls > 0);
    CHECK(rss_port_for_queue(rss_key, table, 128, 7, laddr, raddr, 80, 49152, 65535,
                             49152, NULL, NULL) == 0);
    CHECK(rss_port_for_queue(rss_key, table, 0, 0, laddr, raddr, 80, 1, 2, 1, NULL, NULL) == 0);
    CHECK(rss_port_for_queue(rss_key, table, 128, 0, laddr, raddr, 80, 9, 8, 9, NULL, NULL) == 0);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
