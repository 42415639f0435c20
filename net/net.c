/*
 * net.c - bring-up of the network: the NIC, the stack, and the address
 * (DHCP, or the command line's ip= and gw=).
 */
#include <stdlib.h>
#include <string.h>
#include <spindle/net.h>
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "net/net.h"
#include "net/netdev.h"
#include "net/netimpl.h"

struct netdev *net_dev;
static bool use_dhcp;

/* Stack 0's address changed (under its lock). */
static void status(struct netif *nif)
{
    char a[16], m[16], g[16];

    if (ip4_addr_isany(netif_ip4_addr(nif)))
        return;
    ip4addr_ntoa_r(netif_ip4_addr(nif), a, sizeof a);
    ip4addr_ntoa_r(netif_ip4_netmask(nif), m, sizeof m);
    ip4addr_ntoa_r(netif_ip4_gw(nif), g, sizeof g);
    printk("net: address %s netmask %s gateway %s (%s)\n", a, m, g,
           use_dhcp ? "DHCP" : "ip= on the command line");
}

/* "a.b.c.d/len"; false if it is not that. */
static bool parse_cidr(const char *s, ip4_addr_t *addr, ip4_addr_t *mask)
{
    char buf[32];
    const char *slash = strchr(s, '/');
    long len = 24;
    char *end;

    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    if (slash) {
        buf[slash - s] = 0;
        len = strtol(slash + 1, &end, 10);
        if (*end || end == slash + 1 || len < 1 || len > 32)
            return false;
    }
    if (!ip4addr_aton(buf, addr))
        return false;
    ip4_addr_set_u32(mask, lwip_htonl(len == 32 ? ~0u : ~(~0u >> len)));
    return true;
}

/* ip= and gw= from the command line; false (DHCP) if absent or bad. */
static bool static_config(ip4_addr_t *addr, ip4_addr_t *mask, ip4_addr_t *gw)
{
    const char *ip, *g;

    if (!cmdline_get("ip", &ip))
        return false;
    if (!parse_cidr(ip, addr, mask)) {
        printk("net: ip=%s is not an address like 10.0.2.15/24; using DHCP\n",
               ip);
        return false;
    }
    ip4_addr_set_zero(gw);
    if (cmdline_get("gw", &g) && !ip4addr_aton(g, gw))
        printk("net: gw=%s is not an address; no gateway\n", g);
    return true;
}

/* At exit: the NIC's and the stacks' counters, drops included; a line
   at a time, as printk takes a line of at most 511 bytes. */
static void report_at_exit(void)
{
    static char buf[4096];      /* once, at exit */
    const char *line = buf;

    if (sp_net_report(buf, sizeof buf) <= 0)
        return;
    while (*line) {
        int n = (int)strcspn(line, "\n");

        printk("%.*s\n", n, line);
        line += n + (line[n] == '\n');
    }
}

int net_max_queues(void)
{
    return NET_STACKS;
}

void net_init(struct netdev *nic)
{
    ip4_addr_t addr, mask, gw;
    const uint8_t *m;
    unsigned long f;

    net_dev = nic;
    if (!net_dev) {
        printk("net: no virtio-net device\n");
        return;
    }
    m = net_dev->mac;
    printk("net: %s, MAC %02x:%02x:%02x:%02x:%02x:%02x, %s, link %s\n",
           net_dev->name, m[0], m[1], m[2], m[3], m[4], m[5], net_dev->irq,
           net_dev->ops->link_up(net_dev) ? "up" : "down");
    stack_start(status);
    atexit(report_at_exit);
    use_dhcp = !static_config(&addr, &mask, &gw);
    /* Stack 0 asks (DHCP's answers are datagrams, which come to it) and
       hands the address to the others. */
    f = stack_lock_take(&stacks[0]);
    if (use_dhcp)
        stacks[0].lw->dhcp_start(&stacks[0].nif);
    else
        stacks[0].lw->netif_set_addr(&stacks[0].nif, &addr, &mask, &gw);
    stack_timers_check(&stacks[0]);
    stack_unlock(&stacks[0], f);
}
