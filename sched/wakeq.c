/*
 * wakeq.c - Gs whose timer fired run first (not in Go).
 *
 * In Go a sleeper whose timer fires is readied like any other G: into
 * runnext, from where the next G readied on that P (a spawned child, a
 * channel partner) pushes it to the tail of the run queue, behind
 * everything queued there and, once the ring overflows, behind the global
 * queue.  On a P busy spawning Gs, a woken sleeper then waits for
 * hundreds of others: with 100,000 sleepers Go's p99 lateness is 81 ms
 * under TCG.  A G readied by a timer function instead joins its P's wake
 * queue, which findrunnable looks at before anything else, and thieves
 * take from before they take from the ring.  A sleeper's lateness is then
 * the time to the next schedule on its P - or to the timer interrupt's
 * wakeup preemption of a long-running G (preempt.c) - not the backlog.
 *
 * Starvation: a G that runs long is preempted into the global queue like
 * any other, but one that sleeps a nanosecond in a loop has its timer
 * due again at once and would refill the wake queue for ever; so once
 * the wake queue has kept the run queues' Gs waiting for a quantum,
 * findrunnable gives those a turn (wakeq_yields, proc.c).
 *
 * The queue is a list through g->schedlink under the P's wakelock, which
 * nests inside nothing but sched.lock's peers: it is taken alone, with
 * interrupts off.  nwake is read without the lock as a hint; its updates
 * are seq-cst so that the spinning protocol's re-check (idle.c step 4)
 * sees a G queued before its readier looked for idle cores.
 */
#include "kernel/panic.h"
#include "sched/exectrace.h"
#include "sched/schedimpl.h"

void wakeq_put(struct p *p, struct g *gp)
{
    unsigned long f = spin_lock(&p->wakelock);

    gp->schedlink = NULL;
    if (p->waketail)
        p->waketail->schedlink = gp;
    else
        p->wakehead = gp;
    p->waketail = gp;
    __atomic_add_fetch(&p->nwake, 1, __ATOMIC_SEQ_CST);
    spin_unlock(&p->wakelock, f);
}

/*
 * Not in Go: a G the network readied is left to its queue's core for
 * netsteal= microseconds before a thief may take it.  Its connection's
 * packets are handled on that core (netpoll.c), and a G stolen from
 * there runs its next request on another core than its packets, and is
 * readied across cores when it next waits: the queue's core usually gets
 * to it sooner than that costs.  A core busy for longer is what
 * stealing is for; and a running G's timer interrupt preempts it for a
 * non-empty wake queue after a tenth of its quantum (1 ms), which the
 * default matches.  netsteal=0 steals at once, as Go.
 */
#define NETSTEAL_DEFAULT_US 1000
#define NETSTEAL_MAX_US 100000

static uint64_t netsteal;       /* cycles; read-only once the cores run */

void wakeq_init(void)
{
    netsteal = us_cycles((uint64_t)sched_setting("netsteal", 0,
                                                 NETSTEAL_MAX_US,
                                                 NETSTEAL_DEFAULT_US, "us"));
}

/* Detaches up to max (>= 1) Gs from the head of p's wake queue; none if
   `thief` and the head is a G the network readied under netsteal ago (the
   head is the oldest). */
static struct g *take(struct p *p, uint32_t max, uint32_t *n, bool thief)
{
    unsigned long f;
    struct g *first, *last;
    uint32_t k;

    *n = 0;
    if (!__atomic_load_n(&p->nwake, __ATOMIC_SEQ_CST))
        return NULL;
    f = spin_lock(&p->wakelock);
    first = last = p->wakehead;
    if (thief && first && netsteal &&
        arch_cycles() - first->netready < netsteal)
        first = last = NULL;
    k = first ? 1 : 0;
    while (k && k < max && last->schedlink) {
        last = last->schedlink;
        k++;
    }
    if (first) {
        p->wakehead = last->schedlink;
        if (!p->wakehead)
            p->waketail = NULL;
        last->schedlink = NULL;
        __atomic_sub_fetch(&p->nwake, k, __ATOMIC_SEQ_CST);
    }
    spin_unlock(&p->wakelock, f);
    *n = k;
    return first;
}

struct g *wakeq_get(struct p *p)
{
    uint32_t n;

    return take(p, 1, &n, false);
}

struct g *wakeq_steal(struct p *thief, struct p *victim)
{
    uint32_t want = __atomic_load_n(&victim->nwake, __ATOMIC_RELAXED), n;
    struct g *gp;

    if (!want)
        return NULL;
    /* Half, as runqsteal takes; the rest stays for its owner. */
    gp = take(victim, want - want / 2, &n, true);
    if (!gp)
        return NULL;
    TRACE(TEV_STEAL, gp->goid,
          TEV_STEAL_WAKEQ | (uint32_t)victim->id << 16 | n);
    /* Two wake locks are never held at once: the list is detached from
       the victim first, then queued here one by one. */
    for (struct g *rest = gp->schedlink; rest; ) {
        struct g *next = rest->schedlink;

        wakeq_put(thief, rest);
        rest = next;
    }
    gp->schedlink = NULL;
    return gp;
}

/*
 * On g0, the G that called gomoveto off its stack and parked: it joins
 * the target P's wake queue, and the target's core, if it halted, is
 * interrupted to run it.  The seq-cst nwake update (wakeq_put) then the
 * load of `halted` pairs with stop_and_halt's store of `halted` then its
 * look at the wake queue: either this side sees the core halted and
 * interrupts it, or the core sees the G before it halts.
 */
static bool moveto_unlock(struct g *gp, void *arg)
{
    struct p *p = sched.allp[(intptr_t)arg];
    struct m *m = sched.allm[p->id];

    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    TRACE(TEV_READY, gp->goid, gp->goid);   /* it readied itself */
    wakeq_put(p, gp);
    if (__atomic_load_n(&m->halted, __ATOMIC_SEQ_CST))
        arch_send_ipi(m->cpu);
    return true;
}

void gomoveto(int cpu)
{
    if (cpu < 0 || cpu >= ncpu)
        panic("gomoveto: no core %d (%d cores)", cpu, ncpu);
    if (cpu != this_cpu()->id)
        gopark(moveto_unlock, (void *)(intptr_t)cpu, WAIT_MOVE);
}
