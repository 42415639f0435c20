/*
 * link.c - tools/hostile's side of the link: the packet socket on the TAP
 * device, ARP answered for the peers' made-up addresses, what the guest
 * sends back counted and reassembled, and a small TCP for the
 * connections an attack needs (hostile.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
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

#include "tools/hostile/hostile.h"

static int fd = -1;
uint8_t guest_mac[6], bcast[6] = { 255, 255, 255, 255, 255, 255 };
uint32_t guest = IP4(192, 0, 2, 2);
int port = 80;
uint64_t sent, sent_bytes, dropped_tx;
char failure[256];

void fail(const char *fmt, ...)
{
    va_list ap;

    if (failure[0])
        return;                 /* the first reason is the one reported */
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
}

double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

uint32_t rnd(void)
{
    static uint64_t x = 0x9e3779b97f4a7c15ULL;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (uint32_t)(x >> 16);
}

/* A made-up MAC for address a: locally administered, unicast. */
void mac_of(uint32_t a, uint8_t m[6])
{
    m[0] = 0x02;
    m[1] = 0x68;
    m[2] = (uint8_t)(a >> 24);
    m[3] = (uint8_t)(a >> 16);
    m[4] = (uint8_t)(a >> 8);
    m[5] = (uint8_t)a;
}

void tx(const uint8_t *f, size_t n)
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
void pace(double t0, uint64_t i, double rate)
{
    double due = t0 + (double)i / rate, d = due - now();

    if (d > 0.0005) {
        struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };

        nanosleep(&ts, NULL);
    }
}

/* ---- a small TCP, for the connections an attack needs ------------------ */

struct peer peers[NPEER];
int npeers;
int slot;

void peer_seg(struct peer *p, uint8_t flags, uint32_t seq, uint32_t ack,
              const void *data, size_t len, int mss)
{
    uint8_t f[PKT_MAX], me[6];
    struct tcpseg s = { p->ip, guest, p->port, (uint16_t)port, seq, ack,
                        flags, p->win, mss, data, len };

    mac_of(p->ip, me);
    tx(f, pkt_tcp(f, guest_mac, me, &s));
}

void peer_ack(struct peer *p)
{
    peer_seg(p, TH_ACK, p->snd_nxt, p->rcv_nxt, NULL, 0, 0);
}

/* Sends bytes [off, off + len) of p's stream (after the SYN). */
void peer_send_at(struct peer *p, size_t off, size_t len)
{
    peer_seg(p, TH_ACK | TH_PSH, p->iss + 1 + (uint32_t)off, p->rcv_nxt,
             p->out + off, len, 0);
    p->last_tx = now();
}

/* Appends data to p's stream; with send, sends it in 1,000-byte
   segments. */
void peer_write(struct peer *p, const void *data, size_t len, int send)
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

struct peer *peer_new(int mss, uint16_t win)
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

void peer_close(struct peer *p)
{
    if (p->state == 2)
        peer_seg(p, TH_RST | TH_ACK, p->snd_nxt, p->rcv_nxt, NULL, 0, 0);
    p->state = 0;
    free(p->in);
    p->in = NULL;
}

/* ---- what comes back ------------------------------------------------------ */

unsigned synacks, arp_replies, icmp_unreach;
unsigned echo_replies;           /* unfragmented, checked */
/* The fragments of the guest's answer to a large echo request. */
uint8_t big[65536];
size_t big_have, big_len;
int big_done;

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

int echo_port;
unsigned udp_probes_back;
static uint8_t probe_seen[PROBES_MAX / 8];

void udp_probe(uint8_t *b, unsigned k)
{
    for (int i = 0; i < PROBE_LEN; i++)
        b[i] = (uint8_t)('a' + (k * 7 + (unsigned)i) % 26);
    snprintf((char *)b, 16, "probe %05u", k % 100000);
    b[11] = ' ';
}

/* A datagram from the guest's echo port: a probe back whole counts once. */
static void udp_input(const struct parsed *p)
{
    uint8_t want[PROBE_LEN];
    unsigned k;

    if (p->l4len < 8 || !echo_port ||
        (p->l4[0] << 8 | p->l4[1]) != echo_port)
        return;
    if (!p->csum_ok) {
        fail("a UDP datagram from the guest with a bad checksum");
        return;
    }
    if (p->l4len != 8 + PROBE_LEN ||
        sscanf((const char *)p->l4 + 8, "probe %5u", &k) != 1 ||
        k >= PROBES_MAX)
        return;                 /* a flood datagram echoed */
    udp_probe(want, k);
    if (memcmp(p->l4 + 8, want, PROBE_LEN)) {
        fail("udp: probe %u came back changed", k);
        return;
    }
    if (!(probe_seen[k / 8] & (1u << (k % 8)))) {
        probe_seen[k / 8] |= (uint8_t)(1u << (k % 8));
        udp_probes_back++;
    }
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
    if (p.proto == 17 && !p.frag) {
        udp_input(&p);
        return;
    }
    if (p.proto != 6 || p.frag)
        return;
    if ((p.tcp.flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK) &&
        (p.dst >= IP4(192, 0, 2, 128) || p.dst >> 8 == IP4(198, 51, 100, 0) >> 8))
        synacks++;              /* to synflood's forged senders */
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
void pump(int ms)
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
int wait_for(int (*done)(void *), void *arg, double secs)
{
    double end = now() + secs;

    while (!done(arg) && now() < end)
        pump(10);
    return done(arg);
}

int is_open(void *arg)
{
    return ((struct peer *)arg)->state >= 2;
}

/* The HTTP response in p->in: 1 once whole and right (200, and n x's of
   body), -1 if wrong, 0 while incomplete. */
int response(const struct peer *p, size_t n)
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
int collect(struct peer **ps, int k, size_t n, double secs,
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

void request(char *b, size_t len, size_t n)
{
    snprintf(b, len, "GET /bytes/%zu HTTP/1.1\r\nHost: 192.0.2.2\r\n\r\n", n);
}

static int guest_known(void *arg)
{
    (void)arg;
    return guest_mac[0] | guest_mac[1] | guest_mac[2] | guest_mac[3] |
           guest_mac[4] | guest_mac[5];
}

/* Opens the packet socket on dev, which must be a TAP device. */
void open_dev(const char *dev)
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
void find_guest(void)
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
