/*
 * sock_udp.c - UDP sockets: datagrams queued by lwIP's callback, read one
 * at a time with their sender, and sent to any address.
 */
#include <errno.h>
#include <string.h>
#include <spindle/net.h>
#include "lwip/pbuf.h"
#include "lwip/udp.h"
#include "bsd.h"
#include "netimpl.h"
#include "sockimpl.h"

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

sp_udp *sp_listen_udp(const char *addr, int *err)
{
    struct sock_addr a;
    struct sp_sock *s;
    struct udp_pcb *pcb;
    unsigned long f;
    err_t e;

    if (!(s = sock_open(K_UDP, addr, false, &a, &f, err)))
        return NULL;
    pcb = s->pcb.udp;
    if ((e = udp_bind(pcb, &a.ip, a.port)) != ERR_OK) {
        udp_remove(pcb);
        sock_discard(s);
        stack_unlock(f);
        return fail(err, lwip_errno(e));
    }
    udp_recv(pcb, udp_recv_cb, s);
    stack_unlock(f);
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

void udp_drain(struct sp_sock *s)
{
    if (s->pcb.udp)
        udp_remove(s->pcb.udp);
    s->pcb.udp = NULL;
    for (; s->dg.n; s->dg.n--, s->dg.head = (s->dg.head + 1) % UDP_QUEUE)
        pbuf_free(s->dg.q[s->dg.head].p);
}
