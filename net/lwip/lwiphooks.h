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
 *
 * The same hook holds the lines against a hostile peer that lwIP 2.1.3
 * does not draw itself (tests/host/hostile_test.sh sends each attack):
 *
 *   - A SYN flood (half_open_make_room): lwIP counts a listener's
 *     half-open connections (SYN_RCVD) in its backlog and drops every
 *     SYN once the backlog is full, for the 20 s it keeps a half-open
 *     one: a few dozen spoofed SYNs would shut the port to everyone.
 *     So the half-open ones get a share of the backlog of their own,
 *     HALF_OPEN_MAX, and a SYN that finds it full drops the oldest of
 *     them, without a reset (its peer is likely forged): an honest
 *     peer, whose ACK comes within a round trip, is overtaken only by
 *     HALF_OPEN_MAX SYNs inside that round trip, and even then its ACK
 *     opens the connection (half_open_revive, from a ring of the last
 *     EVICTED_MAX dropped).  Once a listener had HALF_OPEN_MAX / 2
 *     half-open, no half-open connection outlives HALF_OPEN_MS until
 *     none is left (half_open_reap, once a second; into the ring too),
 *     so the memory a flood held (each one's SYN-ACK, on lwIP's heap)
 *     is back within seconds of its end; without a flood lwIP resends
 *     SYN-ACKs as it always did.
 *     Under a flood, a SYN from this link whose sender never answered
 *     ARP is dropped: answering it would only churn ARP's table, and
 *     lwIP recycles resolved entries first, the honest peers'.
 *   - A blind data injection (RFC 5961 5.2, ack_acceptable): a segment
 *     whose ACK acknowledges what was never sent (past snd_lbb, the end
 *     of all that was queued: lwIP's snd_nxt moves back on a
 *     retransmission timeout) or what was acked more than a window ago
 *     is dropped and answered with an ACK, so that an attacker must
 *     guess the ACK as well as the sequence number.  lwIP would send the
 *     ACK and then take the data.  (Blind RSTs and SYNs lwIP already
 *     answers with a challenge ACK, RFC 5961 3 and 4.)
 *   - Challenge ACKs (RFC 5961 7, challenge_ack): a stack sends at most
 *     a limit drawn each second between CHALLENGE_ACKS / 2 and 3/2 of
 *     it, for in-window RSTs and SYNs on synchronized connections and
 *     the blind data above; past it such a segment is dropped
 *     unanswered, so that a flood of them cannot turn the stack into an
 *     ACK generator.  The limit is random so that its count, which every
 *     connection of the stack shares, tells an off-path attacker
 *     nothing it could probe (CVE-2016-5696, Linux's same answer).
 *   - A tiny MSS (mss_floor): a peer's SYN asking for segments of a few
 *     bytes would have lwIP send a response a byte per frame; an MSS
 *     option below MSS_FLOOR is raised to it, as Linux does with
 *     TCP_MIN_SND_MSS.
 *
 * Each counts what it refused (net_attack_count, net/stack.c; the exit
 * report and /debug/sched show them; netguard.h).
 */
#ifndef NET_LWIP_LWIPHOOKS_H
#define NET_LWIP_LWIPHOOKS_H

#include "lwip/def.h"
#include "lwip/etharp.h"
#include "lwip/inet_chksum.h"
#include "lwip/ip4.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/ip4.h"
#include "lwip/prot/tcp.h"
#include "lwip/sys.h"
#include "lwip/timeouts.h"
#include "net/lwip/netguard.h"

/* A half-open connection's life: its peer's SYN-ACK is not sent again
   (lwIP's first RTO is 3 s), but a peer whose ACK comes later still
   opens it from the ring (half_open_revive), as with a SYN cookie. */
#define HALF_OPEN_MS    2000
#define MSS_FLOOR       48

static inline void lwip_hook_timewait_syn(const struct ip_hdr *ip,
                                          const struct tcp_hdr *th)
{
    struct tcp_pcb *pcb;

    for (pcb = tcp_tw_pcbs; pcb; pcb = pcb->next) {
        if (pcb->remote_port != lwip_ntohs(th->src) ||
            pcb->local_port != lwip_ntohs(th->dest) ||
            ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)) != ip->src.addr ||
            ip4_addr_get_u32(ip_2_ip4(&pcb->local_ip)) != ip->dest.addr)
            continue;
        tcp_abort(pcb);             /* a TIME_WAIT pcb is just freed */
        break;
    }
}

/* The TCP checksum of the segment th (len bytes) from ip, folded. */
static inline u16_t tcp_sum(const struct ip_hdr *ip, const u8_t *t, u16_t len)
{
    u32_t s = (ip->src.addr & 0xffff) + (ip->src.addr >> 16) +
              (ip->dest.addr & 0xffff) + (ip->dest.addr >> 16) +
              PP_HTONS(IP_PROTO_TCP) + lwip_htons(len);
    u16_t w;

    for (u16_t i = 0; i + 1 < len; i += 2) {    /* words as the addresses */
        MEMCPY(&w, t + i, 2);
        s += w;
    }
    if (len & 1) {
        u8_t last[2] = { t[len - 1], 0 };

        MEMCPY(&w, last, 2);
        s += w;
    }
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (u16_t)s;
}

/*
 * The half-open connections half_open_make_room and half_open_reap
 * dropped, in brief (a ring of the last EVICTED_MAX), so that the ACK
 * which would have completed one still opens it: half_open_revive.
 * Only the ip4.c translation unit (the input hook's) touches it.
 */
#define EVICTED_MAX     1024

struct evicted {
    u32_t rip, lip;             /* network order, as in the IP header */
    u16_t rport, lport;
    u32_t iss, irs;             /* our SYN's number, and the peer's */
    u16_t mss;                  /* what the peer's SYN asked for */
    u8_t ws;                    /* its window scale, or 0xff: none */
};
static struct evicted evicted[EVICTED_MAX];
static u32_t evicted_next;

/* The ISN the next SYN_RCVD pcb gets while set (half_open_revive):
   shared by tcp.c's and ip4.c's translation units, hence weak globals
   (one per copy once linked) rather than statics. */
__attribute__((weak)) u32_t lwip_hook_iss_forced;
__attribute__((weak)) u8_t lwip_hook_iss_forcing;

static inline void half_open_remember(const struct tcp_pcb *pcb)
{
    struct evicted *e = &evicted[evicted_next++ % EVICTED_MAX];

    e->rip = ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip));
    e->lip = ip4_addr_get_u32(ip_2_ip4(&pcb->local_ip));
    e->rport = pcb->remote_port;
    e->lport = pcb->local_port;
    e->iss = pcb->lastack;      /* SYN_RCVD: lastack is the ISS */
    e->irs = pcb->rcv_nxt - 1;
    e->mss = pcb->mss;
    e->ws = (pcb->flags & TF_WND_SCALE) ? pcb->snd_scale : 0xff;
}

/* The listener on port, or NULL. */
static inline struct tcp_pcb_listen *listener_of(u16_t port)
{
    struct tcp_pcb_listen *l;

    for (l = tcp_listen_pcbs.listen_pcbs; l; l = l->next)
        if (l->local_port == port)
            break;
    return l;
}

/* l's half-open connections. */
static inline int half_open_count(const struct tcp_pcb_listen *l)
{
    const struct tcp_pcb *pcb;
    int n = 0;

    for (pcb = tcp_active_pcbs; pcb; pcb = pcb->next)
        n += pcb->state == SYN_RCVD && pcb->listener == l;
    return n;
}

/* Whether l's socket queue of accepted connections, n of whose backlog
   are half-open, is full: lwIP's backlog for it (sock_tcp.c) is that
   queue plus HALF_OPEN_MAX, and counts both. */
static inline int accept_queue_full(const struct tcp_pcb_listen *l, int n)
{
    return l->backlog > HALF_OPEN_MAX &&
           l->accepts_pending - n >= l->backlog - HALF_OPEN_MAX;
}

/* An ACK that matched no connection: if it completes the handshake of
   one half_open_make_room dropped, lwIP is fed that connection's SYN
   again (made up from the ring, with the same ISS), so that the ACK,
   which lwIP takes next, finds it in SYN_RCVD: 1.  -1 if it would
   complete one but the listener's socket queue is full (the entry stays,
   for the peer's next try), 0 if it completes none. */
static inline int half_open_revive(struct netif *inp, const struct ip_hdr *ip,
                                   const struct tcp_hdr *th)
{
    struct tcp_pcb_listen *l;
    u32_t ack = lwip_ntohl(th->ackno), seq = lwip_ntohl(th->seqno);
    struct evicted *e = NULL;
    struct ip_hdr *qi;
    struct tcp_hdr *qt;
    struct pbuf *q;
    u16_t ol, n;
    u8_t *o;

    for (int i = 0; i < EVICTED_MAX && !e; i++)
        if (evicted[i].rip == ip->src.addr && evicted[i].lip == ip->dest.addr &&
            evicted[i].rport == lwip_ntohs(th->src) &&
            evicted[i].lport == lwip_ntohs(th->dest) &&
            ack == evicted[i].iss + 1 && seq == evicted[i].irs + 1)
            e = &evicted[i];
    if (!e)
        return 0;
    if (!(l = listener_of(e->lport)))
        return 0;
    if (accept_queue_full(l, half_open_count(l)))
        return -1;
    ol = e->ws != 0xff ? 8 : 4;
    n = (u16_t)(IP_HLEN + TCP_HLEN + ol);
    if (!(q = pbuf_alloc(PBUF_RAW, n, PBUF_RAM)))
        return 0;
    memset(q->payload, 0, n);
    qi = (struct ip_hdr *)q->payload;
    IPH_VHL_SET(qi, 4, IP_HLEN / 4);
    IPH_LEN_SET(qi, lwip_htons(n));
    IPH_TTL_SET(qi, 64);
    IPH_PROTO_SET(qi, IP_PROTO_TCP);
    qi->src = ip->src;
    qi->dest = ip->dest;
    IPH_CHKSUM_SET(qi, inet_chksum(qi, IP_HLEN));
    qt = (struct tcp_hdr *)((u8_t *)qi + IP_HLEN);
    qt->src = th->src;
    qt->dest = th->dest;
    qt->seqno = lwip_htonl(e->irs);
    TCPH_HDRLEN_FLAGS_SET(qt, (TCP_HLEN + ol) / 4, TCP_SYN);
    qt->wnd = th->wnd;
    o = (u8_t *)qt + TCP_HLEN;
    o[0] = 2;                   /* MSS */
    o[1] = 4;
    o[2] = (u8_t)(e->mss >> 8);
    o[3] = (u8_t)e->mss;
    if (e->ws != 0xff) {
        o[4] = 1;               /* NOP, then the window scale */
        o[5] = 3;
        o[6] = 3;
        o[7] = e->ws;
    }
    qt->chksum = (u16_t)~tcp_sum(qi, (const u8_t *)qt, (u16_t)(TCP_HLEN + ol));
    e->rip = 0;                 /* used */
    net_attack_count(NET_HALF_OPEN_REVIVED);
    lwip_hook_iss_forced = e->iss;
    lwip_hook_iss_forcing = 1;
    ip4_input(q, inp);          /* takes q; lwIP's state for a packet is
                                   set after this hook, so this nests */
    lwip_hook_iss_forcing = 0;
    return 1;
}

/* LWIP_HOOK_TCP_ISN: lwIP's own choice (its tcp_next_iss), unless
   half_open_revive forces the one a dropped connection had. */
static inline u32_t lwip_hook_isn(void)
{
    static u32_t iss = 6510;

    if (lwip_hook_iss_forcing)
        return lwip_hook_iss_forced;
    iss += tcp_ticks;
    return iss;
}

/* Under a flood (half_open_flood), drops the half-open connections older
   than HALF_OPEN_MS; again in a second while any are left, and the flood
   is over once none is.  Without one lwIP's own SYN-ACK retransmissions
   go on: a peer whose ACK was lost and that sends nothing after it (a
   server that speaks first, a download) would otherwise hold a
   connection this end forgot.  An lwIP timeout (the stack's lock held). */
static int half_open_armed;
/* Set when a listener had HALF_OPEN_MAX / 2 connections half-open (the
   ARP rule's mark), cleared by half_open_reap once none is left. */
static int half_open_flood;

static void half_open_reap(void *arg)
{
    struct tcp_pcb *pcb, *next;
    int left = 0;

    (void)arg;
    half_open_armed = 0;
    if (!half_open_flood)
        return;
    for (pcb = tcp_active_pcbs; pcb; pcb = next) {
        next = pcb->next;
        if (pcb->state != SYN_RCVD)
            continue;
        if ((u32_t)(tcp_ticks - pcb->tmr) * TCP_SLOW_INTERVAL < HALF_OPEN_MS) {
            left = 1;
            continue;
        }
        net_attack_count(NET_HALF_OPEN_DROPPED);
        half_open_remember(pcb);
        tcp_abandon(pcb, 0);
    }
    if (left) {
        half_open_armed = 1;
        sys_timeout(1000, half_open_reap, NULL);
    } else {
        half_open_flood = 0;
    }
}

/*
 * A SYN for port.  lwIP's backlog for a listener (sock_tcp.c) is the
 * socket's queue of accepted connections plus HALF_OPEN_MAX, and counts
 * both.  With the socket's queue full, the SYN is dropped, as lwIP did
 * before the half-open ones had a share of their own: its client sends
 * it again, rather than complete a handshake the accept callback would
 * reset.  Else, with HALF_OPEN_MAX of the listener's connections
 * half-open, the oldest of those goes (half_open_remember keeps it in
 * brief), so that the SYN finds room.  1 if the SYN is to be dropped.
 */
static inline int half_open_make_room(struct netif *inp, const struct ip_hdr *ip,
                                      u16_t port)
{
    struct tcp_pcb_listen *l;
    struct tcp_pcb *pcb, *old = NULL;
    struct eth_addr *eth;
    const ip4_addr_t *at;
    ip4_addr_t src;
    int n = 0;

    if (!half_open_armed) {
        half_open_armed = 1;
        sys_timeout(1000, half_open_reap, NULL);
    }
    if (!(l = listener_of(port)))
        return 0;
    for (pcb = tcp_active_pcbs; pcb; pcb = pcb->next) {
        if (pcb->state != SYN_RCVD || pcb->listener != l)
            continue;
        n++;
        /* >=: lwIP puts a new pcb at the head of the list, so of those
           made within one tick (TCP_SLOW_INTERVAL) the last is oldest. */
        if (!old || (u32_t)(tcp_ticks - pcb->tmr) >=
                    (u32_t)(tcp_ticks - old->tmr))
            old = pcb;
    }
    if (n >= HALF_OPEN_MAX / 2)
        half_open_flood = 1;
    if (accept_queue_full(l, n)) {
        net_attack_count(NET_SYN_QUEUE_FULL);
        return 1;               /* the socket's queue is full */
    }
    /* Under a flood, a SYN from this link whose sender ARP never
       resolved is taken for forged: an honest peer on the link asked
       for our address before its SYN (and so is in the table), while
       the answer to a forged one would only evict the honest peers'
       entries (lwIP recycles resolved entries first), and their frames
       would wait on ARP. */
    ip4_addr_copy(src, ip->src);
    if (n >= HALF_OPEN_MAX / 2 &&
        ip4_addr_netcmp(&src, netif_ip4_addr(inp), netif_ip4_netmask(inp)) &&
        etharp_find_addr(inp, &src, &eth, &at) < 0) {
        net_attack_count(NET_SYN_UNRESOLVED);
        return 1;
    }
    if (old && (n >= HALF_OPEN_MAX || l->accepts_pending >= l->backlog)) {
        net_attack_count(NET_HALF_OPEN_DROPPED);
        half_open_remember(old);
        tcp_abandon(old, 0);
    }
    return 0;
}

/* Raises a SYN's MSS option below MSS_FLOOR to it, checksum mended (a
   segment whose checksum was wrong stays wrong, for lwIP to drop). */
static inline void mss_floor(const struct ip_hdr *ip, struct tcp_hdr *th,
                             u16_t len)
{
    u8_t *t = (u8_t *)th, *o = t + TCP_HLEN, *end = t + TCPH_HDRLEN_BYTES(th);

    while (o < end && *o != 0) {
        if (*o == 1) {
            o++;
            continue;
        }
        if (o + 1 >= end || o[1] < 2 || o + o[1] > end)
            return;
        if (o[0] == 2 && o[1] == 4) {
            u16_t mss = (u16_t)(o[2] << 8 | o[3]);

            if (mss >= MSS_FLOOR || tcp_sum(ip, t, len) != 0xffff)
                return;
            o[2] = MSS_FLOOR >> 8;
            o[3] = MSS_FLOOR & 0xff;
            th->chksum = 0;
            th->chksum = (u16_t)~tcp_sum(ip, t, len);
            net_attack_count(NET_MSS_RAISED);
            return;
        }
        o += o[1];
    }
}

/* The active pcb the segment th from ip belongs to, or NULL. */
static inline struct tcp_pcb *pcb_of(const struct ip_hdr *ip,
                                     const struct tcp_hdr *th)
{
    struct tcp_pcb *pcb;

    for (pcb = tcp_active_pcbs; pcb; pcb = pcb->next)
        if (pcb->remote_port == lwip_ntohs(th->src) &&
            pcb->local_port == lwip_ntohs(th->dest) &&
            ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)) == ip->src.addr &&
            ip4_addr_get_u32(ip_2_ip4(&pcb->local_ip)) == ip->dest.addr)
            break;
    return pcb;
}

/* Whether the stack may send one more challenge ACK this second: false
   (the segment th, len bytes, that asked for it then to be dropped, and
   counted unless its checksum says it was not a segment at all) once the
   second's limit is spent. */
static inline int challenge_ack(const struct ip_hdr *ip,
                                const struct tcp_hdr *th, u16_t len)
{
    static u32_t second = 0xffffffff, left;   /* no second of sys_now's */
    u32_t s = sys_now() / 1000;

    if (s != second) {
        second = s;
        left = CHALLENGE_ACKS / 2 + LWIP_RAND() % CHALLENGE_ACKS;
    }
    if (left) {
        left--;
        return 1;
    }
    if (tcp_sum(ip, (const u8_t *)th, len) == 0xffff)
        net_attack_count(NET_CHALLENGE_ACK_CAPPED);
    return 0;
}

/* Whether lwIP answers the RST or SYN th with a challenge ACK (tcp_in.c,
   tcp_process): a RST inside the window but not at its left edge, or a
   SYN, on a synchronized connection. */
static inline int challenged(const struct ip_hdr *ip, const struct tcp_hdr *th)
{
    struct tcp_pcb *pcb = pcb_of(ip, th);
    u32_t seq = lwip_ntohl(th->seqno);

    if (!pcb || pcb->state == SYN_SENT)
        return 0;
    if (TCPH_FLAGS(th) & TCP_RST)
        return seq != pcb->rcv_nxt &&
               TCP_SEQ_BETWEEN(seq, pcb->rcv_nxt, pcb->rcv_nxt + pcb->rcv_wnd);
    return pcb->state != SYN_RCVD;
}

/*
 * A segment with an ACK and neither SYN nor RST; false if it is to be
 * dropped.  An ACK of no connection may revive a dropped half-open one
 * first.  One that would complete a handshake while the listener's
 * socket queue is full is dropped unanswered, as Linux does: the
 * connection stays half-open, and the peer's next segment completes it
 * once the application took some (the accept callback would otherwise
 * have to reset it).  And RFC 5961 5.2: an ACK outside [lastack - the
 * peer's largest window, snd_lbb + 1 (a FIN)] of a synchronized
 * connection gets an ACK, and the segment is dropped.
 */
static inline int ack_acceptable(struct netif *inp, const struct ip_hdr *ip,
                                 const struct tcp_hdr *th, u16_t len)
{
    struct tcp_pcb *pcb = pcb_of(ip, th);
    u32_t ack = lwip_ntohl(th->ackno), lo;

    if (!pcb && !(TCPH_FLAGS(th) & TCP_FIN)) {
        int r = half_open_revive(inp, ip, th);

        if (r < 0) {
            net_attack_count(NET_SYN_QUEUE_FULL);
            return 0;
        }
        if (r > 0)
            pcb = pcb_of(ip, th);
    }
    if (pcb && pcb->state == SYN_RCVD && pcb->listener &&
        accept_queue_full(pcb->listener, half_open_count(pcb->listener))) {
        net_attack_count(NET_SYN_QUEUE_FULL);
        return 0;
    }
    if (!pcb || pcb->state < ESTABLISHED || pcb->state > LAST_ACK)
        return 1;
    lo = pcb->lastack - pcb->snd_wnd_max;
    if ((u32_t)(ack - lo) <= (u32_t)(pcb->snd_lbb + 1 - lo))
        return 1;
    if (tcp_sum(ip, (const u8_t *)th, len) != 0xffff)
        return 1;               /* corrupt: lwIP drops and counts it */
    net_attack_count(NET_ACK_OUT_OF_RANGE);
    if (challenge_ack(ip, th, len)) {
        tcp_ack_now(pcb);
        tcp_output(pcb);
    }
    return 0;
}

/* LWIP_HOOK_IP4_INPUT: 1 if the packet was dropped here (and freed). */
static inline int lwip_hook_ip4(struct pbuf *p, struct netif *inp)
{
    const struct ip_hdr *ip = (const struct ip_hdr *)p->payload;
    struct tcp_hdr *th;
    u16_t hlen, len;
    u8_t fl;

    if (p->len < IP_HLEN || IPH_V(ip) != 4 || IPH_PROTO(ip) != IP_PROTO_TCP ||
        (IPH_OFFSET(ip) & PP_HTONS(IP_OFFMASK | IP_MF)))
        return 0;
    hlen = IPH_HL_BYTES(ip);
    len = lwip_ntohs(IPH_LEN(ip));
    if (hlen < IP_HLEN || len > p->len || len < hlen + TCP_HLEN)
        return 0;
    len = (u16_t)(len - hlen);
    th = (struct tcp_hdr *)((u8_t *)p->payload + hlen);
    if (TCPH_HDRLEN_BYTES(th) < TCP_HLEN || TCPH_HDRLEN_BYTES(th) > len)
        return 0;
    fl = TCPH_FLAGS(th) & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN);
    if (fl & (TCP_SYN | TCP_RST)) {
        if (fl == TCP_SYN) {
            lwip_hook_timewait_syn(ip, th);
            if (half_open_make_room(inp, ip, lwip_ntohs(th->dest)))
                goto drop;
        }
        if (challenged(ip, th) && !challenge_ack(ip, th, len))
            goto drop;
        if (!(fl & TCP_RST))
            mss_floor(ip, th, len);
        return 0;
    }
    if (!(fl & TCP_ACK) || ack_acceptable(inp, ip, th, len))
        return 0;
drop:
    pbuf_free(p);
    return 1;
}

#define LWIP_HOOK_IP4_INPUT(p, inp) lwip_hook_ip4(p, inp)
#define LWIP_HOOK_TCP_ISN(lip, lport, rip, rport) \
    ((void)(lip), (void)(lport), (void)(rip), (void)(rport), lwip_hook_isn())

#endif
