/*
 * nonic - the socket API on a machine without a NIC (the runner boots
 * every test but tests/net/tcp without one; the hosted build has none):
 * every call that needs the network fails at once with -ENETDOWN, and
 * nothing waits.  (The console's "net: no virtio-net device" line is the
 * boot's; a test cannot read it.)
 */
#include <errno.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/test.h>
#include <spindle/time.h>

TEST(wait_is_netdown)
{
    uint64_t t0 = sp_nanotime(), ms;
    int rc = sp_net_wait(SP_S(10));

    ms = (sp_nanotime() - t0) / 1000000;
    CHECKF(rc == -ENETDOWN, "sp_net_wait: %s (%d), not -ENETDOWN",
           sp_net_strerror(rc), rc);
    CHECKF(ms < 1000, "sp_net_wait took %llu ms", (unsigned long long)ms);
}

TEST(addr_is_netdown)
{
    char buf[32] = "unchanged";
    int rc = sp_net_addr(buf, sizeof buf);

    CHECKF(rc == -ENETDOWN, "sp_net_addr: %s (%d), \"%s\"",
           sp_net_strerror(rc), rc, buf);
}

TEST(listen_is_netdown)
{
    int err = 0;
    sp_listener *l = sp_listen(":80", &err);

    CHECKF(!l, "sp_listen(:80) gave a listener");
    CHECKF(err == -ENETDOWN, "sp_listen: %s (%d)", sp_net_strerror(err),
           err);
}

TEST(listen_udp_is_netdown)
{
    int err = 0;
    sp_udp *u = sp_listen_udp(":7", &err);

    CHECKF(!u, "sp_listen_udp(:7) gave a socket");
    CHECKF(err == -ENETDOWN, "sp_listen_udp: %s (%d)",
           sp_net_strerror(err), err);
}

TEST(dial_is_netdown)
{
    uint64_t t0 = sp_nanotime(), ms;
    int err = 0;
    sp_conn *c = sp_dial("10.0.2.2:80", SP_S(10), &err);

    ms = (sp_nanotime() - t0) / 1000000;
    CHECKF(!c, "sp_dial(10.0.2.2:80) connected");
    CHECKF(err == -ENETDOWN, "sp_dial: %s (%d)", sp_net_strerror(err), err);
    CHECKF(ms < 1000, "sp_dial took %llu ms", (unsigned long long)ms);
}

TEST(strerror_names_it)
{
    CHECK(strstr(sp_net_strerror(-ENETDOWN), "network is down"));
}

int main(void)
{
    return sp_test_main();
}
