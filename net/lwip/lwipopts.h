/*
 * lwipopts.h - lwIP 2.1.3's configuration for Spindle (read by lwip/opt.h;
 * every option not set here keeps opt.h's default).
 *
 * Contract with the kernel:
 *   - NO_SYS: no threads inside lwIP, raw (callback) API only.  The kernel
 *     links a copy of lwIP per NIC queue (net/lwipinst.h) and
 *     enters a copy only while holding its stack's lock, one spinlock
 *     around every call (input, timers, the raw API), so lwIP needs no
 *     locking of its own.
 *   - The kernel provides u32_t sys_now(void) (milliseconds, wrapping) and
 *     calls each copy's sys_check_timeouts() under its stack's lock.
 *   - Memory is lwIP's own: a static heap and static pools, no malloc, since
 *     lwIP runs where interrupts are off and malloc is forbidden.
 *
 * Sized for a server with 64 concurrent TCP connections (1,000 over its
 * life) moving 64 MiB each.  Static memory, all .bss: 5.7 MiB per copy
 * (the 4 MiB heap, 1.5 MiB of receive pool, 0.2 MiB of pcbs and
 * segments).
 */
#ifndef NET_LWIP_LWIPOPTS_H
#define NET_LWIP_LWIPOPTS_H

/* Spindle's hooks (a SYN that ends a TIME_WAIT, the lines against a
 * hostile peer): lwiphooks.h, its limits in netguard.h. */
#define LWIP_HOOK_FILENAME          "lwiphooks.h"
#include "net/lwip/netguard.h"

/* ---- System interface ---------------------------------------------- */
#define NO_SYS                      1
#define LWIP_SOCKET                 0
#define LWIP_NETCONN                0
#define LWIP_CALLBACK_API           1
#define LWIP_EVENT_API              0
/* The stack's lock serializes every entry into a copy: no SYS_ARCH_PROTECT. */
#define SYS_LIGHTWEIGHT_PROT        0
#define LWIP_TIMERS                 1

/* ---- Memory ---------------------------------------------------------- */
#define MEM_LIBC_MALLOC             0
#define MEMP_MEM_MALLOC             0
/* 8: pool and heap blocks hold pointers and u64 fields on both arches. */
#define MEM_ALIGNMENT               8
/* The heap holds chiefly what tcp_write(TCP_WRITE_FLAG_COPY) copied, until
 * it is acked: 64 connections x 64 KiB.  Past that tcp_write returns
 * ERR_MEM, and the sender retries from its sent or poll callback. */
#define MEM_SIZE                    (4 * 1024 * 1024)
/* Receive buffers: the driver fills one pool pbuf per frame. */
#define PBUF_POOL_SIZE              1024
/* One whole frame of a 1500-byte MTU link (1514 bytes with the Ethernet
 * header), so a received frame is never a pbuf chain. */
#define PBUF_POOL_BUFSIZE \
    LWIP_MEM_ALIGN_SIZE(PBUF_LINK_ENCAPSULATION_HLEN + PBUF_LINK_HLEN + 1500)

/* ---- Protocols ------------------------------------------------------- */
#define LWIP_IPV4                   1
#define LWIP_IPV6                   0
#define LWIP_ETHERNET               1
#define LWIP_ARP                    1
/* lwIP's default is 10 entries, and it recycles a resolved entry before
 * a pending one: a flood from spoofed addresses on the link, each
 * answered and so looked up, evicts the honest peers' entries at once
 * (their next frame then waits for ARP).  127 is lwIP's most. */
#define ARP_TABLE_SIZE              127
#define LWIP_ICMP                   1
#define LWIP_UDP                    1
#define LWIP_TCP                    1
#define LWIP_DHCP                   1
/* No ARP probe of the offered address: it adds about a second to every
 * lease.  (2.1.3 reads DHCP_DOES_ARP_CHECK; LWIP_DHCP_DOES_ACD_CHECK is
 * the same switch in later lwIP.) */
#define DHCP_DOES_ARP_CHECK         0
#define LWIP_DHCP_DOES_ACD_CHECK    0
#define LWIP_AUTOIP                 0
#define LWIP_IGMP                   0
/* The DNS client (net/dns.c, stack 0 only): DHCP's lease sets its
 * servers.  lwIP's defaults otherwise: 4 names cached, 4 retries, a
 * random source port per query from up to DNS_MAX_SOURCE_PORTS pcbs of
 * the UDP pool, kept once made (counted in MEMP_NUM_UDP_PCB below). */
#define LWIP_DNS                    1
#define DNS_MAX_SOURCE_PORTS        4

/* Packets to the machine's own address, and 127.0.0.1 (a loopback
 * interface), stay inside: queued by lwIP, delivered by netif_poll_all,
 * which the kernel calls whenever it leaves the stack. */
#define LWIP_NETIF_LOOPBACK         1
#define LWIP_HAVE_LOOPIF            1
#define LWIP_NETIF_STATUS_CALLBACK  1
#define LWIP_NETIF_LINK_CALLBACK    1

/* Generate and verify every checksum in software: the drivers offload none. */
#define CHECKSUM_GEN_IP             1
#define CHECKSUM_GEN_UDP            1
#define CHECKSUM_GEN_TCP            1
#define CHECKSUM_GEN_ICMP           1
#define CHECKSUM_CHECK_IP           1
#define CHECKSUM_CHECK_UDP          1
#define CHECKSUM_CHECK_TCP          1
#define CHECKSUM_CHECK_ICMP         1

/* ---- TCP ------------------------------------------------------------- */
#define TCP_MSS                     1460
/* lwIP's timers: the fast one (delayed ACKs) every TCP_TMR_INTERVAL ms,
 * the slow one (retransmissions, keepalive, TIME_WAIT) every two.  Its
 * retransmission timeout counts slow ticks and, once the round trip
 * is measured short, settles at three of them: 0.6 s with 100 ms here,
 * against 1.5 s with lwIP's 250 (Linux's floor: 0.2 s). */
#define TCP_TMR_INTERVAL            100
/* A 128 KiB window needs scaling; shift 2 allows up to 256 KiB - 4. */
#define LWIP_WND_SCALE              1
#define TCP_RCV_SCALE               2
#define TCP_WND                     (128 * 1024)
#define TCP_SND_BUF                 (128 * 1024)
/* pbufs queued per connection: lwIP's own formula (4 per full segment,
 * 360), above the 2 * TCP_SND_BUF / TCP_MSS that init.c demands. */
#define TCP_SND_QUEUELEN            ((4 * TCP_SND_BUF + TCP_MSS - 1) / TCP_MSS)
/* The default, half of TCP_SND_BUF, fails init.c's check that it stays
 * 4 * TCP_MSS below 0xFFFF; only the socket API reads it. */
#define TCP_SNDLOWAT                (TCP_SND_BUF / 4)
/* Segments, shared by all connections: the heap holds at most
 * MEM_SIZE / TCP_MSS (about 2,900) full unacked segments, plus one per
 * pool pbuf held in an out-of-sequence queue.  init.c wants at least
 * TCP_SND_QUEUELEN. */
#define MEMP_NUM_TCP_SEG            4096
/* 256 open at a time, those in TIME_WAIT included (lwIP reuses the
 * oldest TIME_WAIT pcb when the pool runs out), beside at most
 * HALF_OPEN_MAX half-open ones (netguard.h). */
#define MEMP_NUM_TCP_PCB            (256 + HALF_OPEN_MAX)
#define MEMP_NUM_TCP_PCB_LISTEN     16
/* 16 for sockets, and the DNS client's source ports. */
#define MEMP_NUM_UDP_PCB            (16 + DNS_MAX_SOURCE_PORTS)
#define LWIP_TCP_KEEPALIVE          1
/* lwIP's own timeouts, and lwiphooks.h's reaper of half-open connections. */
#define MEMP_NUM_SYS_TIMEOUT        (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1)
/* A datagram's fragments have 3 s to come together (lwIP's default is
 * 15): fragments that never complete hold receive pbufs meanwhile (at
 * most IP_REASS_MAX_PBUFS, 10, lwIP's default), taken from what every
 * connection receives with. */
#define IP_REASS_MAXAGE             3
#define TCP_LISTEN_BACKLOG          1
/* A restarted server can listen again on a port whose pcbs are in TIME_WAIT. */
#define SO_REUSE                    1

/* ---- Statistics and debugging ---------------------------------------- */
#define LWIP_STATS                  1
/* 32-bit counters: one 64 MiB transfer is ~46,000 segments, so 16-bit
 * ones would wrap within two. */
#define LWIP_STATS_LARGE            1
#define MIB2_STATS                  0
/* LWIP_DEBUG stays undefined: no LWIP_DEBUGF output.  LWIP_ASSERT stays on
 * (arch/cc.h makes a failed one a panic). */

#endif
