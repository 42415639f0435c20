/*
 * tcp.c - the attacks on TCP: a SYN flood, blind segments near a live
 * connection's numbers (RFC 5961), overlapping shuffled segments,
 * zero-window and tiny-MSS peers, and a flood of silent connections
 * (hostile.c lists what each sends and checks).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "tools/hostile/hostile.h"

void synflood(void)
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
    printf("hostile: synflood %llu SYNs in %.2f s (%.0f/s) from spoofed "
           "192.0.2.128-254 and 198.51.100.1-254; %u SYN-ACKs back\n",
           (unsigned long long)n, now() - t0, n / (now() - t0), synacks);
}

static int acked(void *arg)
{
    struct peer *p = arg;

    return p->acks != p->acks_before;
}

/* Sends one forged segment on p; true if an ACK came within a second (a
   2-core guest under TCG answering five other attacks beside this one
   can take over 300 ms). */
static int acks_after(struct peer *p, uint8_t flags, uint32_t seq,
                      uint32_t ack, const char *data)
{
    p->acks_before = p->acks;
    peer_seg(p, flags, seq, ack, data, data ? strlen(data) : 0, 0);
    return wait_for(acked, p, 1.0);
}

/* A live connection to port with the head of a request for 20,000
   bytes sent (its blank line not yet), and the guest's window, at least
   2, in *wnd; NULL (and fail, naming what) if it does not open. */
static struct peer *half_request(const char *what, uint32_t *wnd)
{
    const char *head = "GET /bytes/20000 HTTP/1.1\r\nHost: 192.0.2.2\r\n";
    struct peer *p = peer_new(1460, 65535);

    if (!p || !wait_for(is_open, p, 5)) {
        fail("%s: no connection to port %d", what, port);
        return NULL;
    }
    peer_write(p, head, strlen(head), 1);
    pump(100);
    *wnd = p->guest_wnd > 1 ? p->guest_wnd : 2;
    return p;
}

/*
 * Against httpd's read deadline (4 s in the test), all within 2 s or so:
 * the in-window segments are answered at once, and the out-of-window
 * RSTs go in one batch that must reset nothing.
 */
void blind(void)
{
    int k = count ? (int)count : 20;
    unsigned rst_in = 0, syn_in = 0, out = 0;
    uint32_t wnd;
    struct peer *p = half_request("blind", &wnd);

    if (!p)
        return;
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

/*
 * RFC 5961 7 on a live connection: in-window RSTs as fast as a blind
 * attacker sends them.  The challenge ACKs that come back must stay
 * within the guest's limit (CHALLENGE_ACKS_MAX a second) over the
 * seconds the burst spanned, and the connection must live on and its
 * response come whole.
 */
void challenge(void)
{
    uint64_t n = count ? count : 6000;
    double r = rate ? rate : 10000, t0, secs;
    unsigned acks, bound;
    uint32_t wnd;
    struct peer *p = half_request("challenge", &wnd);

    if (!p)
        return;
    p->acks_before = p->acks;
    t0 = now();
    for (uint64_t i = 0; i < n && p->state == 2; i++) {
        peer_seg(p, TH_RST, p->snd_nxt + 1 + rnd() % (wnd - 1), 0, NULL, 0, 0);
        pace(t0, i, r);
        pump(0);
    }
    pump(300);
    secs = now() - t0;
    acks = p->acks - p->acks_before;
    /* A burst of secs seconds spans at most floor(secs) + 2 of the
       guest's seconds, each with its own limit. */
    bound = CHALLENGE_ACKS_MAX * ((unsigned)secs + 2);
    printf("hostile: challenge %llu in-window RSTs in %.2f s (%.0f/s): %u "
           "challenge ACKs back (at most %u a second: %u)\n",
           (unsigned long long)n, secs, n / secs, acks, CHALLENGE_ACKS_MAX,
           bound);
    if (p->state != 2) {
        fail("challenge: the guest reset the connection for an RST only "
             "near its sequence number");
        return;
    }
    if (!acks || acks > bound) {
        fail("challenge: %u challenge ACKs for %llu RSTs in %.2f s, want 1 "
             "to %u", acks, (unsigned long long)n, secs, bound);
        return;
    }
    peer_write(p, "\r\n", 2, 1);
    collect(&p, 1, 20000, 5, "challenge");
    peer_close(p);
}

void segments(void)
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

void zerowin(void)
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

void tinymss(void)
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

void connflood(void)
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
