/*
 * sock_udp.c - UDP sockets: datagrams queued by lwIP's callback, read one
 * at a time with their sender, and sent to any address.  They live in
 * stack 0, which the NIC gives every datagram (it hashes TCP only).
 */
#include <errno.h>
#include <string.h>
#include <spindle/net.h>
#include "net/bsd.h"
#include "net/netimpl.h"
#include "net/sockimpl.h"

static void udp_recv_cb(void *arg, struct udp_pcb *pcb, struct pbuf *p,
                        const ip_addr_t *addr, u16_t port)
{
    struct sp_sock *s = arg;
    struct dgram *d;

    if (s->dg.n == UDP_QUEUE) {
        s->udp_drops++;
        lw(s)->pbuf_free(p);
        return;
    }
    d = &s->dg.q[(s->dg.head + s->dg.n++) % UDP_QUEUE];
    d->p = p;
    ip_addr_copy(d->from, *addr);
    d->port = port;
    net_ready(s->st, pd_ready(&s->pd, 'r'));
    sock_event(s->st, s);
}

sp_udp *sp_listen_udp(const char *addr, int *err)
{
    struct stack *st = &stacks[0];
    struct sock_addr a;
    struct sp_sock *s;
    struct udp_pcb *pcb;
    unsigned long f;
    int rc = sock_parse(addr, false, &a);
    err_t e;

    if (rc < 0)
        return fail(err, rc);
    if (!(s = sock_open(st, K_UDP, &f, err)))
        return NULL;
    pcb = s->pcb.udp;
    if ((e = st->lw->udp_bind(pcb, &a.ip, a.port)) != ERR_OK) {
        st->lw->udp_remove(pcb);
        sock_discard(s);
        stack_unlock(st, f);
        return fail(err, lwip_errno(e));
    }
    st->lw->udp_recv(pcb, udp_recv_cb, s);
    stack_unlock(st, f);
    if (err)
        *err = 0;
    return s;
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
    f = sock_lock(u);
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
        sock_unlock(u, f);
        rc = pd_wait(&u->pd, 'r');
        f = sock_lock(u);
        if (rc != PD_OK) {
            n = pd_errno(rc);
            break;
        }
    }
    if (d.p) {
        n = lw(u)->pbuf_copy_partial(d.p, buf,
                              (u16_t)(len < d.p->tot_len ? len : d.p->tot_len),
                              0);
        lw(u)->pbuf_free(d.p);
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
    f = sock_lock(u);
    if (u->closed || !u->pcb.udp) {
        sock_unlock(u, f);
        return -EPIPE;
    }
    p = lw(u)->pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
    if (!p) {
        sock_unlock(u, f);
        return -ENOMEM;
    }
    lw(u)->pbuf_take(p, buf, (u16_t)len);
    e = lw(u)->udp_sendto(u->pcb.udp, p, &ip, port);
    lw(u)->pbuf_free(p);
    sock_unlock(u, f);
    return e == ERR_OK ? (long)len : lwip_errno(e);
}

void udp_drain(struct sp_sock *s)
{
    if (s->pcb.udp)
        lw(s)->udp_remove(s->pcb.udp);
    s->pcb.udp = NULL;
    for (; s->dg.n; s->dg.n--, s->dg.head = (s->dg.head + 1) % UDP_QUEUE)
        lw(s)->pbuf_free(s->dg.q[s->dg.head].p);
}
