/*
 * netimpl.h - what the files of net share: the network stacks,
 * their locks, and the hand-off of Gs that lwIP's callbacks ready
 * (stack.c).
 *
 * There is one stack per receive queue of the NIC, each a copy of lwIP
 * (lwipinst.h) with its own connections, pools, timers and ARP table,
 * under its own lock: two cores serving connections of different queues
 * share no lock and no lwIP state.  A TCP connection lives in the stack
 * of the queue its packets arrive on (the NIC's RSS hash of its ports);
 * anything else the NIC does not hash (ARP, ICMP, UDP, DHCP) arrives on
 * queue 0 and is stack 0's.  A NIC with one queue, or several without
 * RSS (no way to tell where a flow lands), gets one stack for all of
 * them.  docs/design.md, "One lwIP per queue", says what stays shared.
 *
 * Lock order: a stack's lock is taken before a socket's polldesc lock
 * and before any scheduler or timer lock (LOCK_STACK in
 * kernel/lockrank.h).  Two stacks' locks nest only in index order,
 * stack 0's first: stack 0 hands the others ARP replies and the address
 * DHCP gave it.
 */
#ifndef NET_NETIMPL_H
#define NET_NETIMPL_H

#include <stdint.h>
#include "kernel/cpu.h"
#include "kernel/spinlock.h"
#include "net/lwipinst.h"
#include "sched/timers.h"

struct g;
struct sp_sock;

/* How a stack's lock is used, under it: every take counted, a take that
   found it held timed (the wait), a take by a core of another stack
   counted (foreign), and every 64th take's hold timed. */
struct lockstats {
    uint64_t takes, contended, wait_cycles, foreign;
    uint64_t held_samples, held_cycles;
    uint64_t held_from;         /* arch_cycles() of a sampled take, or 0 */
};

/* One copy of lwIP and everything that is its own; all under lock. */
struct stack {
    _Alignas(64) struct spinlock lock;
    int index;                  /* stacks[index]; fixed */
    const struct lwip_api *lw;  /* its copy of lwIP; fixed */
    struct netif nif;           /* the NIC as its interface */
    struct g *readied;          /* Gs its callbacks readied, to wake on
                                   leaving (net_ready) */
    struct timer timer;         /* runs lwIP's timeouts */
    uint64_t due;               /* when timer fires */
    uint64_t rx_nomem;          /* frames dropped for want of a pbuf */
    struct sp_sock *free_socks; /* its sockets not in use (sock.c) */
    int socks_used;             /* sockets taken from its pool */
    uint64_t socks_short;       /* sockets asked of an empty pool */
    struct lockstats ls;        /* counters: written under lock, read
                                   without (sp_net_stats) */
};

extern struct stack stacks[NET_STACKS];
extern int net_nstacks;         /* stacks in use: 1, or one per queue
                                   (<= NET_STACKS); fixed once
                                   stack_start returns */

/* The stack that receives what arrives on NIC queue q (0 <= q <
   nqueues): stack q with a stack per queue, else the one. */
static inline struct stack *stack_of_queue(int q)
{
    return &stacks[net_nstacks > 1 ? q : 0];
}

/* The calling core's NIC queue: its own, or (a core without one) the
   one it shares, core c % nqueues.  With a NIC. */
int net_my_queue(void);

/* The stack of the calling core's queue.  With a NIC. */
struct stack *stack_mine(void);

/* Where the stack's work ran: one per core, written by that core with
   interrupts off (sp_net_stats reads them). */
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

/* The calling core's; interrupts off. */
struct net_pstats *net_mine(void);

/* Adds n to a counter with one writer at a time (a core's own, or one
   written under a stack's lock) read by others without a lock: a load
   and a relaxed store. */
static inline void net_count(uint64_t *c, uint64_t n)
{
    __atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/* Takes st's lock (interrupts off); returns what stack_unlock needs. */
unsigned long stack_lock_take(struct stack *st);

/*
 * Leaves st: releases its lock and readies (goready) every G that its
 * callbacks handed to net_ready meanwhile.  From a G or a timer
 * function; the poll function hands them to the scheduler instead.
 */
void stack_unlock(struct stack *st, unsigned long f);

/* A callback's G to wake once st is left (NULL: nothing).  Under st's
   lock. */
void net_ready(struct stack *st, struct g *gp);

/* Starts a copy of lwIP per queue over net_dev; status(nif) is called
   (under stack 0's lock) whenever stack 0's address changes, after the
   other stacks took it too. */
void stack_start(void (*status)(struct netif *nif));

/* Brings st's lwIP timer forward if a timeout lwIP started since it was
   armed (a connection's first retransmission timer) is due sooner.
   Under st's lock; from a G. */
void stack_timers_check(struct stack *st);


#endif
