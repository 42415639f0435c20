/*
 * sock_tcp.c - TCP sockets: lwIP's callbacks for a connection and a
 * listener, and listen, accept, dial, read and write (see sock.c for the
 * pattern every operation follows).
 */
#include <errno.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/time.h>
#include "lwip/pbuf.h"
#include "lwip/tcp.h"
#include "bsd.h"
#include "netdev.h"
#include "net.h"
#include "sched.h"
#include "netimpl.h"
#include "netpoll.h"
#include "rss.h"
#include "sockimpl.h"

/* ---- lwIP's callbacks (under stack_lock) --------------------------- */

/* A segment of s's connection is being handled on this core: the first
   makes this core its home, any later one elsewhere is counted. */
static void seg_here(struct sp_sock *s)
{
    int me = this_cpu()->id + 1;

    if (!s->home)
        s->home = me;
    else if (s->home != me)
        net_count(&net_mine()->split, 1);
}

static err_t tcp_recv_cb(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
                         err_t err)
{
    struct sp_sock *s = arg;

    seg_here(s);
    if (!p) {
        s->eof = true;
    } else {
        if (s->rxtail)
            s->rxtail->next = p;
        else
            s->rxq = p;
        for (s->rxtail = p; s->rxtail->next; s->rxtail = s->rxtail->next)
            ;
    }
    net_ready(pd_ready(&s->pd, 'r'));
    sock_event(s);
    return ERR_OK;
}

static err_t tcp_sent_cb(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct sp_sock *s = arg;

    seg_here(s);
    net_ready(pd_ready(&s->pd, 'w'));
    sock_event(s);
    return ERR_OK;
}

/* The pcb is gone already (lwIP freed it before calling). */
static void tcp_err_cb(void *arg, err_t err)
{
    struct sp_sock *s = arg;

    s->pcb.tcp = NULL;
    /* A reset that answers our SYN: nobody listens there. */
    s->err = err == ERR_RST && !s->connected ? -ECONNREFUSED
                                             : lwip_errno(err);
    net_ready(pd_ready(&s->pd, 'r'));
    net_ready(pd_ready(&s->pd, 'w'));
    sock_event(s);
}

static err_t tcp_connected_cb(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct sp_sock *s = arg;

    s->connected = true;
    seg_here(s);
    if (s->dialq && s->dialq != this_cpu()->id + 1)
        net_count(&net_mine()->misdial, 1);  /* replies on another queue */
    net_ready(pd_ready(&s->pd, 'w'));
    sock_event(s);
    return ERR_OK;
}

/*
 * Every 2 coarse ticks (1 s) while the connection is open: a writer that
 * found lwIP's heap full and has nothing in flight gets no sent callback,
 * so it is woken here to try again.
 */
static err_t tcp_poll_cb(void *arg, struct tcp_pcb *pcb)
{
    struct sp_sock *s = arg;

    if (__atomic_load_n(&s->pd.wg, __ATOMIC_RELAXED) > PD_READY)
        net_ready(pd_ready(&s->pd, 'w'));
    return ERR_OK;
}

static void tcp_attach(struct sp_sock *s, struct tcp_pcb *pcb)
{
    s->pcb.tcp = pcb;
    tcp_arg(pcb, s);
    tcp_recv(pcb, tcp_recv_cb);
    tcp_sent(pcb, tcp_sent_cb);
    tcp_err(pcb, tcp_err_cb);
    tcp_poll(pcb, tcp_poll_cb, 2);
    tcp_nagle_disable(pcb);     /* as Go: small writes go out at once */
}

static err_t accept_cb(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct sp_sock *l = arg, *s;

    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    if (l->acc.n == BACKLOG || !(s = sock_new(K_TCP)))
        return ERR_MEM;         /* lwIP resets the connection */
    s->connected = true;
    seg_here(s);
    tcp_attach(s, pcb);
    l->acc.q[(l->acc.head + l->acc.n++) % BACKLOG] = s;
    net_ready(pd_ready(&l->pd, 'r'));
    sock_event(l);
    return ERR_OK;
}

/* ---- Setting up ----------------------------------------------------- */

sp_listener *sp_listen(const char *addr, int *err)
{
    struct tcp_pcb *pcb, *lpcb;
    struct sock_addr a;
    struct sp_sock *s;
    unsigned long f;
    err_t e;

    if (!(s = sock_open(K_LISTEN, addr, false, &a, &f, err)))
        return NULL;
    pcb = s->pcb.tcp;
    ip_set_option(pcb, SOF_REUSEADDR);
    e = tcp_bind(pcb, &a.ip, a.port);
    /* With SOF_REUSEADDR the bind succeeds on a port another socket
       listens on; tcp_listen is where that is refused (ERR_USE). */
    lpcb = e == ERR_OK ? tcp_listen_with_backlog_and_err(pcb, BACKLOG, &e)
                       : NULL;
    if (!lpcb) {
        tcp_abort(pcb);
        sock_discard(s);
        stack_unlock(f);
        return fail(err, lwip_errno(e));
    }
    s->pcb.tcp = lpcb;          /* tcp_listen freed pcb */
    tcp_arg(lpcb, s);
    tcp_accept(lpcb, accept_cb);
    stack_unlock(f);
    if (err)
        *err = 0;
    return s;
}

sp_conn *sp_accept(sp_listener *l, int *err)
{
    struct sp_sock *s = NULL;
    unsigned long f;
    int home;
    int rc = pd_prepare(&l->pd, 'r');

    if (rc != PD_OK)
        return fail(err, pd_errno(rc));
    f = stack_lock_take();
    hold(l);
    while (!s) {
        if (l->acc.n) {
            s = l->acc.q[l->acc.head];
            l->acc.head = (l->acc.head + 1) % BACKLOG;
            l->acc.n--;
            break;
        }
        if (l->closed || !l->pcb.tcp) {
            rc = PD_ECLOSED;
            break;
        }
        stack_unlock(f);
        rc = pd_wait(&l->pd, 'r');
        f = stack_lock_take();
        if (rc != PD_OK)
            break;
    }
    home = s && net_dev->nqueues > 1 ? s->home - 1 : -1;
    release(l, f);
    if (!s)
        return fail(err, pd_errno(rc));
    /* The connection's packets come on its queue's core: the caller goes
       there too, so that what it does next (spawning the connection's G)
       happens on that core. */
    if (home >= 0)
        gomoveto(home);
    if (err)
        *err = 0;
    return s;
}

/*
 * With RSS, binds pcb to the first free ephemeral port, from a random
 * one on, whose replies from a hash to this core's queue, and returns
 * that queue; else, or if none of a few tries is free, leaves the choice
 * to tcp_connect and returns -1.  Under stack_lock.
 */
static int bind_to_my_queue(struct tcp_pcb *pcb, const struct sock_addr *a)
{
    const ip4_addr_t *me = netif_ip4_addr(&net_if);
    uint16_t lo = 0xC000, hi = 0xFFFF;    /* IANA's dynamic ports, as lwIP's */
    uint16_t start = (uint16_t)(lo + lwip_rand() % (hi - lo + 1u));
    uint32_t laddr, raddr;
    int q = netpoll_queue();

    if (q < 0)                  /* a core without a queue: one it shares */
        q = this_cpu()->id % net_dev->nqueues;
    if (!net_dev->rss_table || !IP_IS_V4(&a->ip) || ip4_addr_isany(me))
        return -1;
    laddr = lwip_ntohl(ip4_addr_get_u32(me));
    raddr = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&a->ip)));
    for (int tries = 0; tries < 16; tries++) {
        uint16_t p = rss_port_for_queue(rss_key, net_dev->rss_table,
                                        net_dev->rss_entries,
                                        (uint16_t)q, laddr,
                                        raddr, a->port, lo, hi, start,
                                        NULL, NULL);

        if (!p)
            return -1;
        if (tcp_bind(pcb, IP4_ADDR_ANY, p) == ERR_OK)
            return q;
        start = p == hi ? lo : (uint16_t)(p + 1);     /* in use: the next */
    }
    return -1;
}

sp_conn *sp_dial(const char *addr, uint64_t timeout_ns, int *err)
{
    struct sock_addr a;
    struct sp_sock *s;
    struct tcp_pcb *pcb;
    unsigned long f;
    int rc = 0;
    err_t e;

    if (!(s = sock_open(K_TCP, addr, true, &a, &f, err)))
        return NULL;
    pcb = s->pcb.tcp;
    tcp_attach(s, pcb);
    s->dialq = bind_to_my_queue(pcb, &a) + 1;
    e = tcp_connect(pcb, &a.ip, a.port, tcp_connected_cb);
    hold(s);
    stack_timers_check();       /* the SYN's retransmission timer */
    stack_unlock(f);
    if (e != ERR_OK) {
        rc = lwip_errno(e);
        goto out;
    }
    if (timeout_ns)
        pd_set_deadline(&s->pd, (int64_t)(sp_nanotime() + timeout_ns), 'w');
    for (;;) {
        f = stack_lock_take();
        if (s->connected || s->err) {
            rc = s->connected ? 0 : s->err;
            stack_unlock(f);
            break;
        }
        stack_unlock(f);
        if ((rc = pd_wait(&s->pd, 'w')) != PD_OK) {
            rc = pd_errno(rc);
            break;
        }
    }
    if (timeout_ns)
        pd_set_deadline(&s->pd, 0, 'w');
out:
    f = stack_lock_take();
    release(s, f);
    if (rc == 0) {
        if (err)
            *err = 0;
        return s;
    }
    sp_close(s);
    return fail(err, rc);
}

/* ---- Reading and writing ------------------------------------------- */

/* Copies up to len queued bytes out and frees what was read; returns
   the count.  Under stack_lock. */
static size_t rx_take(struct sp_sock *s, uint8_t *buf, size_t len)
{
    size_t n = 0;

    while (s->rxq && n < len) {
        struct pbuf *p = s->rxq;
        size_t k = p->len - s->rxoff;

        if (k > len - n)
            k = len - n;
        memcpy(buf + n, (uint8_t *)p->payload + s->rxoff, k);
        n += k;
        s->rxoff += k;
        if (s->rxoff == p->len) {
            s->rxq = p->next;
            if (!s->rxq)
                s->rxtail = NULL;
            p->next = NULL;
            pbuf_free(p);
            s->rxoff = 0;
        }
    }
    return n;
}

/* Opens the receive window by n bytes that the app has taken. */
static void rx_consumed(struct sp_sock *s, size_t n)
{
    while (n && s->pcb.tcp) {
        u16_t k = n > CHUNK ? CHUNK : (u16_t)n;

        tcp_recved(s->pcb.tcp, k);
        n -= k;
    }
}

long sp_read(sp_conn *c, void *buf, size_t len)
{
    unsigned long f;
    long n = 0;
    int rc = pd_prepare(&c->pd, 'r');

    if (rc != PD_OK)
        return pd_errno(rc);
    if (len == 0)
        return 0;
    f = stack_lock_take();
    hold(c);
    for (;;) {
        if (c->rxq) {
            n = (long)rx_take(c, buf, len);
            rx_consumed(c, (size_t)n);
            break;
        }
        if (c->eof || c->err || c->closed || !c->pcb.tcp) {
            n = c->eof ? 0 : c->err ? c->err : -EPIPE;
            break;
        }
        stack_unlock(f);
        rc = pd_wait(&c->pd, 'r');
        f = stack_lock_take();
        if (rc != PD_OK) {
            n = pd_errno(rc);
            break;
        }
    }
    release(c, f);
    return n;
}

/*
 * Queues what lwIP takes now of b[*sent .. len) on c, advancing *sent.
 * Returns 0 once all of it is queued, -EAGAIN when the send buffer or
 * lwIP's heap is full, or the connection's error.  Under stack_lock.
 */
static long queue(sp_conn *c, const uint8_t *b, size_t len, size_t *sent)
{
    size_t limit = CHUNK;

    while (*sent < len) {
        struct tcp_pcb *pcb = c->pcb.tcp;
        size_t k = len - *sent;
        err_t e;

        if (c->err || c->closed || !pcb)
            return c->err ? c->err : -EPIPE;
        if (k > tcp_sndbuf(pcb))
            k = tcp_sndbuf(pcb);
        if (k > limit)
            k = limit;
        if (!k)
            return -EAGAIN;
        e = tcp_write(pcb, b + *sent, (u16_t)k, TCP_WRITE_FLAG_COPY);
        if (e == ERR_MEM && k > TCP_MSS) {
            limit = k / 2;      /* a smaller piece may fit the queue */
            continue;
        }
        if (e == ERR_MEM)
            return -EAGAIN;
        if (e != ERR_OK)
            return lwip_errno(e);
        *sent += k;
    }
    return 0;
}

long sp_write(sp_conn *c, const void *buf, size_t len)
{
    unsigned long f;
    size_t sent = 0;
    long rc = pd_prepare(&c->pd, 'w');

    if (rc != PD_OK)
        return pd_errno((int)rc);
    f = stack_lock_take();
    hold(c);
    while ((rc = queue(c, buf, len, &sent)) == -EAGAIN) {
        /* Full: send what is queued and wait for acknowledgements. */
        tcp_output(c->pcb.tcp);
        stack_unlock(f);
        rc = pd_wait(&c->pd, 'w');
        f = stack_lock_take();
        if (rc != PD_OK) {
            rc = pd_errno((int)rc);
            break;
        }
    }
    if (c->pcb.tcp)
        tcp_output(c->pcb.tcp);
    stack_timers_check();       /* the retransmission timer */
    release(c, f);
    /* As write(2): what was queued before an error stopped it; the next
       call meets the error again (it is sticky, or the deadline passed). */
    return sent ? (long)sent : rc;
}

int sp_close_write(sp_conn *c)
{
    unsigned long f = stack_lock_take();
    err_t e;
    int rc;

    hold(c);
    e = c->pcb.tcp ? tcp_shutdown(c->pcb.tcp, 0, 1) : ERR_CONN;
    rc = e == ERR_OK ? 0 : c->err ? c->err : -EPIPE;
    release(c, f);
    return rc;
}

void tcp_detach(struct sp_sock *s)
{
    if (!s->pcb.tcp)
        return;
    tcp_arg(s->pcb.tcp, NULL);
    if (s->kind == K_TCP) {
        tcp_recv(s->pcb.tcp, NULL);
        tcp_sent(s->pcb.tcp, NULL);
        tcp_err(s->pcb.tcp, NULL);
        tcp_poll(s->pcb.tcp, NULL, 0);
    } else {
        tcp_accept(s->pcb.tcp, NULL);
    }
    if (tcp_close(s->pcb.tcp) != ERR_OK)
        tcp_abort(s->pcb.tcp);
    s->pcb.tcp = NULL;
}

/* For bsd_data.c (bsd.h): sp_write that never waits. */
long sp_write_nowait(sp_conn *c, const void *buf, size_t len)
{
    unsigned long f = stack_lock_take();
    size_t sent = 0;
    long rc;

    hold(c);
    rc = queue(c, buf, len, &sent);
    if (sent && c->pcb.tcp)
        tcp_output(c->pcb.tcp);
    stack_timers_check();       /* the retransmission timer */
    release(c, f);
    return sent ? (long)sent : rc;  /* an error stays for the next call */
}
