/*
 * faults - TCP over a link that loses, doubles, reorders and corrupts
 * frames (fault=rxdrop:..., kernel/faultinject.h), against the host peer
 * of tests/net/tcp (tools/test/netpeer.c; `net peer` in test.conf).
 * Every byte is checked, every transfer has a bound, and the counters
 * prove that the faults struck and that TCP recovered from them.
 *
 *   control      the listeners (:7 echo, :9 bulk, :9000 control) and the
 *                peer's control connection (tests/lib/netctl.h)
 *   echo         echo= connections to :7 (default ECHO_CONNS), up to
 *                ECHO_AT_ONCE open at once, ECHO_SIZE bytes each, every byte
 *                checked by the peer, every server G ended without an
 *                error
 *   bulk_in      bulk= bytes (default BULK_BYTES) from the peer into :9,
 *                FNV-1a compared
 *   bulk_out     bulkout= bytes (default: bulk='s) of the stream from :9
 *                to the peer, which checks every byte
 *   struck       each link fault the command line names struck at least
 *                once; a direction that loses frames (drop, corrupt) lost
 *                TCP segments with data, which the bytes above could only
 *                have got through by TCP's retransmission; corrupted
 *                frames that came in were rejected by a checksum
 *   shutdown     the listeners closed, the echo acceptor woken; the peer
 *                is told to quit
 *
 * echo=, bulk= and bulkout= are read from the kernel's command line, where a
 * test.conf `cmdline` puts them (the runner's app arguments follow its
 * own `--`, after the words it adds for a TAP network).
 *
 * Each transfer prints its throughput as a BENCH line named after the
 * transfer and the faults on (make_label: "all", or "rxdrop+txdup").
 * The bounds: a command has REPLY_WAIT, a bulk transfer STALL_WAIT
 * without a byte; a wedged connection fails its case instead of hanging
 * the boot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "tests/lib/netctl.h"
#include "tests/lib/stream.h"

#define ECHO_CONNS   100
#define ECHO_AT_ONCE 64         /* a round waits for its slowest */
#define ECHO_SIZE    6000
#define BULK_BYTES   (2u << 20)

static char label[96];
static unsigned echo_conns = ECHO_CONNS, bulk_bytes = BULK_BYTES, out_bytes;

/* A throughput line: bytes moved in ms. */
static void bench(const char *what, uint64_t bytes, uint64_t ms)
{
    uint64_t kbs = bytes * 1000 / 1024 / (ms ? ms : 1);

    printf("BENCH net_faults_%s_%s %llu KiB/s\n", what, label,
           (unsigned long long)kbs);
}

TEST(control)
{
    uint64_t t0 = sp_nanotime();
    int err, tries = 0, rc = sp_net_wait(SP_S(30));

    CHECKF(rc == 0, "sp_net_wait: %s", sp_net_strerror(rc));
    CHECKF((l7 = sp_listen(":7", &err)), "listen :7: %s",
           sp_net_strerror(err));
    CHECKF((l9 = sp_listen(":9", &err)), "listen :9: %s",
           sp_net_strerror(err));
    CHECKF((lctl = sp_listen(":9000", &err)), "listen :9000: %s",
           sp_net_strerror(err));
    acceptor_done = sp_chan_make(sizeof(int), 1);
    sp_go(echo_acceptor, NULL);
    err = ctl_wait(t0 + CTL_WAIT, &tries);
    CHECKF(err == 0, "no control connection from the peer (%d tries): %s",
           tries, sp_net_strerror(err));
}

TEST(echo)
{
    uint64_t t0 = sp_nanotime();
    char cmd[64];

    snprintf(cmd, sizeof cmd, "echo %u %u %d", echo_conns,
             echo_conns < ECHO_AT_ONCE ? echo_conns : ECHO_AT_ONCE, ECHO_SIZE);
    COMMAND(cmd, (char *)NULL, 0);
    bench("echo", 2ull * echo_conns * ECHO_SIZE, ms_since(t0));
    /* The peer closed each connection once its bytes came back. */
    t0 = sp_nanotime();
    while (__atomic_load_n(&echo_active, __ATOMIC_ACQUIRE) > 0 &&
           sp_nanotime() - t0 < SP_S(20))
        sp_sleep(SP_MS(10));
    CHECKF(echo_active == 0, "%d echo Gs still running 20 s after the last "
           "connection ended", echo_active);
    CHECKF(echo_total == (int)echo_conns, "the guest accepted %d "
           "connections, the peer made %u", echo_total, echo_conns);
    CHECKF(echo_errors == 0, "%d echo connections ended with an error",
           echo_errors);
}

TEST(bulk_in)
{
    char cmd[64], rest[64], want[16];
    uint32_t sum;
    uint64_t got, t0 = sp_nanotime();
    sp_conn *c;
    long n;
    int err;

    snprintf(cmd, sizeof cmd, "sink %u", bulk_bytes);
    SEND(cmd);
    CHECKF((c = accept9(&err)), "accept on :9: %s", sp_net_strerror(err));
    n = sink_read(c, &got, &sum);
    sp_close(c);
    CHECKF(n == 0, "sp_read after %llu bytes: %s", (unsigned long long)got,
           sp_net_strerror((int)n));
    CHECKF(got == bulk_bytes, "%llu bytes came, not %u",
           (unsigned long long)got, bulk_bytes);
    REPLY(cmd, rest, sizeof rest);
    snprintf(want, sizeof want, "%08x", sum);
    CHECKF(!strcmp(rest, want), "checksum %s here, %s at the peer", want,
           rest);
    bench("bulk_in", got, ms_since(t0));
}

TEST(bulk_out)
{
    char cmd[64], rest[64];
    uint64_t off, t0 = sp_nanotime();
    sp_conn *c;
    long n;
    int err;

    snprintf(cmd, sizeof cmd, "source %u", out_bytes);
    SEND(cmd);
    CHECKF((c = accept9(&err)), "accept on :9: %s", sp_net_strerror(err));
    n = source_write(c, out_bytes, &off);
    sp_close(c);
    CHECKF(n >= 0, "sp_write after %llu bytes: %s", (unsigned long long)off,
           sp_net_strerror((int)n));
    REPLY(cmd, rest, sizeof rest);
    CHECKF(strtoull(rest, NULL, 10) == out_bytes, "the peer got %s bytes, "
           "not %u", rest, out_bytes);
    bench("bulk_out", off, ms_since(t0));
}

/* The stack's checksum rejections, from its report: IPv4's and TCP's. */
static bool checksum_drops(unsigned *ip, unsigned *tcp)
{
    static char report[4096];
    const char *p;

    sp_net_report(report, sizeof report);
    p = strstr(report, "stack dropped:");
    return p && (p = strstr(p, " ip ")) &&
           sscanf(p, " ip %*u (checksum %u, length %*u) tcp %*u (checksum %u)",
                  ip, tcp) == 2;
}

/* One kind in one direction: configured, it struck. */
#define STRUCK(dir, kind, field)                                         \
    CHECKF(!fault_cfg.dir.field || c.dir[kind] > 0, #dir #field " is "    \
           "set to %u in a thousand but struck no frame",                 \
           fault_cfg.dir.field)

TEST(struck)
{
    struct fault_counts c;
    unsigned ipck = 0, tcpck = 0;

    CHECKF(fault_link_on, "no link fault on the command line (fault=)");
    fault_counts(&c);
    printf("# %s: rx drop %llu dup %llu reorder %llu corrupt %llu; tx drop "
           "%llu dup %llu reorder %llu corrupt %llu; TCP data segments lost "
           "rx %llu tx %llu\n", label, (unsigned long long)c.rx[FK_DROP],
           (unsigned long long)c.rx[FK_DUP],
           (unsigned long long)c.rx[FK_REORDER],
           (unsigned long long)c.rx[FK_CORRUPT],
           (unsigned long long)c.tx[FK_DROP], (unsigned long long)c.tx[FK_DUP],
           (unsigned long long)c.tx[FK_REORDER],
           (unsigned long long)c.tx[FK_CORRUPT],
           (unsigned long long)c.rx_data_lost,
           (unsigned long long)c.tx_data_lost);
    STRUCK(rx, FK_DROP, drop);
    STRUCK(rx, FK_DUP, dup);
    STRUCK(rx, FK_REORDER, reorder);
    STRUCK(rx, FK_CORRUPT, corrupt);
    STRUCK(tx, FK_DROP, drop);
    STRUCK(tx, FK_DUP, dup);
    STRUCK(tx, FK_REORDER, reorder);
    STRUCK(tx, FK_CORRUPT, corrupt);
    /* Data lost on the way and every byte checked above: resent. */
    CHECKF(!(fault_cfg.rx.drop || fault_cfg.rx.corrupt) || c.rx_data_lost,
           "frames were lost coming in, but none that carried data");
    CHECKF(!(fault_cfg.tx.drop || fault_cfg.tx.corrupt) || c.tx_data_lost,
           "frames were lost going out, but none that carried data");
    if (c.rx[FK_CORRUPT]) {
        CHECKF(checksum_drops(&ipck, &tcpck), "no checksum counts in the "
               "network's report");
        printf("# %llu frames corrupted coming in; the stack's checksums "
               "rejected IPv4 %u, TCP %u\n",
               (unsigned long long)c.rx[FK_CORRUPT], ipck, tcpck);
        CHECKF(ipck + tcpck > 0, "%llu frames corrupted coming in, none "
               "rejected by a checksum", (unsigned long long)c.rx[FK_CORRUPT]);
    }
}

TEST(shutdown)
{
    bool ok;
    int err;

    CHECK(l7 && l9 && lctl);
    sp_close(l7);
    CHECKF(sp_chan_recv_timeout(acceptor_done, &err, SP_S(5), &ok) == 1,
           "sp_close(:7) did not wake the G in sp_accept");
    sp_close(l9);
    sp_close(lctl);
    COMMAND("quit", (char *)NULL, 0);
    sp_close(ctl);
    ctl = NULL;
}

/* The faults on, for the BENCH lines: "all" when every kind is on in
   both directions, else the kinds joined by '+'. */
static void make_label(void)
{
    const struct faultlink *d[2] = { &fault_cfg.rx, &fault_cfg.tx };
    static const char *const dn[2] = { "rx", "tx" };
    int on = 0;

    for (int k = 0; k < 2; k++) {
        uint32_t v[4] = { d[k]->drop, d[k]->dup, d[k]->reorder,
                          d[k]->corrupt };
        static const char *const kn[4] = { "drop", "dup", "reorder",
                                           "corrupt" };

        for (int j = 0; j < 4; j++)
            if (v[j]) {
                size_t n = strlen(label);

                snprintf(label + n, sizeof label - n, "%s%s%s",
                         n ? "+" : "", dn[k], kn[j]);
                on++;
            }
    }
    if (on == 8)
        snprintf(label, sizeof label, "all");
    else if (!on)
        snprintf(label, sizeof label, "none");
}

/* key= from the kernel's command line into *v if it is in [1, max]. */
static void size_arg(const char *key, long max, unsigned *v)
{
    long x;
    enum cmdline_status e = cmdline_long(key, 1, max, &x);

    if (e == CMDLINE_OK)
        *v = (unsigned)x;
    else if (e != CMDLINE_ABSENT)
        printf("# %s= is not a number of 1-%ld; %u it is\n", key, max, *v);
}

static void sizes(void)
{
    size_arg("echo", 2000, &echo_conns);
    size_arg("bulk", 1L << 30, &bulk_bytes);
    out_bytes = bulk_bytes;
    size_arg("bulkout", 1L << 30, &out_bytes);
}

int main(void)
{
    make_label();
    sizes();
    return sp_test_main();
}
