/*
 * stack.c - lwIP inside Spindle: the stack lock, lwIP's clock and timers,
 * the NIC as lwIP's network interface, and the poll function the
 * scheduler calls.
 *
 * lwIP runs with NO_SYS (no thread of its own) and is entered only under
 * stack_lock, a spinlock, from three places: a G using a socket, the poll
 * function (a core in the scheduler, or a timer or NIC interrupt on any
 * G's stack), and lwIP's timer (a Spindle timer function).  Every one of
 * them has interrupts off, so nothing in lwIP may block or park; lwIP's
 * callbacks only move data and hand back Gs to wake (net_ready).  Why not
 * lwIP's threaded mode (a tcpip thread and mailboxes): every socket call
 * would then be two G switches and two queue hand-offs, and every packet
 * a hop from the poller to that thread; here a packet goes from the
 * driver through TCP to the socket's buffer in one call, on the core that
 * polled, and the only switch is to the G it readies.
 *
 * Gs that callbacks ready are collected on `readied` (under stack_lock)
 * and released by whoever leaves the stack: stack_unlock readies them
 * from a G or a timer (goready), the poll function returns them to the
 * scheduler.  Whoever leaves the stack first delivers the packets lwIP
 * queued for the machine itself (its own address, 127.0.0.1).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <spindle/net.h>
#include "lwip/etharp.h"
#include "lwip/stats.h"
#include "lwip/init.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"
#include "arch.h"
#include "net.h"
#include "netimpl.h"
#include "netpoll.h"
#include "printk.h"
#include "sched.h"
#include "timers.h"
#include "netdev.h"

#define RX_BUDGET 64            /* frames per pass before re-checking */
#define ETH_MIN_FRAME 60        /* without the FCS */

struct spinlock stack_lock = SPINLOCK_INIT(LOCK_STACK);
struct netif net_if;
uint64_t net_rx_nomem;          /* frames dropped: no pbuf; stack_lock */
struct net_pstats net_pstats[MAXCPU];

static struct g *readied;       /* Gs to wake on leaving; stack_lock */
static struct timer lwip_timer;

/* How stack_lock is used, under it: every take counted, a take that found
   it held timed (the wait), and every 64th take's hold timed. */
static struct {
    uint64_t takes, contended, wait_cycles;
    uint64_t held_samples, held_cycles;
    uint64_t held_from;         /* arch_cycles() of a sampled take, or 0 */
} lockst;

u32_t sys_now(void)
{
    return (u32_t)(arch_cycles() / (arch_cycles_hz() / 1000));
}

uint32_t lwip_rand(void)
{
    return fastrand();
}

unsigned long stack_lock_take(void)
{
    unsigned long f;

    if (spin_is_locked(&stack_lock)) {
        uint64_t t = arch_cycles();

        f = spin_lock(&stack_lock);
        net_count(&lockst.contended, 1);
        net_count(&lockst.wait_cycles, arch_cycles() - t);
    } else {
        f = spin_lock(&stack_lock);
    }
    net_count(&lockst.takes, 1);
    lockst.held_from = lockst.takes % 64 ? 0 : arch_cycles();
    return f;
}

/* stack_lock's release, for every way out of the stack. */
static void stack_release(unsigned long f)
{
    if (lockst.held_from) {
        net_count(&lockst.held_samples, 1);
        net_count(&lockst.held_cycles, arch_cycles() - lockst.held_from);
    }
    spin_unlock(&stack_lock, f);
}

struct net_pstats *net_mine(void)
{
    return &net_pstats[this_cpu()->id];
}

void net_ready(struct g *gp)
{
    if (gp) {
        /* Parked, so its last M is settled: it ran before it waited. */
        struct m *last = gp->lastm;

        if (last && last->cpu != this_cpu())
            net_count(&net_mine()->xwake, 1);
        gp->schedlink = readied;
        readied = gp;
    }
}

/* Takes the Gs collected so far; under stack_lock. */
static struct g *take_readied(void)
{
    struct g *list = readied;

    readied = NULL;
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

void stack_unlock(unsigned long f)
{
    struct g *list;

    netif_poll_all();           /* what was sent to ourselves */
    list = take_readied();

    stack_release(f);
    ready_all(list);
}

/* ---- lwIP's timers on a Spindle timer ------------------------------ */

static uint64_t lwip_due;       /* when lwip_timer fires; stack_lock */

/* Arms lwip_timer ms from now; under stack_lock. */
static void lwip_arm(uint32_t ms)
{
    if (ms == SYS_TIMEOUTS_SLEEPTIME_INFINITE)
        ms = 1000;              /* nothing pending: look again later */
    lwip_due = arch_cycles() + (uint64_t)(ms ? ms : 1) *
                               (arch_cycles_hz() / 1000);
    timer_reset(&lwip_timer, lwip_due, 0);
}

static void lwip_tick(void *arg)
{
    unsigned long f = stack_lock_take();

    if (net_dev && net_dev->ops->tx_watchdog)
        net_dev->ops->tx_watchdog(net_dev);
    sys_check_timeouts();
    lwip_arm(sys_timeouts_sleeptime());
    stack_unlock(f);
}

void stack_timers_check(void)
{
    uint32_t ms = sys_timeouts_sleeptime();

    if (ms != SYS_TIMEOUTS_SLEEPTIME_INFINITE &&
        arch_cycles() + (uint64_t)ms * (arch_cycles_hz() / 1000) < lwip_due)
        lwip_arm(ms);
}

/* ---- The NIC as lwIP's netif ---------------------------------------- */

/* A frame goes out on the sending core's own queue (core c on queue c;
   a core beyond the NIC's queues shares one): no core shares a TX queue
   with another where the NIC has one per core. */
static err_t linkoutput(struct netif *nif, struct pbuf *p)
{
    int q = this_cpu()->id % net_dev->nqueues;
    uint8_t *buf;

    if (p->tot_len > NETDEV_FRAME_MAX)
        return ERR_BUF;
    buf = net_dev->ops->tx_buf(net_dev, q);
    if (!buf)
        return ERR_MEM;         /* TCP retransmits; UDP is best effort */
    pbuf_copy_partial(p, buf, p->tot_len, 0);
    net_dev->ops->tx_send(net_dev, q, buf, p->tot_len);
    net_count(&net_mine()->tx, 1);
    return ERR_OK;
}

/*
 * A received frame into lwIP.  Frames shorter than Ethernet's minimum are
 * padded with zeros to it, as on the wire: lwIP reads a few header fields
 * (ARP's, IP's total length) before it checks the length, and zeros there
 * make it drop the frame instead of reading a previous frame's bytes.
 */
static void deliver(void *arg, const uint8_t *frame, uint32_t len)
{
    u16_t n = len < ETH_MIN_FRAME ? ETH_MIN_FRAME : (u16_t)len;
    struct pbuf *p = pbuf_alloc(PBUF_RAW, n, PBUF_POOL);
    struct net_pstats *ps = net_mine();
    int q = (int)(intptr_t)arg;

    net_count(&ps->rx, 1);
    if (q != this_cpu()->id)
        net_count(&ps->away, 1);   /* polled by a core not the queue's */

    if (!p) {
        net_rx_nomem++;
        return;
    }
    pbuf_take(p, frame, (u16_t)len);
    if (len < n)                /* one pbuf: a pool buffer holds a frame */
        memset((uint8_t *)p->payload + len, 0, n - len);
    if (net_if.input(p, &net_if) != ERR_OK)
        pbuf_free(p);
}

static err_t nif_init(struct netif *nif)
{
    nif->name[0] = 'e';
    nif->name[1] = 'n';
    nif->mtu = 1500;
    nif->hwaddr_len = ETH_HWADDR_LEN;
    memcpy(nif->hwaddr, net_dev->mac, ETH_HWADDR_LEN);
    nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP |
                 NETIF_FLAG_ETHERNET;
    nif->output = etharp_output;
    nif->linkoutput = linkoutput;
    return ERR_OK;
}

/* Drains queue q into lwIP; under stack_lock. */
static void drain(int q)
{
    const struct netdev_ops *ops = net_dev->ops;
    void *arg = (void *)(intptr_t)q;

    do {
        while (ops->rx(net_dev, q, RX_BUDGET, deliver, arg) == RX_BUDGET)
            ;
    } while (ops->rx_arm(net_dev, q));
}

/* The scheduler's poll function (netpoll.h): interrupts off. */
static struct g *poll(int q)
{
    unsigned long f = stack_lock_take();
    struct g *list;

    drain(q);
    netif_poll_all();
    list = take_readied();
    stack_release(f);
    return list;
}

void stack_nic_irq(void *arg, int q)
{
    netpoll_interrupt(q);
}

static void kick(void *arg)
{
    netpoll_kick();
}

void stack_start(void (*status)(struct netif *nif))
{
    unsigned long f;

    lwip_init();
    f = stack_lock_take();
    netif_add(&net_if, NULL, NULL, NULL, NULL, nif_init, ethernet_input);
    netif_set_status_callback(&net_if, status);
    netif_set_default(&net_if);
    netif_set_up(&net_if);
    if (net_dev->ops->link_up(net_dev))
        netif_set_link_up(&net_if);
    stack_unlock(f);
    timer_init(&lwip_timer, lwip_tick, NULL);
    f = stack_lock_take();
    lwip_due = arch_cycles();
    timer_start(&lwip_timer, lwip_due, 0);
    stack_unlock(f);
    netpoll_init(poll, net_dev->nqueues);
    smp_call_all(kick, NULL);   /* frames that came before the poller */
}

static int report_cores(char *buf, size_t len);

int sp_net_report(char *buf, size_t len)
{
    unsigned long f;
    int n;

    if (!net_dev)
        return snprintf(buf, len, "net: no NIC");
    f = stack_lock_take();
    n = net_dev->ops->report(net_dev, buf, len);
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - n,
            "\nnet: stack dropped: no-buffer %llu link %u ip %u "
            "(checksum %u, length %u) tcp %u (checksum %u) udp %u",
            (unsigned long long)net_rx_nomem,
            (unsigned)lwip_stats.link.drop, (unsigned)lwip_stats.ip.drop,
            (unsigned)lwip_stats.ip.chkerr, (unsigned)lwip_stats.ip.lenerr,
            (unsigned)lwip_stats.tcp.drop, (unsigned)lwip_stats.tcp.chkerr,
            (unsigned)lwip_stats.udp.drop);
    stack_unlock(f);
    if (n >= 0 && (size_t)n < len)
        n += report_cores(buf + n, len - n);
    return n;
}

int sp_net_stats(struct sp_net_stats *st, struct sp_net_stats *per_core,
                 int ncores)
{
    uint64_t ns_per_kcycle = 1000000000000ULL / arch_cycles_hz(), held;

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
    st->lock_takes = __atomic_load_n(&lockst.takes, __ATOMIC_RELAXED);
    st->lock_contended = __atomic_load_n(&lockst.contended, __ATOMIC_RELAXED);
    st->lock_wait_ns = __atomic_load_n(&lockst.wait_cycles, __ATOMIC_RELAXED) *
                       ns_per_kcycle / 1000;
    held = __atomic_load_n(&lockst.held_samples, __ATOMIC_RELAXED);
    if (held)
        st->lock_hold_ns = __atomic_load_n(&lockst.held_cycles,
                                           __ATOMIC_RELAXED) *
                           ns_per_kcycle / 1000 / held;
    return 0;
}

/* sp_net_report's last lines: where the work ran, and the stack lock. */
static int report_cores(char *buf, size_t len)
{
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
            "net: stack lock: %llu takes, %llu found it held (waited "
            "%llu us in all), mean hold %llu ns",
            st.nqueues, st.nqueues == 1 ? "" : "s", st.rss ? " with RSS" : "",
            (unsigned long long)st.away, (unsigned long long)st.xwake,
            (unsigned long long)st.split, (unsigned long long)st.misdial,
            (unsigned long long)st.rescues, (unsigned long long)st.lock_takes,
            (unsigned long long)st.lock_contended,
            (unsigned long long)(st.lock_wait_ns / 1000),
            (unsigned long long)st.lock_hold_ns);
    return n;
}
