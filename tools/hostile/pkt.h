/*
 * pkt.h - the frames tools/hostile sends, built byte by byte: Ethernet,
 * ARP, IPv4 (whole or one fragment), TCP with options, UDP and ICMP
 * echo, each with its checksums right (or, where an attack wants it,
 * deliberately left as the caller set them), and the parse of a frame
 * that came back.  No state: every function fills the caller's buffer
 * and returns the frame's length.
 */
#ifndef TOOLS_HOSTILE_PKT_H
#define TOOLS_HOSTILE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PKT_MAX 1514            /* one frame of a 1500-byte MTU link */

enum { TH_FIN = 1, TH_SYN = 2, TH_RST = 4, TH_PSH = 8, TH_ACK = 16 };

/* The Internet checksum (RFC 1071) of len bytes, folded and complemented,
   starting from a partial sum (0, or pkt_pseudo's). */
uint16_t pkt_csum(const void *b, size_t len, uint32_t sum);

/* The partial sum of the TCP/UDP pseudo-header (RFC 9293 3.1). */
uint32_t pkt_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len);

/* An Ethernet header at f: 14 bytes. */
size_t pkt_eth(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
               uint16_t type);

/* A whole ARP frame (request op 1, reply op 2): 42 bytes. */
size_t pkt_arp(uint8_t *f, const uint8_t edst[6], int op,
               const uint8_t sha[6], uint32_t spa, const uint8_t tha[6],
               uint32_t tpa);

/* Addresses in host order throughout; ports too. */
struct tcpseg {
    uint32_t src, dst;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t win;
    int mss;                    /* > 0: an MSS option (SYNs) */
    const void *data;
    size_t len;
};

/* An IPv4 header at f (20 bytes, no options, checksum set) for a
   payload of len bytes; frag is the offset in 8-byte units, ORed with
   0x2000 for "more fragments". */
size_t pkt_ip(uint8_t *f, uint32_t src, uint32_t dst, uint8_t proto,
              uint16_t id, uint16_t frag, size_t len);

/* Whole frames from the Ethernet header on; 0 if it would not fit. */
size_t pkt_tcp(uint8_t *f, const uint8_t edst[6], const uint8_t esrc[6],
               const struct tcpseg *s);
size_t pkt_udp(uint8_t *f, const uint8_t edst[6], const uint8_t esrc[6],
               uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
               const void *data, size_t len);

/* An ICMP echo request's bytes (header and payload, checksum set) into
   b, for pkt_ip or pkt_frag to carry: 8 + len bytes. */
size_t pkt_echo(uint8_t *b, uint16_t id, uint16_t seq, const void *data,
                size_t len);

/* One fragment of the IP datagram whose payload is dgram (dlen bytes):
   its bytes [off, off + len) (off a multiple of 8), "more fragments"
   unless it ends the datagram (or more is forced).  0 if off/len do not
   fit the datagram or a frame. */
size_t pkt_frag(uint8_t *f, const uint8_t edst[6], const uint8_t esrc[6],
                uint32_t src, uint32_t dst, uint8_t proto, uint16_t id,
                const uint8_t *dgram, size_t dlen, size_t off, size_t len,
                bool more);

/* What pkt_parse found in a frame. */
struct parsed {
    uint16_t type;              /* Ethernet type */
    uint8_t esrc[6], edst[6];
    /* ARP */
    int arp_op;
    uint8_t sha[6];
    uint32_t spa, tpa;
    /* IPv4 */
    uint32_t src, dst;
    uint8_t proto;
    uint16_t id, frag;          /* fragment: offset (8-byte units) | MF */
    const uint8_t *l4;          /* the IP payload */
    size_t l4len;
    bool csum_ok;               /* IP's, and the TCP/UDP/ICMP one of an
                                   unfragmented datagram */
    /* TCP (unfragmented) */
    struct tcpseg tcp;
};

/* Parses frame f of n bytes; false if it is too short or malformed. */
bool pkt_parse(const uint8_t *f, size_t n, struct parsed *p);

#endif
