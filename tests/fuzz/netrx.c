/*
 * netrx.c - libFuzzer target for lwIP's receive path as the kernel runs
 * it (net/lwip/lwipopts.h, the virtio-net driver's frames into
 * ethernet_input): the input is a sequence of frames, each a 16-bit
 * little-endian length and that many bytes, delivered to a stack at
 * 10.0.2.15 with a UDP socket on port 7000 and a TCP echo listener on
 * 8001; the clock moves 10 ms after each frame.  Three inputs in four
 * get their IPv4, TCP, UDP and ICMP checksums made right first, so that
 * mutations get past them.  The stack lives across inputs, as a
 * kernel's does; lwIP's failed assertions are the kernel's panics and
 * abort here.  tools/test/netseed.py writes the seeds.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "lwip/etharp.h"
#include "lwip/init.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "lwip/udp.h"
#include "netif/ethernet.h"
#include "tests/host/lwip_netif.h"

#define FRAME_MAX 1514          /* what the driver hands the stack */

/* ---- What the kernel provides to lwIP -------------------------------- */

static u32_t now_ms;

u32_t sys_now(void)
{
    return now_ms;
}

uint32_t lwip_rand(void)
{
    static uint32_t x = 0x9e3779b9u;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

void vprintk(const char *fmt, va_list ap)
{
    (void)fmt;
    (void)ap;
}

void printk(const char *fmt, ...)
{
    (void)fmt;
}

void panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "panic: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* ---- The stack: a netif, a UDP socket and a TCP echo listener -------- */

static struct netif nif;

static err_t linkoutput(struct netif *n, struct pbuf *p)
{
    (void)n;
    return p->tot_len > FRAME_MAX ? ERR_BUF : ERR_OK;
}

static err_t nif_init(struct netif *n)
{
    return lwip_netif_init(n, linkoutput);
}

/* Echoes a datagram as the kernel's sockets would: its bytes copied out
   of the received chain and sent from a new buffer.  (A received chain
   is never sent as it is: one reassembled with an empty last fragment
   ends in a zero-length pbuf, which lwIP's ARP queue asserts against.) */
static void udp_rx(void *arg, struct udp_pcb *pcb, struct pbuf *p,
                   const ip_addr_t *addr, u16_t port)
{
    struct pbuf *out = pbuf_alloc(PBUF_TRANSPORT, p->tot_len, PBUF_RAM);

    (void)arg;
    if (out && pbuf_copy(out, p) == ERR_OK)
        udp_sendto(pcb, out, addr, port);
    if (out)
        pbuf_free(out);
    pbuf_free(p);
}

static err_t echo_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
                       err_t err)
{
    (void)arg;
    (void)err;
    if (!p) {
        tcp_recv(pcb, NULL);
        if (tcp_close(pcb) == ERR_OK)
            return ERR_OK;
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    tcp_recved(pcb, p->tot_len);
    if (p->tot_len <= tcp_sndbuf(pcb))
        for (struct pbuf *q = p; q; q = q->next)
            tcp_write(pcb, q->payload, q->len, TCP_WRITE_FLAG_COPY);
    pbuf_free(p);
    return ERR_OK;
}

static err_t echo_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    tcp_recv(pcb, echo_recv);
    return ERR_OK;
}

static void setup(void)
{
    ip4_addr_t ip, mask, gw;
    struct udp_pcb *u;
    struct tcp_pcb *t;

    lwip_init();
    IP4_ADDR(&ip, 10, 0, 2, 15);
    IP4_ADDR(&mask, 255, 255, 255, 0);
    IP4_ADDR(&gw, 10, 0, 2, 2);
    netif_add(&nif, &ip, &mask, &gw, NULL, nif_init, ethernet_input);
    netif_set_default(&nif);
    netif_set_up(&nif);
    netif_set_link_up(&nif);
    u = udp_new();
    t = tcp_new();
    if (!u || !t || udp_bind(u, IP_ADDR_ANY, 7000) != ERR_OK ||
        tcp_bind(t, IP_ADDR_ANY, 8001) != ERR_OK || !(t = tcp_listen(t)))
        abort();
    udp_recv(u, udp_rx, NULL);
    tcp_accept(t, echo_accept);
}

/* ---- Checksums ------------------------------------------------------- */

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
    for (; n > 1; p += 2, n -= 2)
        s += p[0] << 8 | p[1];
    if (n)
        s += p[0] << 8;
    return s;
}

static uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = (uint8_t)v;
}

/* Makes the checksums of an Ethernet frame carrying IPv4 right, as far
   as its lengths let them be computed. */
static void seal(uint8_t *f, size_t len)
{
    uint8_t *ip = f + 14;
    size_t ihl, tot, l4len, at;
    uint32_t s;

    if (len < 34 || f[12] != 0x08 || f[13] != 0x00 || (ip[0] >> 4) != 4)
        return;
    ihl = (ip[0] & 15) * 4u;
    tot = ip[2] << 8 | ip[3];
    if (ihl < 20 || tot < ihl || tot > len - 14)
        return;
    put16(ip + 10, 0);
    put16(ip + 10, fold(sum16(ip, ihl, 0)));
    if ((ip[6] & 0x3F) || ip[7])
        return;                 /* a fragment: its L4 header is elsewhere */
    l4len = tot - ihl;
    switch (ip[9]) {
    case 1:  at = 2;  break;    /* ICMP */
    case 6:  at = 16; break;    /* TCP */
    case 17: at = 6;  break;    /* UDP */
    default: return;
    }
    if (l4len < at + 2)
        return;
    put16(ip + ihl + at, 0);
    s = ip[9] == 1 ? 0 : sum16(ip + 12, 8, ip[9] + (uint32_t)l4len);
    put16(ip + ihl + at, fold(sum16(ip + ihl, l4len, s)));
}

/* ---- The target ------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    bool reseal = size && (data[size - 1] & 3);
    uint8_t f[FRAME_MAX];

    if (!ready) {
        setup();
        ready = 1;
    }
    while (size >= 2) {
        size_t len = data[0] | data[1] << 8;
        struct pbuf *p;

        data += 2;
        size -= 2;
        if (len > size)
            len = size;
        if (len > FRAME_MAX)
            len = FRAME_MAX;
        memcpy(f, data, len);
        data += len;
        size -= len;
        if (reseal)
            seal(f, len);
        if (len && (p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL))) {
            pbuf_take(p, f, (u16_t)len);
            if (nif.input(p, &nif) != ERR_OK)
                pbuf_free(p);
        }
        now_ms += 10;
        sys_check_timeouts();
    }
    return 0;
}
