/*
 * bsd - the BSD socket calls (include/bsd/, posix/bsd*.c) inside one
 * guest: servers and clients talk to each other over the machine's own
 * address, 10.0.2.15 (lwIP's loopback), so no host peer is needed; the
 * `net user` only gives the boot a NIC (QEMU's user network) for DHCP.
 * tests/net/mqbsd runs the same cases with a stack per core.
 *
 *   dhcp           sp_net_wait; the address is 10.0.2.15
 *   inet           inet_pton/ntop/aton/addr/ntoa, htons and friends
 *   tcp_roundtrip  socket/bind/listen/connect/accept; send/recv and
 *                  read/write both ways, 256 KiB from another G checked
 *                  byte by byte; getsockname/getpeername of every end;
 *                  the peer's close reads as 0
 *   poll_listen    poll of a listener: timeout 0, a timeout that expires,
 *                  and a connection from another G 100 ms later that
 *                  wakes it (POLLIN), then accept
 *   poll_conn      poll of connections: POLLOUT at once, POLLIN none, a
 *                  timeout over three descriptors, a byte from another G
 *                  that wakes the right one; POLLIN|POLLRDHUP at the
 *                  peer's FIN; POLLNVAL for a closed descriptor
 *   nonblock       O_NONBLOCK (fcntl) and MSG_DONTWAIT: read, recv and
 *                  accept fail with EAGAIN; connect says EINPROGRESS and
 *                  poll's POLLOUT / SO_ERROR tell the outcome (refused
 *                  too); writes until EAGAIN, POLLOUT only once the peer
 *                  read
 *   rcvtimeo       SO_RCVTIMEO 200 ms: recv fails with EAGAIN after
 *                  190 ms..5 s; data still comes through afterwards
 *   udp            bind, sendto from an unbound socket (bound to :0 on
 *                  the way), recvfrom's sender, the reply, connect and
 *                  send/recv, poll, MSG_DONTWAIT, EDESTADDRREQ
 *   poll_event_loop  one G serves 16 clients (each a G writing 48 KiB and
 *                  reading it back) with poll() and non-blocking accept,
 *                  recv and send: every byte comes back
 *   close_wakes    a G blocked in recv, and one in accept, fail with EBADF
 *                  promptly when another G closes their descriptor
 *   options        SO_REUSEADDR, SO_KEEPALIVE, TCP_NODELAY, SO_TYPE,
 *                  SO_ERROR, SO_ACCEPTCONN, SO_SNDTIMEO; unknown ones fail
 *                  with ENOPROTOOPT
 *   errors         EBADF, ENOTSOCK, EAFNOSUPPORT, EPROTONOSUPPORT,
 *                  ECONNREFUSED, ENOTCONN, EOPNOTSUPP, EINVAL
 *   fds_freed      fstat/isatty of a socket; lowest free descriptor first;
 *                  every descriptor the cases used is free again: a new
 *                  socket gets 3
 *   stacks         the NIC has queues= pairs (1 without it) and a copy of
 *                  lwIP for each
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define BULK        (256 * 1024)
#define NOBODY_PORT 5999        /* nothing listens there */

static bool have_net;
/* The machine's address: QEMU's user network's DHCP gives 10.0.2.15; a
   run on a TAP passes guest= (tests/net/mqbsd). */
static const char *GUEST = "10.0.2.15";
static int want_queues = 1;     /* queues=: the NIC's queue pairs */

/* ---- Helpers -------------------------------------------------------- */

static struct sockaddr_in sin_of(const char *ip, int port)
{
    struct sockaddr_in a;

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    if (ip)
        inet_pton(AF_INET, ip, &a.sin_addr);
    else
        a.sin_addr.s_addr = htonl(INADDR_ANY);
    return a;
}

#define SA(a) ((struct sockaddr *)&(a))

/* A listening TCP socket on any address, port; -1 on failure. */
static int tcp_listen(int port)
{
    struct sockaddr_in a = sin_of(NULL, port);
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0)
        return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, SA(a), sizeof a) < 0 || listen(fd, 16) < 0) {
        printf("# listen on %d: errno %d\n", port, errno);
        close(fd);
        return -1;
    }
    return fd;
}

/* A client connected to GUEST:port; -1 on failure. */
static int tcp_connect(int port)
{
    struct sockaddr_in a = sin_of(GUEST, port);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0)
        return -1;
    if (connect(fd, SA(a), sizeof a) < 0) {
        printf("# connect to %d: errno %d\n", port, errno);
        close(fd);
        return -1;
    }
    return fd;
}

/* A listener on port and a connected pair (client *c, accepted *a). */
static int tcp_pair(int port, int *c, int *a)
{
    int l = tcp_listen(port);

    *c = *a = -1;
    if (l < 0)
        return -1;
    if ((*c = tcp_connect(port)) < 0 || (*a = accept(l, NULL, NULL)) < 0) {
        if (*c >= 0)
            close(*c);
        close(l);
        return -1;
    }
    return l;
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Reads exactly n bytes (blocking); false on error or early end. */
static bool read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t k = read(fd, (char *)buf + got, n - got);

        if (k <= 0)
            return false;
        got += (size_t)k;
    }
    return true;
}

static int64_t ms_since(uint64_t t0)
{
    return (int64_t)(sp_nanotime() - t0) / 1000000;
}

static bool same_addr(const struct sockaddr_in *x, const struct sockaddr_in *y)
{
    return x->sin_family == y->sin_family && x->sin_port == y->sin_port &&
           x->sin_addr.s_addr == y->sin_addr.s_addr;
}

static struct sockaddr_in name_of(int fd, bool peer)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;

    memset(&a, 0, sizeof a);
    if ((peer ? getpeername(fd, SA(a), &len)
              : getsockname(fd, SA(a), &len)) < 0 || len != sizeof a)
        a.sin_family = 0xdead;
    return a;
}

static const char *fmt_sin(const struct sockaddr_in *a, char *buf)
{
    char ip[INET_ADDRSTRLEN];

    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    sprintf(buf, "%s:%u", ip, ntohs(a->sin_port));
    return buf;
}

/* ---- Cases ---------------------------------------------------------- */

TEST(dhcp)
{
    char addr[16];
    int err = sp_net_wait(SP_S(30));

    CHECKF(err == 0, "sp_net_wait: %s", sp_net_strerror(err));
    CHECK(sp_net_addr(addr, sizeof addr) == 0);
    CHECKF(strcmp(addr, GUEST) == 0, "address %s", addr);
    have_net = true;
}

TEST(inet)
{
    struct in_addr a;
    char buf[INET_ADDRSTRLEN];
    uint8_t q[4];

    CHECK(htons(0x1234) == 0x3412 && ntohs(0x3412) == 0x1234);
    CHECK(htonl(0x01020304) == 0x04030201 && ntohl(0x04030201) == 0x01020304);
    CHECK(inet_pton(AF_INET, "10.0.2.15", q) == 1);
    CHECK(q[0] == 10 && q[1] == 0 && q[2] == 2 && q[3] == 15);
    CHECK(inet_pton(AF_INET, "256.1.1.1", q) == 0);
    CHECK(inet_pton(AF_INET, "1.2.3", q) == 0);
    CHECK(inet_pton(AF_INET, "1.2.3.4x", q) == 0);
    CHECK(inet_pton(AF_INET, "01.2.3.4", q) == 0);
    errno = 0;
    CHECK(inet_pton(AF_INET6, "::1", q) == -1 && errno == EAFNOSUPPORT);
    CHECK(inet_ntop(AF_INET, q, buf, sizeof buf) == buf);
    CHECKF(strcmp(buf, "10.0.2.15") == 0, "%s", buf);
    errno = 0;
    CHECK(inet_ntop(AF_INET, q, buf, 9) == NULL && errno == ENOSPC);
    CHECK(inet_aton("127.1", &a) == 1 && ntohl(a.s_addr) == 0x7f000001);
    CHECK(inet_aton("0x0a000001", &a) == 1 && ntohl(a.s_addr) == 0x0a000001);
    CHECK(inet_aton("1.2.3.4.5", &a) == 0);
    CHECK(inet_addr("192.168.1.2") == htonl(0xc0a80102));
    CHECK(inet_addr("nonsense") == INADDR_NONE);
    a.s_addr = htonl(0x0a00020f);
    CHECK(strcmp(inet_ntoa(a), "10.0.2.15") == 0);
}

struct bulk {
    int fd;
    long sent;
    int err;
    sp_waitgroup wg;
};

static void bulk_writer(void *arg)
{
    struct bulk *bk = arg;
    static char buf[BULK];

    for (int i = 0; i < BULK; i++)
        buf[i] = (char)(i * 7 + i / 251);
    bk->sent = write(bk->fd, buf, BULK);
    bk->err = errno;
    sp_waitgroup_done(&bk->wg);
}

TEST(tcp_roundtrip)
{
    struct sockaddr_in a = sin_of(NULL, 5001), from, x, y;
    socklen_t len = sizeof from;
    int fds[3] = { -1, -1, -1 }, l, c, s;
    static char buf[BULK];
    char t1[32], t2[32];
    struct bulk bk;
    ssize_t n;

    CHECK(have_net);
    l = fds[0] = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(l >= 0);
    CHECKF(bind(l, SA(a), sizeof a) == 0, "bind: errno %d", errno);
    CHECKF(listen(l, 8) == 0, "listen: errno %d", errno);
    x = name_of(l, false);
    CHECKF(ntohs(x.sin_port) == 5001 && x.sin_addr.s_addr == 0,
           "listener's name %s", fmt_sin(&x, t1));

    c = fds[1] = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(c >= 0);
    a = sin_of(GUEST, 5001);
    CHECKF(connect(c, SA(a), sizeof a) == 0, "connect: errno %d", errno);
    s = fds[2] = accept(l, SA(from), &len);
    CHECKF(s >= 0, "accept: errno %d", errno);
    CHECK(len == sizeof from);

    /* Each end's names agree with the other's. */
    x = name_of(c, false);
    CHECKF(same_addr(&from, &x), "accept's peer %s, client's name %s",
           fmt_sin(&from, t1), fmt_sin(&x, t2));
    CHECKF(x.sin_addr.s_addr == inet_addr(GUEST) && x.sin_port != 0,
           "client's name %s", fmt_sin(&x, t1));
    y = name_of(s, true);
    CHECKF(same_addr(&x, &y), "server's peer %s", fmt_sin(&y, t1));
    x = name_of(c, true);
    y = name_of(s, false);
    CHECKF(same_addr(&x, &y) && same_addr(&x, &a),
           "client's peer %s, server's name %s", fmt_sin(&x, t1),
           fmt_sin(&y, t2));

    /* send/recv one way, write/read the other. */
    CHECK(send(c, "hello", 5, 0) == 5);
    memset(buf, 0, 16);
    n = recv(s, buf, 5, MSG_WAITALL);
    CHECKF(n == 5 && memcmp(buf, "hello", 5) == 0, "recv %ld", (long)n);
    CHECK(write(s, "world!", 6) == 6);
    CHECK(read_full(c, buf, 6) && memcmp(buf, "world!", 6) == 0);

    /* 256 KiB from another G: more than the send buffer, so its write
       parks until the reader here makes room. */
    memset(&bk, 0, sizeof bk);
    bk.fd = c;
    sp_waitgroup_add(&bk.wg, 1);
    sp_go(bulk_writer, &bk);
    bool ok = read_full(s, buf, BULK);
    sp_waitgroup_wait(&bk.wg);
    CHECKF(bk.sent == BULK, "write: %ld, errno %d", bk.sent, bk.err);
    CHECK(ok);
    for (int i = 0; i < BULK; i++)
        CHECKF(buf[i] == (char)(i * 7 + i / 251), "byte %d differs", i);

    /* The client's close reads as the end. */
    CHECK(close(c) == 0);
    fds[1] = -1;
    CHECK(read(s, buf, 16) == 0);
    close_all(fds, 3);
}

struct later {
    int port, fd, byte_fd;
    uint64_t delay;
    sp_waitgroup wg;
};

static void connect_later(void *arg)
{
    struct later *lt = arg;

    sp_sleep(lt->delay);
    lt->fd = tcp_connect(lt->port);
    sp_waitgroup_done(&lt->wg);
}

static void send_later(void *arg)
{
    struct later *lt = arg;

    sp_sleep(lt->delay);
    send(lt->byte_fd, "x", 1, 0);
    sp_waitgroup_done(&lt->wg);
}

TEST(poll_listen)
{
    int fds[2] = { -1, -1 }, l, n;
    struct pollfd p;
    struct later lt;
    uint64_t t0;
    int64_t ms;

    CHECK(have_net);
    l = fds[0] = tcp_listen(5002);
    CHECK(l >= 0);
    p = (struct pollfd){ .fd = l, .events = POLLIN };
    CHECK(poll(&p, 1, 0) == 0 && p.revents == 0);
    t0 = sp_nanotime();
    n = poll(&p, 1, 150);
    ms = ms_since(t0);
    CHECKF(n == 0 && ms >= 145 && ms < 5000, "poll: %d after %lld ms", n,
           (long long)ms);

    memset(&lt, 0, sizeof lt);
    lt.port = 5002;
    lt.delay = SP_MS(100);
    sp_waitgroup_add(&lt.wg, 1);
    sp_go(connect_later, &lt);
    t0 = sp_nanotime();
    n = poll(&p, 1, 10000);
    ms = ms_since(t0);
    sp_waitgroup_wait(&lt.wg);
    fds[1] = lt.fd;
    CHECKF(n == 1 && p.revents == POLLIN, "poll: %d, revents %#x", n,
           p.revents);
    CHECKF(ms >= 50 && ms < 5000, "poll returned after %lld ms",
           (long long)ms);
    CHECK(lt.fd >= 0);
    int s = accept(l, NULL, NULL);
    CHECKF(s >= 0, "accept: errno %d", errno);
    close(s);
    CHECK(poll(&p, 1, 0) == 0);
    close_all(fds, 2);
}

TEST(poll_conn)
{
    int fds[3] = { -1, -1, -1 }, n;
    struct pollfd p[3];
    struct later lt;
    char c;
    uint64_t t0;
    int64_t ms;

    CHECK(have_net);
    fds[0] = tcp_pair(5003, &fds[1], &fds[2]);
    CHECK(fds[0] >= 0);
    p[0] = (struct pollfd){ .fd = fds[1], .events = POLLOUT };
    CHECK(poll(p, 1, 0) == 1 && p[0].revents == POLLOUT);
    p[0] = (struct pollfd){ .fd = fds[2], .events = POLLIN };
    CHECK(poll(p, 1, 0) == 0 && p[0].revents == 0);

    for (int i = 0; i < 3; i++)
        p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
    t0 = sp_nanotime();
    n = poll(p, 3, 100);
    ms = ms_since(t0);
    CHECKF(n == 0 && ms >= 95 && ms < 5000, "poll: %d after %lld ms", n,
           (long long)ms);

    /* A byte to the accepted end wakes the poll, and only it is ready. */
    memset(&lt, 0, sizeof lt);
    lt.byte_fd = fds[1];
    lt.delay = SP_MS(100);
    sp_waitgroup_add(&lt.wg, 1);
    sp_go(send_later, &lt);
    t0 = sp_nanotime();
    n = poll(p, 3, 10000);
    ms = ms_since(t0);
    sp_waitgroup_wait(&lt.wg);
    CHECKF(n == 1 && p[0].revents == 0 && p[1].revents == 0 &&
           p[2].revents == POLLIN, "poll: %d, revents %#x %#x %#x", n,
           p[0].revents, p[1].revents, p[2].revents);
    CHECKF(ms >= 50 && ms < 5000, "poll returned after %lld ms",
           (long long)ms);
    CHECK(recv(fds[2], &c, 1, 0) == 1 && c == 'x');

    /* The peer's FIN: readable (the end), POLLRDHUP too. */
    CHECK(shutdown(fds[1], SHUT_WR) == 0);
    p[0] = (struct pollfd){ .fd = fds[2], .events = POLLIN | POLLRDHUP };
    n = poll(p, 1, 5000);
    CHECKF(n == 1 && p[0].revents == (POLLIN | POLLRDHUP), "revents %#x",
           p[0].revents);
    CHECK(recv(fds[2], &c, 1, 0) == 0);
    /* Writing after SHUT_WR fails; the other way still works. */
    errno = 0;
    CHECK(send(fds[1], "y", 1, 0) == -1 && errno == EPIPE);
    CHECK(send(fds[2], "z", 1, 0) == 1);
    CHECK(recv(fds[1], &c, 1, MSG_WAITALL) == 1 && c == 'z');

    /* A closed descriptor, and a negative one (ignored). */
    int dead = fds[2];

    close(dead);
    fds[2] = -1;
    p[0] = (struct pollfd){ .fd = dead, .events = POLLIN };
    p[1] = (struct pollfd){ .fd = -1, .events = POLLIN };
    CHECK(poll(p, 2, 1000) == 1 && p[0].revents == POLLNVAL &&
          p[1].revents == 0);
    close_all(fds, 3);
}

TEST(nonblock)
{
    int fds[5] = { -1, -1, -1, -1, -1 }, l, c, s, fl, err;
    socklen_t len = sizeof err;
    static char buf[64 * 1024];
    struct sockaddr_in a;
    struct pollfd p;
    long total = 0;
    ssize_t n;

    CHECK(have_net);
    l = fds[0] = tcp_pair(5004, &fds[1], &fds[2]);
    CHECK(l >= 0);
    c = fds[1];
    s = fds[2];

    fl = fcntl(s, F_GETFL);
    CHECK(fl >= 0 && !(fl & O_NONBLOCK));
    CHECK(fcntl(s, F_SETFL, fl | O_NONBLOCK) == 0);
    CHECK(fcntl(s, F_GETFL) & O_NONBLOCK);
    errno = 0;
    CHECKF(read(s, buf, 16) == -1 && errno == EAGAIN, "errno %d", errno);
    errno = 0;
    CHECK(recv(c, buf, 16, MSG_DONTWAIT) == -1 && errno == EWOULDBLOCK);
    CHECK(fcntl(l, F_SETFL, O_NONBLOCK) == 0);
    errno = 0;
    CHECK(accept(l, NULL, NULL) == -1 && errno == EAGAIN);
    CHECK(send(c, "abc", 3, 0) == 3);
    p = (struct pollfd){ .fd = s, .events = POLLIN };
    CHECK(poll(&p, 1, 5000) == 1);
    CHECK(read(s, buf, sizeof buf) == 3);

    /* Writing without waiting: until the peer's window and our send
       buffer are full, then EAGAIN; POLLOUT only once the peer read. */
    for (;;) {
        n = send(s, buf, sizeof buf, 0);
        if (n < 0)
            break;
        total += n;
        CHECKF(total < 64L << 20, "never EAGAIN");
    }
    CHECKF(errno == EAGAIN, "send: errno %d after %ld bytes", errno, total);
    printf("# %ld bytes written before EAGAIN\n", total);
    p = (struct pollfd){ .fd = s, .events = POLLOUT };
    CHECK(poll(&p, 1, 100) == 0);
    for (long got = 0; got < total; got += n)
        CHECKF((n = recv(c, buf, sizeof buf, 0)) > 0, "recv: errno %d",
               errno);
    CHECKF(poll(&p, 1, 5000) == 1 && p.revents == POLLOUT, "revents %#x",
           p.revents);

    /* Connecting without waiting. */
    fds[3] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK(fds[3] >= 0);
    a = sin_of(GUEST, 5004);
    errno = 0;
    CHECKF(connect(fds[3], SA(a), sizeof a) == -1 && errno == EINPROGRESS,
           "connect: errno %d", errno);
    p = (struct pollfd){ .fd = fds[3], .events = POLLOUT };
    CHECK(poll(&p, 1, 5000) == 1 && p.revents == POLLOUT);
    CHECK(getsockopt(fds[3], SOL_SOCKET, SO_ERROR, &err, &len) == 0);
    CHECK(err == 0 && len == sizeof err);
    p = (struct pollfd){ .fd = l, .events = POLLIN };
    CHECK(poll(&p, 1, 5000) == 1);
    fds[4] = accept(l, NULL, NULL);
    CHECKF(fds[4] >= 0, "accept: errno %d", errno);
    CHECK(send(fds[4], "q", 1, 0) == 1);
    p = (struct pollfd){ .fd = fds[3], .events = POLLIN };
    CHECK(poll(&p, 1, 5000) == 1 && read(fds[3], buf, 1) == 1);
    close(fds[3]);
    close(fds[4]);

    /* ...to a port nobody listens on. */
    fds[3] = socket(AF_INET, SOCK_STREAM, 0);
    fds[4] = -1;
    CHECK(fcntl(fds[3], F_SETFL, O_NONBLOCK) == 0);
    a = sin_of(GUEST, NOBODY_PORT);
    errno = 0;
    CHECK(connect(fds[3], SA(a), sizeof a) == -1 && errno == EINPROGRESS);
    p = (struct pollfd){ .fd = fds[3], .events = POLLOUT };
    CHECK(poll(&p, 1, 5000) == 1 && (p.revents & POLLERR));
    len = sizeof err;
    CHECK(getsockopt(fds[3], SOL_SOCKET, SO_ERROR, &err, &len) == 0);
    CHECKF(err == ECONNREFUSED, "SO_ERROR %d", err);
    close_all(fds, 5);
}

TEST(rcvtimeo)
{
    int fds[3] = { -1, -1, -1 };
    struct timeval tv = { 0, 200000 }, got;
    socklen_t len = sizeof got;
    uint64_t t0;
    int64_t ms;
    char c;
    ssize_t n;

    CHECK(have_net);
    fds[0] = tcp_pair(5005, &fds[1], &fds[2]);
    CHECK(fds[0] >= 0);
    CHECK(setsockopt(fds[2], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
    CHECK(getsockopt(fds[2], SOL_SOCKET, SO_RCVTIMEO, &got, &len) == 0);
    CHECK(len == sizeof got && got.tv_sec == 0 && got.tv_usec == 200000);
    t0 = sp_nanotime();
    errno = 0;
    n = recv(fds[2], &c, 1, 0);
    ms = ms_since(t0);
    CHECKF(n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK),
           "recv: %ld, errno %d", (long)n, errno);
    CHECKF(ms >= 190 && ms < 5000, "recv failed after %lld ms",
           (long long)ms);
    /* The socket still works, within the timeout. */
    CHECK(send(fds[1], "k", 1, 0) == 1);
    CHECK(recv(fds[2], &c, 1, 0) == 1 && c == 'k');
    /* Accept too. */
    CHECK(setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
    errno = 0;
    CHECK(accept(fds[0], NULL, NULL) == -1 && errno == EAGAIN);
    close_all(fds, 3);
}

TEST(udp)
{
    struct sockaddr_in a = sin_of(NULL, 5006), from, x;
    socklen_t len = sizeof from;
    int fds[2] = { -1, -1 }, u1, u2;
    struct pollfd p;
    char buf[64], t1[32];
    ssize_t n;

    CHECK(have_net);
    u1 = fds[0] = socket(AF_INET, SOCK_DGRAM, 0);
    u2 = fds[1] = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
    CHECK(u1 >= 0 && u2 >= 0);
    CHECKF(bind(u1, SA(a), sizeof a) == 0, "bind: errno %d", errno);
    x = name_of(u1, false);
    CHECK(ntohs(x.sin_port) == 5006);
    p = (struct pollfd){ .fd = u1, .events = POLLIN | POLLOUT };
    CHECK(poll(&p, 1, 0) == 1 && p.revents == POLLOUT);
    errno = 0;
    CHECK(recvfrom(u1, buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) == -1 &&
          errno == EAGAIN);

    /* From an unbound socket: it gets a port on the way. */
    a = sin_of(GUEST, 5006);
    CHECKF(sendto(u2, "ping", 4, 0, SA(a), sizeof a) == 4,
           "sendto: errno %d", errno);
    x = name_of(u2, false);
    CHECKF(x.sin_port != 0, "unbound sender's name %s", fmt_sin(&x, t1));
    p = (struct pollfd){ .fd = u1, .events = POLLIN };
    CHECK(poll(&p, 1, 5000) == 1 && p.revents == POLLIN);
    n = recvfrom(u1, buf, sizeof buf, 0, SA(from), &len);
    CHECKF(n == 4 && memcmp(buf, "ping", 4) == 0, "recvfrom: %ld", (long)n);
    CHECKF(len == sizeof from && from.sin_port == x.sin_port &&
           from.sin_addr.s_addr == inet_addr(GUEST), "from %s",
           fmt_sin(&from, t1));

    /* The reply, to the sender's address. */
    CHECK(sendto(u1, "pong", 4, 0, SA(from), len) == 4);
    len = sizeof from;
    n = recvfrom(u2, buf, sizeof buf, 0, SA(from), &len);
    CHECK(n == 4 && memcmp(buf, "pong", 4) == 0);
    CHECK(ntohs(from.sin_port) == 5006);

    /* connect: send and recv without addresses; getpeername. */
    errno = 0;
    CHECK(send(u1, "no", 2, 0) == -1 && errno == EDESTADDRREQ);
    errno = 0;
    CHECK(getpeername(u2, SA(x), &len) == -1 && errno == ENOTCONN);
    CHECK(connect(u2, SA(a), sizeof a) == 0);
    x = name_of(u2, true);
    CHECK(same_addr(&x, &a));
    CHECK(send(u2, "hi", 2, 0) == 2);
    CHECK(recv(u1, buf, sizeof buf, 0) == 2 && memcmp(buf, "hi", 2) == 0);
    CHECK(write(u2, "w", 1) == 1);
    CHECK(read(u1, buf, sizeof buf) == 1 && buf[0] == 'w');
    close_all(fds, 2);
}

/* ---- An event loop: one G, poll() and non-blocking sockets ------------ */

#define ECHO_CLIENTS 16
#define ECHO_BYTES   (48 * 1024)
#define ECHO_PORT    5011

struct econn {
    int fd;
    char out[8192];             /* read, not yet echoed */
    size_t off, len;
};

static struct {
    int listener, served, errors, max_conns;
    sp_waitgroup done;
} ev;

/* The server: accepts, echoes every byte, closes at each client's end;
   returns once ECHO_CLIENTS connections have ended (or after a 10 s
   silence). */
static void event_loop(void *arg)
{
    static struct econn conns[ECHO_CLIENTS];
    struct pollfd p[ECHO_CLIENTS + 1];
    int n = 0;

    while (ev.served < ECHO_CLIENTS) {
        p[0] = (struct pollfd){ .fd = ev.listener, .events = POLLIN };
        for (int i = 0; i < n; i++)
            p[i + 1] = (struct pollfd){ .fd = conns[i].fd,
                                        .events = conns[i].len ? POLLOUT
                                                               : POLLIN };
        if (poll(p, (nfds_t)n + 1, 10000) <= 0) {
            ev.errors++;
            break;
        }
        if (p[0].revents & POLLIN) {
            int fd = accept(ev.listener, NULL, NULL);

            if (fd >= 0 && n < ECHO_CLIENTS &&
                fcntl(fd, F_SETFL, O_NONBLOCK) == 0) {
                conns[n] = (struct econn){ .fd = fd };
                n++;
                if (n > ev.max_conns)
                    ev.max_conns = n;
            } else if (!(fd < 0 && errno == EAGAIN)) {
                ev.errors++;
            }
        }
        for (int i = n - 1; i >= 0; i--) {
            struct econn *c = &conns[i];
            short r = p[i + 1].revents;
            ssize_t k;
            bool end = false;

            if (!r)
                continue;
            if (c->len) {
                k = send(c->fd, c->out + c->off, c->len, 0);
                if (k > 0) {
                    c->off += (size_t)k;
                    c->len -= (size_t)k;
                } else if (!(k < 0 && errno == EAGAIN)) {
                    end = true;
                    ev.errors++;
                }
            } else {
                k = recv(c->fd, c->out, sizeof c->out, 0);
                if (k > 0) {
                    c->off = 0;
                    c->len = (size_t)k;
                } else if (k == 0) {
                    end = true;
                } else if (errno != EAGAIN) {
                    end = true;
                    ev.errors++;
                }
            }
            if (end) {
                close(c->fd);
                conns[i] = conns[--n];
                ev.served++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        close(conns[i].fd);
    sp_waitgroup_done(&ev.done);
}

struct eclient {
    int id;
    bool ok;
    char msg[96];
    sp_waitgroup *wg;
};

static void echo_client(void *arg)
{
    struct eclient *ec = arg;
    static char bufs[ECHO_CLIENTS][2][ECHO_BYTES];
    char *out = bufs[ec->id][0], *in = bufs[ec->id][1];
    int fd = tcp_connect(ECHO_PORT);

    for (int i = 0; i < ECHO_BYTES; i++)
        out[i] = (char)(i * 13 + ec->id);
    if (fd < 0)
        snprintf(ec->msg, sizeof ec->msg, "connect: errno %d", errno);
    else if (write(fd, out, ECHO_BYTES) != ECHO_BYTES)
        snprintf(ec->msg, sizeof ec->msg, "write: errno %d", errno);
    else if (!read_full(fd, in, ECHO_BYTES))
        snprintf(ec->msg, sizeof ec->msg, "read: errno %d", errno);
    else if (memcmp(in, out, ECHO_BYTES) != 0)
        snprintf(ec->msg, sizeof ec->msg, "the echo differs");
    else
        ec->ok = true;
    if (fd >= 0)
        close(fd);
    sp_waitgroup_done(ec->wg);
}

TEST(poll_event_loop)
{
    static struct eclient ec[ECHO_CLIENTS];
    sp_waitgroup wg = SP_WAITGROUP_INIT;

    CHECK(have_net);
    memset(&ev, 0, sizeof ev);
    ev.listener = tcp_listen(ECHO_PORT);
    CHECK(ev.listener >= 0);
    CHECK(fcntl(ev.listener, F_SETFL, O_NONBLOCK) == 0);
    sp_waitgroup_add(&ev.done, 1);
    sp_go(event_loop, NULL);
    sp_waitgroup_add(&wg, ECHO_CLIENTS);
    for (int i = 0; i < ECHO_CLIENTS; i++) {
        ec[i] = (struct eclient){ .id = i, .wg = &wg };
        sp_go(echo_client, &ec[i]);
    }
    sp_waitgroup_wait(&wg);
    sp_waitgroup_wait(&ev.done);
    close(ev.listener);
    printf("# %d connections served, up to %d at once\n", ev.served,
           ev.max_conns);
    for (int i = 0; i < ECHO_CLIENTS; i++)
        CHECKF(ec[i].ok, "client %d: %s", i, ec[i].msg);
    CHECKF(ev.served == ECHO_CLIENTS && ev.errors == 0,
           "served %d, %d errors", ev.served, ev.errors);
}

struct blocked {
    int fd;
    bool accepting;
    ssize_t r;
    int err;
    uint64_t returned;
    sp_waitgroup wg;
};

static void block_on(void *arg)
{
    struct blocked *bl = arg;
    char c;

    if (bl->accepting)
        bl->r = accept(bl->fd, NULL, NULL);
    else
        bl->r = recv(bl->fd, &c, 1, 0);
    bl->err = errno;
    bl->returned = sp_nanotime();
    sp_waitgroup_done(&bl->wg);
}

TEST(close_wakes)
{
    int fds[3] = { -1, -1, -1 };
    struct blocked bl[2];
    uint64_t t0;

    CHECK(have_net);
    fds[0] = tcp_pair(5007, &fds[1], &fds[2]);
    CHECK(fds[0] >= 0);
    memset(bl, 0, sizeof bl);
    bl[0].fd = fds[2];
    bl[1].fd = fds[0];
    bl[1].accepting = true;
    for (int i = 0; i < 2; i++) {
        sp_waitgroup_add(&bl[i].wg, 1);
        sp_go(block_on, &bl[i]);
    }
    sp_sleep(SP_MS(100));       /* both are parked by now */
    t0 = sp_nanotime();
    CHECK(close(fds[2]) == 0);
    CHECK(close(fds[0]) == 0);
    fds[0] = fds[2] = -1;
    for (int i = 0; i < 2; i++) {
        sp_waitgroup_wait(&bl[i].wg);
        CHECKF(bl[i].r == -1 && bl[i].err == EBADF, "%s: %ld, errno %d",
               bl[i].accepting ? "accept" : "recv", (long)bl[i].r,
               bl[i].err);
        CHECKF(bl[i].returned - t0 < SP_S(2), "%s woke %llu ms after close",
               bl[i].accepting ? "accept" : "recv",
               (unsigned long long)(bl[i].returned - t0) / 1000000);
    }
    close_all(fds, 3);
}

static bool int_opt(int fd, int level, int name, int *v)
{
    socklen_t len = sizeof *v;

    return getsockopt(fd, level, name, v, &len) == 0 && len == sizeof *v;
}

TEST(options)
{
    int fds[3] = { -1, -1, -1 }, one = 1, v;
    struct timeval tv = { 1, 500000 };

    CHECK(have_net);
    fds[0] = tcp_pair(5008, &fds[1], &fds[2]);
    CHECK(fds[0] >= 0);
    CHECK(int_opt(fds[0], SOL_SOCKET, SO_REUSEADDR, &v) && v == 1);
    CHECK(int_opt(fds[0], SOL_SOCKET, SO_ACCEPTCONN, &v) && v == 1);
    CHECK(int_opt(fds[1], SOL_SOCKET, SO_ACCEPTCONN, &v) && v == 0);
    CHECK(int_opt(fds[1], SOL_SOCKET, SO_KEEPALIVE, &v) && v == 0);
    CHECK(setsockopt(fds[1], SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) == 0);
    CHECK(int_opt(fds[1], SOL_SOCKET, SO_KEEPALIVE, &v) && v == 1);
    CHECK(int_opt(fds[1], IPPROTO_TCP, TCP_NODELAY, &v) && v == 1);
    CHECK(setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0);
    CHECK(int_opt(fds[1], SOL_SOCKET, SO_TYPE, &v) && v == SOCK_STREAM);
    CHECK(int_opt(fds[1], SOL_SOCKET, SO_ERROR, &v) && v == 0);
    CHECK(setsockopt(fds[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0);
    CHECK(send(fds[1], "s", 1, 0) == 1);
    CHECK(recv(fds[2], &v, 1, 0) == 1);
    errno = 0;
    CHECK(setsockopt(fds[1], SOL_SOCKET, 12345, &one, sizeof one) == -1 &&
          errno == ENOPROTOOPT);
    errno = 0;
    CHECK(setsockopt(fds[1], IPPROTO_TCP, TCP_KEEPIDLE, &one, sizeof one) ==
          -1 && errno == ENOPROTOOPT);
    errno = 0;
    CHECK(setsockopt(fds[1], 999, 1, &one, sizeof one) == -1 &&
          errno == ENOPROTOOPT);
    /* SO_LINGER is off, and may only be set off. */
    struct linger lg = { 1, 5 };
    socklen_t lglen = sizeof lg;
    CHECK(getsockopt(fds[1], SOL_SOCKET, SO_LINGER, &lg, &lglen) == 0 &&
          lglen == sizeof lg && lg.l_onoff == 0);
    lg.l_linger = 0;
    CHECK(setsockopt(fds[1], SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
    lg.l_onoff = 1;
    errno = 0;
    CHECK(setsockopt(fds[1], SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == -1 &&
          errno == ENOPROTOOPT);
    errno = 0;
    CHECK(setsockopt(fds[1], SOL_SOCKET, SO_REUSEADDR, &one, 1) == -1 &&
          errno == EINVAL);
    close_all(fds, 3);
}

TEST(errors)
{
    struct sockaddr_in a = sin_of(GUEST, NOBODY_PORT);
    struct sockaddr_in6 a6;
    char buf[8];
    int fd;

    errno = 0;
    CHECK(recv(999, buf, 1, 0) == -1 && errno == EBADF);
    errno = 0;
    CHECK(send(77, buf, 1, 0) == -1 && errno == EBADF);
    errno = 0;
    CHECK(close(500) == -1 && errno == EBADF);
    errno = 0;
    CHECK(read(600, buf, 1) == -1 && errno == EBADF);
    errno = 0;
    CHECK(write(-1, buf, 1) == -1 && errno == EBADF);
    errno = 0;
    CHECK(recv(1, buf, 1, 0) == -1 && errno == ENOTSOCK);
    errno = 0;
    CHECK(socket(AF_INET6, SOCK_STREAM, 0) == -1 && errno == EAFNOSUPPORT);
    errno = 0;
    CHECK(socket(AF_UNIX, SOCK_STREAM, 0) == -1 && errno == EAFNOSUPPORT);
    errno = 0;
    CHECK(socket(AF_INET, SOCK_RAW, 0) == -1 && errno == EPROTONOSUPPORT);
    errno = 0;
    CHECK(socket(AF_INET, SOCK_STREAM, IPPROTO_UDP) == -1 &&
          errno == EPROTONOSUPPORT);

    CHECK(have_net);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    errno = 0;
    CHECK(recv(fd, buf, 1, 0) == -1 && errno == ENOTCONN);
    errno = 0;
    CHECK(getpeername(fd, SA(a6), &(socklen_t){ sizeof a6 }) == -1 &&
          errno == ENOTCONN);
    memset(&a6, 0, sizeof a6);
    a6.sin6_family = AF_INET6;
    errno = 0;
    CHECK(bind(fd, SA(a6), sizeof a6) == -1 && errno == EAFNOSUPPORT);
    errno = 0;
    CHECK(connect(fd, SA(a), sizeof a) == -1 && errno == ECONNREFUSED);
    errno = 0;
    CHECK(shutdown(fd, SHUT_RDWR) == -1 && errno == ENOTCONN);
    close(fd);

    fd = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(fd >= 0);
    errno = 0;
    CHECK(listen(fd, 1) == -1 && errno == EOPNOTSUPP);
    a = sin_of(NULL, 5009);
    CHECK(bind(fd, SA(a), sizeof a) == 0);
    errno = 0;
    CHECK(bind(fd, SA(a), sizeof a) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(recv(fd, buf, 1, MSG_PEEK) == -1 && errno == EOPNOTSUPP);
    close(fd);
}

TEST(fds_freed)
{
    struct stat st;
    int a, b, c;

    a = socket(AF_INET, SOCK_STREAM, 0);
    CHECKF(a == 3, "the first socket is fd %d: descriptors leaked", a);
    CHECK(fstat(a, &st) == 0 && S_ISSOCK(st.st_mode));
    errno = 0;
    CHECK(isatty(a) == 0 && errno == ENOTTY);
    b = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(b == 4);
    CHECK(close(a) == 0);
    c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(c == 3);                  /* the lowest free one */
    CHECK(close(b) == 0 && close(c) == 0);
    errno = 0;
    CHECK(close(c) == -1 && errno == EBADF);
    CHECK(socket(AF_INET, SOCK_STREAM, 0) == 3 && close(3) == 0);
}

TEST(stacks)
{
    struct sp_net_stats st;

    CHECK(sp_net_stats(&st, NULL, 0) == 0);
    printf("# %d queue%s, %d stack%s: %llu lock takes, %llu by a core of "
           "another stack\n", st.nqueues, st.nqueues > 1 ? "s" : "",
           st.stacks, st.stacks > 1 ? "s" : "",
           (unsigned long long)st.lock_takes,
           (unsigned long long)st.lock_foreign);
    CHECKF(st.nqueues == want_queues && st.stacks == want_queues,
           "%d queues and %d stacks, expected %d of each", st.nqueues,
           st.stacks, want_queues);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "guest=", 6))
            GUEST = argv[i] + 6;
        else if (!strncmp(argv[i], "queues=", 7))
            want_queues = atoi(argv[i] + 7);
    }
    return sp_test_main();
}
