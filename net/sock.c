/*
 * sock.c - TCP and UDP sockets for Gs (spindle/net.h) on lwIP's raw API:
 * what every kind of socket shares (its memory and lifetime, addresses,
 * closing, deadlines); the protocols are in sock_tcp.c and sock_udp.c.
 *
 * A socket is a struct sp_sock: lwIP's pcb, what lwIP's callbacks
 * queued for the socket, and a polldesc (sched/polldesc.h) on which Gs
 * wait.  It lives in one stack (netimpl.h), whose lock guards it, a
 * listener in all of them (sockimpl.h).  Callbacks run under the stack's
 * lock wherever lwIP runs (the poll function, lwIP's timer, a G's own
 * call into lwIP); they only queue data or note an event and report
 * readiness, and the G that waits tries its operation again.  Every
 * operation follows one pattern:
 *
 *   pd_prepare; loop { sock_lock; try; unlock; done or pd_wait }
 *
 * Lifetime: sp_close may run while other Gs are blocked on the socket.
 * Each operation holds a reference (refs, under sock_lock) while it
 * runs; sp_close marks the socket closed, detaches it from lwIP, wakes
 * every waiter (pd_close), and whoever drops the last reference frees it.
 * Memory comes from a fixed pool per stack under its lock, since the
 * accept callback makes sockets where malloc is forbidden.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/time.h>
#include "kernel/panic.h"
#include "net/bsd.h"
#include "net/net.h"
#include "net/netimpl.h"
#include "net/sockimpl.h"
#include "sched/netpoll.h"
#include "sched/sched.h"

#define NSOCK       (MEMP_NUM_TCP_PCB + MEMP_NUM_TCP_PCB_LISTEN + \
                     MEMP_NUM_UDP_PCB)

static struct sp_sock sock_mem[NET_STACKS][NSOCK];
static bool pool_ready[NET_STACKS];     /* under stacks[i]'s lock */

/* ---- Allocation and lifetime ---------------------------------------- */

/* A zeroed socket of the given kind from st's pool; NULL when it is
   empty.  Under st's lock. */
struct sp_sock *sock_new(struct stack *st, enum kind kind)
{
    struct sp_sock *s;

    if (!pool_ready[st->index]) {
        for (int i = NSOCK - 1; i >= 0; i--) {
            sock_mem[st->index][i].next_free = st->free_socks;
            st->free_socks = &sock_mem[st->index][i];
        }
        pool_ready[st->index] = true;
    }
    s = st->free_socks;
    if (!s) {
        st->socks_short++;
        return NULL;
    }
    st->free_socks = s->next_free;
    st->socks_used++;
    memset(s, 0, sizeof *s);
    pd_init(&s->pd);
    s->kind = kind;
    s->st = st;
    return s;
}

void sock_discard(struct sp_sock *s)
{
    s->st->socks_used--;
    s->next_free = s->st->free_socks;
    s->st->free_socks = s;
}

void rxq_free(struct sp_sock *s)
{
    while (s->rxq) {
        struct pbuf *p = s->rxq;

        s->rxq = p->next;
        p->next = NULL;
        lw(s)->pbuf_free(p);
    }
    s->rxtail = NULL;
    s->rxoff = 0;
}

/* Frees s once nobody uses it; a G holding no spinlock. */
static void sock_free(struct sp_sock *s)
{
    struct stack *st = s->st;
    unsigned long f;

    pd_fini(&s->pd);
    f = stack_lock_take(st);
    rxq_free(s);
    if (s->kind == K_UDP)
        udp_drain(s);
    sock_discard(s);
    stack_unlock(st, f);
}

unsigned long sock_lock(struct sp_sock *s)
{
    return s->kind == K_LISTEN ? spin_lock(&s->acc.lock)
                               : stack_lock_take(s->st);
}

void sock_unlock(struct sp_sock *s, unsigned long f)
{
    if (s->kind == K_LISTEN)
        spin_unlock(&s->acc.lock, f);
    else
        stack_unlock(s->st, f);
}

/* Takes a reference for an operation; under sock_lock. */
void hold(struct sp_sock *s)
{
    if (s->closed && s->refs == 0)
        panic("net: a socket was used after sp_close");
    s->refs++;
}

/* Leaves sock_lock and drops the reference; frees s if it was the last
   one of a closed socket. */
void release(struct sp_sock *s, unsigned long f)
{
    bool last = --s->refs == 0 && s->closed;

    sock_unlock(s, f);
    if (last)
        sock_free(s);
}

int pd_errno(int rc)
{
    return rc == PD_ETIMEOUT ? -ETIMEDOUT : -EPIPE;
}

int lwip_errno(err_t e)
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
bool parse_addr(const char *s, ip_addr_t *ip, u16_t *port)
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

int format_addr(const ip_addr_t *ip, u16_t port, char *buf,
                       size_t len)
{
    char a[16];

    if (len < 22)
        return -ENOSPC;
    ipaddr_ntoa_r(ip, a, sizeof a);
    snprintf(buf, len, "%s:%u", a, port);
    return 0;
}

bool net_up(void)
{
    return net_dev != NULL;
}

/* ---- Setting up and closing ---------------------------------------- */

struct sp_sock *fail(int *err, int e)
{
    if (err)
        *err = e;
    return NULL;
}

int sock_parse(const char *addr, bool remote, struct sock_addr *a)
{
    if (!parse_addr(addr, &a->ip, &a->port) ||
        (remote && (ip_addr_isany(&a->ip) || !a->port)))
        return -EINVAL;
    return net_up() ? 0 : -ENETDOWN;
}

struct sp_sock *sock_open(struct stack *st, enum kind kind,
                          unsigned long *f, int *err)
{
    struct sp_sock *s;

    *f = stack_lock_take(st);
    s = sock_new(st, kind);
    if (s && kind == K_UDP)
        s->pcb.udp = st->lw->udp_new();
    else if (s && kind == K_TCP)
        s->pcb.tcp = st->lw->tcp_new();
    if (s && (kind == K_LISTEN || s->pcb.tcp))
        return s;
    if (s)
        sock_discard(s);
    stack_unlock(st, *f);
    return fail(err, -ENOMEM);
}

/* Lets go of a TCP or UDP socket's pcb: no callback comes after.
   Under its stack's lock. */
static void detach(struct sp_sock *s, bool reset)
{
    if (s->kind == K_UDP)
        udp_drain(s);
    else
        tcp_detach(s, reset);
}

/* sp_close of a listener: its pcbs first, so that no accept callback
   queues after the queue is emptied. */
static void close_listener(struct sp_sock *l)
{
    struct sp_sock *pending[BACKLOG];
    unsigned long f = spin_lock(&l->acc.lock);
    int n = 0;

    if (l->closed)
        panic("net: sp_close of a socket closed already");
    hold(l);
    l->closed = true;
    spin_unlock(&l->acc.lock, f);
    listen_detach(l);
    f = spin_lock(&l->acc.lock);
    for (; l->acc.n; l->acc.n--) {
        pending[n++] = l->acc.q[l->acc.head];
        l->acc.head = (l->acc.head + 1) % BACKLOG;
    }
    spin_unlock(&l->acc.lock, f);
    pd_close(&l->pd);           /* wakes every G blocked on l */
    for (int i = 0; i < n; i++)
        sp_close(pending[i]);   /* connections nobody took */
    f = sock_lock(l);
    release(l, f);
}

/* sp_close, and with reset sp_abort, of a connection or UDP socket. */
static int close_sock(struct sp_sock *s, bool reset)
{
    unsigned long f = stack_lock_take(s->st);

    if (s->closed)
        panic("net: sp_close of a socket closed already");
    hold(s);
    s->closed = true;
    detach(s, reset);
    if (s->kind == K_TCP)
        rxq_free(s);
    stack_timers_check(s->st);  /* FIN_WAIT and TIME_WAIT timers */
    stack_unlock(s->st, f);
    pd_close(&s->pd);           /* wakes every G blocked on s */
    f = stack_lock_take(s->st);
    release(s, f);
    return 0;
}

int sp_close(struct sp_sock *s)
{
    if (s->kind == K_LISTEN) {
        close_listener(s);
        return 0;
    }
    return close_sock(s, false);
}

int sp_abort(sp_conn *c)
{
    return c->kind == K_TCP ? close_sock(c, true) : sp_close(c);
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
    unsigned long f = stack_lock_take(s->st);
    struct tcp_pcb *tcp = s->kind == K_LISTEN ? s->acc.slot[0].pcb
                                              : s->pcb.tcp;
    ip_addr_t ip;
    u16_t port;
    int rc = -EPIPE;

    if (s->kind == K_UDP && s->pcb.udp && local) {
        ip = s->pcb.udp->local_ip;
        port = s->pcb.udp->local_port;
        rc = 0;
    } else if (s->kind != K_UDP && tcp && (local || s->kind == K_TCP)) {
        ip = local ? tcp->local_ip : tcp->remote_ip;
        port = local ? tcp->local_port : tcp->remote_port;
        rc = 0;
    }
    stack_unlock(s->st, f);
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

/* ---- The machine's address ------------------------------------------ */

int sp_net_addr(char *buf, size_t len)
{
    unsigned long f;
    ip4_addr_t a;

    if (!net_up())
        return -ENETDOWN;
    f = stack_lock_take(&stacks[0]);
    a = *netif_ip4_addr(&stacks[0].nif);
    stack_unlock(&stacks[0], f);
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

struct g *(*sock_event_hook)(void *owner, struct g *list);

/* Clearing the owner waits out the callbacks that may still use the old
   one: they run under a stack's lock (a listener's under any stack's),
   so once each lock has been taken after the store, none is left. */
void sp_sock_set_owner(struct sp_sock *s, void *owner)
{
    __atomic_store_n(&s->owner, owner, __ATOMIC_SEQ_CST);
    if (owner)
        return;
    for (int i = 0; i < net_nstacks; i++)
        stack_unlock(&stacks[i], stack_lock_take(&stacks[i]));
}

void sock_event(struct stack *st, struct sp_sock *s)
{
    /* Relaxed: the BSD calls install it before their first socket
       exists, and a callback that matters to a G watching the socket
       comes after that G looked at it under the lock the callback took
       since, which orders the store before. */
    struct g *(*hook)(void *, struct g *) =
        __atomic_load_n(&sock_event_hook, __ATOMIC_RELAXED);
    void *owner = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);
    struct g *list;

    if (!hook || !owner)
        return;
    for (list = hook(owner, NULL); list;) {
        struct g *gp = list;

        list = gp->schedlink;
        net_ready(st, gp);
    }
}

int sp_sock_ready(struct sp_sock *s, int *err)
{
    unsigned long f = sock_lock(s);
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
    sock_unlock(s, f);
    return m;
}
