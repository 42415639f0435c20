/*
 * net.h - the kernel's network: the NIC driver below (found by the
 * kernel's start-up), lwIP in the middle, sockets above (net/).
 */
#ifndef NET_NET_H
#define NET_NET_H

struct netdev;

/* The NIC, or NULL when the machine has none. */
extern struct netdev *net_dev;

/* The most RX/TX queue pairs the stack uses (one lwIP copy each): what
   the kernel's start-up asks a NIC's probe for. */
int net_max_queues(void);

/* The NIC's receive interrupt for queue q: the irq_fn the start-up hands
   a NIC's probe (net/netdev.h).  Any context. */
void net_nic_irq(void *arg, int q);

/* Starts the stack on nic, which the start-up probed with net_nic_irq
   (NULL: the machine has none); from G 1 before main(). */
void net_init(struct netdev *nic);

#endif
