/*
 * tcp - TCP and UDP through the virtio-net NIC, lwIP and the socket API,
 * against a peer on the host: tools/test/netpeer.c (its control protocol in
 * tests/lib/netctl.h), which tools/test/runtests.sh
 * starts beside the boot (`net peer` in `test.conf`: QEMU's user
 * network, with host ports forwarded to the guest's tcp 7, tcp 9, udp 7
 * and tcp 9000).  The command line after -- holds two host ports: one
 * where the peer runs a TCP echo server, one where nothing listens.
 *
 * The guest listens on :7 (echo, a G per connection), udp :7 (an echo G),
 * :9 (each case accepts there itself) and :9000 (control).  The peer
 * connects to the control port, and each case sends it a command line
 * and checks the one-line answer ("ok ..." or "fail <reason>"):
 *
 *   dhcp                   sp_net_wait succeeds; the address is 10.0.2.15
 *   control                the listeners, and the peer's control connection
 *   tcp_echo_1000          1000 connections to :7 in five commands of 200
 *                          (2000 to 20000 bytes each), 64 open at once with
 *                          data flowing on all; every byte checked by the
 *                          peer; every server G ends; with several NIC
 *                          queues each took at least a quarter of its
 *                          share of the frames
 *   bulk_in_64m            64 MiB from the peer into :9, the FNV-1a of what
 *                          came compared with the peer's (tests/lib/stream.h)
 *   bulk_out_64m           64 MiB of the stream from :9 to the peer, then
 *                          sp_close; the peer checks every byte and the count
 *   udp_echo               300 datagrams of 4..1400 bytes echoed by the udp
 *                          G (the peer sends a lost one again, up to 5 times)
 *   read_deadline          sp_read with a deadline 200 ms ahead fails with
 *                          -ETIMEDOUT after 190 ms..5 s; one in the past
 *                          fails at once
 *   accept_deadline        sp_accept with a deadline 100 ms ahead and no
 *                          connection coming fails with -ETIMEDOUT
 *   close_wakes_reader     one G blocked in sp_read, another sp_closes the
 *                          connection: the reader gets -EPIPE promptly
 *   close_wakes_writer     one G blocked in sp_write (the peer reads
 *                          nothing), another sp_closes the connection: the
 *                          writer gets -EPIPE promptly, and what sp_write
 *                          took still reaches the peer
 *   accept_is_not_deadlock main parked on a channel, a G in sp_accept, no
 *                          timer pending, until the peer connects 1 s later:
 *                          a runtime that took that for a deadlock would
 *                          end the boot here
 *   dial_echo              sp_dial to the host's echo server (10.0.2.2), 100
 *                          KiB written by one G and read back by another
 *   dial_refused           sp_dial to a host port nobody listens on fails
 *                          with -ECONNREFUSED
 *   dial_from_every_core   a G moved to each core dials the echo server 8
 *                          times, a short exchange on each connection
 *   one_core_per_connection  over all of the above: no frame handled away
 *                          from its queue's core, no segment away from its
 *                          connection's first core, no frame on a core
 *                          without a queue (unless a queue was stranded
 *                          50 ms and polled by another core, whose frames
 *                          then count as away); no dial answered on
 *                          another core's queue; the NIC has queues= pairs
 *                          (1 without it) with RSS when more than one,
 *                          and a stack (a copy of lwIP) per queue
 *   shutdown               sp_close of the listeners wakes their Gs (-EPIPE);
 *                          the peer is told to quit
 *
 * Both bulk cases move 64 MiB on both arches (BULK_BYTES): under TCG on a
 * 2-core host that takes a few seconds each way (see the runner's times).
 *
 * tests/net/mq runs these same cases on a multiqueue NIC (a queue per
 * core, RSS) on a TAP device; the runner then passes queues=N.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "sched/export_test.h"
#include "tests/lib/netctl.h"
#include "tests/lib/stream.h"

#define BULK_BYTES   (64u << 20)
#define ECHO_CONNS   200         /* per echo command; five of them */
#define ECHO_AT_ONCE 64
#define UDP_COUNT    300
#define DIAL_BYTES   (100 * 1024)

/* QEMU's user network: the guest's DHCP address, and the host as the
   guest sees it.  A hosted run on a TAP passes others (host=, guest=). */
static const char *guest_addr = "10.0.2.15";
static const char *host_addr = "10.0.2.2";

static int serve_port, closed_port;     /* from the command line */
static int want_queues = 1;             /* queues=: the NIC's queue pairs */

#define MAX_CORES 64
static sp_udp *u7;

/* The UDP echo G (the TCP one is netctl.h's): datagrams echoed, sends
   that failed, and its final error, on udp_done (an int). */
static long udp_received, udp_send_errors;
static sp_chan *udp_done;

/* ---- The servers ---------------------------------------------------- */

static void udp_echo_g(void *arg)
{
    char buf[2048], from[32];
    int err;
    long n;

    for (;;) {
        n = sp_recvfrom(u7, buf, sizeof buf, from, sizeof from);
        if (n < 0)
            break;
        /* Counted before the echo leaves: the peer's answer may reach
           main before this G runs again. */
        __atomic_add_fetch(&udp_received, 1, __ATOMIC_RELAXED);
        if (sp_sendto(u7, buf, (size_t)n, from) != n)
            __atomic_add_fetch(&udp_send_errors, 1, __ATOMIC_RELAXED);
    }
    err = (int)n;
    sp_chan_send(udp_done, &err);
}

/* ---- The cases ------------------------------------------------------- */

TEST(dhcp)
{
    uint64_t t0 = sp_nanotime();
    char addr[32];
    int rc = sp_net_wait(SP_S(30));

    CHECKF(rc == 0, "sp_net_wait: %s (%d)", sp_net_strerror(rc), rc);
    printf("# address after %llu ms\n", (unsigned long long)ms_since(t0));
    rc = sp_net_addr(addr, sizeof addr);
    CHECKF(rc == 0, "sp_net_addr: %s", sp_net_strerror(rc));
    CHECKF(!strcmp(addr, guest_addr), "address %s, expected %s", addr,
           guest_addr);
}

TEST(control)
{
    uint64_t t0 = sp_nanotime();
    int err, tries = 0;

    CHECKF(serve_port > 0 && closed_port > 0, "no ports after -- (the "
           "runner passes the peer's echo port and a closed one)");
    CHECKF((l7 = sp_listen(":7", &err)), "listen :7: %s",
           sp_net_strerror(err));
    CHECKF((l9 = sp_listen(":9", &err)), "listen :9: %s",
           sp_net_strerror(err));
    CHECKF((u7 = sp_listen_udp(":7", &err)), "listen udp :7: %s",
           sp_net_strerror(err));
    CHECKF((lctl = sp_listen(":9000", &err)), "listen :9000: %s",
           sp_net_strerror(err));
    acceptor_done = sp_chan_make(sizeof(int), 1);
    udp_done = sp_chan_make(sizeof(int), 1);
    sp_go(echo_acceptor, NULL);
    sp_go(udp_echo_g, NULL);
    err = ctl_wait(t0 + CTL_WAIT, &tries);
    CHECKF(err == 0, "no control connection from the peer after %llu s "
           "(%d tries): %s", (unsigned long long)(ms_since(t0) / 1000),
           tries, sp_net_strerror(err));
    printf("# control connection after %llu ms (%d tries)\n",
           (unsigned long long)ms_since(t0), tries);
}

TEST(tcp_echo_1000)
{
    static const int sizes[] = { 2000, 4096, 8000, 14600, 20000 };
    static struct sp_net_stats before[MAX_CORES], after[MAX_CORES];
    struct sp_net_stats st;
    uint64_t t0 = sp_nanotime(), t, total = 0;
    int total0 = __atomic_load_n(&echo_total, __ATOMIC_RELAXED);
    int errors0 = __atomic_load_n(&echo_errors, __ATOMIC_RELAXED);
    char cmd[64];

    sp_net_stats(&st, before, MAX_CORES);

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        snprintf(cmd, sizeof cmd, "echo %d %d %d", ECHO_CONNS,
                 ECHO_AT_ONCE, sizes[i]);
        COMMAND(cmd, (char *)NULL, 0);
    }
    printf("# %d echo connections in %llu ms, at most %d server Gs at once\n",
           5 * ECHO_CONNS, (unsigned long long)ms_since(t0), echo_peak);
    /* The peer closed each connection once its bytes came back; the
       guest's side ends when it reads that end. */
    t = sp_nanotime();
    while (__atomic_load_n(&echo_active, __ATOMIC_ACQUIRE) > 0 &&
           sp_nanotime() - t < SP_S(10))
        sp_sleep(SP_MS(10));
    CHECKF(echo_active == 0, "%d echo Gs still running 10 s after the "
           "last connection ended", echo_active);
    CHECKF(echo_total - total0 == 5 * ECHO_CONNS, "the guest accepted %d "
           "connections, the peer made %d", echo_total - total0,
           5 * ECHO_CONNS);
    CHECKF(echo_errors == errors0, "%d echo connections ended with an "
           "error", echo_errors - errors0);
    /* Each queue's frames are handled by its own core alone (checked in
       one_core_per_connection): its core's count is the queue's. */
    sp_net_stats(&st, after, MAX_CORES);
    for (int q = 0; q < st.nqueues; q++)
        total += after[q].rx - before[q].rx;
    printf("# frames by queue:");
    for (int q = 0; q < st.nqueues; q++)
        printf(" %llu", (unsigned long long)(after[q].rx - before[q].rx));
    printf(" (%d queue%s, RSS %s)\n", st.nqueues, st.nqueues > 1 ? "s" : "",
           st.rss ? "on" : "off");
    for (int q = 0; q < st.nqueues; q++)
        CHECKF(after[q].rx - before[q].rx >= total / st.nqueues / 4,
               "queue %d took %llu of %llu frames: under a quarter of its "
               "share", q, (unsigned long long)(after[q].rx - before[q].rx),
               (unsigned long long)total);
}

/* What a transfer that stopped moving leaves to read: who runs, who
   halts, what the NIC and the stack counted. */
static void stalled(void)
{
    static char report[1024];

    sched_detail();
    sp_net_report(report, sizeof report);
    printf("%s\n", report);
}

TEST(bulk_in_64m)
{
    char cmd[64], rest[64], want[16];
    uint64_t got, t0;
    uint32_t sum;
    sp_conn *c;
    long n;
    int err;

    snprintf(cmd, sizeof cmd, "sink %u", BULK_BYTES);
    SEND(cmd);
    c = accept9(&err);
    CHECKF(c, "accept on :9: %s", sp_net_strerror(err));
    t0 = sp_nanotime();
    n = sink_read(c, &got, &sum);
    if (n == -ETIMEDOUT)
        stalled();
    sp_close(c);
    printf("# %llu bytes in %llu ms\n", (unsigned long long)got,
           (unsigned long long)ms_since(t0));
    CHECKF(n == 0, "sp_read after %llu bytes: %s", (unsigned long long)got,
           sp_net_strerror((int)n));
    CHECKF(got == BULK_BYTES, "%llu bytes came, not %u",
           (unsigned long long)got, BULK_BYTES);
    REPLY(cmd, rest, sizeof rest);
    snprintf(want, sizeof want, "%08x", sum);
    CHECKF(!strcmp(rest, want), "checksum %s here, %s at the peer", want,
           rest);
}

TEST(bulk_out_64m)
{
    char cmd[64], rest[64], want[32];
    uint64_t off, t0;
    sp_conn *c;
    long n;
    int err;

    snprintf(cmd, sizeof cmd, "source %u", BULK_BYTES);
    SEND(cmd);
    c = accept9(&err);
    CHECKF(c, "accept on :9: %s", sp_net_strerror(err));
    t0 = sp_nanotime();
    n = source_write(c, BULK_BYTES, &off);
    if (n == -ETIMEDOUT)
        stalled();
    /* No sp_close_write first: sp_close alone delivers what was written
       (as Go's Close does). */
    sp_close(c);
    printf("# %llu bytes in %llu ms\n", (unsigned long long)off,
           (unsigned long long)ms_since(t0));
    CHECKF(n >= 0, "sp_write after %llu bytes: %s", (unsigned long long)off,
           sp_net_strerror((int)n));
    REPLY(cmd, rest, sizeof rest);
    snprintf(want, sizeof want, "%u", BULK_BYTES);
    CHECKF(!strcmp(rest, want), "the peer got %s bytes, not %s", rest, want);
}

TEST(udp_echo)
{
    long got0 = __atomic_load_n(&udp_received, __ATOMIC_RELAXED);
    long err0 = __atomic_load_n(&udp_send_errors, __ATOMIC_RELAXED);
    char cmd[64], rest[64], want[32];
    uint64_t t0 = sp_nanotime();
    long got, errs;

    snprintf(cmd, sizeof cmd, "udp %d", UDP_COUNT);
    COMMAND(cmd, rest, sizeof rest);
    got = __atomic_load_n(&udp_received, __ATOMIC_RELAXED) - got0;
    errs = __atomic_load_n(&udp_send_errors, __ATOMIC_RELAXED) - err0;
    /* A datagram the peer sent again comes twice; one sp_sendto could
       not send (-ENOMEM: the NIC's TX ring was full) is sent again. */
    printf("# %d datagrams in %llu ms: %ld received, %ld echoes not sent\n",
           UDP_COUNT, (unsigned long long)ms_since(t0), got, errs);
    snprintf(want, sizeof want, "%d", UDP_COUNT);
    CHECKF(!strcmp(rest, want), "the peer says ok %s, not %s", rest, want);
    CHECKF(got >= UDP_COUNT, "%ld datagrams received, the peer had %d "
           "echoed", got, UDP_COUNT);
}

TEST(read_deadline)
{
    uint64_t t0, ms;
    sp_conn *c;
    char b[16];
    long n;
    int err;

    SEND("idle 0");
    c = accept9(&err);
    CHECKF(c, "accept on :9: %s", sp_net_strerror(err));
    t0 = sp_nanotime();
    sp_set_read_deadline(c, (int64_t)(t0 + SP_MS(200)));
    n = sp_read(c, b, sizeof b);
    ms = ms_since(t0);
    printf("# a 200 ms read deadline: %s after %llu ms\n",
           sp_net_strerror((int)n), (unsigned long long)ms);
    if (n != -ETIMEDOUT || ms < 190 || ms >= 5000) {
        sp_close(c);
        CHECKF(n == -ETIMEDOUT, "sp_read returned %ld (%s), not -ETIMEDOUT",
               n, sp_net_strerror((int)n));
        CHECKF(ms >= 190, "sp_read timed out after %llu ms, before the "
               "deadline", (unsigned long long)ms);
        CHECKF(ms < 5000, "sp_read timed out after %llu ms",
               (unsigned long long)ms);
    }
    /* A deadline in the past: at once. */
    sp_set_read_deadline(c, (int64_t)sp_nanotime() - (int64_t)SP_MS(1));
    t0 = sp_nanotime();
    n = sp_read(c, b, sizeof b);
    ms = ms_since(t0);
    sp_close(c);
    CHECKF(n == -ETIMEDOUT, "past deadline: sp_read returned %ld (%s)", n,
           sp_net_strerror((int)n));
    CHECKF(ms < 500, "past deadline: sp_read took %llu ms",
           (unsigned long long)ms);
    REPLY("idle 0", (char *)NULL, 0);
}

TEST(accept_deadline)
{
    uint64_t t0 = sp_nanotime(), ms;
    sp_conn *c;
    int err;

    /* Nobody connects to :9 now. */
    sp_set_read_deadline(l9, (int64_t)(t0 + SP_MS(100)));
    c = sp_accept(l9, &err);
    ms = ms_since(t0);
    sp_set_read_deadline(l9, 0);
    if (c)
        sp_close(c);
    CHECKF(!c, "sp_accept gave a connection nobody made");
    CHECKF(err == -ETIMEDOUT, "sp_accept: %s (%d), not -ETIMEDOUT",
           sp_net_strerror(err), err);
    CHECKF(ms >= 90 && ms < 5000, "sp_accept with a 100 ms deadline "
           "returned after %llu ms", (unsigned long long)ms);
}

static struct {
    sp_conn *c;
    int started;
    long rc;
    uint64_t at;
    sp_chan *done;
} rd;

static void blocked_reader(void *arg)
{
    char b[16];

    __atomic_store_n(&rd.started, 1, __ATOMIC_RELEASE);
    rd.rc = sp_read(rd.c, b, sizeof b);
    rd.at = sp_nanotime();
    sp_chan_send(rd.done, NULL);
}

TEST(close_wakes_reader)
{
    uint64_t closed_at;
    bool ok;
    int err;

    SEND("idle 0");
    rd.c = accept9(&err);
    CHECKF(rd.c, "accept on :9: %s", sp_net_strerror(err));
    rd.started = 0;
    rd.done = sp_chan_make(0, 1);
    sp_go(blocked_reader, NULL);
    while (!__atomic_load_n(&rd.started, __ATOMIC_ACQUIRE))
        sp_sleep(SP_MS(1));
    sp_sleep(SP_MS(100));       /* well inside sp_read by now */
    closed_at = sp_nanotime();
    sp_close(rd.c);
    CHECKF(sp_chan_recv_timeout(rd.done, NULL, SP_S(5), &ok) == 1,
           "the reader still blocked 5 s after sp_close");
    sp_chan_free(rd.done);
    printf("# the reader returned %lld us after sp_close: %s\n",
           (long long)(rd.at - closed_at) / 1000,
           sp_net_strerror((int)rd.rc));
    CHECKF(rd.rc == -EPIPE, "sp_read returned %ld (%s), not -EPIPE", rd.rc,
           sp_net_strerror((int)rd.rc));
    CHECKF(rd.at - closed_at < SP_MS(500), "the reader returned %llu ms "
           "after sp_close", (unsigned long long)(rd.at - closed_at) / 1000000);
    REPLY("idle 0", (char *)NULL, 0);
}

static struct {
    sp_conn *c;
    uint64_t written;           /* bytes sp_write took so far */
    long rc;
    uint64_t at;
    sp_chan *done;
} wr;

static void blocked_writer(void *arg)
{
    static uint8_t buf[16384];

    for (;;) {
        stream_fill(wr.written, buf, sizeof buf);
        if ((wr.rc = sp_write(wr.c, buf, sizeof buf)) < 0)
            break;
        __atomic_add_fetch(&wr.written, (uint64_t)wr.rc, __ATOMIC_RELAXED);
    }
    wr.at = sp_nanotime();
    sp_chan_send(wr.done, NULL);
}

TEST(close_wakes_writer)
{
    uint64_t t0 = sp_nanotime(), closed_at, last = 0, still_since = 0;
    char rest[64];
    bool ok;
    int err;

    SEND("stall 3000");
    wr.c = accept9(&err);
    CHECKF(wr.c, "accept on :9: %s", sp_net_strerror(err));
    wr.written = 0;
    wr.done = sp_chan_make(0, 1);
    sp_go(blocked_writer, NULL);
    /* Blocked: no progress for 300 ms (the peer reads nothing). */
    for (;;) {
        uint64_t w = __atomic_load_n(&wr.written, __ATOMIC_RELAXED);

        if (w != last || !still_since) {
            last = w;
            still_since = sp_nanotime();
        } else if (w && sp_nanotime() - still_since >= SP_MS(300)) {
            break;
        }
        if (sp_nanotime() - t0 > SP_MS(2500)) {
            sp_close(wr.c);
            sp_chan_recv(wr.done, NULL);
            sp_chan_free(wr.done);
            CHECKF(0, "the writer did not block (%llu bytes written)",
                   (unsigned long long)w);
        }
        sp_sleep(SP_MS(10));
    }
    closed_at = sp_nanotime();
    sp_close(wr.c);
    CHECKF(sp_chan_recv_timeout(wr.done, NULL, SP_S(5), &ok) == 1,
           "the writer still blocked 5 s after sp_close");
    sp_chan_free(wr.done);
    printf("# the writer blocked after %llu bytes, returned %lld us after "
           "sp_close: %s\n", (unsigned long long)wr.written,
           (long long)(wr.at - closed_at) / 1000,
           sp_net_strerror((int)wr.rc));
    CHECKF(wr.rc == -EPIPE, "sp_write returned %ld (%s), not -EPIPE", wr.rc,
           sp_net_strerror((int)wr.rc));
    CHECKF(wr.at - closed_at < SP_MS(500), "the writer returned %llu ms "
           "after sp_close", (unsigned long long)(wr.at - closed_at) / 1000000);
    /* What sp_write took is still delivered after sp_close. */
    REPLY("stall 3000", rest, sizeof rest);
    CHECKF(strtoull(rest, NULL, 10) >= wr.written, "the peer got %s bytes, "
           "sp_write took %llu", rest, (unsigned long long)wr.written);
}

struct accepted {
    sp_conn *c;
    int err;
};

static void acceptor9(void *arg)
{
    struct accepted a;

    a.c = sp_accept(l9, &a.err);
    sp_chan_send(arg, &a);
}

TEST(accept_is_not_deadlock)
{
    sp_chan *ch = sp_chan_make(sizeof(struct accepted), 0);
    struct accepted a;
    uint64_t t0;

    /* Before the request: the peer's second starts when the request
       reaches it, which may be before this core gets to its next line. */
    t0 = sp_nanotime();
    SEND("idle 1000");
    /* Nothing here has a deadline or a timer: main waits on ch, the
       acceptor on the network, as do the echo servers' Gs. */
    sp_go(acceptor9, ch);
    CHECK(sp_chan_recv(ch, &a));
    sp_chan_free(ch);
    printf("# accepted after %llu ms\n", (unsigned long long)ms_since(t0));
    CHECKF(a.c, "accept on :9: %s", sp_net_strerror(a.err));
    sp_close(a.c);
    CHECKF(ms_since(t0) >= 900, "the connection came after %llu ms, before "
           "the peer's 1 s wait", (unsigned long long)ms_since(t0));
    REPLY("idle 1000", (char *)NULL, 0);
}

static struct {
    sp_conn *c;
    long rc;
    sp_waitgroup wg;
} dw;

static void dial_writer(void *arg)
{
    static uint8_t out[10000];
    size_t off = 0;

    while (off < DIAL_BYTES) {
        size_t k = DIAL_BYTES - off < sizeof out ? DIAL_BYTES - off
                                                 : sizeof out;

        stream_fill(off, out, k);
        if ((dw.rc = sp_write(dw.c, out, k)) < 0)
            break;
        off += (size_t)dw.rc;   /* k, or less just before an error */
    }
    sp_waitgroup_done(&dw.wg);
}

TEST(dial_echo)
{
    static uint8_t in[8192];
    char addr[32], remote[32];
    uint64_t t0 = sp_nanotime();
    size_t got = 0, bad;
    long n = 0;
    int err;

    snprintf(addr, sizeof addr, "%s:%d", host_addr, serve_port);
    dw.c = sp_dial(addr, SP_S(10), &err);
    CHECKF(dw.c, "dial %s: %s", addr, sp_net_strerror(err));
    printf("# dialed %s in %llu ms\n", addr,
           (unsigned long long)ms_since(t0));
    if (sp_remote_addr(dw.c, remote, sizeof remote) != 0 ||
        strcmp(remote, addr)) {
        sp_close(dw.c);
        CHECKF(0, "the remote address is %s, not %s", remote, addr);
    }
    dw.rc = 0;
    sp_set_deadline(dw.c, (int64_t)(sp_nanotime() + SP_S(60)));
    sp_waitgroup_add(&dw.wg, 1);
    sp_go(dial_writer, NULL);
    while (got < DIAL_BYTES && (n = sp_read(dw.c, in, sizeof in)) > 0) {
        if ((bad = stream_check(got, in, (size_t)n)) < (size_t)n)
            break;
        got += (size_t)n;
    }
    sp_waitgroup_wait(&dw.wg);
    sp_close(dw.c);
    printf("# %zu bytes echoed in %llu ms\n", got,
           (unsigned long long)ms_since(t0));
    CHECKF(dw.rc >= 0, "sp_write: %s", sp_net_strerror((int)dw.rc));
    CHECKF(n > 0, "sp_read after %zu bytes: %s", got,
           n ? sp_net_strerror((int)n) : "end of stream");
    CHECKF(got == DIAL_BYTES, "byte %zu came back wrong",
           got + stream_check(got, in, (size_t)n));
}

TEST(dial_refused)
{
    char addr[32];
    uint64_t t0 = sp_nanotime();
    sp_conn *c;
    int err;

    snprintf(addr, sizeof addr, "%s:%d", host_addr, closed_port);
    c = sp_dial(addr, SP_S(10), &err);
    if (c)
        sp_close(c);
    printf("# dial %s: %s after %llu ms\n", addr,
           c ? "connected" : sp_net_strerror(err),
           (unsigned long long)ms_since(t0));
    CHECKF(!c, "dial %s connected", addr);
    CHECKF(err == -ECONNREFUSED, "dial %s: %s (%d), not -ECONNREFUSED",
           addr, sp_net_strerror(err), err);
}

/* One G per core, each moved there first, each dialling the echo
   server DIALS_PER_CORE times with a short exchange on every connection.
   With RSS every dial picks its port for its core's queue (misdial). */
#define DIALS_PER_CORE 8

static struct {
    sp_waitgroup wg;
    int failed;                 /* dials or exchanges that failed; atomic */
    char why[96];               /* the first failure */
} de;

static void dial_from(void *arg)
{
    int core = (int)(intptr_t)arg, err;
    char addr[32], buf[64], want[64];

    gomoveto(core);
    snprintf(addr, sizeof addr, "%s:%d", host_addr, serve_port);
    for (int i = 0; i < DIALS_PER_CORE; i++) {
        sp_conn *c = sp_dial(addr, SP_S(10), &err);
        int n = snprintf(want, sizeof want, "core %d dial %d", core, i);
        long got = 0, r = 0;

        if (c && sp_write(c, want, (size_t)n) == n) {
            sp_set_read_deadline(c, (int64_t)(sp_nanotime() + SP_S(10)));
            while (got < n && (r = sp_read(c, buf + got, sizeof buf - got)) > 0)
                got += r;
        }
        if (!c || got != n || memcmp(buf, want, (size_t)n)) {
            if (__atomic_fetch_add(&de.failed, 1, __ATOMIC_RELAXED) == 0)
                snprintf(de.why, sizeof de.why, "%s: %s", want,
                         !c ? sp_net_strerror(err) :
                         r < 0 ? sp_net_strerror((int)r) : "wrong echo");
        }
        if (c)
            sp_close(c);
    }
    sp_waitgroup_done(&de.wg);
}

TEST(dial_from_every_core)
{
    uint64_t t0 = sp_nanotime();

    sp_waitgroup_add(&de.wg, sp_ncpu());
    for (int k = 0; k < sp_ncpu(); k++)
        sp_go(dial_from, (void *)(intptr_t)k);
    sp_waitgroup_wait(&de.wg);
    printf("# %d dials from %d cores in %llu ms\n",
           DIALS_PER_CORE * sp_ncpu(), sp_ncpu(),
           (unsigned long long)ms_since(t0));
    CHECKF(de.failed == 0, "%d of %d dials failed; first: %s", de.failed,
           DIALS_PER_CORE * sp_ncpu(), de.why);
}

/*
 * Where the network's work ran, over every case so far: each queue's
 * frames handled on its own core only, every connection's segments on
 * one core, every dial answered on the dialling core's queue, and as
 * many queues as the NIC was given (queues= from the runner, else 1).
 */
TEST(one_core_per_connection)
{
    static struct sp_net_stats pc[MAX_CORES];
    struct sp_net_stats st;
    int rc = sp_net_stats(&st, pc, MAX_CORES);

    CHECKF(rc == 0, "sp_net_stats: %s", sp_net_strerror(rc));
    printf("# %d queue%s (RSS %s): rx %llu tx %llu frames, away %llu, "
           "split %llu, misdialled %llu, cross-core wakeups %llu, "
           "stranded-queue polls %llu; %d stack%s, locks %llu takes, %llu "
           "contended, %llu foreign, mean hold %llu ns\n",
           st.nqueues, st.nqueues > 1 ? "s" : "", st.rss ? "on" : "off",
           (unsigned long long)st.rx, (unsigned long long)st.tx,
           (unsigned long long)st.away, (unsigned long long)st.split,
           (unsigned long long)st.misdial, (unsigned long long)st.xwake,
           (unsigned long long)st.rescues, st.stacks, st.stacks > 1 ? "s" : "",
           (unsigned long long)st.lock_takes,
           (unsigned long long)st.lock_contended,
           (unsigned long long)st.lock_foreign,
           (unsigned long long)st.lock_hold_ns);
    CHECKF(st.nqueues == want_queues, "%d queue pairs, expected %d",
           st.nqueues, want_queues);
    CHECKF(want_queues == 1 || st.rss, "%d queues without RSS", st.nqueues);
    /* With RSS each queue has its own copy of lwIP under its own lock. */
    CHECKF(st.stacks == (st.rss ? st.nqueues : 1), "%d stacks for %d "
           "queues (RSS %s)", st.stacks, st.nqueues, st.rss ? "on" : "off");
    /* Only a poll of a queue stranded for 50 ms (its vCPU descheduled
       by the host: seen under TSan) may handle frames on another core. */
    CHECKF(st.away == 0 || st.rescues > 0, "%llu frames handled on a core "
           "not their queue's, and no queue was stranded",
           (unsigned long long)st.away);
    CHECKF(st.split == 0 || st.rescues > 0, "%llu segments handled on "
           "another core than their connection's first, and no queue was "
           "stranded", (unsigned long long)st.split);
    CHECKF(st.misdial == 0, "%llu dials answered on another core's queue",
           (unsigned long long)st.misdial);
    for (int c = st.nqueues; c < sp_ncpu() && c < MAX_CORES; c++)
        CHECKF(pc[c].rx == 0 || st.rescues > 0, "core %d has no queue but "
               "handled %llu frames, and no queue was stranded", c,
               (unsigned long long)pc[c].rx);
    /* A frame a core without a queue handled was away from its queue. */
    for (int c = st.nqueues; c < sp_ncpu() && c < MAX_CORES; c++)
        CHECKF(pc[c].rx == pc[c].away, "core %d has no queue and handled "
               "%llu frames, but counted %llu away", c,
               (unsigned long long)pc[c].rx, (unsigned long long)pc[c].away);
}

TEST(shutdown)
{
    bool ok;
    int err;

    CHECK(l7 && u7 && l9 && lctl);
    sp_close(l7);
    CHECKF(sp_chan_recv_timeout(acceptor_done, &err, SP_S(5), &ok) == 1,
           "sp_close(:7) did not wake the G in sp_accept");
    CHECKF(err == -EPIPE, "sp_accept after sp_close: %s (%d), not -EPIPE",
           sp_net_strerror(err), err);
    sp_close(u7);
    CHECKF(sp_chan_recv_timeout(udp_done, &err, SP_S(5), &ok) == 1,
           "sp_close(udp :7) did not wake the G in sp_recvfrom");
    CHECKF(err == -EPIPE, "sp_recvfrom after sp_close: %s (%d), not -EPIPE",
           sp_net_strerror(err), err);
    sp_close(l9);
    sp_close(lctl);
    COMMAND("quit", (char *)NULL, 0);
    sp_close(ctl);
    ctl = NULL;
}

/* The two port numbers after --, among the runner's cores=N, and
   host=A.B.C.D guest=A.B.C.D where the network is not QEMU's. */
int main(int argc, char **argv)
{
    int *next = &serve_port;

    for (int i = 1; i < argc; i++) {
        char *end;
        long v = strtol(argv[i], &end, 10);

        if (!strncmp(argv[i], "host=", 5))
            host_addr = argv[i] + 5;
        else if (!strncmp(argv[i], "guest=", 6))
            guest_addr = argv[i] + 6;
        else if (!strncmp(argv[i], "queues=", 7))
            want_queues = atoi(argv[i] + 7);
        if (!next || end == argv[i] || *end || v < 1 || v > 65535)
            continue;
        *next = (int)v;
        next = next == &serve_port ? &closed_port : NULL;
    }
    return sp_test_main();
}
