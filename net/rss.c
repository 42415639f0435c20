/*
 * rss.c - the Toeplitz hash and the queue-aware port choice (rss.h).
 */
#include "net/rss.h"

const uint8_t rss_key[RSS_KEY_LEN] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

uint32_t rss_toeplitz(const uint8_t *key, size_t keylen, const uint8_t *in, size_t n)
{
    /* window: the 32 key bits at the current input bit, with the next
       key byte's bits waiting below them to shift in. */
    uint64_t window = 0;
    uint32_t h = 0;

    if (keylen < n + 4)
        return 0;
    for (size_t i = 0; i < 8; i++)
        window = window << 8 | (i < keylen ? key[i] : 0);
    for (size_t i = 0; i < n; i++) {
        for (int b = 7; b >= 0; b--) {
            if (in[i] >> b & 1)
                h ^= (uint32_t)(window >> 32);
            window <<= 1;
        }
        if (i + 8 < keylen)
            window |= key[i + 8];
    }
    return h;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

uint32_t rss_hash_ipv4(const uint8_t *key, uint32_t src, uint32_t dst)
{
    uint8_t in[8];

    put32(in, src);
    put32(in + 4, dst);
    return rss_toeplitz(key, RSS_KEY_LEN, in, sizeof in);
}

uint32_t rss_hash_tcp4(const uint8_t *key, uint32_t src, uint32_t dst,
                       uint16_t sport, uint16_t dport)
{
    uint8_t in[12];

    put32(in, src);
    put32(in + 4, dst);
    put32(in + 8, (uint32_t)sport << 16 | dport);
    return rss_toeplitz(key, RSS_KEY_LEN, in, sizeof in);
}

uint16_t rss_port_for_queue(const uint8_t *key, const uint16_t *table,
                            uint32_t nentries, uint16_t queue,
                            uint32_t laddr, uint32_t raddr, uint16_t rport,
                            uint16_t lo, uint16_t hi, uint16_t start,
                            int (*usable)(uint16_t p, void *arg), void *arg)
{
    uint32_t span;

    if (!nentries || !lo || lo > hi)
        return 0;
    span = (uint32_t)hi - lo + 1;
    if (start < lo || start > hi)
        start = lo;
    for (uint32_t k = 0; k < span; k++) {
        uint16_t p = (uint16_t)(lo + (start - lo + k) % span);

        if (table[rss_hash_tcp4(key, raddr, laddr, rport, p) % nentries] == queue &&
            (!usable || usable(p, arg)))
            return p;
    }
    return 0;
}
