/*
 * faults - TCP over a link that loses, doubles, reorders and corrupts
 * frames (fault=rxdrop:..., kernel/faultinject.h), against the host peer
 * of tests/net/tcp (tools/test/netpeer.c; `net peer` in test.conf).
 * Every byte is checked, every transfer has a bound, and the counters
 * prove that the faults struck and that TCP recovered from them.
 *
 *   control      the listeners (:7 echo, :9 bulk, :9000 control) and the
 *                peer's control connection
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
 *   shutdown     the peer is told to quit
 *
 * echo=, bulk= and bulkout= are read from the kernel's command line, where a
 * test.conf `cmdline` puts them (the runner's app arguments follow its
 * own `--`, after the words it adds for a TAP network).
 *
 * Each transfer prints its throughput as a BENCH line named after the
 * transfer and the faults on (make_label: "all", or "rxdrop+txdup").
 * The bounds: a command has CMD_WAIT, a bulk read STALL_WAIT without a
 * byte; a wedged connection fails its case instead of hanging the boot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/cmdline.h"
#include "kernel/faultinject.h"
#include "tests/lib/stream.h"

#define ECHO_CONNS   100
#define ECHO_AT_ONCE 64         /* a round waits for its slowest */
#define ECHO_SIZE    6000
#define BULK_BYTES   (2u << 20)
#define CMD_WAIT     SP_S(130)  /* longer than the peer's 120 s a command */
#define STALL_WAIT   SP_S(20)
#define CTL_WAIT     SP_S(60)

static char label[96];
static unsigned echo_conns = ECHO_CONNS, bulk_bytes = BULK_BYTES, out_bytes;
static sp_listener *l7, *l9, *lctl;
static sp_conn *ctl;
static char cbuf[512];
static size_t clen;
static int echo_active, echo_total, echo_errors;

static void echo_serve(void *arg)
{
    sp_conn *c = arg;
    char buf[4096];
    long n;

    while ((n = sp_read(c, buf, sizeof buf)) > 0)
        if (sp_write(c, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    if (n < 0)
        __atomic_add_fetch(&echo_errors, 1, __ATOMIC_RELAXED);
    sp_close(c);
    __atomic_sub_fetch(&echo_active, 1, __ATOMIC_RELEASE);
}

static void echo_acceptor(void *arg)
{
    sp_conn *c;
    int err;

    while ((c = sp_accept(l7, &err))) {
        __atomic_add_fetch(&echo_active, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&echo_total, 1, __ATOMIC_RELAXED);
        sp_go(echo_serve, c);
    }
}

/* A line from c within wait, into line: 0 or an error. */
static int read_line(sp_conn *c, char *line, size_t len, uint64_t wait)
{
    char *nl;
    long n;
    int rc = 0;

    sp_set_read_deadline(c, (int64_t)(sp_nanotime() + wait));
    while (!(nl = memchr(cbuf, '\n', clen))) {
        if (clen == sizeof cbuf) {
            rc = -EMSGSIZE;
            break;
        }
        if ((n = sp_read(c, cbuf + clen, sizeof cbuf - clen)) <= 0) {
            rc = n ? (int)n : -ECONNRESET;
            break;
        }
        clen += (size_t)n;
    }
    sp_set_read_deadline(c, 0);
    if (rc)
        return rc;
    snprintf(line, len, "%.*s", (int)(nl - cbuf), cbuf);
    clen -= (size_t)(nl + 1 - cbuf);
    memmove(cbuf, nl + 1, clen);
    return 0;
}

static int send_cmd(const char *cmd)
{
    char line[128];
    int n = snprintf(line, sizeof line, "%s\n", cmd);
    long rc;

    if (!ctl)
        return -EPIPE;
    rc = sp_write(ctl, line, (size_t)n);
    return rc == n ? 0 : rc < 0 ? (int)rc : -EIO;
}

/* The peer's answer to the command sent last: "ok" and its rest into
   rest (0), or why not (-EPROTO: it said "fail ..."; the line in rest). */
static int answer(char *rest, size_t len)
{
    char line[256];
    int rc;

    if (!ctl)
        return -EPIPE;
    if ((rc = read_line(ctl, line, sizeof line, CMD_WAIT)) != 0) {
        sp_close(ctl);          /* the cases after fail at once */
        ctl = NULL;
        snprintf(rest, len, "no answer: %s", sp_net_strerror(rc));
        return rc;
    }
    snprintf(rest, len, "%s", strncmp(line, "ok", 2) ? line :
             line[2] ? line + 3 : "");
    return strncmp(line, "ok", 2) ? -EPROTO : 0;
}

static uint64_t ms_since(uint64_t t)
{
    return (sp_nanotime() - t) / 1000000;
}

/* A throughput line: bytes moved in ms. */
static void bench(const char *what, uint64_t bytes, uint64_t ms)
{
    uint64_t kbs = bytes * 1000 / 1024 / (ms ? ms : 1);

    printf("BENCH net_faults_%s_%s %llu KiB/s\n", what, label,
           (unsigned long long)kbs);
}

TEST(control)
{
    uint64_t end = sp_nanotime() + CTL_WAIT;
    char line[64];
    int err, rc = sp_net_wait(SP_S(30));

    CHECKF(rc == 0, "sp_net_wait: %s", sp_net_strerror(rc));
    CHECKF((l7 = sp_listen(":7", &err)), "listen :7: %s",
           sp_net_strerror(err));
    CHECKF((l9 = sp_listen(":9", &err)), "listen :9: %s",
           sp_net_strerror(err));
    CHECKF((lctl = sp_listen(":9000", &err)), "listen :9000: %s",
           sp_net_strerror(err));
    sp_go(echo_acceptor, NULL);
    /* QEMU's forward accepts before the guest listens, so the peer may
       retry: a connection counts once the peer answered the greeting. */
    while (!ctl) {
        sp_conn *c;

        CHECKF(sp_nanotime() < end, "no control connection from the peer");
        sp_set_read_deadline(lctl, (int64_t)end);
        c = sp_accept(lctl, &err);
        sp_set_read_deadline(lctl, 0);
        CHECKF(c, "accept on :9000: %s", sp_net_strerror(err));
        clen = 0;
        if (sp_write(c, "hello spindle\n", 14) == 14 &&
            read_line(c, line, sizeof line, SP_S(20)) == 0 &&
            !strcmp(line, "ready"))
            ctl = c;
        else
            sp_close(c);
    }
}

TEST(echo)
{
    uint64_t t0 = sp_nanotime();
    char cmd[64], rest[200];
    int rc;

    snprintf(cmd, sizeof cmd, "echo %u %u %d", echo_conns,
             echo_conns < ECHO_AT_ONCE ? echo_conns : ECHO_AT_ONCE, ECHO_SIZE);
    CHECKF((rc = send_cmd(cmd)) == 0, "%s: %s", cmd, sp_net_strerror(rc));
    rc = answer(rest, sizeof rest);
    CHECKF(rc == 0, "%s: %s", cmd, rest);
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

/* The peer's connection to :9 for the command just sent. */
static sp_conn *accept9(int *err)
{
    sp_conn *c;

    sp_set_read_deadline(l9, (int64_t)(sp_nanotime() + STALL_WAIT));
    c = sp_accept(l9, err);
    sp_set_read_deadline(l9, 0);
    return c;
}

TEST(bulk_in)
{
    static uint8_t buf[16384];
    char cmd[64], rest[200], want[16];
    uint32_t sum = FNV1A_INIT;
    uint64_t got = 0, t0 = sp_nanotime();
    sp_conn *c;
    long n;
    int err, rc;

    snprintf(cmd, sizeof cmd, "sink %u", bulk_bytes);
    CHECKF((rc = send_cmd(cmd)) == 0, "%s: %s", cmd, sp_net_strerror(rc));
    CHECKF((c = accept9(&err)), "accept on :9: %s", sp_net_strerror(err));
    for (;;) {
        sp_set_read_deadline(c, (int64_t)(sp_nanotime() + STALL_WAIT));
        if ((n = sp_read(c, buf, sizeof buf)) <= 0)
            break;
        sum = fnv1a(sum, buf, (size_t)n);
        got += (uint64_t)n;
    }
    sp_close(c);
    rc = answer(rest, sizeof rest);
    CHECKF(n == 0, "sp_read after %llu bytes: %s", (unsigned long long)got,
           sp_net_strerror((int)n));
    CHECKF(got == bulk_bytes, "%llu bytes came, not %u",
           (unsigned long long)got, bulk_bytes);
    CHECKF(rc == 0, "%s: %s", cmd, rest);
    snprintf(want, sizeof want, "%08x", sum);
    CHECKF(!strcmp(rest, want), "checksum %s here, %s at the peer", want,
           rest);
    bench("bulk_in", got, ms_since(t0));
}

TEST(bulk_out)
{
    static uint8_t buf[16384];
    char cmd[64], rest[200];
    uint64_t off = 0, t0 = sp_nanotime();
    sp_conn *c;
    long n = 0;
    int err, rc;

    snprintf(cmd, sizeof cmd, "source %u", out_bytes);
    CHECKF((rc = send_cmd(cmd)) == 0, "%s: %s", cmd, sp_net_strerror(rc));
    CHECKF((c = accept9(&err)), "accept on :9: %s", sp_net_strerror(err));
    while (off < out_bytes) {
        size_t k = out_bytes - off < sizeof buf ? out_bytes - off
                                                 : sizeof buf;

        stream_fill(off, buf, k);
        sp_set_write_deadline(c, (int64_t)(sp_nanotime() + STALL_WAIT));
        if ((n = sp_write(c, buf, k)) < 0)
            break;
        off += (uint64_t)n;
    }
    sp_close(c);
    rc = answer(rest, sizeof rest);
    CHECKF(n >= 0, "sp_write after %llu bytes: %s", (unsigned long long)off,
           sp_net_strerror((int)n));
    CHECKF(rc == 0, "%s: %s", cmd, rest);
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
    char rest[200];
    int rc;

    CHECKF((rc = send_cmd("quit")) == 0, "quit: %s", sp_net_strerror(rc));
    CHECKF(answer(rest, sizeof rest) == 0, "quit: %s", rest);
    sp_close(ctl);
    ctl = NULL;
    sp_close(l7);
    sp_close(l9);
    sp_close(lctl);
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
