/*
 * nonic - the socket API on a machine without a NIC (the runner boots
 * every test but tests/net/tcp without one; the hosted build has none):
 * every call that needs the network fails at once with -ENETDOWN, and
 * nothing waits.  (The console's "net: no virtio-net device" line is the
 * boot's; a test cannot read it.)
 */
#include <errno.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
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

/* Every call from Gs that other cores steal: a core other than the
   first has no NIC queue of its own, so it finds its stack another way. */
struct spread {
    sp_waitgroup wg;
    uint64_t cores;             /* bit c: a G called from core c; atomic */
    int bad;                    /* calls that did not say -ENETDOWN */
};

static void netdown_caller(void *arg)
{
    struct spread *sp = arg;
    uint64_t end = sp_nanotime() + SP_MS(20);
    int err = 0, bad = 0;

    while (sp_nanotime() < end)
        ;                       /* keep this core busy: the others steal */
    __atomic_or_fetch(&sp->cores, 1ULL << (sp_cpu_id() % 64),
                      __ATOMIC_RELAXED);
    bad += sp_dial("10.0.2.2:80", SP_S(10), &err) || err != -ENETDOWN;
    bad += sp_listen(":80", &err) || err != -ENETDOWN;
    bad += sp_listen_udp(":7", &err) || err != -ENETDOWN;
    bad += sp_net_wait(SP_MS(10)) != -ENETDOWN;
    __atomic_add_fetch(&sp->bad, bad, __ATOMIC_RELAXED);
    sp_waitgroup_done(&sp->wg);
}

TEST(netdown_on_every_core)
{
    struct spread sp = { .wg = SP_WAITGROUP_INIT };
    int n = 4 * sp_ncpu();

    sp_waitgroup_add(&sp.wg, n);
    for (int i = 0; i < n; i++)
        sp_go(netdown_caller, &sp);
    sp_waitgroup_wait(&sp.wg);
    CHECKF(sp.bad == 0, "%d calls from %d Gs did not fail with -ENETDOWN",
           sp.bad, n);
    CHECKF(sp_ncpu() == 1 || __builtin_popcountll(sp.cores) > 1,
           "all %d Gs ran on one core (cores 0x%llx)", n,
           (unsigned long long)sp.cores);
}

TEST(strerror_names_it)
{
    CHECK(strstr(sp_net_strerror(-ENETDOWN), "network is down"));
}

int main(void)
{
    return sp_test_main();
}
