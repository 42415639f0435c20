/*
 * dns.c - host names through lwIP's DNS client (spindle/net.h's
 * sp_resolve), for Gs.
 *
 * Only stack 0 resolves: it is the one that runs DHCP, whose lease sets
 * its copy of lwIP's DNS servers, and it gets every datagram (netimpl.h),
 * DNS replies included.  lwIP asks the first server, retries on its own
 * 1 s timer (4 sends over about 7 s) and then the second server, and
 * always ends a query by calling its callback once: with the address, or
 * with NULL (an error reply, or no reply at all).
 *
 * A lookup takes a slot: the callback's argument, with a polldesc on
 * which the G waits.  Slots, their polldescs included, are static and
 * never freed, so a callback that comes after its G gave up (the G's
 * deadline passed) finds the slot still there, marked abandoned, and
 * only frees it; a slot is taken again only once free, and pd_prepare
 * forgets what an earlier lookup left on its polldesc.
 *
 * lwIP's NULL does not say whether the server answered.  The slot
 * remembers how many datagrams stack 0's UDP had taken in when the query
 * went out: if more came before the NULL, the server answered (no such
 * name, -ENOENT); if none did, nobody answered (-ETIMEDOUT).  Once DHCP
 * has its lease the kernel itself sends no other UDP, so only an app's
 * own datagram arriving meanwhile can make a silent server look like an
 * answering one.
 *
 * Locks: every field of a slot and the counters are under stack 0's
 * lock, which is also the lock lwIP's callback runs under.
 */
#include <errno.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/time.h>
#include "net/net.h"
#include "net/netimpl.h"
#include "sched/polldesc.h"

#define NSLOTS 8                /* lookups under way at once */

enum slot_state {
    S_FREE,                     /* nobody's */
    S_ASKING,                   /* a G waits for the callback */
    S_DONE,                     /* the callback came; the G takes it */
    S_ABANDONED,                /* the G left; the callback frees it */
};

struct slot {
    enum slot_state state;
    int err;                    /* S_DONE: 0 or -errno */
    ip_addr_t addr;             /* S_DONE with err 0 */
    uint32_t udp_in;            /* stack 0's UDP datagrams in at the query */
    struct polldesc pd;         /* 'r': the callback came */
    bool pd_ready;              /* pd_init'd once */
};

static struct slot slots[NSLOTS];
static struct sp_dns_stats counts;      /* server[] aside */

static uint32_t udp_in(struct stack *st)
{
    return (uint32_t)st->lw->stats->udp.recv;
}

/* lwIP's dns_found_callback; under stack 0's lock. */
static void found(const char *name, const ip_addr_t *ip, void *arg)
{
    struct stack *st = &stacks[0];
    struct slot *sl = arg;

    if (ip)
        counts.found++;
    else if (udp_in(st) != sl->udp_in)
        counts.failed++;
    else
        counts.unanswered++;
    if (sl->state == S_ABANDONED) {
        sl->state = S_FREE;
        return;
    }
    sl->err = ip ? 0 : udp_in(st) != sl->udp_in ? -ENOENT : -ETIMEDOUT;
    if (ip)
        ip_addr_copy(sl->addr, *ip);
    sl->state = S_DONE;
    net_ready(st, pd_ready(&sl->pd, 'r'));
}

/* A free slot, taken; NULL if every one is in use.  Under stack 0's
   lock. */
static struct slot *slot_take(void)
{
    for (int i = 0; i < NSLOTS; i++) {
        struct slot *sl = &slots[i];

        if (sl->state == S_FREE) {
            if (!sl->pd_ready)
                pd_init(&sl->pd);
            sl->pd_ready = true;
            sl->state = S_ASKING;
            return sl;
        }
    }
    return NULL;
}

static int lwip_dns_errno(err_t e)
{
    switch (e) {
    case ERR_ARG:   return -EINVAL;     /* empty, or 256 bytes or more */
    case ERR_VAL:   return -ENETDOWN;   /* no DNS server (yet) */
    case ERR_MEM:   return -EAGAIN;     /* lwIP's table is full */
    default:        return -EIO;
    }
}

/* Waits for sl's callback until the deadline; the lookup's result.
   Leaves sl free, or abandoned to the callback. */
static int wait_answer(struct slot *sl, ip_addr_t *ip)
{
    struct stack *st = &stacks[0];
    unsigned long f;
    int rc = PD_OK, err;

    for (;;) {
        f = stack_lock_take(st);
        if (sl->state == S_DONE || rc != PD_OK)
            break;
        stack_unlock(st, f);
        rc = pd_wait(&sl->pd, 'r');
    }
    if (sl->state == S_DONE) {
        err = sl->err;
        *ip = sl->addr;
        sl->state = S_FREE;
    } else {
        err = -ETIMEDOUT;
        sl->state = S_ABANDONED;
    }
    pd_set_deadline(&sl->pd, 0, 'r');
    stack_unlock(st, f);
    return err;
}

int sp_resolve(const char *name, char *addr, size_t len, uint64_t timeout_ns)
{
    struct stack *st = &stacks[0];
    struct slot *sl;
    unsigned long f;
    ip_addr_t ip;
    err_t e;
    int err = 0;

    if (len < 16)
        return -ENOSPC;
    if (!net_dev)
        return -ENETDOWN;
    f = stack_lock_take(st);
    if (!(sl = slot_take())) {
        stack_unlock(st, f);
        return -EAGAIN;
    }
    /* Before the query: its callback may come inside the call. */
    pd_prepare(&sl->pd, 'r');
    pd_set_deadline(&sl->pd, timeout_ns ? (int64_t)(sp_nanotime() +
                                                   timeout_ns) : 0, 'r');
    sl->udp_in = udp_in(st);
    e = st->lw->dns_gethostbyname(name, &ip, found, sl);
    if (e == ERR_INPROGRESS) {
        counts.queries++;
        stack_timers_check(st);     /* the retry timer */
    } else {
        err = e == ERR_OK ? 0 : lwip_dns_errno(e);
        sl->state = S_FREE;
        pd_set_deadline(&sl->pd, 0, 'r');
    }
    stack_unlock(st, f);
    if (e == ERR_INPROGRESS)
        err = wait_answer(sl, &ip);
    if (!err)
        ip4addr_ntoa_r(ip_2_ip4(&ip), addr, (int)len);
    return err;
}

int sp_dns_stats(struct sp_dns_stats *out)
{
    struct stack *st = &stacks[0];
    const ip_addr_t *server;
    unsigned long f;

    memset(out, 0, sizeof *out);
    if (!net_dev)
        return -ENETDOWN;
    f = stack_lock_take(st);
    *out = counts;
    server = st->lw->dns_getserver(0);
    ip4addr_ntoa_r(ip_2_ip4(server), out->server, sizeof out->server);
    stack_unlock(st, f);
    return 0;
}
