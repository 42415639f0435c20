/*
 * pkt.c - frame building and parsing for tools/hostile (pkt.h).  Fields
 * go in byte by byte in network order, so the code is the same on any
 * host and no struct's padding can creep in.
 */
#include "tools/hostile/pkt.h"

#include <string.h>

static void put16(uint8_t *b, uint16_t v)
{
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
}

static void put32(uint8_t *b, uint32_t v)
{
    put16(b, (uint16_t)(v >> 16));
    put16(b + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *b)
{
    return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)get16(b) << 16 | get16(b + 2);
}

uint16_t pkt_csum(const void *b, size_t len, uint32_t sum)
{
    const uint8_t *p = b;
    uint64_t s = sum;

    for (; len > 1; p += 2, len -= 2)
        s += get16(p);
    if (len)
        s += (uint32_t)p[0] << 8;
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

uint32_t pkt_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
    return (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) +
           proto + len;
}

size_t pkt_eth(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
               uint16_t type)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    put16(f + 12, type);
    return 14;
}

size_t pkt_arp(uint8_t *f, const uint8_t edst[6], int op,
               const uint8_t sha[6], uint32_t spa, const uint8_t tha[6],
               uint32_t tpa)
{
    uint8_t *a = f + pkt_eth(f, edst, sha, 0x0806);

    put16(a, 1);                /* Ethernet */
    put16(a + 2, 0x0800);       /* IPv4 */
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, (uint16_t)op);
    memcpy(a + 8, sha, 6);
    put32(a + 14, spa);
    memcpy(a + 18, tha, 6);
    put32(a + 24, tpa);
    return 42;
}

size_t pkt_ip(uint8_t *f, uint32_t src, uint32_t dst, uint8_t proto,
              uint16_t id, uint16_t frag, size_t len)
{
    f[0] = 0x45;
    f[1] = 0;
    put16(f + 2, (uint16_t)(20 + len));
    put16(f + 4, id);
    put16(f + 6, frag);
    f[8] = 64;
    f[9] = proto;
    put16(f + 10, 0);
    put32(f + 12, src);
    put32(f + 16, dst);
    put16(f + 10, pkt_csum(f, 20, 0));
    return 20;
}

size_t pkt_tcp(uint8_t *f, const uint8_t edst[6], const uint8_t esrc[6],
               const struct tcpseg *s)
{
    size_t hl = s->mss > 0 ? 24 : 20, n = hl + s->len;
    uint8_t *ip, *t;

    if (14 + 20 + n > PKT_MAX)
        return 0;
    ip = f + pkt_eth(f, edst, esrc, 0x0800);
    t = ip + pkt_ip(ip, s->src, s->dst, 6, (uint16_t)s->seq, 0x4000, n);
    put16(t, s->sport);
    put16(t + 2, s->dport);
    put32(t + 4, s->seq);
    put32(t + 8, s->ack);
    t[12] = (uint8_t)(hl / 4 << 4);
    t[13] = s->flags;
    put16(t + 14, s->win);
    put16(t + 16, 0);
    put16(t + 18, 0);
    if (s->mss > 0) {
        t[20] = 2;              /* MSS, 4 bytes */
        t[21] = 4;
        put16(t + 22, (uint16_t)s->mss);
    }
    if (s->len)
        memcpy(t + hl, s->data, s->len);
    put16(t + 16, pkt_csum(t, n, pkt_pseudo(s->src, s->dst, 6, (uint16_t)n)));
    return 14 + 20 + n;
}

size_t pkt_udp(uint8_t *f, const uint8_t edst[6], const uint8_t esrc[6],
               uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
               const void *data, size_t len)
{
    size_t n = 8 + len;
    uint8_t *ip, *u;
    uint16_t c;

    if (14 + 20 + n > PKT_MAX)
        return 0;
    ip = f + pkt_eth(f, edst, esrc, 0x0800);
    u = ip + pkt_ip(ip, src, dst, 17, (uint16_t)(sport ^ len), 0, n);
    put16(u, sport);
    put16(u + 2, dport);
    put16(u + 4, (uint16_t)n);
    put16(u + 6, 0);
    memcpy(u + 8, data, len);
    c = pkt_csum(u, n, pkt_pseudo(src, dst, 17, (uint16_t)n));
    put16(u + 6, c ? c : 0xffff);       /* 0 means "no checksum" */
    return 14 + 20 + n;
}

size_t pkt_echo(uint8_t *b, uint16_t id, uint16_t seq, const void *data,
                size_t len)
{
    b[0] = 8;                   /* echo request */
    b[1] = 0;
    put16(b + 2, 0);
    put16(b + 4, id);
    put16(b + 6, seq);
    memcpy(b + 8, data, len);
    put16(b + 2, pkt_csum(b, 8 + len, 0));
    return 8 + len;
}

size_t pkt_frag(uint8_t *f, const uint8_t edst[6], const uint8_t esrc[6],
                uint32_t src, uint32_t dst, uint8_t proto, uint16_t id,
                const uint8_t *dgram, size_t dlen, size_t off, size_t len,
                bool more)
{
    uint8_t *ip;
    uint16_t fo;

    if (off % 8 || off > dlen || len > dlen - off || 14 + 20 + len > PKT_MAX ||
        off / 8 > 0x1fff)
        return 0;
    fo = (uint16_t)(off / 8);
    if (more || off + len < dlen)
        fo |= 0x2000;
    ip = f + pkt_eth(f, edst, esrc, 0x0800);
    pkt_ip(ip, src, dst, proto, id, fo, len);
    memcpy(ip + 20, dgram + off, len);
    return 14 + 20 + len;
}

static bool parse_ip(const uint8_t *ip, size_t n, struct parsed *p)
{
    size_t hl, tot;
    const uint8_t *t;

    if (n < 20 || ip[0] >> 4 != 4)
        return false;
    hl = (size_t)(ip[0] & 15) * 4;
    tot = get16(ip + 2);
    if (hl < 20 || tot < hl || tot > n)
        return false;
    p->proto = ip[9];
    p->id = get16(ip + 4);
    p->frag = get16(ip + 6) & 0x3fff;
    p->src = get32(ip + 12);
    p->dst = get32(ip + 16);
    p->l4 = ip + hl;
    p->l4len = tot - hl;
    p->csum_ok = pkt_csum(ip, hl, 0) == 0;
    if (p->frag)                /* a fragment: the caller reassembles */
        return true;
    if (p->proto == 1)
        p->csum_ok = p->csum_ok && pkt_csum(p->l4, p->l4len, 0) == 0;
    if (p->proto != 6)
        return true;
    t = p->l4;
    if (p->l4len < 20 || (size_t)(t[12] >> 4) * 4 > p->l4len ||
        t[12] >> 4 < 5)
        return false;
    p->csum_ok = p->csum_ok &&
        pkt_csum(t, p->l4len, pkt_pseudo(p->src, p->dst, 6,
                                         (uint16_t)p->l4len)) == 0;
    p->tcp.src = p->src;
    p->tcp.dst = p->dst;
    p->tcp.sport = get16(t);
    p->tcp.dport = get16(t + 2);
    p->tcp.seq = get32(t + 4);
    p->tcp.ack = get32(t + 8);
    p->tcp.flags = t[13];
    p->tcp.win = get16(t + 14);
    p->tcp.data = t + (t[12] >> 4) * 4;
    p->tcp.len = p->l4len - (size_t)(t[12] >> 4) * 4;
    p->tcp.mss = 0;
    for (size_t o = 20; o + 4 <= (size_t)(t[12] >> 4) * 4;) {
        if (t[o] == 0)
            break;
        if (t[o] == 1) {
            o++;
            continue;
        }
        if (t[o] == 2 && t[o + 1] == 4)
            p->tcp.mss = get16(t + o + 2);
        if (t[o + 1] < 2)
            break;
        o += t[o + 1];
    }
    return true;
}

bool pkt_parse(const uint8_t *f, size_t n, struct parsed *p)
{
    memset(p, 0, sizeof *p);
    if (n < 14)
        return false;
    memcpy(p->edst, f, 6);
    memcpy(p->esrc, f + 6, 6);
    p->type = get16(f + 12);
    if (p->type == 0x0806) {
        if (n < 42 || get16(f + 14) != 1 || get16(f + 16) != 0x0800)
            return false;
        p->arp_op = get16(f + 20);
        memcpy(p->sha, f + 22, 6);
        p->spa = get32(f + 28);
        p->tpa = get32(f + 38);
        return true;
    }
    if (p->type == 0x0800)
        return parse_ip(f + 14, n - 14, p);
    return true;
}
