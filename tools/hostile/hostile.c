/*
 * hostile - a hostile peer on a TAP device's side of a network namespace:
 * it writes forged frames straight onto the link (an AF_PACKET socket
 * bound to the device), as an attacker on the guest's link would, and
 * plays its own small TCP from made-up addresses where an attack needs a
 * live connection.  tests/host/hostile_test.sh runs it inside the
 * namespace tools/run/tapns.sh makes; it refuses any device but a TAP
 * one, and every address it uses is a documentation one (RFC 5737).
 *
 *   hostile [--if spt0] [--guest 192.0.2.2] [--port 80] [--count N]
 *           [--rate R] [--hold S] [--slot K] ATTACK
 *
 * --slot K (0-7) keeps the connections of attacks run side by side
 * apart: each slot's peers use ports of their own.
 *
 * Attacks (N frames or connections, R frames a second; defaults below):
 *   synflood  N SYNs from spoofed 198.51.100.x and 192.0.2.128-254
 *   blind     RFC 5961 on a live connection: RSTs and SYNs inside and
 *             outside the window, data outside it, data at the right
 *             sequence number with an ACK outside what the guest sent;
 *             in-window RSTs and SYNs must each get a challenge ACK, none
 *             may reset the connection or inject a byte, whose response
 *             must then come whole
 *   segments  N connections sending their request in overlapping,
 *             shuffled pieces; each response must come whole
 *   frags     fragmented pings in order, reversed, overlapping, in
 *             8-byte pieces, past 65,535 bytes, and N datagrams of which
 *             only the first fragment comes; the whole ones must be
 *             answered intact afterwards
 *   zerowin   N connections that close their window while their
 *             response waits, then open it: each response whole
 *   tinymss   N connections with MSS 1, 16 and 88: each response whole
 *   connflood N connections opened R a second and held S seconds (3)
 *             without a byte sent, more than the guest's pools and httpd's cap hold;
 *             then each still open is reset.  Counts those opened, those
 *             the guest reset or closed meanwhile, and those it never
 *             answered
 *   arp       N ARP requests from spoofed senders, replies nobody asked
 *             for, and claims on the guest's own address
 *   ping      N echo requests at R a second, then oversized ones
 *   udp       N datagrams of up to 1,472 bytes to closed ports
 *
 * Prints what it sent and saw, `hostile: <attack> ...` lines, and a last
 * line `hostile: ok` or `hostile: FAIL <why>` (exit status 0 or 1; 2 for
 * a usage or setup error).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/hostile/pkt.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define PEER_LO IP4(192, 0, 2, 64)      /* the peers' own addresses, */
#define PEER_N  64                      /* answered for by ARP here */
#define NPEER   1024

static int fd = -1;
static uint8_t guest_mac[6], bcast[6] = { 255, 255, 255, 255, 255, 255 };
static uint32_t guest = IP4(192, 0, 2, 2);
static int port = 80;
static uint64_t sent, sent_bytes, dropped_tx;
static char failure[256];

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (failure[0])
        return;                 /* the first reason is the one reported */
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
}

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static uint32_t rnd(void)
{
    static uint64_t x = 0x9e3779b97f4a7c15ULL;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (uint32_t)(x >> 16);
}

/* A made-up MAC for address a: locally administered, unicast. */
static void mac_of(uint32_t a, uint8_t m[6])
{
    m[0] = 0x02;
    m[1] = 0x68;
    m[2] = (uint8_t)(a >> 24);
    m[3] = (uint8_t)(a >> 16);
    m[4] = (uint8_t)(a >> 8);
    m[5] = (uint8_t)a;
}

static void tx(const uint8_t *f, size_t n)
{
    if (!n)
        return;
    if (send(fd, f, n, 0) < 0) {
        if (errno != ENOBUFS && errno != EAGAIN) {
            perror("hostile: send");
            exit(2);
        }
        dropped_tx++;
        return;
    }
    sent++;
    sent_bytes += n;
}

/* Paces the i-th of frames going at rate a second from t0. */
static void pace(double t0, uint64_t i, double rate)
{
    double due = t0 + (double)i / rate, d = due - now();

    if (d > 0.0005) {
        struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };

        nanosleep(&ts, NULL);
    }
}

/* ---- a small TCP, for the connections an attack needs ------------------ */

struct peer {
    uint32_t ip;
    uint16_t port;
    int state;                  /* 0 closed, 1 SYN sent, 2 open, 3 reset */
    int mss;                    /* offered in the SYN (0: none) */
    uint16_t win;               /* advertised; 0 closes the window */
    uint32_t iss, snd_nxt;      /* ours */
    uint32_t rcv_nxt;           /* the guest's next byte */
    uint32_t guest_ack;         /* the last ACK the guest sent */
    uint32_t guest_wnd;
    uint8_t out[4096];          /* what we sent after the SYN: [0, nout) */
    size_t nout;
    double last_tx;
    uint8_t *in;                /* the guest's bytes, in order */
    size_t nin, cap;
    unsigned acks;              /* segments from the guest without data */
    unsigned probes;            /* data segments past a closed window */
    size_t most_seg;            /* the longest segment the guest sent */
    unsigned segs;
    double born;                /* when its SYN first went */
    int fin;                    /* the guest sent its FIN */
    int was_open;               /* reset by the guest once open */
};

static struct peer peers[NPEER];
static int npeers;
static int slot;                /* --slot: which ports the peers use */

static void peer_seg(struct peer *p, uint8_t flags, uint32_t seq,
                     uint32_t ack, const void *data, size_t len, int mss)
{
    uint8_t f[PKT_MAX], me[6];
    struct tcpseg s = { p->ip, guest, p->port, (uint16_t)port, seq, ack,
                        flags, p->win, mss, data, len };

    mac_of(p->ip, me);
    tx(f, pkt_tcp(f, guest_mac, me, &s));
}

static void peer_ack(struct peer *p)
{
    peer_seg(p, TH_ACK, p->snd_nxt, p->rcv_nxt, NULL, 0, 0);
}

/* Sends bytes [off, off + len) of p's stream (after the SYN). */
static void peer_send_at(struct peer *p, size_t off, size_t len)
{
    peer_seg(p, TH_ACK | TH_PSH, p->iss + 1 + (uint32_t)off, p->rcv_nxt,
             p->out + off, len, 0);
    p->last_tx = now();
}

/* Appends data to p's stream; with send, sends it in 1,000-byte
   segments. */
static void peer_write(struct peer *p, const void *data, size_t len, int send)
{
    size_t off = p->nout;

    if (p->nout + len > sizeof p->out) {
        fail("peer_write: %zu bytes is more than a peer keeps", len);
        return;
    }
    memcpy(p->out + p->nout, data, len);
    p->nout += len;
    p->snd_nxt = p->iss + 1 + (uint32_t)p->nout;
    for (; send && off < p->nout; off += 1000)
        peer_send_at(p, off, p->nout - off < 1000 ? p->nout - off : 1000);
}

static struct peer *peer_new(int mss, uint16_t win)
{
    struct peer *p;

    if (npeers == NPEER) {
        fail("more than %d peers", NPEER);
        return NULL;
    }
    p = &peers[npeers];
    memset(p, 0, sizeof *p);
    p->ip = PEER_LO + (uint32_t)(npeers % PEER_N);
    p->port = (uint16_t)(10000 + slot * 5000 + npeers * 16 + rnd() % 16);
    npeers++;
    p->mss = mss;
    p->win = win;
    p->iss = rnd();
    p->snd_nxt = p->iss + 1;
    p->state = 1;
    p->born = now();
    peer_seg(p, TH_SYN, p->iss, 0, NULL, 0, mss);
    p->last_tx = now();
    return p;
}

static void peer_input(struct peer *p, const struct tcpseg *s)
{
    if (s->flags & TH_RST) {
        if (p->state == 2)
            p->was_open = 1;
        p->state = 3;
        return;
    }
    if (p->state == 1) {
        if ((s->flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK) &&
            s->ack == p->iss + 1) {
            p->rcv_nxt = s->seq + 1;
            p->guest_ack = s->ack;
            p->guest_wnd = s->win;
            p->state = 2;
            peer_ack(p);
        }
        return;
    }
    if (p->state != 2)
        return;
    if (s->flags & TH_SYN) {    /* a retransmitted SYN-ACK */
        peer_ack(p);
        return;
    }
    if (s->flags & TH_ACK) {
        if ((int32_t)(s->ack - p->guest_ack) > 0)
            p->guest_ack = s->ack;
        p->guest_wnd = s->win;
    }
    if (!s->len && !(s->flags & TH_FIN)) {
        p->acks++;
        return;
    }
    p->segs++;
    if (s->len > p->most_seg)
        p->most_seg = s->len;
    if (s->len && !p->win) {    /* a window probe: refused */
        p->probes++;
        peer_ack(p);
        return;
    }
    if (s->seq == p->rcv_nxt && s->len) {
        if (p->nin + s->len > p->cap) {
            p->cap = (p->nin + s->len) * 2;
            p->in = realloc(p->in, p->cap);
            if (!p->in) {
                perror("hostile");
                exit(2);
            }
        }
        memcpy(p->in + p->nin, s->data, s->len);
        p->nin += s->len;
        p->rcv_nxt += (uint32_t)s->len;
    }
    if ((s->flags & TH_FIN) && s->seq + (uint32_t)s->len == p->rcv_nxt) {
        p->rcv_nxt++;
        p->fin = 1;
    }
    peer_ack(p);
}

/* Sends again what the guest has not acked, 300 ms after the last try:
   the guest may drop a frame under the attack. */
static void peer_retransmit(struct peer *p, double t)
{
    if (p->state == 1 && t - p->last_tx > 0.5) {
        peer_seg(p, TH_SYN, p->iss, 0, NULL, 0, p->mss);
        p->last_tx = t;
    } else if (p->state == 2 && p->guest_ack != p->snd_nxt &&
               t - p->last_tx > 0.3) {
        size_t off = p->guest_ack - (p->iss + 1);

        if (off < p->nout)
            peer_send_at(p, off, p->nout - off < 1000 ? p->nout - off : 1000);
    }
}

static void peer_close(struct peer *p)
{
    if (p->state == 2)
        peer_seg(p, TH_RST | TH_ACK, p->snd_nxt, p->rcv_nxt, NULL, 0, 0);
    p->state = 0;
    free(p->in);
    p->in = NULL;
}

/* ---- what comes back ------------------------------------------------------ */

static unsigned synacks, arp_replies, icmp_unreach;
static unsigned echo_replies;           /* unfragmented, checked */
/* The fragments of the guest's answer to a large echo request. */
static uint8_t big[65536];
static size_t big_have, big_len;
static int big_done;

static void icmp_input(const struct parsed *p)
{
    const uint8_t *b = p->l4;

    if (p->frag) {              /* a piece of a large echo reply */
        size_t off = (size_t)(p->frag & 0x1fff) * 8;

        if (off + p->l4len <= sizeof big) {
            memcpy(big + off, b, p->l4len);
            big_have += p->l4len;
            if (!(p->frag & 0x2000))
                big_len = off + p->l4len;
            if (big_len && big_have == big_len)
                big_done = 1;
        }
        return;
    }
    if (p->l4len < 8)
        return;
    if (b[0] == 3)
        icmp_unreach++;
    if (b[0] != 0)
        return;
    if (!p->csum_ok) {
        fail("an echo reply with a bad checksum");
        return;
    }
    if (p->l4len > 64) {        /* a large one, unfragmented */
        memcpy(big, b, p->l4len);
        big_len = big_have = p->l4len;
        big_done = 1;
        return;
    }
    echo_replies++;
}

static void input(const uint8_t *f, size_t n)
{
    struct parsed p;

    if (!pkt_parse(f, n, &p))
        return;
    if (p.type == 0x0806) {
        if (p.spa == guest && p.arp_op == 2) {
            memcpy(guest_mac, p.sha, 6);
            arp_replies++;
        }
        if (p.arp_op == 1 && p.tpa >= PEER_LO && p.tpa < PEER_LO + PEER_N) {
            uint8_t r[64], m[6];

            mac_of(p.tpa, m);
            tx(r, pkt_arp(r, p.sha, 2, m, p.tpa, p.sha, p.spa));
        }
        return;
    }
    if (p.type != 0x0800 || p.src != guest)
        return;
    if (p.proto == 1) {
        icmp_input(&p);
        return;
    }
    if (p.proto != 6 || p.frag)
        return;
    if ((p.tcp.flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK))
        synacks++;
    if (!p.csum_ok) {
        fail("a TCP segment from the guest with a bad checksum");
        return;
    }
    for (int i = 0; i < npeers; i++)
        if (peers[i].ip == p.dst && peers[i].port == p.tcp.dport &&
            peers[i].state)
            peer_input(&peers[i], &p.tcp);
}

/* Reads what came for up to ms milliseconds (0: only what is there). */
static void pump(int ms)
{
    double end = now() + ms / 1000.0;
    uint8_t f[65536];

    for (;;) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof from;
        struct pollfd pf = { fd, POLLIN, 0 };
        int left = (int)((end - now()) * 1000);
        ssize_t n;

        if (poll(&pf, 1, left > 0 ? left : 0) <= 0)
            break;
        n = recvfrom(fd, f, sizeof f, MSG_DONTWAIT, (struct sockaddr *)&from,
                     &fl);
        if (n < 0)
            continue;
        if (from.sll_pkttype != PACKET_OUTGOING)
            input(f, (size_t)n);
    }
    for (int i = 0; i < npeers; i++)
        peer_retransmit(&peers[i], now());
}

/* Pumps until done() or secs; true if done() came. */
static int wait_for(int (*done)(void *), void *arg, double secs)
{
    double end = now() + secs;

    while (!done(arg) && now() < end)
        pump(10);
    return done(arg);
}

static int is_open(void *arg)
{
    return ((struct peer *)arg)->state >= 2;
}

/* The HTTP response in p->in: 1 once whole and right (200, and n x's of
   body), -1 if wrong, 0 while incomplete. */
static int response(const struct peer *p, size_t n)
{
    const char *h = (const char *)p->in;
    const uint8_t *end;
    size_t hl;

    if (p->nin < 12)
        return 0;
    if (memcmp(h, "HTTP/1.1 200", 12))
        return -1;
    end = memmem(p->in, p->nin, "\r\n\r\n", 4);
    if (!end)
        return 0;
    hl = (size_t)(end - p->in) + 4;
    if (p->nin < hl + n)
        return 0;
    if (p->nin > hl + n)
        return -1;
    for (size_t i = hl; i < p->nin; i++)
        if (p->in[i] != 'x')
            return -1;
    return 1;
}

struct want {
    struct peer **ps;
    int n;
    size_t bytes;
};

static int all_answered(void *arg)
{
    struct want *w = arg;

    for (int i = 0; i < w->n; i++)
        if (w->ps[i]->state != 3 && !response(w->ps[i], w->bytes))
            return 0;
    return 1;
}

/* Waits up to secs for each of ps's responses of n x's; counts the whole
   ones, fails on the first wrong or missing one. */
static int collect(struct peer **ps, int k, size_t n, double secs,
                   const char *what)
{
    struct want w = { ps, k, n };
    int good = 0;

    wait_for(all_answered, &w, secs);
    for (int i = 0; i < k; i++) {
        int r = ps[i]->state == 3 ? -2 : response(ps[i], n);

        if (r == 1)
            good++;
        else
            fail("%s: connection %d %s (%zu bytes came)", what, i,
                 r == -2 ? "was reset" : r ? "got a wrong response" :
                 "got no whole response", ps[i]->nin);
    }
    return good;
}

static void request(char *b, size_t len, size_t n)
{
    snprintf(b, len, "GET /bytes/%zu HTTP/1.1\r\nHost: 192.0.2.2\r\n\r\n", n);
}

/* ---- the attacks ---------------------------------------------------------- */

static uint64_t count = 0;
static double rate = 0;
static double hold = 3.0;      /* --hold: connflood's seconds */

static void synflood(void)
{
    uint64_t n = count ? count : 5000;
    double r = rate ? rate : 2000, t0 = now();
    uint8_t f[PKT_MAX], m[6];

    for (uint64_t i = 0; i < n; i++) {
        uint32_t a = i % 2 ? IP4(198, 51, 100, 1 + i / 2 % 254) :
                             IP4(192, 0, 2, 128 + i / 2 % 127);
        struct tcpseg s = { a, guest, (uint16_t)(1024 + rnd() % 60000),
                            (uint16_t)port, rnd(), 0, TH_SYN, 64240, 1460,
                            NULL, 0 };

        mac_of(a, m);
        tx(f, pkt_tcp(f, guest_mac, m, &s));
        pace(t0, i, r);
        pump(0);
    }
    pump(200);
    printf("hostile: synflood %llu SYNs in %.2f s (%.0f/s) from %u spoofed "
           "addresses; %u SYN-ACKs back\n", (unsigned long long)n,
           now() - t0, n / (now() - t0), 381, synacks);
}

static int acked(void *arg)
{
    struct peer *p = arg;

    return p->acks != p->probes;        /* probes: the count before */
}

/* Sends one forged segment on p; true if an ACK came within 300 ms. */
static int acks_after(struct peer *p, uint8_t flags, uint32_t seq,
                      uint32_t ack, const char *data)
{
    unsigned keep = p->probes;          /* p->win is open: unused */
    int r;

    p->probes = p->acks;
    peer_seg(p, flags, seq, ack, data, data ? strlen(data) : 0, 0);
    r = wait_for(acked, p, 0.3);
    p->probes = keep;
    return r;
}

/*
 * Against httpd's read deadline (4 s in the test), all within 2 s or so:
 * the in-window segments are answered at once, and the out-of-window
 * RSTs go in one batch that must reset nothing.
 */
static void blind(void)
{
    int k = count ? (int)count : 20;
    const char *head = "GET /bytes/20000 HTTP/1.1\r\nHost: 192.0.2.2\r\n";
    struct peer *p = peer_new(1460, 65535);
    unsigned rst_in = 0, syn_in = 0, out = 0;
    uint32_t wnd;

    if (!p || !wait_for(is_open, p, 5)) {
        fail("blind: no connection to port %d", port);
        return;
    }
    peer_write(p, head, strlen(head), 1);
    pump(100);
    wnd = p->guest_wnd > 1 ? p->guest_wnd : 2;
    for (int i = 0; i < k && p->state == 2; i++) {
        uint32_t near = p->snd_nxt + 1 + rnd() % (wnd - 1);

        rst_in += acks_after(p, TH_RST, near, 0, NULL);
        syn_in += acks_after(p, TH_SYN, near, 0, NULL);
        out += acks_after(p, TH_ACK | TH_PSH, p->snd_nxt + wnd + 1 +
                          rnd() % 100000, p->rcv_nxt, "\r\n\r\n");
    }
    for (int i = 0; i < k; i++) {
        peer_seg(p, TH_RST, p->snd_nxt + wnd + 1 + rnd() % 100000, 0, NULL,
                 0, 0);
        peer_seg(p, TH_RST | TH_ACK, p->snd_nxt - 70000 - rnd() % 100000,
                 p->rcv_nxt, NULL, 0, 0);
    }
    pump(100);
    if (p->state != 2) {
        fail("blind: the guest reset the connection for a segment whose "
             "sequence number was only near");
        return;
    }
    /* Data at exactly the right sequence number, ACKing what the guest
       never sent, then what it acked too long ago (RFC 5961 5.2): must
       not be taken, or the guest would answer a request now. */
    acks_after(p, TH_ACK | TH_PSH, p->snd_nxt, p->rcv_nxt + 1000000, "\r\n\r\n");
    acks_after(p, TH_ACK | TH_PSH, p->snd_nxt, p->rcv_nxt - 3000000, "\r\n\r\n");
    pump(100);
    if (p->nin) {
        fail("blind: the guest took data whose ACK was outside what it "
             "sent (%zu bytes answered)", p->nin);
        return;
    }
    peer_write(p, "\r\n", 2, 1);
    collect(&p, 1, 20000, 5, "blind");
    printf("hostile: blind %d rounds on one connection: challenge ACKs for "
           "%u of %d in-window RSTs and %u of %d SYNs, %u of %d out-of-window "
           "data segments ACKed, %d out-of-window RSTs ignored, 2 injections "
           "with a bad ACK refused; response whole\n",
           k, rst_in, k, syn_in, k, out, k, 2 * k);
    if (rst_in != (unsigned)k || syn_in != (unsigned)k)
        fail("blind: challenge ACKs for %u of %d RSTs, %u of %d SYNs", rst_in,
             k, syn_in, k);
    peer_close(p);
}

static void segments(void)
{
    int k = count ? (int)count : 10;
    struct peer *ps[NPEER];
    char req[512], pad[201];
    unsigned pieces = 0;

    memset(pad, 'p', 200);
    pad[200] = 0;
    for (int i = 0; i < k; i++)
        if (!(ps[i] = peer_new(1460, 65535)))
            return;
    for (int i = 0; i < k; i++)
        if (!wait_for(is_open, ps[i], 5)) {
            fail("segments: connection %d not opened", i);
            return;
        }
    for (int i = 0; i < k; i++) {
        struct peer *p = ps[i];
        size_t off[128], len[128], n = 0, o = 0;

        snprintf(req, sizeof req, "GET /bytes/30000 HTTP/1.1\r\nHost: "
                 "192.0.2.2\r\nX-Pad: %s\r\n\r\n", pad);
        peer_write(p, req, strlen(req), 0);
        /* Pieces of 1-40 bytes, each overlapping the last by up to 8. */
        while (o < p->nout && n < 128) {
            size_t l = 1 + rnd() % 40, back = rnd() % 9;

            off[n] = o > back ? o - back : 0;
            len[n] = off[n] + l > p->nout ? p->nout - off[n] : l;
            o = off[n] + len[n];
            n++;
        }
        if (o < p->nout) {
            off[n] = o;
            len[n++] = p->nout - o;
        }
        for (size_t j = n - 1; j > 0; j--) {    /* shuffled */
            size_t r = rnd() % (j + 1), t = off[j], u = len[j];

            off[j] = off[r], len[j] = len[r], off[r] = t, len[r] = u;
        }
        for (size_t j = 0; j < n; j++)
            peer_send_at(p, off[j], len[j]);
        pieces += (unsigned)n;
        pump(0);
    }
    int good = collect(ps, k, 30000, 10, "segments");
    printf("hostile: segments %d requests in %u overlapping pieces sent out "
           "of order; %d responses whole\n", k, pieces, good);
    for (int i = 0; i < k; i++)
        peer_close(ps[i]);
}

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

static void frags(void)
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

static void zerowin(void)
{
    int k = count ? (int)count : 20;
    struct peer *ps[NPEER];
    char req[128];
    unsigned probes = 0;

    for (int i = 0; i < k; i++)
        if (!(ps[i] = peer_new(1460, 65535)))
            return;
    for (int i = 0; i < k; i++)
        if (!wait_for(is_open, ps[i], 5)) {
            fail("zerowin: connection %d not opened", i);
            return;
        }
    request(req, sizeof req, 60000);
    for (int i = 0; i < k; i++) {
        ps[i]->win = 0;
        peer_write(ps[i], req, strlen(req), 1);
    }
    pump(1500);
    for (int i = 0; i < k; i++) {
        probes += ps[i]->probes;
        if (ps[i]->nin)
            fail("zerowin: %zu bytes came through a closed window", ps[i]->nin);
        ps[i]->win = 65535;
        peer_ack(ps[i]);
    }
    int good = collect(ps, k, 60000, 10, "zerowin");
    printf("hostile: zerowin %d connections with their window closed for "
           "1.5 s while 60,000 bytes waited each; %u window probes; %d "
           "responses whole\n", k, probes, good);
    for (int i = 0; i < k; i++)
        peer_close(ps[i]);
}

static void tinymss(void)
{
    int k = count ? (int)count : 3;
    static const int mss[] = { 1, 16, 88 };
    struct peer *ps[NPEER];
    char req[128];

    for (int i = 0; i < 3 * k; i++)
        if (!(ps[i] = peer_new(mss[i % 3], 65535)))
            return;
    for (int i = 0; i < 3 * k; i++)
        if (!wait_for(is_open, ps[i], 5)) {
            fail("tinymss: connection %d not opened", i);
            return;
        }
    request(req, sizeof req, 5000);
    for (int i = 0; i < 3 * k; i++)
        peer_write(ps[i], req, strlen(req), 1);
    int good = collect(ps, 3 * k, 5000, 10, "tinymss");
    printf("hostile: tinymss %d connections of MSS 1, 16 and 88, 5,000 bytes "
           "each; %d responses whole; longest segments", 3 * k, good);
    for (int i = 0; i < 3; i++)
        printf(" %zu", ps[i]->most_seg);
    printf(" bytes\n");
    for (int i = 0; i < 3 * k; i++)
        peer_close(ps[i]);
}

static void connflood(void)
{
    int k = count ? (int)count : 600;
    double r = rate ? rate : 300, t0 = now();
    unsigned opened = 0, unanswered = 0, reset = 0, closed = 0;

    if (k > NPEER)
        k = NPEER;
    for (int i = 0; i < k; i++) {
        struct peer *p = peer_new(1460, 65535);

        if (!p)
            return;
        p->last_tx = now() + 10;        /* no SYN sent again: a refusal */
        pace(t0, (uint64_t)i, r);
        pump(0);
    }
    pump((int)(hold * 1000));
    for (int i = 0; i < npeers; i++) {
        struct peer *p = &peers[i];

        opened += p->state == 2 || p->fin || p->was_open;
        unanswered += p->state == 1;
        reset += p->was_open;
        closed += p->fin;
        if (p->state == 2)
            peer_close(p);
    }
    pump(200);
    printf("hostile: connflood %d connections in %.2f s (%.0f/s), held %.0f s "
           "without a byte: %u opened (%u of them reset by the guest, %u "
           "closed), %u never answered\n", k, now() - t0 - hold - 0.2,
           k / (now() - t0 - hold - 0.2), hold, opened, reset, closed,
           unanswered);
    if (!opened)
        fail("connflood: no connection opened");
}

static void arp(void)
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

static void ping(void)
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

static void udp(void)
{
    uint64_t n = count ? count : 5000;
    double r = rate ? rate : 2000, t0 = now();
    uint8_t f[PKT_MAX], me[6], junk[1472];

    mac_of(PEER_LO, me);
    memset(junk, 0x77, sizeof junk);
    for (uint64_t i = 0; i < n; i++) {
        uint16_t dport = (uint16_t)(1000 + rnd() % 50000);

        tx(f, pkt_udp(f, guest_mac, me, PEER_LO + i % 8, guest,
                      (uint16_t)(1024 + rnd() % 60000), dport == 68 ? 69 : dport,
                      junk, rnd() % sizeof junk));
        pace(t0, i, r);
        pump(0);
    }
    pump(300);
    printf("hostile: udp %llu datagrams of 0-1,471 bytes to closed ports in "
           "%.2f s (%.0f/s); %u port unreachables back\n",
           (unsigned long long)n, now() - t0, n / (now() - t0), icmp_unreach);
}

/* ---- setup ---------------------------------------------------------------- */

static int guest_known(void *arg)
{
    (void)arg;
    return guest_mac[0] | guest_mac[1] | guest_mac[2] | guest_mac[3] |
           guest_mac[4] | guest_mac[5];
}

/* Opens the packet socket on dev, which must be a TAP device. */
static void open_dev(const char *dev)
{
    struct sockaddr_ll sa = { 0 };
    struct ethtool_drvinfo di = { 0 };
    struct ifreq ifr;

    fd = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", dev);
    ifr.ifr_data = (char *)&di;
    di.cmd = ETHTOOL_GDRVINFO;
    if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr) || strcmp(di.driver, "tun")) {
        fprintf(stderr, "hostile: %s is not a TAP device; refusing to send "
                "on it\n", dev);
        exit(2);
    }
    close(fd);
    fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (fd < 0) {
        perror("hostile: AF_PACKET socket (root, in the test's namespace)");
        exit(2);
    }
    sa.sll_family = AF_PACKET;
    sa.sll_protocol = htons(ETH_P_ALL);
    sa.sll_ifindex = (int)if_nametoindex(dev);
    if (!sa.sll_ifindex || bind(fd, (struct sockaddr *)&sa, sizeof sa)) {
        fprintf(stderr, "hostile: cannot bind to %s: %s\n", dev,
                strerror(errno));
        exit(2);
    }
}

/* The guest's MAC, from an ARP request as one of the peers. */
static void find_guest(void)
{
    uint8_t f[64], m[6], zero[6] = { 0 };

    mac_of(PEER_LO, m);
    for (int i = 0; i < 20 && !guest_known(NULL); i++) {
        tx(f, pkt_arp(f, bcast, 1, m, PEER_LO, zero, guest));
        wait_for(guest_known, NULL, 0.5);
    }
    if (!guest_known(NULL)) {
        fprintf(stderr, "hostile: the guest does not answer ARP\n");
        exit(2);
    }
}

static const struct {
    const char *name;
    void (*fn)(void);
} attacks[] = {
    { "synflood", synflood }, { "blind", blind }, { "segments", segments },
    { "frags", frags }, { "zerowin", zerowin }, { "tinymss", tinymss },
    { "connflood", connflood },
    { "arp", arp }, { "ping", ping }, { "udp", udp },
};

static void usage(void)
{
    fprintf(stderr, "usage: hostile [--if DEV] [--guest A.B.C.D] [--port P] "
            "[--count N] [--rate R] [--hold S] [--slot K] ATTACK\nattacks:");
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++)
        fprintf(stderr, " %s", attacks[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dev = "spt0", *what = NULL;
    struct in_addr a;
    double t0;

    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--if"))
            dev = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--guest") &&
                 inet_aton(argv[i + 1], &a))
            guest = ntohl(a.s_addr), i++;
        else if (i + 1 < argc && !strcmp(argv[i], "--port"))
            port = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--count"))
            count = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--rate"))
            rate = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--hold"))
            hold = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--slot"))
            slot = atoi(argv[++i]) & 7;
        else if (argv[i][0] != '-' && !what)
            what = argv[i];
        else
            usage();
    }
    if (!what || port <= 0 || port > 65535 || rate < 0 || hold < 0)
        usage();
    if ((guest >> 8) != IP4(192, 0, 2, 0) >> 8) {
        fprintf(stderr, "hostile: the guest must be in 192.0.2.0/24\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        if (strcmp(what, attacks[i].name))
            continue;
        open_dev(dev);
        find_guest();
        t0 = now();
        attacks[i].fn();
        printf("hostile: %s sent %llu frames, %llu bytes, in %.2f s (%llu "
               "not sent: the device's queue was full)\n", what,
               (unsigned long long)sent, (unsigned long long)sent_bytes,
               now() - t0, (unsigned long long)dropped_tx);
        if (failure[0]) {
            printf("hostile: FAIL %s\n", failure);
            return 1;
        }
        printf("hostile: ok\n");
        return 0;
    }
    usage();
}
