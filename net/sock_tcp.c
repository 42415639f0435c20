/*
 * sock_tcp.c - TCP sockets: lwIP's callbacks for a connection and a
 * listener, and listen, accept, dial, read and write (see sock.c for the
 * pattern every operation follows).
 */
#include <errno.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/time.h>
#include "net/bsd.h"
#include "net/net.h"
#include "net/netdev.h"
#include "net/lwip/netguard.h"
#include "net/netimpl.h"
#include "net/rss.h"
#include "net/sockimpl.h"
#include "sched/sched.h"

/* ---- lwIP's callbacks (under the socket's stack's lock) ------------ */

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

static void unhook(struct sp_sock *s, struct tcp_pcb *pcb);

static err_t tcp_recv_cb(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
                         err_t err)
{
    struct sp_sock *s = arg;

    seg_here(s);
    if (!p) {
        s->eof = true;
        /* Both ends have sent their FIN (sp_close_write came first):
           lwIP frees a pcb in CLOSING or TIME_WAIT when it likes (2 MSL
           on, or at once for a new connection when its pool is empty)
           and tells nobody, so the socket lets go of it now; lwIP ends
           the connection on its own. */
        if (pcb->state == CLOSING || pcb->state == TIME_WAIT) {
            unhook(s, pcb);
            s->pcb.tcp = NULL;
            net_ready(s->st, pd_ready(&s->pd, 'w'));
        }
    } else {
        if (s->rxtail)
            s->rxtail->next = p;
        else
            s->rxq = p;
        for (s->rxtail = p; s->rxtail->next; s->rxtail = s->rxtail->next)
            ;
    }
    net_ready(s->st, pd_ready(&s->pd, 'r'));
    sock_event(s->st, s);
    return ERR_OK;
}

static err_t tcp_sent_cb(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct sp_sock *s = arg;

    seg_here(s);
    net_ready(s->st, pd_ready(&s->pd, 'w'));
    sock_event(s->st, s);
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
    net_ready(s->st, pd_ready(&s->pd, 'r'));
    net_ready(s->st, pd_ready(&s->pd, 'w'));
    sock_event(s->st, s);
}

static err_t tcp_connected_cb(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct sp_sock *s = arg;

    s->connected = true;
    seg_here(s);
    if (s->dialq && s->dialq != this_cpu()->id + 1)
        net_count(&net_mine()->misdial, 1);  /* replies on another queue */
    net_ready(s->st, pd_ready(&s->pd, 'w'));
    sock_event(s->st, s);
    return ERR_OK;
}

/* lwIP's slow timer ticks (two TCP_TMR_INTERVALs) in a second. */
#define TCP_POLL_TICKS  (1000 / (2 * TCP_TMR_INTERVAL))

/*
 * Every second while the connection is open (TCP_POLL_TICKS): a writer
 * that found lwIP's heap full and has nothing in flight gets no sent
 * callback, so it is woken here to try again.
 */
static err_t tcp_poll_cb(void *arg, struct tcp_pcb *pcb)
{
    struct sp_sock *s = arg;

    if (__atomic_load_n(&s->pd.wg, __ATOMIC_RELAXED) > PD_READY)
        net_ready(s->st, pd_ready(&s->pd, 'w'));
    return ERR_OK;
}

static void tcp_attach(struct sp_sock *s, struct tcp_pcb *pcb)
{
    const struct lwip_api *l = lw(s);

    s->pcb.tcp = pcb;
    l->tcp_arg(pcb, s);
    l->tcp_recv(pcb, tcp_recv_cb);
    l->tcp_sent(pcb, tcp_sent_cb);
    l->tcp_err(pcb, tcp_err_cb);
    l->tcp_poll(pcb, tcp_poll_cb, TCP_POLL_TICKS);
    tcp_nagle_disable(pcb);     /* as Go: small writes go out at once */
}

/* Under the slot's stack's lock; takes the listener's.  s is complete
   before it is queued: another core may take it at once. */
static err_t accept_cb(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct lslot *slot = arg;
    struct sp_sock *l = slot->l, *s;
    unsigned long f;

    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    if (!(s = sock_new(slot->st, K_TCP)))
        return ERR_MEM;         /* lwIP resets the connection */
    f = spin_lock(&l->acc.lock);
    if (l->acc.n == BACKLOG || l->closed) {
        spin_unlock(&l->acc.lock, f);
        sock_discard(s);
        return ERR_MEM;
    }
    s->connected = true;
    seg_here(s);
    tcp_attach(s, pcb);
    /* Counted in the listening pcb's backlog until sp_accept takes it:
       with the queue full, lwIP drops SYNs (the client sends them again)
       instead of completing handshakes this callback would reset. */
    slot->st->lw->tcp_backlog_delayed(pcb);
    l->acc.q[(l->acc.head + l->acc.n++) % BACKLOG] = s;
    spin_unlock(&l->acc.lock, f);
    net_ready(slot->st, pd_ready(&l->pd, 'r'));
    sock_event(slot->st, l);
    return ERR_OK;
}

/* ---- Setting up ----------------------------------------------------- */

/* Listens on ip:*port in st: binds (port 0: lwIP picks one, put in
   *port) and hooks the listening pcb to slot.  0 or -errno. */
static int listen_in(struct stack *st, struct lslot *slot,
                     const ip_addr_t *ip, u16_t *port)
{
    const struct lwip_api *l = st->lw;
    unsigned long f = stack_lock_take(st);
    struct tcp_pcb *pcb = l->tcp_new(), *lpcb = NULL;
    err_t e = ERR_MEM;

    if (pcb) {
        ip_set_option(pcb, SOF_REUSEADDR);
        e = l->tcp_bind(pcb, ip, *port);
        /* With SOF_REUSEADDR the bind succeeds on a port another socket
           listens on; tcp_listen is where that is refused (ERR_USE). */
        /* The stacks share the listener's queue of BACKLOG; lwIP's
           backlog counts the half-open connections too (netguard.h). */
        lpcb = e == ERR_OK ? l->tcp_listen_with_backlog_and_err(
                                 pcb, BACKLOG / net_nstacks + HALF_OPEN_MAX,
                                 &e)
                           : NULL;
        if (!lpcb)
            l->tcp_abort(pcb);
    }
    if (lpcb) {                 /* tcp_listen freed pcb */
        *port = lpcb->local_port;
        slot->pcb = lpcb;
        l->tcp_arg(lpcb, slot);
        l->tcp_accept(lpcb, accept_cb);
    }
    stack_unlock(st, f);
    return lpcb ? 0 : lwip_errno(e);
}

/*
 * A listener has a listening pcb in every stack, on one port: a SYN
 * goes to whichever stack its queue feeds, and that stack's accept
 * callback queues the connection on the listener.
 */
sp_listener *sp_listen(const char *addr, int *err)
{
    struct sock_addr a;
    struct sp_sock *s;
    unsigned long f;
    int rc = sock_parse(addr, false, &a);

    if (rc < 0)
        return fail(err, rc);
    if (!(s = sock_open(&stacks[0], K_LISTEN, &f, err)))
        return NULL;
    s->acc.lock = (struct spinlock)SPINLOCK_INIT(LOCK_LISTENER);
    stack_unlock(&stacks[0], f);
    for (int i = 0; i < net_nstacks && rc == 0; i++) {
        s->acc.slot[i] = (struct lslot){ .l = s, .st = &stacks[i] };
        rc = listen_in(&stacks[i], &s->acc.slot[i], &a.ip, &a.port);
    }
    if (rc < 0) {
        listen_detach(s);
        f = stack_lock_take(&stacks[0]);
        sock_discard(s);
        stack_unlock(&stacks[0], f);
        return fail(err, rc);
    }
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
    f = sock_lock(l);
    hold(l);
    while (!s) {
        if (l->acc.n) {
            s = l->acc.q[l->acc.head];
            l->acc.head = (l->acc.head + 1) % BACKLOG;
            l->acc.n--;
            break;
        }
        if (l->closed) {
            rc = PD_ECLOSED;
            break;
        }
        sock_unlock(l, f);
        rc = pd_wait(&l->pd, 'r');
        f = sock_lock(l);
        if (rc != PD_OK)
            break;
    }
    /* Set by the accept callback before it queued s: read after taking s
       from the queue, under the lock it was queued under. */
    home = s && net_dev->nqueues > 1 ? s->home - 1 : -1;
    release(l, f);
    if (!s)
        return fail(err, pd_errno(rc));
    f = stack_lock_take(s->st);
    if (s->pcb.tcp)             /* else lwIP let go of it, and its count */
        lw(s)->tcp_backlog_accepted(s->pcb.tcp);
    stack_unlock(s->st, f);
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
 * With RSS, binds s's pcb to the first free ephemeral port, from a
 * random one on, whose replies from a hash to this core's queue (whose
 * stack s is in), and returns that queue; else, or if none of a few
 * tries is free, leaves the choice to tcp_connect and returns -1.  Under
 * s's stack's lock.
 */
static int bind_to_my_queue(struct sp_sock *s, const struct sock_addr *a)
{
    const ip4_addr_t *me = netif_ip4_addr(&s->st->nif);
    uint16_t lo = 0xC000, hi = 0xFFFF;    /* IANA's dynamic ports, as lwIP's */
    uint16_t start = (uint16_t)(lo + lwip_rand() % (hi - lo + 1u));
    uint32_t laddr, raddr;
    int q = net_my_queue();

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
        if (lw(s)->tcp_bind(s->pcb.tcp, NULL, p) == ERR_OK)  /* any */
            return q;
        start = p == hi ? lo : (uint16_t)(p + 1);     /* in use: the next */
    }
    return -1;
}

/* True if a is this machine (127.x.x.x, or st's address): lwIP loops
   it back inside st, and the NIC's hash has no say. */
static bool to_self(struct stack *st, const struct sock_addr *a)
{
    return ip_addr_isloopback(&a->ip) ||
           ip4_addr_cmp(ip_2_ip4(&a->ip), netif_ip4_addr(&st->nif));
}

/*
 * A dial runs in the stack of the caller's queue.  With a stack per
 * queue its local port must make the replies hash to that queue: another
 * stack would answer them with a reset.
 */
sp_conn *sp_dial(const char *addr, uint64_t timeout_ns, int *err)
{
    struct stack *st;
    struct sock_addr a;
    struct sp_sock *s;
    unsigned long f;
    int rc = sock_parse(addr, true, &a);
    err_t e;

    if (rc < 0)
        return fail(err, rc);
    st = stack_mine();          /* only once there is a NIC */
    if (!(s = sock_open(st, K_TCP, &f, err)))
        return NULL;
    tcp_attach(s, s->pcb.tcp);
    s->dialq = bind_to_my_queue(s, &a) + 1;
    if (!s->dialq && net_nstacks > 1 && !to_self(st, &a) &&
        !ip4_addr_isany(netif_ip4_addr(&st->nif)))
        e = ERR_USE;            /* no free port that comes back here */
    else
        e = st->lw->tcp_connect(s->pcb.tcp, &a.ip, a.port,
                                tcp_connected_cb);
    hold(s);
    stack_timers_check(st);     /* the SYN's retransmission timer */
    stack_unlock(st, f);
    if (e != ERR_OK) {
        rc = lwip_errno(e);
        goto out;
    }
    if (timeout_ns)
        pd_set_deadline(&s->pd, (int64_t)(sp_nanotime() + timeout_ns), 'w');
    for (;;) {
        f = stack_lock_take(st);
        if (s->connected || s->err) {
            rc = s->connected ? 0 : s->err;
            stack_unlock(st, f);
            break;
        }
        stack_unlock(st, f);
        if ((rc = pd_wait(&s->pd, 'w')) != PD_OK) {
            rc = pd_errno(rc);
            break;
        }
    }
    if (timeout_ns)
        pd_set_deadline(&s->pd, 0, 'w');
out:
    f = stack_lock_take(st);
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
   the count.  Under s's stack's lock. */
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
            lw(s)->pbuf_free(p);
            s->rxoff = 0;
        }
    }
    return n;
}

/* Copies up to len queued bytes out, leaving them queued; the count.
   Under s's stack's lock. */
static size_t rx_peek(struct sp_sock *s, uint8_t *buf, size_t len)
{
    size_t n = 0, off = s->rxoff;

    for (struct pbuf *p = s->rxq; p && n < len; p = p->next, off = 0) {
        size_t k = p->len - off;

        if (k > len - n)
            k = len - n;
        memcpy(buf + n, (uint8_t *)p->payload + off, k);
        n += k;
    }
    return n;
}

/* Opens the receive window by n bytes that the app has taken. */
static void rx_consumed(struct sp_sock *s, size_t n)
{
    while (n && s->pcb.tcp) {
        u16_t k = n > CHUNK ? CHUNK : (u16_t)n;

        lw(s)->tcp_recved(s->pcb.tcp, k);
        n -= k;
    }
}

/* sp_read, or with peek sp_peek. */
static long tcp_read(sp_conn *c, void *buf, size_t len, bool peek)
{
    unsigned long f;
    long n = 0;
    int rc = pd_prepare(&c->pd, 'r');

    if (rc != PD_OK)
        return pd_errno(rc);
    if (len == 0)
        return 0;
    f = sock_lock(c);
    hold(c);
    for (;;) {
        if (c->rxq && peek) {
            n = (long)rx_peek(c, buf, len);
            break;
        }
        if (c->rxq) {
            n = (long)rx_take(c, buf, len);
            rx_consumed(c, (size_t)n);
            break;
        }
        if (c->eof || c->err || c->closed || !c->pcb.tcp) {
            n = c->eof ? 0 : c->err ? c->err : -EPIPE;
            break;
        }
        sock_unlock(c, f);
        rc = pd_wait(&c->pd, 'r');
        f = sock_lock(c);
        if (rc != PD_OK) {
            n = pd_errno(rc);
            break;
        }
    }
    release(c, f);
    return n;
}

long sp_read(sp_conn *c, void *buf, size_t len)
{
    return tcp_read(c, buf, len, false);
}

long sp_peek(sp_conn *c, void *buf, size_t len)
{
    return tcp_read(c, buf, len, true);
}

/*
 * Queues what lwIP takes now of b[*sent .. len) on c, advancing *sent.
 * Returns 0 once all of it is queued, -EAGAIN when the send buffer or
 * lwIP's heap is full, or the connection's error.  Under c's stack's lock.
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
        e = lw(c)->tcp_write(pcb, b + *sent, (u16_t)k, TCP_WRITE_FLAG_COPY);
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
    f = sock_lock(c);
    hold(c);
    while ((rc = queue(c, buf, len, &sent)) == -EAGAIN) {
        /* Full: send what is queued and wait for acknowledgements. */
        lw(c)->tcp_output(c->pcb.tcp);
        sock_unlock(c, f);
        rc = pd_wait(&c->pd, 'w');
        f = sock_lock(c);
        if (rc != PD_OK) {
            rc = pd_errno((int)rc);
            break;
        }
    }
    if (c->pcb.tcp)
        lw(c)->tcp_output(c->pcb.tcp);
    stack_timers_check(c->st);       /* the retransmission timer */
    release(c, f);
    /* As write(2): what was queued before an error stopped it; the next
       call meets the error again (it is sticky, or the deadline passed). */
    return sent ? (long)sent : rc;
}

int sp_close_write(sp_conn *c)
{
    unsigned long f = sock_lock(c);
    err_t e;
    int rc;

    hold(c);
    e = c->pcb.tcp ? lw(c)->tcp_shutdown(c->pcb.tcp, 0, 1) : ERR_CONN;
    rc = e == ERR_OK ? 0 : c->err ? c->err : -EPIPE;
    release(c, f);
    return rc;
}

/* No callback of pcb's comes to s after. */
static void unhook(struct sp_sock *s, struct tcp_pcb *pcb)
{
    const struct lwip_api *l = lw(s);

    l->tcp_arg(pcb, NULL);
    l->tcp_recv(pcb, NULL);
    l->tcp_sent(pcb, NULL);
    l->tcp_err(pcb, NULL);
    l->tcp_poll(pcb, NULL, 0);
}

void tcp_detach(struct sp_sock *s, bool reset)
{
    const struct lwip_api *l = lw(s);
    struct tcp_pcb *pcb = s->pcb.tcp;

    if (!pcb)
        return;
    unhook(s, pcb);
    if (reset || l->tcp_close(pcb) != ERR_OK)
        l->tcp_abort(pcb);
    s->pcb.tcp = NULL;
}

void listen_detach(struct sp_sock *l)
{
    for (int i = 0; i < net_nstacks; i++) {
        struct lslot *slot = &l->acc.slot[i];
        struct stack *st = slot->st;
        unsigned long f;

        if (!st)                /* sp_listen stopped short of it */
            break;
        f = stack_lock_take(st);
        if (slot->pcb) {
            st->lw->tcp_arg(slot->pcb, NULL);
            st->lw->tcp_accept(slot->pcb, NULL);
            if (st->lw->tcp_close(slot->pcb) != ERR_OK)
                st->lw->tcp_abort(slot->pcb);
            slot->pcb = NULL;
        }
        stack_unlock(st, f);
    }
}

/* For bsd_data.c (bsd.h): sp_write that never waits. */
long sp_write_nowait(sp_conn *c, const void *buf, size_t len)
{
    unsigned long f = sock_lock(c);
    size_t sent = 0;
    long rc;

    hold(c);
    rc = queue(c, buf, len, &sent);
    if (sent && c->pcb.tcp)
        lw(c)->tcp_output(c->pcb.tcp);
    stack_timers_check(c->st);       /* the retransmission timer */
    release(c, f);
    return sent ? (long)sent : rc;  /* an error stays for the next call */
}
