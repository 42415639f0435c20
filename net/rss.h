/*
 * rss.h - receive-side scaling as a multiqueue NIC computes it: the
 * Toeplitz hash of a packet's addresses and ports under a secret key,
 * whose low bits index an indirection table of queues (Microsoft's RSS
 * specification, which virtio-net's VIRTIO_NET_F_RSS adopts: virtio 1.2
 * §5.1.6.4.3).  And the other way round: the local port that makes the
 * replies of an outgoing connection land on a chosen queue.
 *
 * Pure functions of their arguments, no state: any core may call them.
 * Addresses and ports are in host byte order; the hash reads them as
 * they travel, most significant byte first.
 */
#ifndef NET_RSS_H
#define NET_RSS_H

#include <stddef.h>
#include <stdint.h>
#include "net/netdev.h"


/*
 * The Toeplitz hash of the n bytes at in under key (which must hold at
 * least n + 4 bytes): for each input bit set, from the first byte's most
 * significant bit on, the 32 key bits starting at that bit's position
 * are XORed into the result.
 */
uint32_t rss_toeplitz(const uint8_t *key, size_t keylen, const uint8_t *in, size_t n);

/* The hash of an IPv4 packet from src to dst: of the addresses alone
   (the NIC's IPv4 type), and with TCP or UDP ports (its TCPv4 type). */
uint32_t rss_hash_ipv4(const uint8_t *key, uint32_t src, uint32_t dst);
uint32_t rss_hash_tcp4(const uint8_t *key, uint32_t src, uint32_t dst,
                       uint16_t sport, uint16_t dport);

/*
 * For a connection from local (laddr) to remote (raddr:rport), the first
 * port p in [lo, hi], searched from start on and wrapping, for which the
 * remote's packets to laddr:p hash to an indirection entry holding queue:
 * table[rss_hash_tcp4(key, raddr, laddr, rport, p) % nentries] == queue.
 * usable(p, arg), if not NULL, must also accept p (a port in use is
 * not).  Returns p, or 0 when no port in the range qualifies.
 */
uint16_t rss_port_for_queue(const uint8_t *key, const uint16_t *table,
                            uint32_t nentries, uint16_t queue,
                            uint32_t laddr, uint32_t raddr, uint16_t rport,
                            uint16_t lo, uint16_t hi, uint16_t start,
                            int (*usable)(uint16_t p, void *arg), void *arg);

#endif
