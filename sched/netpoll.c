/*
 * netpoll.c - when the scheduler polls the network (see netpoll.h).
 *
 * Go's runtime polls the network in three places: findrunnable, without
 * blocking, when a P has nothing else to run; the last M to go idle,
 * blocking until the earliest timer; and sysmon, when nobody polled for
 * 10 ms, so a machine busy with CPU-bound Gs still notices packets.  Here
 * there is no thread to block in the poller and no sysmon: an idle core
 * polls before it halts and arms its timer for the next poll, and a busy
 * core's timer interrupt does sysmon's part.  Polls happen only while a G
 * waits for the network (Go's netpollAnyWaiters), so a machine without
 * network traffic pays one atomic load per schedule.
 *
 * Queue q of the NIC (net/netdev.h) is polled by core q alone,
 * where its interrupt is aimed: a queue's packets, and the Gs they ready,
 * stay on one core, and a connection (which RSS keeps on one queue) is
 * handled on one core from its first packet to its last.  Cores beyond
 * the NIC's queues poll nothing (with one queue, only the boot core
 * polls); the Gs a poll readies reach them by stealing.  Unlike Go, where
 * any P polls the one poller, no idle core polls another core's queue:
 * that would split the connections of a busy core's queue over two.  The
 * one exception is a queue stranded for 50 ms (stranded()), whose core is
 * not running at all.
 * A queue is polled by one core at a time even so (its `polling`, a
 * try-lock: the interrupt of a queue whose core is in the middle of a
 * poll), so the driver's poll function is never re-entered for a queue.
 * No lock order: `polling` is never waited for.
 *
 * A device interrupt polls at once, whether or not a G waits
 * (netpoll_interrupt): the stack has work to do on every frame (ARP,
 * acknowledgements, segments for a socket nobody reads yet), and an
 * idle machine learns of a packet without waiting for a timer.
 */
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "sched/exectrace.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"

/* One per NIC queue, each on its own cache line: a queue's poller
   touches only its own. */
struct pollq {
    _Alignas(64) int polling;       /* 1 while a core polls it; atomic */
    int again;                      /* news came during a poll; atomic */
    uint64_t lastpoll;              /* arch_cycles() of the last poll */
};

static struct g *(*poller)(int q);  /* atomic: set by the driver */
static int nqueues = 1;             /* queues of poller; set with it */
int netpoll_nwait;                  /* Gs waiting for the network; atomic */
uint64_t netpoll_rescues;           /* polls of a stranded queue; atomic */
static struct pollq pq[MAXCPU];

/* The queue this core polls, or -1: core q polls queue q, and a core
   beyond the NIC's queues polls none. */
static inline int homeq(void)
{
    int c = this_cpu()->id;

    return c < __atomic_load_n(&nqueues, __ATOMIC_RELAXED) ? c : -1;
}

int netpoll_queue(void)
{
    return homeq();
}

void netpoll_init(struct g *(*poll)(int q), int n)
{
    if (n < 1 || n > ncpu)
        panic("netpoll_init: %d queues for %d cores", n, ncpu);
    /* Seq-cst stores, then loads: either a poll that is about to start
       takes its queue's `polling` after these loads and then reads the
       new function, or the loads see it polling and wait. */
    __atomic_store_n(&poller, NULL, __ATOMIC_SEQ_CST);
    for (int q = 0; q < MAXCPU; q++)
        while (__atomic_load_n(&pq[q].polling, __ATOMIC_SEQ_CST))
            arch_cpu_relax();
    __atomic_store_n(&nqueues, n, __ATOMIC_SEQ_CST);
    for (int q = 0; q < n; q++)     /* a new poller's queues are fresh */
        __atomic_store_n(&pq[q].lastpoll, arch_cycles(), __ATOMIC_RELAXED);
    __atomic_store_n(&poller, poll, __ATOMIC_SEQ_CST);
}

static uint64_t waitstart;      /* arch_cycles() when the first G of the
                                   latest run of waiters came; atomic */

void netpoll_wait_add(int delta)
{
    int n = __atomic_add_fetch(&netpoll_nwait, delta, __ATOMIC_SEQ_CST);

    if (n < 0)
        panic("netpoll_wait_add: more Gs stopped waiting than started");
    if (delta > 0 && n == delta)
        __atomic_store_n(&waitstart, arch_cycles(), __ATOMIC_RELAXED);
}

static uint64_t period(void)
{
    return arch_cycles_hz() / 1000 * NETPOLL_PERIOD_MS;
}

/* Puts list in front of *head. */
static void glist_push(struct g **head, struct g *list)
{
    struct g *tail = list;

    while (tail->schedlink)
        tail = tail->schedlink;
    tail->schedlink = *head;
    *head = list;
}

/*
 * One poll of queue q, holding its `polling`.  A core that finds
 * `polling` taken sets `again` instead of waiting (netpoll_interrupt),
 * and the holder polls once more before it lets go: news an interrupt
 * brought while another core was in the middle of a poll is never left
 * for the next period.  The seq-cst exchange of `again` pairs with the
 * store in netpoll_interrupt, made before its own try of `polling`.
 */
static struct g *poll_locked(int q)
{
    struct g *(*poll)(int), *list = NULL, *more;

    /* Read again while holding `polling`, which netpoll_init waits for:
       a function it replaced is never called after it returned. */
    poll = __atomic_load_n(&poller, __ATOMIC_SEQ_CST);
    if (!poll)
        return NULL;
    do {
        __atomic_store_n(&pq[q].again, 0, __ATOMIC_SEQ_CST);
        if ((more = poll(q)))
            glist_push(&list, more);
    } while (__atomic_load_n(&pq[q].again, __ATOMIC_SEQ_CST));
    __atomic_store_n(&pq[q].lastpoll, arch_cycles(), __ATOMIC_RELAXED);
    return list;
}

static bool try_polling(int q)
{
    int idle = 0;

    return __atomic_compare_exchange_n(&pq[q].polling, &idle, 1, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/*
 * A queue whose core has not polled it for NETPOLL_STRANDED_PERIODS
 * periods: that core is not running at all (a vCPU the host stopped, a
 * G that keeps interrupts off), and sysmon's rule would fail for the
 * queue's Gs (the periods count from the later of its last poll and
 * the moment some G began to wait).  Another core then polls it once - a busy one from its
 * timer interrupt (netpoll_check), a core without a queue from its idle
 * loop (netpoll) - as Go's sysmon polls for whichever P: the queue's
 * connections are split for that poll, which the stack counts.  Returns
 * the first such queue, -1 if none; *next gets when the next one may be
 * stranded if none is now.
 */
#define NETPOLL_STRANDED_PERIODS 5

static int stranded(uint64_t now, uint64_t *next)
{
    int n = __atomic_load_n(&nqueues, __ATOMIC_RELAXED);
    uint64_t limit = NETPOLL_STRANDED_PERIODS * period(), first = UINT64_MAX;
    /* Nobody polls while no G waits: a queue is late only from then on. */
    uint64_t since = __atomic_load_n(&waitstart, __ATOMIC_RELAXED);

    for (int q = 0; q < n; q++) {
        uint64_t last = __atomic_load_n(&pq[q].lastpoll, __ATOMIC_RELAXED);
        uint64_t t = (last > since ? last : since) + limit;

        if (now > t)
            return q;
        if (t < first)
            first = t;
    }
    if (next)
        *next = first;
    return -1;
}

/* Polls queue q unless another core is at it; a poll of a queue not this
   core's is a stranded queue's rescue, and counted. */
static struct g *poll_queue(int q)
{
    struct g *list;

    if (!try_polling(q))
        return NULL;
    if (q != homeq())
        __atomic_add_fetch(&netpoll_rescues, 1, __ATOMIC_RELAXED);
    list = poll_locked(q);
    __atomic_store_n(&pq[q].polling, 0, __ATOMIC_RELEASE);
    return list;
}

struct g *netpoll(void)
{
    int q;

    /* Cheap checks first: every findrunnable comes here. */
    if (!__atomic_load_n(&poller, __ATOMIC_RELAXED) || !netpoll_waiters())
        return NULL;
    assert(!arch_irqs_enabled());
    q = homeq();
    if (q < 0 && (q = stranded(arch_cycles(), NULL)) < 0)
        return NULL;
    return poll_queue(q);
}

void netpoll_ready(struct p *p, struct g *list)
{
    uint64_t now = arch_cycles();

    while (list) {
        struct g *gp = list;

        list = gp->schedlink;
        __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
        gp->netready = now;
        TRACE(TEV_READY_NET, gp->goid, 0);
        wakeq_put(p, gp);
    }
    wakep();
}

/*
 * A core that idles (its P on the idle list) keeps what its own interrupt
 * polled in m->polled and runs it when the halt returns, as Go's last M
 * runs the first G its blocking netpoll returned: putting it anywhere
 * else would wake a second core for the G while this one, awake already,
 * halts again.  A busy core keeps the Gs on its own P (netpoll_ready): the
 * queue's packets, and the Gs they wake, stay on the queue's core.
 */
void netpoll_interrupt(int q)
{
    struct m *m = this_cpu()->m;
    struct g *list;

    assert(!arch_irqs_enabled());
    if (!__atomic_load_n(&poller, __ATOMIC_RELAXED) ||
        q >= __atomic_load_n(&nqueues, __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&pq[q].again, 1, __ATOMIC_SEQ_CST);
    /* Whoever holds `polling` now sees `again` before it lets go; if it
       let go already, this core takes `polling` itself. */
    while (__atomic_load_n(&pq[q].again, __ATOMIC_SEQ_CST) && try_polling(q)) {
        list = poll_locked(q);
        __atomic_store_n(&pq[q].polling, 0, __ATOMIC_SEQ_CST);
        if (!list)
            continue;
        if (!m)
            injectglist(list);      /* a core not yet in the scheduler */
        else if (__atomic_load_n(&m->p->idle, __ATOMIC_RELAXED))
            glist_push(&m->polled, list);
        else
            netpoll_ready(m->p, list);
    }
}

void netpoll_kick(void)
{
    unsigned long f = arch_irq_save();
    int q = homeq();

    if (q >= 0)
        netpoll_interrupt(q);
    arch_irq_restore(f);
}

uint64_t netpoll_deadline_slow(void)
{
    uint64_t now = arch_cycles(), t;
    int q = homeq();

    if (!__atomic_load_n(&poller, __ATOMIC_RELAXED))
        return 0;
    if (q < 0)                  /* no queue: when one may be stranded */
        stranded(0, &t);
    else
        t = __atomic_load_n(&pq[q].lastpoll, __ATOMIC_RELAXED) + period();
    /* Overdue (nobody polled since the first waiter came, or a poll is
       in progress elsewhere): soon, but never "now" - that would storm
       this core with interrupts while another core polls. */
    return t > now ? t : now + period() / 10;
}

bool netpoll_check(uint64_t now)
{
    struct g *list = NULL;
    int q = homeq();

    if (!netpoll_waiters() || !__atomic_load_n(&poller, __ATOMIC_RELAXED))
        return false;
    if (q >= 0 &&
        now >= __atomic_load_n(&pq[q].lastpoll, __ATOMIC_RELAXED) + period())
        list = poll_queue(q);
    else if ((q = stranded(now, NULL)) >= 0)
        list = poll_queue(q);
    if (!list)
        return false;
    netpoll_ready(this_cpu()->m->p, list);
    return true;
}
