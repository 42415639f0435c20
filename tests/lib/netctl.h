/*
 * netctl.h - the guest's end of tools/test/netpeer.c, for the tests that
 * run against it (tests/net/tcp, tests/net/faults): the echo server on :7
 * (a G per connection), the control connection on :9000 with its line
 * commands, and the peer's connections to :9.  One test app includes it
 * once: its state is the app's.
 *
 * The app listens (l7, l9, lctl), makes acceptor_done (a channel of one
 * int, the accept G's final error) and starts echo_acceptor; ctl_wait
 * then takes the peer's control connection.
 */
#ifndef TESTS_LIB_NETCTL_H
#define TESTS_LIB_NETCTL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "tests/lib/stream.h"

#define REPLY_WAIT   SP_S(150)   /* longer than the peer's 120 s per command */
#define ACCEPT_WAIT  SP_S(20)
#define CTL_WAIT     SP_S(60)
#define STALL_WAIT   SP_S(20)    /* a bulk transfer without progress: failed */

static sp_listener *l7, *l9, *lctl;
static sp_conn *ctl;
static char cbuf[1024];                 /* the control connection's input */
static size_t clen;

/* The echo servers' Gs: how many run now, how many ever did, and what
   ended them (the accept G reports on acceptor_done). */
static int echo_active, echo_total, echo_errors, echo_peak;
static sp_chan *acceptor_done;          /* an int: the final error */

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
    int err, now;

    for (;;) {
        sp_conn *c = sp_accept(l7, &err);

        if (!c)
            break;
        now = __atomic_add_fetch(&echo_active, 1, __ATOMIC_RELAXED);
        if (now > echo_peak)    /* this G alone writes it */
            echo_peak = now;
        __atomic_add_fetch(&echo_total, 1, __ATOMIC_RELAXED);
        sp_go(echo_serve, c);
    }
    sp_chan_send(acceptor_done, &err);
}

/* ---- The control connection ----------------------------------------- */

/* One line (no newline) from the control connection, waiting at most
   wait: 0, or the error (-ETIMEDOUT, or 0 bytes: -ECONNRESET). */
static int ctl_line(sp_conn *c, char *line, size_t len, uint64_t wait)
{
    int rc = 0;

    sp_set_read_deadline(c, (int64_t)(sp_nanotime() + wait));
    for (;;) {
        char *nl = memchr(cbuf, '\n', clen);
        long n;

        if (nl) {
            size_t k = (size_t)(nl - cbuf);

            snprintf(line, len, "%.*s", (int)k, cbuf);
            clen -= k + 1;
            memmove(cbuf, nl + 1, clen);
            break;
        }
        if (clen == sizeof cbuf) {
            rc = -EMSGSIZE;
            break;
        }
        n = sp_read(c, cbuf + clen, sizeof cbuf - clen);
        if (n <= 0) {
            rc = n ? (int)n : -ECONNRESET;
            break;
        }
        clen += (size_t)n;
    }
    sp_set_read_deadline(c, 0);
    return rc;
}

/* Answers not read yet: a case that failed before reading its answer
   leaves it to the next command, which skips it. */
static int owed;

static int ctl_send(const char *cmd)
{
    char line[256];
    long rc;
    int n;

    for (; ctl && owed > 0; owed--)
        if (ctl_line(ctl, line, sizeof line, REPLY_WAIT) != 0) {
            printf("# the control connection is lost\n");
            sp_close(ctl);
            ctl = NULL;
        }
    if (!ctl)
        return -EPIPE;
    n = snprintf(line, sizeof line, "%s\n", cmd);
    rc = sp_write(ctl, line, (size_t)n);
    if (rc >= 0)
        owed++;
    return rc < 0 ? (int)rc : 0;
}

/* The answer to the command sent last, into reply: 0 or an error.  A
   peer that does not answer is gone: the cases after fail at once. */
static int ctl_reply(char *reply, size_t len)
{
    int rc;

    if (!ctl)
        return -EPIPE;
    owed--;
    if ((rc = ctl_line(ctl, reply, len, REPLY_WAIT)) != 0) {
        printf("# the control connection is lost: %s\n", sp_net_strerror(rc));
        sp_close(ctl);
        ctl = NULL;
    }
    return rc;
}

/* What follows "ok " in reply, into rest (if not NULL). */
static void answer_rest(char *rest, size_t len, const char *reply)
{
    const char *r = reply[2] ? reply + 3 : "";
    size_t k;

    if (!rest || !len)
        return;
    k = strnlen(r, len - 1);
    memcpy(rest, r, k);
    rest[k] = 0;
}

/* Sends cmd, whose answer comes later (REPLY). */
#define SEND(cmd)                                                           \
    do {                                                                    \
        int rc_ = ctl_send(cmd);                                            \
                                                                            \
        CHECKF(rc_ == 0, "sending \"%s\": %s", cmd, sp_net_strerror(rc_));  \
    } while (0)

/* Sends cmd and waits for its answer; false (the case failed, with the
   reason) unless the answer starts with "ok".  The answer's rest goes to
   rest (may be NULL). */
#define COMMAND(cmd, rest, restlen)                                         \
    do {                                                                    \
        char reply_[256];                                                   \
        int rc_ = ctl_send(cmd);                                            \
                                                                            \
        CHECKF(rc_ == 0, "sending \"%s\": %s", cmd, sp_net_strerror(rc_));  \
        rc_ = ctl_reply(reply_, sizeof reply_);                             \
        CHECKF(rc_ == 0, "answer to \"%s\": %s", cmd, sp_net_strerror(rc_)); \
        CHECKF(!strncmp(reply_, "ok", 2), "the peer: %s: %s", cmd, reply_);  \
        answer_rest(rest, restlen, reply_);                                 \
    } while (0)

/* The answer to a command sent before (by ctl_send), checked as COMMAND
   does. */
#define REPLY(cmd, rest, restlen)                                           \
    do {                                                                    \
        char reply_[256];                                                   \
        int rc_ = ctl_reply(reply_, sizeof reply_);                         \
                                                                            \
        CHECKF(rc_ == 0, "answer to \"%s\": %s", cmd, sp_net_strerror(rc_)); \
        CHECKF(!strncmp(reply_, "ok", 2), "the peer: %s: %s", cmd, reply_);  \
        answer_rest(rest, restlen, reply_);                                 \
    } while (0)

/* The peer's connection to :9 (for sink, source and idle), waiting at
   most ACCEPT_WAIT; NULL and *err when it did not come. */
static sp_conn *accept9(int *err)
{
    sp_conn *c;

    sp_set_read_deadline(l9, (int64_t)(sp_nanotime() + ACCEPT_WAIT));
    c = sp_accept(l9, err);
    sp_set_read_deadline(l9, 0);
    return c;
}

static uint64_t ms_since(uint64_t t)
{
    return (sp_nanotime() - t) / 1000000;
}

/* Reads c to its end (the peer's `sink`), each read within STALL_WAIT:
   the bytes into *got and their FNV-1a into *sum (from FNV1A_INIT); the
   last read's result, 0 at the end. */
static long sink_read(sp_conn *c, uint64_t *got, uint32_t *sum)
{
    static uint8_t buf[65536];
    long n;

    *got = 0;
    *sum = FNV1A_INIT;
    for (;;) {
        sp_set_read_deadline(c, (int64_t)(sp_nanotime() + STALL_WAIT));
        if ((n = sp_read(c, buf, sizeof buf)) <= 0) {
            static char report[4096];
            long more;

            if (n != -ETIMEDOUT)
                return n;
            /* Where the bytes are: in the NIC's ring, not taken (its
               report, now), on the socket, not read (a read at once),
               or not sent. */
            sp_net_report(report, sizeof report);
            sp_set_read_deadline(c, (int64_t)(sp_nanotime() + SP_MS(100)));
            more = sp_read(c, buf, sizeof buf);
            printf("# sink_read: no byte for %llu ms after %llu; a read "
                   "at once then: %ld; the network when it stalled:\n%s\n",
                   (unsigned long long)(STALL_WAIT / 1000000),
                   (unsigned long long)*got, more, report);
            return n;
        }
        *sum = fnv1a(*sum, buf, (size_t)n);
        *got += (uint64_t)n;
    }
}

/* Writes the first bytes of the stream to c (the peer's `source`), each
   write within STALL_WAIT: *off the bytes taken; the last write's
   result, an error if < 0. */
static long source_write(sp_conn *c, uint64_t bytes, uint64_t *off)
{
    static uint8_t buf[65536];
    long n = 0;

    *off = 0;
    while (*off < bytes) {
        size_t k = bytes - *off < sizeof buf ? bytes - *off : sizeof buf;

        stream_fill(*off, buf, k);
        sp_set_write_deadline(c, (int64_t)(sp_nanotime() + STALL_WAIT));
        if ((n = sp_write(c, buf, k)) < 0)
            break;
        *off += (uint64_t)n;    /* k, or less just before an error */
    }
    return n;
}

/*
 * Takes the peer's control connection on lctl into ctl, by end: 0, or
 * -ETIMEDOUT, or accept's error.  The peer may give up on a connection it
 * made before the guest listened (QEMU's forward accepts regardless) and
 * try again: a connection counts once the peer answered the greeting.
 * *tries counts the connections taken.
 */
static int ctl_wait(uint64_t end, int *tries)
{
    char line[128];
    int err;

    while (!ctl) {
        sp_conn *c;

        if (sp_nanotime() >= end)
            return -ETIMEDOUT;
        sp_set_read_deadline(lctl, (int64_t)end);
        c = sp_accept(lctl, &err);
        sp_set_read_deadline(lctl, 0);
        if (!c)
            return err;
        (*tries)++;
        clen = 0;
        if (sp_write(c, "hello spindle\n", 14) == 14 &&
            ctl_line(c, line, sizeof line, SP_S(10)) == 0 &&
            !strcmp(line, "ready"))
            ctl = c;
        else
            sp_close(c);
    }
    return 0;
}

#endif
