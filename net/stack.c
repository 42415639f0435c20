/*
 * stack.c - lwIP inside Spindle: the stacks (one copy of lwIP per NIC
 * queue, netimpl.h), their locks, lwIP's clock and timers, the NIC as
 * each stack's network interface, and the poll function the scheduler
 * calls.
 *
 * lwIP runs with NO_SYS (no thread of its own) and a stack is entered
 * only under its lock, a spinlock, from three places: a G using one of
 * its sockets, the poll function (a core in the scheduler, or a timer or
 * NIC interrupt on any G's stack), and the stack's lwIP timer (a Spindle
 * timer function).  Every one of them has interrupts off, so nothing in
 * lwIP may block or park; lwIP's callbacks only move data and hand back
 * Gs to wake (net_ready).  Why not lwIP's threaded mode (a tcpip thread
 * and mailboxes): every socket call would then be two G switches and two
 * queue hand-offs, and every packet a hop from the poller to that
 * thread; here a packet goes from the driver through TCP to the socket's
 * buffer in one call, on the core that polled, and the only switch is to
 * the G it readies.
 *
 * Gs that callbacks ready are collected on the stack's `readied` and
 * released by whoever leaves it: stack_unlock readies them from a G or a
 * timer (goready), the poll function returns them to the scheduler.
 * Whoever leaves a stack first delivers the packets lwIP queued for the
 * machine itself (its own address, 127.0.0.1).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <spindle/net.h>
#include "arch/arch.h"
#include "kernel/printk.h"
#include "net/lwip/netguard.h"
#include "net/net.h"
#include "net/netdev.h"
#include "net/netimpl.h"
#include "sched/netpoll.h"
#include "sched/sched.h"
#include "sched/timers.h"

#define RX_BUDGET 64            /* frames per pass before re-checking */
#define ETH_MIN_FRAME 60        /* without the FCS */
#define ETHTYPE_ARP_BE 0x0608   /* 0x0806 as read from the wire */
#define ARP_REPLY_BE 0x0200     /* opcode 2 as read from the wire */

struct stack stacks[NET_STACKS];
int net_nstacks = 1;
struct net_pstats net_pstats[MAXCPU];

u32_t sys_now(void)
{
    return (u32_t)(arch_cycles() / (arch_cycles_hz() / 1000));
}

uint32_t lwip_rand(void)
{
    return fastrand();
}

unsigned long stack_lock_take(struct stack *st)
{
    struct lockstats *ls = &st->ls;
    unsigned long f;

    if (spin_is_locked(&st->lock)) {
        uint64_t t = arch_cycles();

        f = spin_lock(&st->lock);
        net_count(&ls->contended, 1);
        net_count(&ls->wait_cycles, arch_cycles() - t);
    } else {
        f = spin_lock(&st->lock);
    }
    net_count(&ls->takes, 1);
    if (st != stack_mine())
        net_count(&ls->foreign, 1);
    ls->held_from = ls->takes % 64 ? 0 : arch_cycles();
    return f;
}

/* The release of st's lock, for every way out of the stack. */
static void stack_release(struct stack *st, unsigned long f)
{
    struct lockstats *ls = &st->ls;

    if (ls->held_from) {
        net_count(&ls->held_samples, 1);
        net_count(&ls->held_cycles, arch_cycles() - ls->held_from);
    }
    spin_unlock(&st->lock, f);
}

struct net_pstats *net_mine(void)
{
    return &net_pstats[this_cpu()->id];
}

int net_my_queue(void)
{
    int q = netpoll_queue();

    return q >= 0 ? q : this_cpu()->id % net_dev->nqueues;
}

struct stack *stack_mine(void)
{
    return stack_of_queue(net_my_queue());
}

void net_ready(struct stack *st, struct g *gp)
{
    if (gp) {
        /* Parked, so its last M is settled: it ran before it waited. */
        struct m *last = gp->lastm;

        if (last && last->cpu != this_cpu())
            net_count(&net_mine()->xwake, 1);
        gp->schedlink = st->readied;
        st->readied = gp;
    }
}

/* Takes the Gs collected so far; under st's lock. */
static struct g *take_readied(struct stack *st)
{
    struct g *list = st->readied;

    st->readied = NULL;
    return list;
}

static void ready_all(struct g *list)
{
    while (list) {
        struct g *gp = list;

        list = gp->schedlink;
        goready(gp);
    }
}

void stack_unlock(struct stack *st, unsigned long f)
{
    struct g *list;

    st->lw->netif_poll_all();   /* what was sent to ourselves */
    list = take_readied(st);

    stack_release(st, f);
    ready_all(list);
}

/* ---- lwIP's timers on a Spindle timer ------------------------------ */

/* Arms st's timer ms from now; under st's lock. */
static void lwip_arm(struct stack *st, uint32_t ms)
{
    if (ms == SYS_TIMEOUTS_SLEEPTIME_INFINITE)
        ms = 1000;              /* nothing pending: look again later */
    st->due = arch_cycles() + (uint64_t)(ms ? ms : 1) *
                              (arch_cycles_hz() / 1000);
    timer_reset(&st->timer, st->due, 0);
}

/* The TX queues st sends on: its own with a stack per queue, every one
   with a single stack. */
#define for_each_txq(st, q) \
    for (int q = (st)->index; q < net_dev->nqueues; q += net_nstacks)

static void lwip_tick(void *arg)
{
    struct stack *st = arg;
    unsigned long f = stack_lock_take(st);

    if (net_dev->ops->tx_watchdog)
        for_each_txq(st, q)
            net_dev->ops->tx_watchdog(net_dev, q);
    st->lw->sys_check_timeouts();
    lwip_arm(st, st->lw->sys_timeouts_sleeptime());
    stack_unlock(st, f);
}

void stack_timers_check(struct stack *st)
{
    uint32_t ms = st->lw->sys_timeouts_sleeptime();

    if (ms != SYS_TIMEOUTS_SLEEPTIME_INFINITE &&
        arch_cycles() + (uint64_t)ms * (arch_cycles_hz() / 1000) < st->due)
        lwip_arm(st, ms);
}

/* ---- The NIC as lwIP's netif ---------------------------------------- */

static struct stack *stack_of_netif(struct netif *nif)
{
    return (struct stack *)((char *)nif - offsetof(struct stack, nif));
}

/* A stack per queue sends on its own queue, so its lock is the TX
   queue's; a single stack sends on the sending core's queue, so that no
   core shares a TX queue with another where the NIC has one per core. */
static err_t linkoutput(struct netif *nif, struct pbuf *p)
{
    struct stack *st = stack_of_netif(nif);
    int q = net_nstacks > 1 ? st->index : net_my_queue();
    uint8_t *buf;

    if (p->tot_len > NETDEV_FRAME_MAX)
        return ERR_BUF;
    buf = net_dev->ops->tx_buf(net_dev, q);
    if (!buf)
        return ERR_MEM;         /* TCP retransmits; UDP is best effort */
    st->lw->pbuf_copy_partial(p, buf, p->tot_len, 0);
    net_dev->ops->tx_send(net_dev, q, buf, p->tot_len);
    net_count(&net_mine()->tx, 1);
    return ERR_OK;
}

/*
 * A frame into st's lwIP; under st's lock.  Frames shorter than
 * Ethernet's minimum are padded with zeros to it, as on the wire: lwIP
 * reads a few header fields (ARP's, IP's total length) before it checks
 * the length, and zeros there make it drop the frame instead of reading
 * a previous frame's bytes.
 */
static void input(struct stack *st, const uint8_t *frame, uint32_t len)
{
    u16_t n = len < ETH_MIN_FRAME ? ETH_MIN_FRAME : (u16_t)len;
    struct pbuf *p = st->lw->pbuf_alloc(PBUF_RAW, n, PBUF_POOL);

    if (!p) {
        net_count(&st->rx_nomem, 1);
        return;
    }
    st->lw->pbuf_take(p, frame, (u16_t)len);
    if (len < n)                /* one pbuf: a pool buffer holds a frame */
        memset((uint8_t *)p->payload + len, 0, n - len);
    if (st->nif.input(p, &st->nif) != ERR_OK)
        st->lw->pbuf_free(p);
}

/* True for an ARP reply: what every stack learns from (each has its own
   table and asks on its own queue, but answers come unhashed, to 0). */
static bool arp_reply(const uint8_t *frame, uint32_t len)
{
    uint16_t type, op;

    if (len < 22)
        return false;
    memcpy(&type, frame + 12, 2);
    memcpy(&op, frame + 20, 2);
    return type == ETHTYPE_ARP_BE && op == ARP_REPLY_BE;
}

/* What drain hands deliver: the drained queue's stack, and whether the
   polling core is another than the queue's (a stranded queue's rescue). */
struct rxq {
    struct stack *st;
    bool away;
};

/* A frame received on a queue, into its stack, whose lock the caller
   holds; stack 0 passes ARP replies on to the others. */
static void deliver(void *arg, const uint8_t *frame, uint32_t len)
{
    const struct rxq *rq = arg;
    struct stack *st = rq->st;
    struct net_pstats *ps = net_mine();

    net_count(&ps->rx, 1);
    if (rq->away)
        net_count(&ps->away, 1);
    input(st, frame, len);
    if (st->index == 0 && net_nstacks > 1 && arp_reply(frame, len)) {
        /* ARP readies no G and sends only to the NIC: nothing for
           stack_unlock to do, and this may be an interrupt. */
        for (int i = 1; i < net_nstacks; i++) {
            unsigned long f = stack_lock_take(&stacks[i]);

            input(&stacks[i], frame, len);
            stack_release(&stacks[i], f);
        }
    }
}

static err_t nif_init(struct netif *nif)
{
    struct stack *st = stack_of_netif(nif);

    nif->name[0] = 'e';
    nif->name[1] = 'n';
    nif->mtu = 1500;
    nif->hwaddr_len = ETH_HWADDR_LEN;
    memcpy(nif->hwaddr, net_dev->mac, ETH_HWADDR_LEN);
    nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP |
                 NETIF_FLAG_ETHERNET;
    nif->output = st->lw->etharp_output;
    nif->linkoutput = linkoutput;
    return ERR_OK;
}

/* Drains queue q into st, its stack; under st's lock. */
static void drain(struct stack *st, int q)
{
    const struct netdev_ops *ops = net_dev->ops;
    struct rxq rq = { st, q != netpoll_queue() };

    do {
        while (ops->rx(net_dev, q, RX_BUDGET, deliver, &rq) == RX_BUDGET)
            ;
    } while (ops->rx_arm(net_dev, q));
}

/* The scheduler's poll function (netpoll.h): interrupts off. */
static struct g *poll(int q)
{
    struct stack *st = stack_of_queue(q);
    unsigned long f = stack_lock_take(st);
    struct g *list;

    drain(st, q);
    st->lw->netif_poll_all();
    list = take_readied(st);
    stack_release(st, f);
    return list;
}

void net_nic_irq(void *arg, int q)
{
    netpoll_interrupt(q);
}

static void kick(void *arg)
{
    netpoll_kick();
}

static void (*status_fn)(struct netif *nif);

/* Stack 0's address changed (DHCP, or ip= on the command line): every
   other stack takes it.  Under stack 0's lock. */
static void status(struct netif *nif)
{
    for (int i = 1; i < net_nstacks; i++) {
        struct stack *st = &stacks[i];
        unsigned long f = stack_lock_take(st);

        st->lw->netif_set_addr(&st->nif, netif_ip4_addr(nif),
                               netif_ip4_netmask(nif), netif_ip4_gw(nif));
        stack_release(st, f);   /* as deliver's ARP: no G, no loopback */
    }
    status_fn(nif);
}

/* Stack i's lwIP, its interface up and its timer started. */
static void start_one(int i)
{
    struct stack *st = &stacks[i];
    unsigned long f;

    st->index = i;
    st->lw = &lwip_copies[i];
    st->lock = (struct spinlock)SPINLOCK_INIT(LOCK_STACK);
    st->lw->lwip_init();
    timer_init(&st->timer, lwip_tick, st);
    f = stack_lock_take(st);
    st->lw->netif_add(&st->nif, NULL, NULL, NULL, NULL, nif_init,
                      st->lw->ethernet_input);
    st->lw->netif_set_default(&st->nif);
    st->lw->netif_set_up(&st->nif);
    if (net_dev->ops->link_up(net_dev))
        st->lw->netif_set_link_up(&st->nif);
    st->due = arch_cycles();
    timer_start(&st->timer, st->due, 0);
    stack_unlock(st, f);
}

void stack_start(void (*status_cb)(struct netif *nif))
{
    unsigned long f;

    status_fn = status_cb;
    net_nstacks = net_dev->rss_table ? net_dev->nqueues : 1;
    if (net_nstacks > NET_STACKS)
        panic("net: %d queues with RSS, more than the %d stacks built",
              net_nstacks, NET_STACKS);
    for (int i = 0; i < net_nstacks; i++)
        start_one(i);
    f = stack_lock_take(&stacks[0]);
    stacks[0].lw->netif_set_status_callback(&stacks[0].nif, status);
    stack_unlock(&stacks[0], f);
    netpoll_init(poll, net_dev->nqueues);
    smp_call_all(kick, NULL);   /* frames that came before the poller */
}

static int report_cores(char *buf, size_t len);

/* lwiphooks.h's refusals, all stacks together (netguard.h). */
static uint64_t attack_counts[NET_ATTACK_COUNTERS];

void net_attack_count(int what)
{
    if (what < 0 || what >= NET_ATTACK_COUNTERS)
        panic("net_attack_count: no counter %d", what);
    __atomic_fetch_add(&attack_counts[what], 1, __ATOMIC_RELAXED);
}

int sp_net_report(char *buf, size_t len)
{
    unsigned long f[NET_STACKS];
    uint64_t nomem = 0, short_socks = 0;
    struct stats_ t = { 0 };
    unsigned long pcbs = 0, pcbs_max = 0, pcbs_short = 0, pbufs = 0;
    unsigned long heap = 0;
    int n, socks = 0;

    if (!net_dev)
        return snprintf(buf, len, "net: no NIC");
    for (int i = 0; i < net_nstacks; i++)     /* in index order */
        f[i] = stack_lock_take(&stacks[i]);
    n = net_dev->ops->report(net_dev, buf, len);
    for (int i = 0; i < net_nstacks; i++) {
        const struct stats_ *s = stacks[i].lw->stats;

        nomem += stacks[i].rx_nomem;
        t.link.drop += s->link.drop;
        t.ip.drop += s->ip.drop;
        t.ip.chkerr += s->ip.chkerr;
        t.ip.lenerr += s->ip.lenerr;
        t.tcp.drop += s->tcp.drop;
        t.tcp.chkerr += s->tcp.chkerr;
        t.udp.drop += s->udp.drop;
        socks += stacks[i].socks_used;
        short_socks += stacks[i].socks_short;
        pcbs += s->memp[MEMP_TCP_PCB]->used;
        pcbs_max += s->memp[MEMP_TCP_PCB]->max;
        pcbs_short += s->memp[MEMP_TCP_PCB]->err;
        pbufs += s->memp[MEMP_PBUF_POOL]->used;
        heap += s->mem.used;
    }
    for (int i = net_nstacks - 1; i >= 0; i--)
        stack_unlock(&stacks[i], f[i]);
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n,
            "\nnet: stack dropped: no-buffer %llu link %u ip %u "
            "(checksum %u, length %u) tcp %u (checksum %u) udp %u",
            (unsigned long long)nomem,
            (unsigned)t.link.drop, (unsigned)t.ip.drop,
            (unsigned)t.ip.chkerr, (unsigned)t.ip.lenerr,
            (unsigned)t.tcp.drop, (unsigned)t.tcp.chkerr,
            (unsigned)t.udp.drop);
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n,
            "\nnet: in use: sockets %d (asked of an empty pool %llu times), "
            "TCP pcbs %lu of %d a stack, TIME_WAIT's included (most %lu, "
            "pool empty %lu times), receive pbufs %lu, heap %lu bytes",
            socks, (unsigned long long)short_socks, pcbs, MEMP_NUM_TCP_PCB,
            pcbs_max, pcbs_short, pbufs, heap);
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n,
            "\nnet: refused: half-open dropped %llu (revived %llu), "
            "ack out-of-range %llu, mss raised %llu, syn queue-full %llu, "
            "syn unresolved %llu, challenge-ack capped %llu",
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_HALF_OPEN_DROPPED], __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_HALF_OPEN_REVIVED], __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_ACK_OUT_OF_RANGE], __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_MSS_RAISED], __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_SYN_QUEUE_FULL], __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_SYN_UNRESOLVED], __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(
                &attack_counts[NET_CHALLENGE_ACK_CAPPED], __ATOMIC_RELAXED));
    if (n >= 0 && (size_t)n < len)
        n += report_cores(buf + n, len - n);
    return n;
}

static uint64_t ld(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

int sp_net_stats(struct sp_net_stats *st, struct sp_net_stats *per_core,
                 int ncores)
{
    uint64_t ns_per_kcycle = 1000000000000ULL / arch_cycles_hz();
    uint64_t wait = 0, held = 0, held_cycles = 0;

    memset(st, 0, sizeof *st);
    if (per_core)
        memset(per_core, 0, (size_t)ncores * sizeof *per_core);
    if (!net_dev)
        return -ENETDOWN;
    st->nqueues = net_dev->nqueues;
    st->rss = net_dev->rss_table != NULL;
    for (int c = 0; c < ncpu; c++) {
        const struct net_pstats *ps = &net_pstats[c];
        uint64_t rx = __atomic_load_n(&ps->rx, __ATOMIC_RELAXED);
        uint64_t tx = __atomic_load_n(&ps->tx, __ATOMIC_RELAXED);
        uint64_t away = __atomic_load_n(&ps->away, __ATOMIC_RELAXED);
        uint64_t xwake = __atomic_load_n(&ps->xwake, __ATOMIC_RELAXED);

        st->rx += rx;
        st->tx += tx;
        st->away += away;
        st->xwake += xwake;
        st->split += __atomic_load_n(&ps->split, __ATOMIC_RELAXED);
        st->misdial += __atomic_load_n(&ps->misdial, __ATOMIC_RELAXED);
        if (per_core && c < ncores) {
            per_core[c].rx = rx;
            per_core[c].tx = tx;
            per_core[c].away = away;
            per_core[c].xwake = xwake;
        }
    }
    st->rescues = __atomic_load_n(&netpoll_rescues, __ATOMIC_RELAXED);
    st->stacks = net_nstacks;
    for (int i = 0; i < net_nstacks; i++) {
        const struct lockstats *ls = &stacks[i].ls;

        st->lock_takes += ld(&ls->takes);
        st->lock_contended += ld(&ls->contended);
        st->lock_foreign += ld(&ls->foreign);
        wait += ld(&ls->wait_cycles);
        held += ld(&ls->held_samples);
        held_cycles += ld(&ls->held_cycles);
    }
    st->lock_wait_ns = wait * ns_per_kcycle / 1000;
    if (held)
        st->lock_hold_ns = held_cycles * ns_per_kcycle / 1000 / held;
    return 0;
}

/* sp_net_report's last lines: where the work ran, and the stacks'
   locks. */
static int report_cores(char *buf, size_t len)
{
    uint64_t ns_per_kcycle = 1000000000000ULL / arch_cycles_hz();
    struct sp_net_stats st, pc[MAXCPU];
    int n;

    sp_net_stats(&st, pc, MAXCPU);
    n = snprintf(buf, len, "\nnet: by core (rx/tx/away/xwake):");
    for (int c = 0; c < ncpu && n >= 0 && (size_t)n < len; c++)
        n += snprintf(buf + n, len - n, " c%d %llu/%llu/%llu/%llu", c,
                      (unsigned long long)pc[c].rx,
                      (unsigned long long)pc[c].tx,
                      (unsigned long long)pc[c].away,
                      (unsigned long long)pc[c].xwake);
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n,
            "\nnet: %d queue pair%s%s: away %llu, cross-core wakeups %llu, "
            "split segments %llu, misdialled %llu, stranded-queue polls %llu\n"
            "net: stack lock (%d stack%s): %llu takes, %llu found it held "
            "(waited %llu us in all), %llu by a core of another stack, "
            "mean hold %llu ns",
            st.nqueues, st.nqueues == 1 ? "" : "s", st.rss ? " with RSS" : "",
            (unsigned long long)st.away, (unsigned long long)st.xwake,
            (unsigned long long)st.split, (unsigned long long)st.misdial,
            (unsigned long long)st.rescues, st.stacks,
            st.stacks == 1 ? "" : "s", (unsigned long long)st.lock_takes,
            (unsigned long long)st.lock_contended,
            (unsigned long long)(st.lock_wait_ns / 1000),
            (unsigned long long)st.lock_foreign,
            (unsigned long long)st.lock_hold_ns);
    for (int i = 0; i < net_nstacks && net_nstacks > 1 && n >= 0 &&
                    (size_t)n < len; i++) {
        const struct lockstats *ls = &stacks[i].ls;

        n += snprintf(buf + n, len - n, "%s s%d %llu/%llu/%llu us",
                      i ? "" : "; takes/held/waited by stack:", i,
                      (unsigned long long)ld(&ls->takes),
                      (unsigned long long)ld(&ls->contended),
                      (unsigned long long)(ld(&ls->wait_cycles) *
                                           ns_per_kcycle / 1000000));
    }
    return n;
}
