/*
 * netpoll.h - how a network driver feeds the scheduler (Go's netpoll).
 *
 * The driver registers one poll function, called with a queue number:
 * core q polls queue q, and cores beyond the NIC's queues none (netpoll.c).
 * A G that waits for the network
 * calls netpoll_wait_add(1), parks with WAIT_IO (gopark: the unlockf is
 * where it becomes visible to the driver, once it is off its stack), and
 * calls netpoll_wait_add(-1) after it was woken.  The poll function never
 * blocks; it returns the Gs whose I/O completed, still G_WAITING, linked
 * through g->schedlink, and the scheduler makes them runnable.
 *
 * Who polls (Go's rules, sched/netpoll.c, plus the NIC's interrupt):
 *   - a core that found no local or global work, before it steals
 *     (findrunnable) and before it halts (the idle loop);
 *   - a core's timer interrupt, when nobody polled for NETPOLL_PERIOD_MS
 *     (sysmon's 10 ms rule): Gs readied there preempt the running G as a
 *     woken sleeper does.
 * Only while some G waits (netpoll_wait_add), and one core at a time.
 */
#ifndef SCHED_NETPOLL_H
#define SCHED_NETPOLL_H

#include <stdbool.h>
#include <stdint.h>

struct g;

#define NETPOLL_PERIOD_MS 10

/*
 * Installs the driver's poll function for queues 0 .. nqueues - 1
 * (1 <= nqueues <= ncpu; NULL removes it).  poll(q) is called with
 * interrupts off, possibly from a timer interrupt on the stack of
 * whatever G ran, so it may take spinlocks but never park or allocate;
 * never for one queue on two cores at once.  Once this returns the old
 * function is not running and is never called again (a poll in
 * progress on another core is waited out).  From a G.
 */
void netpoll_init(struct g *(*poll)(int q), int nqueues);

/*
 * Polls the calling core's queue as its interrupt would.  A driver runs
 * it on every core (smp_call_all) once its poller is installed: an
 * interrupt that came before found no poller, and with event-index
 * suppression none comes again until the queue is drained.
 */
void netpoll_kick(void);

/* The queue the calling core polls (core q polls queue q), -1 for none.
   Interrupts off, or the answer may be another core's. */
int netpoll_queue(void);

/* A G starts (+1) or stops (-1) waiting for the network.  Any G. */
void netpoll_wait_add(int delta);

/* Polls of a stranded queue by a core not its own (netpoll.c); atomic. */
extern uint64_t netpoll_rescues;

/* Gs waiting for the network now (the deadlock check wants 0). */
extern int netpoll_nwait;       /* atomic; netpoll_wait_add */

static inline int netpoll_waiters(void)
{
    return __atomic_load_n(&netpoll_nwait, __ATOMIC_SEQ_CST);
}

/* ---- For the scheduler (sched/) ---------------------------------------- */

/*
 * Polls this core's queue once if a poller is installed, some G waits and
 * no other core is polling it; returns what the poll readied (G_WAITING,
 * schedlink list) or NULL.  Interrupts off.
 */
struct g *netpoll(void);

/* The arch_cycles() deadline of the next poll sysmon's rule asks for,
   or 0 when no G waits.  Inline: every schedule asks. */
uint64_t netpoll_deadline_slow(void);

static inline uint64_t netpoll_deadline(void)
{
    return netpoll_waiters() ? netpoll_deadline_slow() : 0;
}

/*
 * A NIC's interrupt handler for queue q calls this: polls q now, waiting
 * for no G, or makes the core that is polling it poll once more; the Gs
 * readied stay on this core's P (its wake queue if it runs a G, to run
 * when it halts if it idles).  Interrupts off.
 */
void netpoll_interrupt(int q);

/*
 * Makes the Gs a poll readied (G_WAITING, schedlink list) runnable on p,
 * this core's P: its wake queue, run before its run queue, which thieves
 * leave alone for netsteal= us (wakeq.c); and wakep, for a core to take
 * them if they wait longer.  Interrupts off.
 */
struct p;
void netpoll_ready(struct p *p, struct g *list);

/* The timer interrupt's half: polls this core's queue if its last poll
   is over 10 ms old; true if it readied Gs (on this P's wake queue). */
bool netpoll_check(uint64_t now);

#endif
