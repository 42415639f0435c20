/*
 * netpeer - the host end of tests/net/tcp: it drives traffic into a
 * Spindle guest on QEMU's user network, and serves what the guest dials.
 * Every socket it opens is on 127.0.0.1 (unless --bind names a TAP's
 * address in a namespace of the runner's).
 *
 *   netpeer --probe
 *       prints a base port B (from a random start in 20000-60000) such
 *       that B .. B+6 are free on 127.0.0.1 for TCP and UDP, and exits.
 *   netpeer --base B [--serve S] [--closed C] [-v]
 *       B+0 -> guest tcp 7 (echo), B+1 -> guest tcp 9 (sink/source/idle),
 *       B+2 -> guest udp 7 (udp echo), B+3 -> guest tcp 9000 (control):
 *       QEMU's hostfwd rules, set up by the runner (tools/test/runtests.sh).
 *       --serve S: a TCP echo server on 127.0.0.1:S, which the guest
 *       dials as 10.0.2.2:S.  --closed C: holds 127.0.0.1:C bound but not
 *       listening, so that a dial there is refused and nobody else takes
 *       the port meanwhile.  -v: each command and its answer on stderr.
 *       --guest G --bind H: no forwards (a hosted run on a TAP, in a
 *       network namespace of the runner's): the guest's own ports at G,
 *       and the peer's sockets at H instead of 127.0.0.1.
 *
 * Once its ports are bound it prints "netpeer: ready" on stdout.  It then
 * connects to the control port, retrying for up to 60 s: QEMU's forward
 * accepts at once and closes again when the guest does not listen yet,
 * so a connection counts only once the guest's greeting line
 * ("hello ...") came; the peer answers "ready".  Then it obeys the
 * guest's line commands, each answered with one line, "ok ..." or
 * "fail <reason>":
 *
 *   echo N K SIZE   N connections to B+0, at most K at a time, each
 *                   sending SIZE pseudo-random bytes (seeded by its
 *                   number) and checking every byte that comes back:
 *                   "ok N".  They go in rounds of K that send their
 *                   second halves together, once all K are open.
 *   sink BYTES      one connection to B+1: BYTES of tests/lib/stream.h's
 *                   stream, then a FIN; once the guest closes, "ok
 *                   <FNV-1a of what was sent, 8 hex digits>"
 *   source BYTES    one connection to B+1, read to the end and checked
 *                   against the stream: "ok BYTES"
 *   udp N           N datagrams of 4..1400 bytes to B+2, each to come
 *                   back intact (sent again up to 5 times, 200 ms apart):
 *                   "ok N"
 *   ping N          N ICMP echo requests to the guest (--guest only),
 *                   each answered intact: "ok N"
 *   idle MS         after MS ms, one connection to B+1 that sends
 *                   nothing, kept until the guest closes it: then "ok"
 *   stall MS        one connection to B+1 that reads nothing for MS ms
 *                   (and has a small receive buffer), then reads to the
 *                   end: "ok <bytes that came>"
 *   quit            "ok", and exit 0
 *
 * Every command has 120 s (then "fail timeout"); waiting for a command
 * has 300 s.  The peer exits (status 1) if the control connection ends
 * before quit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "tests/lib/stream.h"

#define CMD_LIMIT_MS     120000
#define IDLE_LIMIT_MS    300000
#define CONNECT_LIMIT_MS 60000
#define HELLO_WAIT_MS    1000   /* per attempt, for the guest's greeting */
#define HELLO_WAIT_TAP_MS 20000 /* the same, the guest reached directly */
#define UDP_TRIES        6      /* the first send and 5 more */
#define UDP_WAIT_MS      200
#define UDP_MAX          1400
#define NPORTS           7      /* what --probe reserves: B .. B+6 */

static int base, verbose;

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(int64_t deadline)
{
    int64_t l = deadline - now_ms();

    return l < 0 ? 0 : l > 1000000 ? 1000000 : (int)l;
}

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "netpeer: %s\n", buf);
}

/* ---- Sockets ---------------------------------------------------------- */

/* --bind: where the peer's own sockets are (127.0.0.1 unless a TAP's
   address in a namespace of the runner's is given). */
static struct in_addr bind_ip = { 0x0100007f };   /* network order */

/* --guest: the guest's address where the peer reaches it directly (a
   hosted run on a TAP), else 0: through QEMU's forwards B .. B+3. */
static struct in_addr guest_ip;
static const int guest_port[4] = { 7, 9, 7, 9000 };

static struct sockaddr_in sin_of(struct in_addr ip, int port)
{
    struct sockaddr_in a = { 0 };

    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr = ip;
    return a;
}

/* The guest's port k of 0..3: TCP 7, TCP 9, UDP 7, TCP 9000. */
static struct sockaddr_in guest(int k)
{
    if (guest_ip.s_addr)
        return sin_of(guest_ip, guest_port[k]);
    return sin_of(bind_ip, base + k);
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* A non-blocking TCP connection to the guest's port k (guest()), or
   -errno. */
static int dial(int k, int64_t deadline)
{
    struct sockaddr_in a = guest(k);
    struct pollfd p;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0, one = 1;
    socklen_t el = sizeof e;

    if (fd < 0)
        return -errno;
    set_nonblock(fd);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
        return fd;
    if (errno != EINPROGRESS) {
        e = -errno;
        close(fd);
        return e;
    }
    p = (struct pollfd){ .fd = fd, .events = POLLOUT };
    if (poll(&p, 1, left_ms(deadline)) != 1) {
        close(fd);
        return -ETIMEDOUT;
    }
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
    if (e) {
        close(fd);
        return -e;
    }
    return fd;
}

/* Waits for ev on fd until deadline: 1, or 0 when the time is up. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
    struct pollfd p = { .fd = fd, .events = ev };

    for (;;) {
        int n = poll(&p, 1, left_ms(deadline));

        if (n > 0)
            return 1;
        if (n == 0 || errno != EINTR)
            return 0;
    }
}

/* All of buf to a non-blocking fd: 0, -ETIMEDOUT or -errno. */
static int write_all(int fd, const void *buf, size_t len, int64_t deadline)
{
    const char *b = buf;

    while (len) {
        ssize_t n = send(fd, b, len, MSG_NOSIGNAL);

        if (n > 0) {
            b += n;
            len -= (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return -errno;
        } else if (!wait_fd(fd, POLLOUT, deadline)) {
            return -ETIMEDOUT;
        }
    }
    return 0;
}

/* Some bytes from a non-blocking fd: > 0, 0 at the end, -ETIMEDOUT or
   -errno. */
static ssize_t read_some(int fd, void *buf, size_t len, int64_t deadline)
{
    for (;;) {
        ssize_t n = recv(fd, buf, len, 0);

        if (n >= 0)
            return n;
        if (errno != EAGAIN && errno != EINTR)
            return -errno;
        if (!wait_fd(fd, POLLIN, deadline))
            return -ETIMEDOUT;
    }
}

static const char *errname(long e)
{
    return e == -ETIMEDOUT ? "timeout" : e == 0 ? "end of stream"
                                                : strerror((int)-e);
}

/* ---- The control connection ----------------------------------------- */

static int ctl = -1;
static char ctl_buf[4096];
static size_t ctl_len;

/* One line (without its newline) into line: 1, 0 at the end, -ETIMEDOUT
   or -errno. */
static int ctl_line(char *line, size_t max, int64_t deadline)
{
    for (;;) {
        char *nl = memchr(ctl_buf, '\n', ctl_len);
        ssize_t n;

        if (nl) {
            size_t k = (size_t)(nl - ctl_buf);

            if (k >= max)
                k = max - 1;
            memcpy(line, ctl_buf, k);
            line[k] = 0;
            if (k && line[k - 1] == '\r')
                line[k - 1] = 0;
            ctl_len -= (size_t)(nl + 1 - ctl_buf);
            memmove(ctl_buf, nl + 1, ctl_len);
            return 1;
        }
        if (ctl_len == sizeof ctl_buf)
            return -EMSGSIZE;
        n = read_some(ctl, ctl_buf + ctl_len, sizeof ctl_buf - ctl_len,
                      deadline);
        if (n <= 0)
            return (int)n;
        ctl_len += (size_t)n;
    }
}

/* Connects to the guest's control port; false after CONNECT_LIMIT_MS. */
static bool ctl_connect(void)
{
    int64_t end = now_ms() + CONNECT_LIMIT_MS;
    int tries = 0;
    char line[256];

    while (now_ms() < end) {
        int64_t until = now_ms() + HELLO_WAIT_MS;
        int rc;

        if (until > end)
            until = end;
        tries++;
        ctl = dial(3, until);
        if (ctl >= 0) {
            /* The greeting's wait starts once connected: a connect that
               waited out ARP until the guest came up may have used the
               attempt's time, and the guest, which accepted it, must
               not find it closed.  Through QEMU's forwards QEMU accepts
               at once, guest or not, and a silent connection may mean
               nobody listens yet; reached directly, the handshake was
               the guest's own, and its app greets once it takes the
               connection, however loaded the host (a greeting after 1 s
               found the connection reset). */
            until = now_ms() + (guest_ip.s_addr ? HELLO_WAIT_TAP_MS
                                                : HELLO_WAIT_MS);
            if (until > end)
                until = end;
            ctl_len = 0;
            rc = ctl_line(line, sizeof line, until);
            if (rc == 1 && !strncmp(line, "hello", 5)) {
                if (write_all(ctl, "ready\n", 6, now_ms() + 5000) == 0) {
                    if (verbose)
                        say("control connected after %d tries: %s", tries,
                            line);
                    return true;
                }
            } else if (rc == 1) {
                say("control: unexpected greeting \"%s\"", line);
            }
            close(ctl);
            ctl = -1;
        }
        /* Refused or closed at once: the guest is not listening yet. */
        if (left_ms(until) > 0)
            usleep(100000);
    }
    say("no control connection from the guest after %d s (%d tries)",
        CONNECT_LIMIT_MS / 1000, tries);
    return false;
}

/* ---- echo N K SIZE ---------------------------------------------------- */

/*
 * The N connections go in rounds of K, worker thread j making connection
 * r*K + j of round r.  Each sends the first half of its bytes and waits
 * for them to come back, then waits for the rest of its round to get
 * that far: so K connections are open at once, and the second halves
 * flow on all of them together.
 *
 * QEMU's forward listens with a backlog of 1 (ss -lt shows it): a second
 * connection that the host's kernel completes before QEMU accepted the
 * first overflows that queue, its handshake's last ACK is dropped, and
 * it waits for the kernel's SYN-ACK retransmissions (1, 2, 4 ... s;
 * after ~60 s, a reset).  So connections are set up one at a time: the
 * next is made once the previous one's first echoed byte proves that
 * QEMU accepted it.
 */
static struct {
    int n, k, size;
    int failed;
    char why[256];
    int64_t deadline;
    int round, arrived;         /* the round barrier */
    pthread_mutex_t lock;
    pthread_cond_t cond;
} ec = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 1, 2)))
static void echo_fail(const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&ec.lock);
    if (!ec.failed) {
        ec.failed = 1;
        va_start(ap, fmt);
        vsnprintf(ec.why, sizeof ec.why, fmt, ap);
        va_end(ap);
    }
    pthread_cond_broadcast(&ec.cond);
    pthread_mutex_unlock(&ec.lock);
}

/* Waits until the `size` connections of round r all got this far; false
   if the command failed meanwhile (or the time is up). */
static bool round_wait(int r, int size)
{
    struct timespec ts = { ec.deadline / 1000, ec.deadline % 1000 * 1000000 };
    bool ok;

    pthread_mutex_lock(&ec.lock);
    if (++ec.arrived == size) {
        ec.arrived = 0;
        ec.round = r + 1;
        pthread_cond_broadcast(&ec.cond);
    }
    while (ec.round == r && !ec.failed &&
           pthread_cond_timedwait(&ec.cond, &ec.lock, &ts) != ETIMEDOUT)
        ;
    ok = ec.round > r && !ec.failed;
    pthread_mutex_unlock(&ec.lock);
    if (!ok)
        echo_fail("round %d: timeout, %d of %d connections half done", r,
                  ec.arrived, size);
    return ok;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static void fill_random(uint8_t *b, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;

    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(xorshift(&s) >> 56);
}

/* Connection i of round r (of rsize connections): true if every byte
   came back. */
static bool echo_one(int i, int r, int rsize, uint8_t *out, uint8_t *in)
{
    size_t size = (size_t)ec.size, sent = 0, got = 0;
    size_t limit = size > 1 ? size / 2 : size;  /* to send before the barrier */
    bool setup = true, ok = false;
    int fd;

    fill_random(out, size, (uint64_t)i);
    pthread_mutex_lock(&setup_lock);
    fd = dial(0, ec.deadline);
    if (fd < 0) {
        pthread_mutex_unlock(&setup_lock);
        echo_fail("conn %d: connect: %s", i, errname(fd));
        return false;
    }
    while (got < size) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (got == limit && limit < size) {
            if (!round_wait(r, rsize))
                goto out;
            limit = size;
        }
        if (sent < limit)
            p.events |= POLLOUT;
        if (poll(&p, 1, left_ms(ec.deadline)) == 0) {
            echo_fail("conn %d: timeout with %zu of %zu bytes sent, %zu "
                      "back", i, sent, size, got);
            goto out;
        }
        if (sent < limit) {
            n = send(fd, out + sent, limit - sent, MSG_NOSIGNAL);
            if (n > 0)
                sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                echo_fail("conn %d: send after %zu bytes: %s", i, sent,
                          strerror(errno));
                goto out;
            }
        }
        n = recv(fd, in + got, size - got, 0);
        if (n > 0) {
            size_t bad = got;

            while (bad < got + (size_t)n && in[bad] == out[bad])
                bad++;
            if (bad < got + (size_t)n) {
                echo_fail("conn %d: byte %zu came back as 0x%02x, sent "
                          "0x%02x", i, bad, in[bad], out[bad]);
                goto out;
            }
            got += (size_t)n;
            if (setup) {
                pthread_mutex_unlock(&setup_lock);
                setup = false;
            }
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            echo_fail("conn %d: %s after %zu of %zu bytes back (%zu sent)",
                      i, n == 0 ? "end of stream" : strerror(errno), got,
                      size, sent);
            goto out;
        }
    }
    ok = true;
out:
    if (setup)
        pthread_mutex_unlock(&setup_lock);
    close(fd);
    return ok;
}

/* Worker j: connection r*K + j of every round r that has one. */
static void *echo_worker(void *arg)
{
    int j = (int)(intptr_t)arg;
    uint8_t *out = malloc((size_t)ec.size), *in = malloc((size_t)ec.size);

    for (int r = 0; r * ec.k + j < ec.n; r++) {
        int rsize = ec.n - r * ec.k < ec.k ? ec.n - r * ec.k : ec.k;

        if (!echo_one(r * ec.k + j, r, rsize, out, in))
            break;
    }
    free(out);
    free(in);
    return NULL;
}

static void cmd_echo(const char *args, int64_t deadline, char *reply,
                     size_t rlen)
{
    int n, k, size;
    pthread_t *t;

    if (sscanf(args, "%d %d %d", &n, &k, &size) != 3 || n < 1 || k < 1 ||
        size < 1 || size > (64 << 20)) {
        snprintf(reply, rlen, "fail bad arguments: echo %s", args);
        return;
    }
    if (k > n)
        k = n;
    if (k > 1024)
        k = 1024;
    ec.n = n;
    ec.k = k;
    ec.size = size;
    ec.failed = 0;
    ec.deadline = deadline;
    ec.round = ec.arrived = 0;
    t = calloc((size_t)k, sizeof *t);
    for (int i = 0; i < k; i++)
        if (pthread_create(&t[i], NULL, echo_worker, (void *)(intptr_t)i)) {
            echo_fail("pthread_create: %s", strerror(errno));
            k = i;
            break;
        }
    for (int i = 0; i < k; i++)
        pthread_join(t[i], NULL);
    free(t);
    if (ec.failed)
        snprintf(reply, rlen, "fail %s", ec.why);
    else
        snprintf(reply, rlen, "ok %d", n);
}

/* ---- sink, source, idle ---------------------------------------------- */

/* Reads fd to its end, discarding: 0 or -errno (the count into *n). */
static long drain(int fd, int64_t deadline, uint64_t *count)
{
    char buf[4096];
    ssize_t n;

    while ((n = read_some(fd, buf, sizeof buf, deadline)) > 0)
        if (count)
            *count += (uint64_t)n;
    return n;
}

static bool parse_bytes(const char *args, uint64_t *bytes)
{
    char *end;

    *bytes = strtoull(args, &end, 10);
    return end != args && !*end;
}

static void cmd_sink(const char *args, int64_t deadline, char *reply,
                     size_t rlen)
{
    static uint8_t buf[65536];
    uint64_t bytes, off = 0, back = 0;
    uint32_t sum = FNV1A_INIT;
    long rc = 0;
    int fd;

    if (!parse_bytes(args, &bytes)) {
        snprintf(reply, rlen, "fail bad arguments: sink %s", args);
        return;
    }
    if ((fd = dial(1, deadline)) < 0) {
        snprintf(reply, rlen, "fail connect: %s", errname(fd));
        return;
    }
    while (off < bytes && rc == 0) {
        size_t k = bytes - off < sizeof buf ? (size_t)(bytes - off)
                                            : sizeof buf;

        stream_fill(off, buf, k);
        sum = fnv1a(sum, buf, k);
        if ((rc = write_all(fd, buf, k, deadline)) == 0)
            off += k;
    }
    if (rc) {
        snprintf(reply, rlen, "fail send after %llu of %llu bytes: %s",
                 (unsigned long long)off, (unsigned long long)bytes,
                 errname(rc));
        close(fd);
        return;
    }
    shutdown(fd, SHUT_WR);
    /* The guest sends nothing back; its close ends the command. */
    rc = drain(fd, deadline, &back);
    close(fd);
    if (rc < 0 && rc != -ECONNRESET)
        snprintf(reply, rlen, "fail waiting for the guest to close: %s",
                 errname(rc));
    else if (back)
        snprintf(reply, rlen, "fail the guest sent %llu bytes back",
                 (unsigned long long)back);
    else
        snprintf(reply, rlen, "ok %08x", sum);
}

static void cmd_source(const char *args, int64_t deadline, char *reply,
                       size_t rlen)
{
    static uint8_t buf[65536];
    uint64_t bytes, off = 0;
    ssize_t n;
    int fd;

    if (!parse_bytes(args, &bytes)) {
        snprintf(reply, rlen, "fail bad arguments: source %s", args);
        return;
    }
    if ((fd = dial(1, deadline)) < 0) {
        snprintf(reply, rlen, "fail connect: %s", errname(fd));
        return;
    }
    while ((n = read_some(fd, buf, sizeof buf, deadline)) > 0) {
        size_t bad = stream_check(off, buf, (size_t)n);

        if (bad < (size_t)n) {
            snprintf(reply, rlen, "fail byte %llu is 0x%02x, the stream's "
                     "is 0x%02x", (unsigned long long)(off + bad), buf[bad],
                     stream_byte(off + bad));
            close(fd);
            return;
        }
        off += (uint64_t)n;
    }
    close(fd);
    if (n < 0)
        snprintf(reply, rlen, "fail %s after %llu of %llu bytes",
                 errname(n), (unsigned long long)off,
                 (unsigned long long)bytes);
    else if (off != bytes)
        snprintf(reply, rlen, "fail %llu bytes came, not %llu",
                 (unsigned long long)off, (unsigned long long)bytes);
    else
        snprintf(reply, rlen, "ok %llu", (unsigned long long)bytes);
}

static void cmd_idle(const char *args, int64_t deadline, char *reply,
                     size_t rlen)
{
    int ms, fd;
    long rc;
    uint64_t back = 0;
    struct timespec ts;

    if (sscanf(args, "%d", &ms) != 1 || ms < 0 || ms > CMD_LIMIT_MS / 2) {
        snprintf(reply, rlen, "fail bad arguments: idle %s", args);
        return;
    }
    ts = (struct timespec){ ms / 1000, ms % 1000 * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    if ((fd = dial(1, deadline)) < 0) {
        snprintf(reply, rlen, "fail connect: %s", errname(fd));
        return;
    }
    rc = drain(fd, deadline, &back);
    close(fd);
    if (rc < 0 && rc != -ECONNRESET)
        snprintf(reply, rlen, "fail waiting for the guest to close: %s",
                 errname(rc));
    else if (back)
        snprintf(reply, rlen, "fail the guest sent %llu bytes",
                 (unsigned long long)back);
    else
        snprintf(reply, rlen, "ok");
}

/* stall MS: connect to B+1 with a small receive buffer, read nothing for
   MS ms (the guest's writes back up until they block), then read to the
   end and say how much came. */
static void cmd_stall(const char *args, int64_t deadline, char *reply,
                      size_t rlen)
{
    struct sockaddr_in a = guest(1);
    int ms, fd, small = 16384;
    uint64_t got = 0;
    struct timespec ts;
    long rc;

    if (sscanf(args, "%d", &ms) != 1 || ms < 0 || ms > CMD_LIMIT_MS / 2) {
        snprintf(reply, rlen, "fail bad arguments: stall %s", args);
        return;
    }
    /* The buffer size must be set before the connection is made. */
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(reply, rlen, "fail socket: %s", strerror(errno));
        return;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        snprintf(reply, rlen, "fail connect: %s", strerror(errno));
        close(fd);
        return;
    }
    set_nonblock(fd);
    ts = (struct timespec){ ms / 1000, ms % 1000 * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    rc = drain(fd, deadline, &got);
    close(fd);
    if (rc < 0)
        snprintf(reply, rlen, "fail %s after %llu bytes", errname(rc),
                 (unsigned long long)got);
    else
        snprintf(reply, rlen, "ok %llu", (unsigned long long)got);
}

/* ---- ping N ----------------------------------------------------------- */

static uint16_t inet_sum(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)b[i] << 8 | b[i + 1];
    if (n & 1)
        sum += (uint32_t)b[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return htons((uint16_t)~sum);
}

/*
 * N ICMP echo requests to the guest (--guest only: a raw socket, as
 * root, in the runner's namespace), each answered by a reply with the
 * same id, sequence and payload; a lost one is sent again (the first
 * waits for the guest's ARP).  "ok N".
 */
static void cmd_ping(const char *args, int64_t deadline, char *reply,
                     size_t rlen)
{
    struct sockaddr_in a = sin_of(guest_ip, 0);
    uint8_t out[64], in[256];
    uint16_t id = (uint16_t)getpid();
    int n, fd, ok = 0;

    if (sscanf(args, "%d", &n) != 1 || n < 1) {
        snprintf(reply, rlen, "fail bad arguments: ping %s", args);
        return;
    }
    if (!guest_ip.s_addr) {
        snprintf(reply, rlen, "fail ping needs --guest (a TAP)");
        return;
    }
    fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    if (fd < 0) {
        snprintf(reply, rlen, "fail raw socket: %s", strerror(errno));
        return;
    }
    set_nonblock(fd);
    for (int seq = 0; seq < n && left_ms(deadline); seq++) {
        bool back = false;

        memset(out, 0, sizeof out);
        out[0] = 8;                                 /* echo request */
        memcpy(out + 4, &id, 2);
        out[6] = (uint8_t)(seq >> 8), out[7] = (uint8_t)seq;
        stream_fill((uint64_t)seq * 64, out + 8, sizeof out - 8);
        {
            uint16_t sum = inet_sum(out, sizeof out);

            memcpy(out + 2, &sum, 2);
        }
        for (int t = 0; t < UDP_TRIES && !back; t++) {
            int64_t until = now_ms() + UDP_WAIT_MS;

            sendto(fd, out, sizeof out, 0, (struct sockaddr *)&a, sizeof a);
            while (!back && wait_fd(fd, POLLIN, until)) {
                ssize_t k = recv(fd, in, sizeof in, 0);
                size_t ihl = k > 0 ? (size_t)(in[0] & 0xF) * 4 : 0;

                back = k >= (ssize_t)(ihl + sizeof out) && in[ihl] == 0 &&
                       !memcmp(in + ihl + 4, out + 4, sizeof out - 4) &&
                       inet_sum(in + ihl, (size_t)k - ihl) == 0;
            }
        }
        ok += back;
    }
    close(fd);
    if (ok == n)
        snprintf(reply, rlen, "ok %d", n);
    else
        snprintf(reply, rlen, "fail %d of %d echo requests answered", ok, n);
}

/* ---- udp N ------------------------------------------------------------ */

static void cmd_udp(const char *args, int64_t deadline, char *reply,
                    size_t rlen)
{
    struct sockaddr_in a = guest(2);
    uint8_t out[UDP_MAX], in[UDP_MAX + 64];
    int n, fd, resent = 0;
    uint64_t seed = 12345;

    if (sscanf(args, "%d", &n) != 1 || n < 1) {
        snprintf(reply, rlen, "fail bad arguments: udp %s", args);
        return;
    }
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        snprintf(reply, rlen, "fail socket: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    set_nonblock(fd);
    for (int i = 0; i < n; i++) {
        /* Every tenth the largest; the rest anywhere from 4 bytes up. */
        size_t size = i % 10 == 9 ? UDP_MAX
                                  : 4 + (size_t)(xorshift(&seed) % (UDP_MAX - 3));
        bool back = false;

        stream_fill((uint64_t)i * 1409, out, size);
        memcpy(out, &i, 4);     /* the sequence number, to spot stale ones */
        for (int t = 0; t < UDP_TRIES && !back; t++) {
            int64_t until = now_ms() + UDP_WAIT_MS;

            if (left_ms(deadline) == 0) {
                snprintf(reply, rlen, "fail timeout at datagram %d", i);
                close(fd);
                return;
            }
            if (t)
                resent++;
            if (send(fd, out, size, 0) < 0 && errno != ECONNREFUSED) {
                snprintf(reply, rlen, "fail send datagram %d: %s", i,
                         strerror(errno));
                close(fd);
                return;
            }
            while (!back && wait_fd(fd, POLLIN, until)) {
                ssize_t k = recv(fd, in, sizeof in, 0);
                int seq;

                if (k < 4)
                    continue;   /* an error (ICMP refused) or a runt */
                memcpy(&seq, in, 4);
                if (seq != i)
                    continue;   /* an echo of an earlier send */
                if ((size_t)k != size || memcmp(in, out, size)) {
                    snprintf(reply, rlen, "fail datagram %d (%zu bytes) "
                             "came back as %zd bytes that differ", i, size,
                             k);
                    close(fd);
                    return;
                }
                back = true;
            }
        }
        if (!back) {
            snprintf(reply, rlen, "fail datagram %d (%zu bytes): no echo "
                     "after %d sends", i, size, UDP_TRIES);
            close(fd);
            return;
        }
    }
    close(fd);
    if (resent && verbose)
        say("udp: %d datagrams sent again", resent);
    snprintf(reply, rlen, "ok %d", n);
}

/* ---- The echo server the guest dials ---------------------------------- */

static void *serve_conn(void *arg)
{
    int fd = (int)(intptr_t)arg;
    struct timeval tv = { CMD_LIMIT_MS / 1000, 0 };
    char buf[65536];
    ssize_t n;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
        char *b = buf;

        while (n > 0) {
            ssize_t w = send(fd, b, (size_t)n, MSG_NOSIGNAL);

            if (w <= 0)
                goto out;
            b += w;
            n -= w;
        }
    }
out:
    close(fd);
    return NULL;
}

static void *serve_loop(void *arg)
{
    int l = (int)(intptr_t)arg;

    for (;;) {
        int fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        pthread_t t;

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
                continue;
            say("serve: accept: %s", strerror(errno));
            return NULL;
        }
        if (pthread_create(&t, NULL, serve_conn, (void *)(intptr_t)fd)) {
            close(fd);
            continue;
        }
        pthread_detach(t);
    }
}

/* A socket bound to bind_ip:port (listening if asked), or -1. */
static int bind_port(int type, int port, bool listening)
{
    struct sockaddr_in a = sin_of(bind_ip, port);
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (listening) {
        int one = 1;

        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    }
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        (listening && listen(fd, 64) < 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- --probe ---------------------------------------------------------- */

static bool port_free(int port)
{
    int t = bind_port(SOCK_STREAM, port, false), u;

    if (t < 0)
        return false;
    u = bind_port(SOCK_DGRAM, port, false);
    close(t);
    if (u < 0)
        return false;
    close(u);
    return true;
}

static int probe(void)
{
    const int lo = 20000, span = 40000 - NPORTS;
    struct timespec ts;
    int start;

    clock_gettime(CLOCK_REALTIME, &ts);
    srandom((unsigned)(ts.tv_nsec ^ ts.tv_sec ^ (getpid() << 16)));
    start = (int)(random() % span);
    for (int k = 0; k < span; k += NPORTS) {
        int b = lo + (start + k) % span, i;

        for (i = 0; i < NPORTS && port_free(b + i); i++)
            ;
        if (i == NPORTS) {
            printf("%d\n", b);
            return 0;
        }
    }
    say("no %d free ports in a row on 127.0.0.1 between %d and %d", NPORTS,
        lo, lo + span);
    return 1;
}

/* ---- main ------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: netpeer --probe\n"
            "       netpeer --base PORT [--serve PORT] [--closed PORT] [-v]\n"
            "               [--guest ADDR --bind ADDR]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int serve = 0, closed = 0, lfd;
    char line[256], reply[512];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--probe"))
            return probe();
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--base"))
            base = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--serve"))
            serve = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--closed"))
            closed = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--guest"))
            inet_pton(AF_INET, argv[++i], &guest_ip);
        else if (i + 1 < argc && !strcmp(argv[i], "--bind"))
            inet_pton(AF_INET, argv[++i], &bind_ip);
        else
            return usage();
    }
    if ((!guest_ip.s_addr && (base < 1 || base > 65535 - 3)) || serve < 0 ||
        serve > 65535 || closed < 0 || closed > 65535)
        return usage();
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (closed && bind_port(SOCK_STREAM, closed, false) < 0) {
        say("cannot hold port %d: %s", closed, strerror(errno));
        return 3;
    }
    {
        pthread_condattr_t ca;

        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&ec.cond, &ca);
    }
    if (serve) {
        pthread_t t;

        if ((lfd = bind_port(SOCK_STREAM, serve, true)) < 0) {
            say("cannot serve on port %d: %s", serve, strerror(errno));
            return 3;
        }
        if (pthread_create(&t, NULL, serve_loop, (void *)(intptr_t)lfd)) {
            say("pthread_create: %s", strerror(errno));
            return 3;
        }
        pthread_detach(t);
    }
    printf("netpeer: ready\n");
    if (!ctl_connect())
        return 1;
    for (;;) {
        int64_t deadline;
        int rc = ctl_line(line, sizeof line, now_ms() + IDLE_LIMIT_MS);
        char *args;

        if (rc <= 0) {
            if (rc < 0)
                say("control connection: %s", errname(rc));
            else
                say("control connection closed before quit");
            return 1;
        }
        if (verbose)
            say("> %s", line);
        args = strchr(line, ' ');
        args = args ? args + 1 : line + strlen(line);
        deadline = now_ms() + CMD_LIMIT_MS;
        if (!strncmp(line, "echo ", 5))
            cmd_echo(args, deadline, reply, sizeof reply - 1);
        else if (!strncmp(line, "sink ", 5))
            cmd_sink(args, deadline, reply, sizeof reply - 1);
        else if (!strncmp(line, "source ", 7))
            cmd_source(args, deadline, reply, sizeof reply - 1);
        else if (!strncmp(line, "udp ", 4))
            cmd_udp(args, deadline, reply, sizeof reply - 1);
        else if (!strncmp(line, "stall ", 6))
            cmd_stall(args, deadline, reply, sizeof reply - 1);
        else if (!strncmp(line, "idle ", 5))
            cmd_idle(args, deadline, reply, sizeof reply - 1);
        else if (!strncmp(line, "ping ", 5))
            cmd_ping(args, deadline, reply, sizeof reply - 1);
        else if (!strcmp(line, "quit"))
            snprintf(reply, sizeof reply, "ok");
        else
            snprintf(reply, sizeof reply, "fail unknown command \"%s\"",
                     line);
        if (left_ms(deadline) == 0 && strncmp(reply, "ok", 2)) {
            char why[256];

            snprintf(why, sizeof why, "%.200s", reply + 5);
            snprintf(reply, sizeof reply, "fail timeout (%d s): %s",
                     CMD_LIMIT_MS / 1000, why);
        }
        if (verbose || strncmp(reply, "ok", 2))
            say("%s: %s", line, reply);
        strcat(reply, "\n");
        if ((rc = write_all(ctl, reply, strlen(reply),
                            now_ms() + CMD_LIMIT_MS)) < 0) {
            say("control connection: %s", errname(rc));
            return 1;
        }
        if (!strcmp(line, "quit")) {
            close(ctl);
            return 0;
        }
    }
}
