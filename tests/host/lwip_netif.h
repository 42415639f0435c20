/*
 * lwip_netif.h - the netif a host program running lwIP sets up as
 * net/stack.c does (Ethernet, ARP, MTU 1500, 52:54:00:12:34:56),
 * its frames going out through the caller's linkoutput.  Shared by the
 * receive-path test (tests/host/netrx_test.c) and the frame fuzz target
 * (tests/fuzz/netrx.c), with net_attack_count, which lwiphooks.h calls.
 */
#ifndef TESTS_HOST_LWIP_NETIF_H
#define TESTS_HOST_LWIP_NETIF_H

#include <string.h>
#include "lwip/etharp.h"
#include "lwip/netif.h"
#include "netguard.h"

static const uint8_t lwip_netif_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* For a netif's init function: fills n; returns ERR_OK. */
static inline err_t lwip_netif_init(struct netif *n, netif_linkoutput_fn out)
{
    n->name[0] = 'e';
    n->name[1] = 'n';
    n->mtu = 1500;
    n->hwaddr_len = ETH_HWADDR_LEN;
    memcpy(n->hwaddr, lwip_netif_mac, ETH_HWADDR_LEN);
    n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
    n->output = etharp_output;
    n->linkoutput = out;
    return ERR_OK;
}

/* What the kernel's net/stack.c gives lwiphooks.h: the refusals,
   counted here for the program to read.  Defined in this header, which
   each program includes once. */
unsigned long lwip_netif_refused[NET_ATTACK_COUNTERS];

void net_attack_count(int what)
{
    lwip_netif_refused[what]++;
}

#endif
