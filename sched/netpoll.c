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
 * One core polls at a time (`polling`, a try-lock: a core that finds it
 * taken has nothing to gain by waiting), so the driver's poll function is
 * never re-entered.  No lock order: `polling` is never waited for.
 *
 * A device interrupt polls at once, whether or not a G waits
 * (netpoll_interrupt): the stack has work to do on every frame (ARP,
 * acknowledgements, segments for a socket nobody reads yet), and an
 * idle machine learns of a packet without waiting for a timer.
 */
#include "arch.h"
#include "cpu.h"
#include "netpoll.h"
#include "panic.h"
#include "schedimpl.h"

static struct g *(*poller)(void);  /* atomic: set by the driver */
int netpoll_nwait;                  /* Gs waiting for the network; atomic */
static int polling;                 /* 1 while a core polls; atomic */
static uint64_t lastpoll;           /* arch_cycles() of the last poll */
static int again;                   /* news came during a poll; atomic */

void netpoll_init(struct g *(*poll)(void))
{
    /* Seq-cst store, then load: either a poll that is about to start
       takes `polling` after this load and then reads the new function,
       or this load sees it polling and waits. */
    __atomic_store_n(&poller, poll, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&polling, __ATOMIC_SEQ_CST))
        arch_cpu_relax();
}

void netpoll_wait_add(int delta)
{
    if (__atomic_add_fetch(&netpoll_nwait, delta, __ATOMIC_SEQ_CST) < 0)
        panic("netpoll_wait_add: more Gs stopped waiting than started");
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
 * One poll, holding `polling`.  A core that finds `polling` taken sets
 * `again` instead of waiting (netpoll_interrupt), and the holder polls
 * once more before it lets go: news an interrupt brought while another
 * core was in the middle of a poll is never left for the next period.
 * The seq-cst exchange of `again` pairs with the store in
 * netpoll_interrupt, made before its own try of `polling`.
 */
static struct g *poll_locked(void)
{
    struct g *(*poll)(void), *list = NULL, *more;

    /* Read again while holding `polling`, which netpoll_init waits for:
       a function it replaced is never called after it returned. */
    poll = __atomic_load_n(&poller, __ATOMIC_SEQ_CST);
    if (!poll)
        return NULL;
    do {
        __atomic_store_n(&again, 0, __ATOMIC_SEQ_CST);
        if ((more = poll()))
            glist_push(&list, more);
    } while (__atomic_load_n(&again, __ATOMIC_SEQ_CST));
    __atomic_store_n(&lastpoll, arch_cycles(), __ATOMIC_RELAXED);
    return list;
}

static bool try_polling(void)
{
    int idle = 0;

    return __atomic_compare_exchange_n(&polling, &idle, 1, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

struct g *netpoll(void)
{
    struct g *list;

    /* Cheap checks first: every findrunnable comes here. */
    if (!__atomic_load_n(&poller, __ATOMIC_RELAXED) || !netpoll_waiters())
        return NULL;
    assert(!arch_irqs_enabled());
    if (!try_polling())
        return NULL;
    list = poll_locked();
    __atomic_store_n(&polling, 0, __ATOMIC_RELEASE);
    return list;
}

/*
 * A core that idles (its P on the idle list) keeps what its own interrupt
 * polled in m->polled and runs it when the halt returns, as Go's last M
 * runs the first G its blocking netpoll returned: putting it on the
 * global queue would wake a second core for the G while this one, awake
 * already, halts again.  A busy core's interrupt injects the list, and
 * wakep finds the Gs a core.
 */
void netpoll_interrupt(void)
{
    struct m *m = this_cpu()->m;
    struct g *list;

    assert(!arch_irqs_enabled());
    if (!__atomic_load_n(&poller, __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&again, 1, __ATOMIC_SEQ_CST);
    /* Whoever holds `polling` now sees `again` before it lets go; if it
       let go already, this core takes `polling` itself. */
    while (__atomic_load_n(&again, __ATOMIC_SEQ_CST) && try_polling()) {
        list = poll_locked();
        __atomic_store_n(&polling, 0, __ATOMIC_SEQ_CST);
        if (!list)
            continue;
        if (m && __atomic_load_n(&m->p->idle, __ATOMIC_RELAXED))
            glist_push(&m->polled, list);
        else
            injectglist(list);
    }
}

uint64_t netpoll_deadline_slow(void)
{
    uint64_t now = arch_cycles(), t;

    if (!__atomic_load_n(&poller, __ATOMIC_RELAXED))
        return 0;
    t = __atomic_load_n(&lastpoll, __ATOMIC_RELAXED) + period();
    /* Overdue (nobody polled since the first waiter came, or a poll is
       in progress elsewhere): soon, but never "now" - that would storm
       this core with interrupts while another core polls. */
    return t > now ? t : now + period() / 10;
}

bool netpoll_check(uint64_t now)
{
    struct g *list;

    if (!netpoll_waiters() ||
        now < __atomic_load_n(&lastpoll, __ATOMIC_RELAXED) + period())
        return false;
    list = netpoll();
    if (!list)
        return false;
    injectglist(list);
    return true;
}
