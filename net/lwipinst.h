/*
 * lwipinst.h - the copies of lwIP: one per network stack (netimpl.h's
 * struct stack), each with its own globals (connections, pools, timers,
 * ARP table).
 *
 * net/net.mk links lwIP NET_STACKS times with its global names
 * prefixed: copy i's tcp_write is lw<i>_tcp_write.  The kernel reaches a
 * copy only through its struct lwip_api, so a call can only go to the
 * stack whose lock the caller holds: st->lw->tcp_write(...).  A plain
 * tcp_write(...) does not link.
 *
 * The address helpers keep state nowhere, so every copy's is the same
 * code; copy 0's serves everyone under the usual names (below).
 */
#ifndef NET_LWIPINST_H
#define NET_LWIPINST_H

#include "lwip/dhcp.h"
#include "lwip/dns.h"
#include "lwip/etharp.h"
#include "lwip/init.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "lwip/udp.h"
#include "netif/ethernet.h"

#ifndef NET_STACKS
#error "NET_STACKS comes from net/net.mk"
#endif

/* Every lwIP function the kernel calls, for X(copy, name). */
#define LWIP_CALLS(X, i)                                                  \
    X(i, lwip_init) X(i, sys_check_timeouts) X(i, sys_timeouts_sleeptime) \
    X(i, netif_add) X(i, netif_set_status_callback) X(i, netif_set_up)    \
    X(i, netif_set_default) X(i, netif_set_link_up) X(i, netif_set_addr)  \
    X(i, netif_poll_all) X(i, ethernet_input) X(i, etharp_output)         \
    X(i, dhcp_start) X(i, dns_gethostbyname) X(i, dns_getserver)          \
    X(i, pbuf_alloc) X(i, pbuf_free) X(i, pbuf_take)                      \
    X(i, pbuf_copy_partial)                                               \
    X(i, tcp_new) X(i, tcp_bind) X(i, tcp_listen_with_backlog_and_err)    \
    X(i, tcp_accept) X(i, tcp_arg) X(i, tcp_recv) X(i, tcp_sent)          \
    X(i, tcp_err) X(i, tcp_poll) X(i, tcp_connect) X(i, tcp_write)        \
    X(i, tcp_output) X(i, tcp_recved) X(i, tcp_close) X(i, tcp_abort)     \
    X(i, tcp_shutdown) X(i, tcp_backlog_delayed)                          \
    X(i, tcp_backlog_accepted)                                            \
    X(i, udp_new) X(i, udp_bind) X(i, udp_recv) X(i, udp_remove)          \
    X(i, udp_sendto)

/* One copy of lwIP: its functions and its counters. */
struct lwip_api {
#define LWIP_API_FIELD(i, name) __typeof__(name) *name;
    LWIP_CALLS(LWIP_API_FIELD, _)
#undef LWIP_API_FIELD
    struct stats_ *stats;
};

/* Copy i's, for i < NET_STACKS (lwipinst.c). */
extern const struct lwip_api lwip_copies[NET_STACKS];

/* The stateless address helpers, from copy 0. */
extern __typeof__(ip4addr_aton) lw0_ip4addr_aton;
extern __typeof__(ip4addr_ntoa_r) lw0_ip4addr_ntoa_r;
#define ip4addr_aton lw0_ip4addr_aton
#define ip4addr_ntoa_r lw0_ip4addr_ntoa_r

#endif
