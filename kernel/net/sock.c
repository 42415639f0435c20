/*
 * sock.c - TCP and UDP sockets for Gs (spindle/net.h) on lwIP's raw API.
 *
 * A socket is a struct sp_sock: lwIP's pcb, what lwIP's callbacks
 * queued for the socket, and a polldesc (sched/polldesc.h) on which Gs
 * wait.  Callbacks run under stack_lock wherever lwIP runs (the poll
 * function, lwIP's timer, a G's own call into lwIP); they only queue data
 * or note an event and report readiness, and the G that waits tries its
 * operation again.  Every operation follows one pattern:
 *
 *   pd_prepare; loop { lock; try; unlock; done or pd_wait }
 *
 * Lifetime: sp_close may run while other Gs are blocked on the socket.
 * Each operation holds a reference (refs, under stack_lock) while it
 * runs; sp_close marks the socket closed, detaches it from lwIP, wakes
 * every waiter (pd_close), and whoever drops the last reference frees it.
 * Memory comes from a fixed pool under stack_lock, since the accept
 * callback makes sockets where malloc is forbidden.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/time.h>
#include "lwip/memp.h"
#include "lwip/pbuf.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "bsd.h"
#include "net.h"
#include "netimpl.h"
#include "panic.h"
#include "netpoll.h"
#include "polldesc.h"

#define BACKLOG     64          /* connections accepted, not yet taken */
#define UDP_QUEUE   64          /* datagrams queued per socket */
#define NSOCK       (MEMP_NUM_TCP_PCB + MEMP_NUM_TCP_PCB_LISTEN + \
                     MEMP_NUM_UDP_PCB)
#define CHUNK       0xFFFF      /* lwIP's u16 lengths */

enum kind { K_TCP, K_LISTEN, K_UDP };

struct dgram {
    struct pbuf *p;
    ip_addr_t from;
    u16_t port;
};

struct sp_sock {
    struct polldesc pd;
    enum kind kind;
    /* Under stack_lock: */
    union {
        struct tcp_pcb *tcp;
        struct udp_pcb *udp;
    } pcb;                      /* NULL once lwIP is done with it */
    int err;                    /* sticky: the connection's fate, -errno */
    int refs;                   /* operations in progress (and sp_close) */
    bool closed;                /* sp_close was called */
    bool connected;             /* dial: the handshake finished */
    bool eof;                   /* TCP: the peer's FIN came */
    struct pbuf *rxq, *rxtail;  /* TCP: received, linked through next */
    u16_t rxoff;                /* bytes of rxq already read */
    uint64_t udp_drops;         /* UDP: datagrams the queue had no room for */
    union {
        struct {                /* K_LISTEN: accepted, not yet taken */
            struct sp_sock *q[BACKLOG];
            int head, n;
        } acc;
        struct {                /* K_UDP: received, not yet read */
            struct dgram q[UDP_QUEUE];
            int head, n;
        } dg;
    };
};

LWIP_MEMPOOL_DECLARE(SOCKS, NSOCK, sizeof(struct sp_sock), "sockets");
static bool pool_ready;         /* under stack_lock */

/* ---- Allocation and lifetime ---------------------------------------- */

/* A zeroed socket of the given kind; NULL when the pool is empty.
   Under stack_lock. */
static struct sp_sock *sock_new(enum kind kind)
{
    struct sp_sock *s;

    if (!pool_ready) {
        LWIP_MEMPOOL_INIT(SOCKS);
        pool_ready = true;
    }
    s = LWIP_MEMPOOL_ALLOC(SOCKS);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    pd_init(&s->pd);
    s->kind = kind;
    return s;
}

static void rxq_free(struct sp_sock *s)
{
    while (s->rxq) {
        struct pbuf *p = s->rxq;

        s->rxq = p->next;
        p->next = NULL;
        pbuf_free(p);
    }
    s->rxtail = NULL;
    s->rxoff = 0;
}

/* Frees s once nobody uses it; a G holding no spinlock. */
static void sock_free(struct sp_sock *s)
{
    unsigned long f;

    pd_fini(&s->pd);
    f = stack_lock_take();
    rxq_free(s);
    if (s->kind == K_UDP)
        for (; s->dg.n; s->dg.n--, s->dg.head = (s->dg.head + 1) % UDP_QUEUE)
            pbuf_free(s->dg.q[s->dg.head].p);
    LWIP_MEMPOOL_FREE(SOCKS, s);
    stack_unlock(f);
}

/* Takes a reference for an operation; under stack_lock. */
static void hold(struct sp_sock *s)
{
    if (s->closed && s->refs == 0)
        panic("net: a socket was used after sp_close");
    s->refs++;
}

/* Leaves the stack and drops the reference; frees s if it was the last
   one of a closed socket. */
static void release(struct sp_sock *s, unsigned long f)
{
    bool last = --s->refs == 0 && s->closed;

    stack_unlock(f);
    if (last)
        sock_free(s);
}

static int pd_errno(int rc)
{
    return rc == PD_ETIMEOUT ? -ETIMEDOUT : -EPIPE;
}

static int lwip_errno(err_t e)
{
    switch (e) {
    case ERR_MEM:
    case ERR_BUF:   return -ENOMEM;
    case ERR_USE:   return -EADDRINUSE;
    case ERR_RST:   return -ECONNRESET;
    case ERR_ABRT:  return -ECONNABORTED;
    case ERR_RTE:   return -EHOSTUNREACH;
    case ERR_TIMEOUT: return -ETIMEDOUT;
    default:        return -EIO;
    }
}

/* ---- Addresses ----------------------------------------------------- */

/* "a.b.c.d:port" or ":port"; false if it is neither. */
static bool parse_addr(const char *s, ip_addr_t *ip, u16_t *port)
{
    const char *colon = s ? strrchr(s, ':') : NULL;
    char host[16];
    char *end;
    long p;

    if (!colon || colon - s >= (long)sizeof host)
        return false;
    p = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || p < 0 || p > 65535)
        return false;
    memcpy(host, s, colon - s);
    host[colon - s] = 0;
    *port = (u16_t)p;
    if (!host[0]) {
        ip_addr_set_any(false, ip);
        return true;
    }
    return ipaddr_aton(host, ip);
}

static int format_addr(const ip_addr_t *ip, u16_t port, char *buf,
                       size_t len)
{
    char a[16];

    if (len < 22)
        return -ENOSPC;
    ipaddr_ntoa_r(ip, a, sizeof a);
    snprintf(buf, len, "%s:%u", a, port);
    return 0;
}

static bool net_up(void)
{
    return net_dev != NULL;
}

/* ---- lwIP's callbacks (under stack_lock) --------------------------- */

static err_t tcp_recv_cb(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
                         err_t err)
{
    struct sp_sock *s = arg;

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
    tcp_attach(s, pcb);
    l->acc.q[(l->acc.head + l->acc.n++) % BACKLOG] = s;
    net_ready(pd_ready(&l->pd, 'r'));
    sock_event(l);
    return ERR_OK;
}

static void udp_recv_cb(void *arg, struct udp_pcb *pcb, struct pbuf *p,
                        const ip_addr_t *addr, u16_t port)
{
    struct sp_sock *s = arg;
    struct dgram *d;

    if (s->dg.n == UDP_QUEUE) {
        s->udp_drops++;
        pbuf_free(p);
        return;
    }
    d = &s->dg.q[(s->dg.head + s->dg.n++) % UDP_QUEUE];
    d->p = p;
    ip_addr_copy(d->from, *addr);
    d->port = port;
    net_ready(pd_ready(&s->pd, 'r'));
    sock_event(s);
}

/* ---- Setting up ----------------------------------------------------- */

static struct sp_sock *fail(int *err, int e)
{
    if (err)
        *err = e;
    return NULL;
}

/*
 * Takes stack_lock and a socket of this kind with a fresh pcb (a TCP one
 * for K_LISTEN too); NULL (lock released, *err -ENOMEM) if either pool is
 * empty.  On success the caller holds stack_lock with flags *f.
 */
static struct sp_sock *sock_open(enum kind kind, unsigned long *f, int *err)
{
    struct sp_sock *s;

    *f = stack_lock_take();
    s = sock_new(kind);
    if (s && kind == K_UDP)
        s->pcb.udp = udp_new();
    else if (s)
        s->pcb.tcp = tcp_new();
    if (s && s->pcb.tcp)
        return s;
    if (s)
        LWIP_MEMPOOL_FREE(SOCKS, s);
    stack_unlock(*f);
    fail(err, -ENOMEM);
    return NULL;
}

sp_listener *sp_listen(const char *addr, int *err)
{
    struct tcp_pcb *pcb, *lpcb;
    struct sp_sock *s;
    unsigned long f;
    ip_addr_t ip;
    u16_t port;
    err_t e;

    if (!parse_addr(addr, &ip, &port))
        return fail(err, -EINVAL);
    if (!net_up())
        return fail(err, -ENETDOWN);
    if (!(s = sock_open(K_LISTEN, &f, err)))
        return NULL;
    pcb = s->pcb.tcp;
    ip_set_option(pcb, SOF_REUSEADDR);
    e = tcp_bind(pcb, &ip, port);
    /* With SOF_REUSEADDR the bind succeeds on a port another socket
       listens on; tcp_listen is where that is refused (ERR_USE). */
    lpcb = e == ERR_OK ? tcp_listen_with_backlog_and_err(pcb, BACKLOG, &e)
                       : NULL;
    if (!lpcb) {
        tcp_abort(pcb);
        LWIP_MEMPOOL_FREE(SOCKS, s);
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
    release(l, f);
    if (!s)
        return fail(err, pd_errno(rc));
    if (err)
        *err = 0;
    return s;
}

sp_conn *sp_dial(const char *addr, uint64_t timeout_ns, int *err)
{
    struct sp_sock *s;
    struct tcp_pcb *pcb;
    unsigned long f;
    ip_addr_t ip;
    u16_t port;
    int rc = 0;
    err_t e;

    if (!parse_addr(addr, &ip, &port) || ip_addr_isany(&ip) || !port)
        return fail(err, -EINVAL);
    if (!net_up())
        return fail(err, -ENETDOWN);
    if (!(s = sock_open(K_TCP, &f, err)))
        return NULL;
    pcb = s->pcb.tcp;
    tcp_attach(s, pcb);
    e = tcp_connect(pcb, &ip, port, tcp_connected_cb);
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

sp_udp *sp_listen_udp(const char *addr, int *err)
{
    struct sp_sock *s;
    struct udp_pcb *pcb;
    unsigned long f;
    ip_addr_t ip;
    u16_t port;
    err_t e;

    if (!parse_addr(addr, &ip, &port))
        return fail(err, -EINVAL);
    if (!net_up())
        return fail(err, -ENETDOWN);
    if (!(s = sock_open(K_UDP, &f, err)))
        return NULL;
    pcb = s->pcb.udp;
    if ((e = udp_bind(pcb, &ip, port)) != ERR_OK) {
        udp_remove(pcb);
        LWIP_MEMPOOL_FREE(SOCKS, s);
        stack_unlock(f);
        return fail(err, lwip_errno(e));
    }
    udp_recv(pcb, udp_recv_cb, s);
    stack_unlock(f);
    if (err)
        *err = 0;
    return s;
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

long sp_write(sp_conn *c, const void *buf, size_t len)
{
    const uint8_t *b = buf;
    unsigned long f;
    size_t sent = 0;
    long rc = pd_prepare(&c->pd, 'w');

    if (rc != PD_OK)
        return pd_errno((int)rc);
    f = stack_lock_take();
    hold(c);
    rc = 0;
    while (sent < len) {
        struct tcp_pcb *pcb = c->pcb.tcp;
        size_t k = len - sent;
        err_t e = ERR_MEM;

        if (c->err || c->closed || !pcb) {
            rc = c->err ? c->err : -EPIPE;
            break;
        }
        if (k > tcp_sndbuf(pcb))
            k = tcp_sndbuf(pcb);
        if (k > CHUNK)
            k = CHUNK;
        if (k)
            e = tcp_write(pcb, b + sent, (u16_t)k, TCP_WRITE_FLAG_COPY);
        if (e == ERR_OK) {
            sent += k;
            continue;
        }
        if (e != ERR_MEM) {
            rc = lwip_errno(e);
            break;
        }
        /* Full: send what is queued and wait for acknowledgements. */
        tcp_output(pcb);
        stack_unlock(f);
        rc = pd_wait(&c->pd, 'w');
        f = stack_lock_take();
        if (rc != PD_OK) {
            rc = pd_errno((int)rc);
            break;
        }
        rc = 0;
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

/* Lets go of the pcb: no callback comes after.  Under stack_lock. */
static void detach(struct sp_sock *s)
{
    if (s->kind == K_UDP) {
        if (s->pcb.udp)
            udp_remove(s->pcb.udp);
        s->pcb.udp = NULL;
        return;
    }
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

int sp_close(struct sp_sock *s)
{
    struct sp_sock *pending[BACKLOG];
    unsigned long f = stack_lock_take();
    int n = 0;

    if (s->closed)
        panic("net: sp_close of a socket closed already");
    hold(s);
    s->closed = true;
    detach(s);
    if (s->kind == K_TCP)
        rxq_free(s);
    for (; s->kind == K_LISTEN && s->acc.n; s->acc.n--) {
        pending[n] = s->acc.q[s->acc.head];
        s->acc.head = (s->acc.head + 1) % BACKLOG;
        pending[n]->closed = true;
        pending[n]->refs = 1;
        detach(pending[n++]);
    }
    stack_timers_check();       /* FIN_WAIT and TIME_WAIT timers */
    stack_unlock(f);
    pd_close(&s->pd);           /* wakes every G blocked on s */
    for (int i = 0; i < n; i++) {
        pd_close(&pending[i]->pd);
        f = stack_lock_take();
        release(pending[i], f);
    }
    f = stack_lock_take();
    release(s, f);
    return 0;
}

/* ---- Deadlines and addresses --------------------------------------- */

int sp_set_deadline(struct sp_sock *s, int64_t ns)
{
    pd_set_deadline(&s->pd, ns, 'r' + 'w');
    return 0;
}

int sp_set_read_deadline(struct sp_sock *s, int64_t ns)
{
    pd_set_deadline(&s->pd, ns, 'r');
    return 0;
}

int sp_set_write_deadline(struct sp_sock *s, int64_t ns)
{
    pd_set_deadline(&s->pd, ns, 'w');
    return 0;
}

static int end_addr(struct sp_sock *s, bool local, char *buf, size_t len)
{
    unsigned long f = stack_lock_take();
    ip_addr_t ip;
    u16_t port;
    int rc = -EPIPE;

    if (s->kind == K_UDP && s->pcb.udp && local) {
        ip = s->pcb.udp->local_ip;
        port = s->pcb.udp->local_port;
        rc = 0;
    } else if (s->kind != K_UDP && s->pcb.tcp &&
               (local || s->kind == K_TCP)) {
        ip = local ? s->pcb.tcp->local_ip : s->pcb.tcp->remote_ip;
        port = local ? s->pcb.tcp->local_port : s->pcb.tcp->remote_port;
        rc = 0;
    }
    stack_unlock(f);
    return rc ? rc : format_addr(&ip, port, buf, len);
}

int sp_local_addr(struct sp_sock *s, char *buf, size_t len)
{
    return end_addr(s, true, buf, len);
}

int sp_remote_addr(struct sp_sock *s, char *buf, size_t len)
{
    return end_addr(s, false, buf, len);
}

/* ---- UDP ------------------------------------------------------------ */

long sp_recvfrom(sp_udp *u, void *buf, size_t len, char *from,
                 size_t fromlen)
{
    struct dgram d = { 0 };
    unsigned long f;
    long n = 0;
    int rc = pd_prepare(&u->pd, 'r');

    if (rc != PD_OK)
        return pd_errno(rc);
    f = stack_lock_take();
    hold(u);
    for (;;) {
        if (u->dg.n) {
            d = u->dg.q[u->dg.head];
            u->dg.head = (u->dg.head + 1) % UDP_QUEUE;
            u->dg.n--;
            break;
        }
        if (u->closed || !u->pcb.udp) {
            n = -EPIPE;
            break;
        }
        stack_unlock(f);
        rc = pd_wait(&u->pd, 'r');
        f = stack_lock_take();
        if (rc != PD_OK) {
            n = pd_errno(rc);
            break;
        }
    }
    if (d.p) {
        n = pbuf_copy_partial(d.p, buf,
                              (u16_t)(len < d.p->tot_len ? len : d.p->tot_len),
                              0);
        pbuf_free(d.p);
    }
    release(u, f);
    if (d.p && from)
        format_addr(&d.from, d.port, from, fromlen);
    return n;
}

long sp_sendto(sp_udp *u, const void *buf, size_t len, const char *to)
{
    struct pbuf *p;
    unsigned long f;
    ip_addr_t ip;
    u16_t port;
    err_t e;

    if (!parse_addr(to, &ip, &port) || !port)
        return -EINVAL;
    if (len > 65507)
        return -EMSGSIZE;
    f = stack_lock_take();
    if (u->closed || !u->pcb.udp) {
        stack_unlock(f);
        return -EPIPE;
    }
    p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
    if (!p) {
        stack_unlock(f);
        return -ENOMEM;
    }
    pbuf_take(p, buf, (u16_t)len);
    e = udp_sendto(u->pcb.udp, p, &ip, port);
    pbuf_free(p);
    stack_unlock(f);
    return e == ERR_OK ? (long)len : lwip_errno(e);
}

/* ---- The machine's address ------------------------------------------ */

int sp_net_addr(char *buf, size_t len)
{
    unsigned long f;
    ip4_addr_t a;

    if (!net_up())
        return -ENETDOWN;
    f = stack_lock_take();
    a = *netif_ip4_addr(&net_if);
    stack_unlock(f);
    if (ip4_addr_isany_val(a) || len < 16)
        return -ENETDOWN;
    ip4addr_ntoa_r(&a, buf, (int)len);
    return 0;
}

int sp_net_wait(uint64_t timeout_ns)
{
    uint64_t end = sp_nanotime() + timeout_ns;
    char a[16];
    int rc;

    if (!net_up())
        return -ENETDOWN;
    /* Counted as waiting for the network, so the scheduler polls the NIC
       (DHCP's answers) even where the NIC has no interrupt. */
    netpoll_wait_add(1);
    while ((rc = sp_net_addr(a, sizeof a)) != 0 && sp_nanotime() < end)
        sp_sleep(SP_MS(5));
    netpoll_wait_add(-1);
    return rc ? -ETIMEDOUT : 0;
}

const char *sp_net_strerror(int err)
{
    switch (err) {
    case 0:             return "ok";
    case -ETIMEDOUT:    return "i/o timeout";
    case -ECONNRESET:   return "connection reset by peer";
    case -ECONNREFUSED: return "connection refused";
    case -ECONNABORTED: return "connection aborted";
    case -EPIPE:        return "use of closed network connection";
    case -ENETDOWN:     return "network is down (no NIC, or no address yet)";
    case -EADDRINUSE:   return "address already in use";
    case -ENOMEM:       return "out of network memory";
    case -EINVAL:       return "invalid address";
    case -EHOSTUNREACH: return "no route to host";
    case -EMSGSIZE:     return "message too long";
    default:            return "network error";
    }
}

/* ---- For the BSD socket calls (bsd.h) ------------------------------ */

void (*sock_event_hook)(struct sp_sock *s);

void sock_event(struct sp_sock *s)
{
    /* Relaxed: bsd.c installs it before its first socket exists, and a
       callback that matters to a G in poll() comes after that G looked
       at the socket under stack_lock, which orders the store before. */
    void (*hook)(struct sp_sock *) =
        __atomic_load_n(&sock_event_hook, __ATOMIC_RELAXED);

    if (hook)
        hook(s);
}

int sp_sock_ready(struct sp_sock *s, int *err)
{
    unsigned long f = stack_lock_take();
    int m = 0;

    switch (s->kind) {
    case K_LISTEN:
        if (s->acc.n)
            m |= SP_SOCK_IN;
        break;
    case K_UDP:
        if (s->dg.n)
            m |= SP_SOCK_IN;
        m |= s->pcb.udp ? SP_SOCK_OUT : SP_SOCK_HUP;
        break;
    case K_TCP:
        if (s->rxq || s->eof)
            m |= SP_SOCK_IN;
        if (s->eof)
            m |= SP_SOCK_RDHUP;
        if (s->err)
            m |= SP_SOCK_IN | SP_SOCK_OUT | SP_SOCK_ERR | SP_SOCK_HUP;
        else if (!s->pcb.tcp)
            m |= SP_SOCK_IN | SP_SOCK_OUT | SP_SOCK_HUP;
        else if (s->connected && tcp_sndbuf(s->pcb.tcp) > TCP_SNDLOWAT &&
                 tcp_sndqueuelen(s->pcb.tcp) < TCP_SNDQUEUELOWAT)
            m |= SP_SOCK_OUT;
        break;
    }
    if (err)
        *err = s->err;
    stack_unlock(f);
    return m;
}

long sp_write_nowait(sp_conn *c, const void *buf, size_t len)
{
    const uint8_t *b = buf;
    unsigned long f = stack_lock_take();
    size_t sent = 0, limit = CHUNK;
    long rc = 0;

    hold(c);
    while (sent < len) {
        struct tcp_pcb *pcb = c->pcb.tcp;
        size_t k = len - sent;
        err_t e;

        if (c->err || c->closed || !pcb) {
            rc = c->err ? c->err : -EPIPE;
            break;
        }
        if (k > tcp_sndbuf(pcb))
            k = tcp_sndbuf(pcb);
        if (k > limit)
            k = limit;
        if (!k)
            break;
        e = tcp_write(pcb, b + sent, (u16_t)k, TCP_WRITE_FLAG_COPY);
        if (e == ERR_MEM && k > TCP_MSS) {
            limit = k / 2;      /* the queue may take a smaller piece */
            continue;
        }
        if (e == ERR_MEM)
            break;
        if (e != ERR_OK) {
            rc = lwip_errno(e);
            break;
        }
        sent += k;
    }
    if (sent && c->pcb.tcp)
        tcp_output(c->pcb.tcp);
    stack_timers_check();       /* the retransmission timer */
    release(c, f);
    if (sent)
        return (long)sent;      /* an error stays for the next call */
    return rc ? rc : -EAGAIN;
}
