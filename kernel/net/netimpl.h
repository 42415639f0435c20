/*
 * netimpl.h - what the files of kernel/net share: the stack lock and the
 * hand-off of Gs that lwIP's callbacks ready (stack.c).
 *
 * Lock order: stack_lock is taken before a socket's polldesc lock and
 * before any scheduler or timer lock (LOCK_STACK in kernel/lockrank.h).
 */
#ifndef KERNEL_NET_NETIMPL_H
#define KERNEL_NET_NETIMPL_H

#include <stdint.h>
#include "cpu.h"
#include "lwip/netif.h"
#include "spinlock.h"

struct g;

extern struct spinlock stack_lock;
extern struct netif net_if;     /* the NIC's interface; stack_lock */
extern uint64_t net_rx_nomem;   /* frames dropped for want of a pbuf */

/* Where the stack's work ran: one per core, written by that core under
   stack_lock (sp_net_stats reads them). */
struct net_pstats {
    _Alignas(64) uint64_t rx, tx;   /* frames in and out */
    uint64_t away;                  /* frames of a queue not this core's */
    uint64_t xwake;                 /* Gs readied here that ran elsewhere */
    uint64_t split;                 /* TCP segments of a connection whose
                                       first was handled elsewhere */
    uint64_t misdial;               /* dials answered on another queue than
                                       their port was chosen for */
};
extern struct net_pstats net_pstats[];

/* The calling core's; under stack_lock. */
struct net_pstats *net_mine(void);

/* Adds n to a counter written under stack_lock and read without it
   (sp_net_stats): one writer at a time, so a load and a relaxed store. */
static inline void net_count(uint64_t *c, uint64_t n)
{
    __atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/* Takes stack_lock (interrupts off); returns what stack_unlock needs. */
unsigned long stack_lock_take(void);

/*
 * Leaves the stack: releases stack_lock and readies (goready) every G
 * that lwIP's callbacks handed to net_ready meanwhile.  From a G or a
 * timer function; the poll function hands them to the scheduler instead.
 */
void stack_unlock(unsigned long f);

/* A callback's G to wake once the stack is left (NULL: nothing).
   Under stack_lock. */
void net_ready(struct g *gp);

/* Starts lwIP over net_dev; status(nif) is called (under stack_lock)
   whenever the interface's address changes. */
void stack_start(void (*status)(struct netif *nif));

/* Brings lwIP's timer forward if a timeout lwIP started since it was
   armed (a connection's first retransmission timer) is due sooner.
   Under stack_lock; from a G. */
void stack_timers_check(void);

/* The NIC's interrupt handler (vnet_probe's irq_fn). */
void stack_nic_irq(void *arg, int q);

#endif
