/*
 * icmp - the guest answers ping.  Runs on a TAP (`net peer tap` in its
 * test.conf): the runner's peer, in the same network namespace, sends
 * ICMP echo requests to the guest's address from a raw socket, as ping
 * does, and reports on a control connection whether every one came back
 * intact.
 *
 *   address         the address the command line gave (guest=) is ours
 *   ping_answered   "ping 20" to the peer: all 20 answered, payload intact
 *   counted         the NIC's counters saw the traffic
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define PINGS 20

static const char *guest_addr = "10.0.2.15";
static sp_conn *ctl;

/* One line from the control connection (without its newline). */
static bool line_in(char *buf, size_t len)
{
    size_t n = 0;

    sp_set_read_deadline(ctl, (int64_t)(sp_nanotime() + SP_S(120)));
    while (n + 1 < len) {
        long k = sp_read(ctl, buf + n, 1);

        if (k <= 0) {
            printf("# control connection: %s after %zu bytes of a line\n",
                   k == 0 ? "end of stream" : sp_net_strerror((int)k), n);
            return false;
        }
        if (buf[n] == '\n') {
            buf[n] = 0;
            return true;
        }
        n++;
    }
    return false;
}

TEST(address)
{
    char a[16];

    CHECK(sp_net_wait(SP_S(10)) == 0);
    CHECK(sp_net_addr(a, sizeof a) == 0);
    CHECKF(!strcmp(a, guest_addr), "address %s, expected %s", a, guest_addr);
}

TEST(ping_answered)
{
    char line[256], cmd[32];
    sp_listener *l;
    int err;

    l = sp_listen(":9000", &err);
    CHECKF(l, "listen :9000: %s", sp_net_strerror(err));
    sp_set_read_deadline(l, (int64_t)(sp_nanotime() + SP_S(60)));
    ctl = sp_accept(l, &err);
    sp_close(l);
    CHECKF(ctl, "no control connection: %s", sp_net_strerror(err));
    CHECK(sp_write(ctl, "hello spindle\n", 14) == 14);
    CHECK(line_in(line, sizeof line) && !strcmp(line, "ready"));
    snprintf(cmd, sizeof cmd, "ping %d\n", PINGS);
    CHECK(sp_write(ctl, cmd, strlen(cmd)) == (long)strlen(cmd));
    CHECKF(line_in(line, sizeof line), "no answer to ping");
    printf("# peer: %s\n", line);
    CHECKF(!strncmp(line, "ok", 2), "peer: %s", line);
}

TEST(counted)
{
    char buf[1024];
    unsigned long long rx = 0;

    CHECK(sp_net_report(buf, sizeof buf) > 0);
    CHECK(sscanf(buf, "net: rx %llu frames", &rx) == 1);
    CHECKF(rx >= PINGS, "the NIC counted %llu frames received", rx);
    if (ctl) {
        sp_write(ctl, "quit\n", 5);
        sp_close(ctl);
    }
}

/* guest=A.B.C.D among the runner's arguments after --. */
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "guest=", 6))
            guest_addr = argv[i] + 6;
    return sp_test_main();
}
