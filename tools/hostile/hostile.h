/*
 * hostile.h - what the parts of tools/hostile share: the link (link.c:
 * the packet socket, what comes back, a small TCP for the connections an
 * attack needs) and the attacks (tcp.c, floods.c), run by hostile.c.
 * One thread; every function runs on it.
 */
#ifndef TOOLS_HOSTILE_HOSTILE_H
#define TOOLS_HOSTILE_HOSTILE_H

#include <stddef.h>
#include <stdint.h>

#include "net/lwip/netguard.h"
#include "tools/hostile/pkt.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define PEER_LO IP4(192, 0, 2, 64)      /* the peers' own addresses, */
#define PEER_N  64                      /* answered for by ARP here */
#define NPEER   1024

/* ---- the link (link.c) ---- */

extern uint8_t guest_mac[6], bcast[6];
extern uint32_t guest;                  /* host order */
extern int port;                        /* the guest's TCP port */
extern uint64_t sent, sent_bytes, dropped_tx;
extern char failure[256];               /* the first fail()'s reason */

/* Records why the attack failed; the first reason is kept. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now(void);
uint32_t rnd(void);
/* A made-up MAC for address a: locally administered, unicast. */
void mac_of(uint32_t a, uint8_t m[6]);
/* Sends a frame of n bytes (0: none); a full device queue is counted. */
void tx(const uint8_t *f, size_t n);
/* Sleeps until the i-th of frames going at rate a second from t0 is due. */
void pace(double t0, uint64_t i, double rate);
/* Opens the packet socket on dev, which must be a TAP device; exits 2 if
   it cannot. */
void open_dev(const char *dev);
/* Learns the guest's MAC by ARP; exits 2 if it does not answer. */
void find_guest(void);
/* Reads and answers what came for up to ms milliseconds (0: what is
   there), then sends again what the peers have not had acked. */
void pump(int ms);
/* Pumps until done(arg) or secs; true if done came. */
int wait_for(int (*done)(void *), void *arg, double secs);

/* What came back, counted by pump. */
extern unsigned synacks, arp_replies, icmp_unreach, echo_replies;
/* --echo: the guest's UDP echo port (0: none), and how many distinct
   probes (udp_probe) came back from it intact. */
extern int echo_port;
extern unsigned udp_probes_back;
#define PROBE_LEN 64
#define PROBES_MAX 4096
/* Probe k's payload, PROBE_LEN bytes, into b. */
void udp_probe(uint8_t *b, unsigned k);
/* The guest's answer to the last large echo request, reassembled. */
extern uint8_t big[65536];
extern size_t big_have, big_len;
extern int big_done;

/* ---- a small TCP, for the connections an attack needs (link.c) ---- */

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
    unsigned acks_before;       /* acks when acks_after sent its segment */
    unsigned probes;            /* data segments past a closed window */
    size_t most_seg;            /* the longest segment the guest sent */
    unsigned segs;
    double born;                /* when its SYN first went */
    int fin;                    /* the guest sent its FIN */
    int was_open;               /* reset by the guest once open */
};

extern struct peer peers[NPEER];
extern int npeers;
extern int slot;                        /* --slot: which ports peers use */

/* A new peer from the next address and port, its SYN sent (MSS option
   mss unless 0, window win); NULL (and fail) past NPEER. */
struct peer *peer_new(int mss, uint16_t win);
/* One segment from p, of any flags and numbers. */
void peer_seg(struct peer *p, uint8_t flags, uint32_t seq, uint32_t ack,
              const void *data, size_t len, int mss);
void peer_ack(struct peer *p);
/* Sends bytes [off, off + len) of p's stream again, or for the first
   time. */
void peer_send_at(struct peer *p, size_t off, size_t len);
/* Appends data to p's stream; with send, sends it in 1,000-byte
   segments. */
void peer_write(struct peer *p, const void *data, size_t len, int send);
/* Resets p if it is open, and forgets what it received. */
void peer_close(struct peer *p);
/* For wait_for: the peer's handshake is done. */
int is_open(void *arg);
/* The HTTP response in p->in: 1 once whole and right (200, and n x's of
   body), -1 if wrong, 0 while incomplete. */
int response(const struct peer *p, size_t n);
/* Waits up to secs for each of ps's responses of n x's; returns how many
   came whole, and fails on the first wrong or missing one. */
int collect(struct peer **ps, int k, size_t n, double secs, const char *what);
/* "GET /bytes/n" into b. */
void request(char *b, size_t len, size_t n);

/* ---- the attacks (tcp.c, floods.c), and their arguments (hostile.c) ---- */

/* The most challenge ACKs the guest's TCP sends in a second: a limit
   drawn each second from CHALLENGE_ACKS / 2 on, below CHALLENGE_ACKS
   more (net/lwip/lwiphooks.h, challenge_ack). */
#define CHALLENGE_ACKS_MAX (CHALLENGE_ACKS / 2 + CHALLENGE_ACKS - 1)

extern uint64_t count;                  /* --count; 0: the attack's own */
extern double rate;                     /* --rate; 0: the attack's own */
extern double hold;                     /* --hold: connflood's seconds */

void synflood(void);
void blind(void);
void challenge(void);
void segments(void);
void zerowin(void);
void tinymss(void);
void connflood(void);
void frags(void);
void arp(void);
void ping(void);
void udp(void);

#endif
