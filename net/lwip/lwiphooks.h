/*
 * lwiphooks.h - Spindle's hooks into lwIP 2.1.3 (lwipopts.h names this
 * file LWIP_HOOK_FILENAME; every lwIP source that has hooks includes it).
 *
 * LWIP_HOOK_IP4_INPUT: a new connection's SYN may reuse the addresses
 * and ports of a connection this side closed first, which lwIP holds in
 * TIME_WAIT for 2 * TCP_MSL.  lwIP answers such a SYN with an ACK of the
 * old connection, so the peer's connect hangs until TIME_WAIT ends (the
 * peer chooses its ports: a host client reconnecting through QEMU's user
 * network keeps its own).  So a SYN (no ACK, RST or FIN) for a
 * connection in TIME_WAIT ends the TIME_WAIT, and the SYN then goes on
 * to the listener like any other.  RFC 1122 (4.2.2.13) and Linux accept
 * such a SYN when its sequence number is beyond what the old connection
 * received (or, on Linux, its timestamp is newer); QEMU's user network
 * sends no timestamps and picks initial sequence numbers from a clock,
 * which an old connection that received much can have passed, so any
 * SYN is taken.  What that gives up: a duplicate of the old
 * connection's own SYN, delayed past its whole life, would open a
 * connection nobody asked for, which its peer then resets.  Run on
 * every IPv4 packet before lwIP looks at it, under the stack's lock; it
 * never consumes the packet.
 */
#ifndef NET_LWIP_LWIPHOOKS_H
#define NET_LWIP_LWIPHOOKS_H

#include "lwip/def.h"
#include "lwip/ip4.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/ip4.h"
#include "lwip/prot/tcp.h"

static inline int lwip_hook_timewait_syn(struct pbuf *p)
{
    const struct ip_hdr *ip = (const struct ip_hdr *)p->payload;
    const struct tcp_hdr *th;
    struct tcp_pcb *pcb;
    u16_t hlen;

    if (p->len < IP_HLEN || IPH_V(ip) != 4 || IPH_PROTO(ip) != IP_PROTO_TCP ||
        (IPH_OFFSET(ip) & PP_HTONS(IP_OFFMASK | IP_MF)))
        return 0;
    hlen = IPH_HL_BYTES(ip);
    if (hlen < IP_HLEN || p->len < hlen + TCP_HLEN)
        return 0;
    th = (const struct tcp_hdr *)((const u8_t *)p->payload + hlen);
    if ((TCPH_FLAGS(th) & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN)) != TCP_SYN)
        return 0;
    for (pcb = tcp_tw_pcbs; pcb; pcb = pcb->next) {
        if (pcb->remote_port != lwip_ntohs(th->src) ||
            pcb->local_port != lwip_ntohs(th->dest) ||
            ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)) != ip->src.addr ||
            ip4_addr_get_u32(ip_2_ip4(&pcb->local_ip)) != ip->dest.addr)
            continue;
        tcp_abort(pcb);             /* a TIME_WAIT pcb is just freed */
        break;
    }
    return 0;
}

#define LWIP_HOOK_IP4_INPUT(p, inp) ((void)(inp), lwip_hook_timewait_syn(p))

#endif
