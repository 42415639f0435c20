/*
 * net.h - the kernel's network: the NIC driver below, lwIP in the middle,
 * sockets above (kernel/net/).
 */
#ifndef KERNEL_NET_NET_H
#define KERNEL_NET_NET_H

struct netdev;

/* The NIC, or NULL when the machine has none. */
extern struct netdev *net_dev;

/* Finds the NIC and starts the stack; from G 1 before main(). */
void net_init(void);

#endif
