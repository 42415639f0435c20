/*
 * epoll - epoll, poll and select on the files of posix/ (pipes,
 * eventfds, sockets):
 *
 *   level           a level-triggered item is reported while its file
 *                   stays ready, and no more once it is drained
 *   edge            EPOLLET: one report per change, none while nothing
 *                   new comes; spurious ones allowed, lost ones not
 *   oneshot         one report, then none until EPOLL_CTL_MOD re-arms
 *   ctl_rules       EEXIST, ENOENT, EINVAL (an epoll in an epoll, a bad
 *                   op, a descriptor that is no epoll), EBADF; MOD of
 *                   the events and the data
 *   close_removes   the last descriptor's close takes an item out; a
 *                   duplicate keeps it; EPOLLHUP of a pipe whose writer
 *                   went, unasked
 *   wait_wakes      a G parked in epoll_wait is woken by another G's
 *                   write; a timeout is not cut short
 *   targeted        two Gs in epoll_wait on two epolls: a write to the
 *                   one's pipe wakes it alone (the other is still parked)
 *   no_lost_wakeup  a producer on another core signals an eventfd and a
 *                   pipe at random moments while a consumer waits with
 *                   EPOLLET and reads until EAGAIN: every signal counted,
 *                   and no wait runs into its 5 s timeout
 *   sockets         a listener's EPOLLIN on a connection, a connection's
 *                   EPOLLIN on data (MSG_PEEK leaves it for the read) and
 *                   EPOLLRDHUP at the peer's FIN, EPOLLOUT of a fresh
 *                   connection
 *   select_1000     select and poll over 1,000 descriptors (500 pipes):
 *                   exactly the written ones are readable, all write ends
 *                   writable; a select woken by a write to the last one
 *   fds_freed       every descriptor is free again
 */
#define _GNU_SOURCE             /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <spindle/chan.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>

/* Events of one epoll_wait with timeout ms: the count, *ev the first. */
static int wait1(int ep, struct epoll_event *ev, int ms)
{
    struct epoll_event evs[4];
    int n = epoll_wait(ep, evs, 4, ms);

    if (n > 0 && ev)
        *ev = evs[0];
    return n;
}

static void add(int ep, int fd, uint32_t events, uint64_t data)
{
    struct epoll_event ev = { .events = events, .data.u64 = data };

    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
        sp_test_fail(__FILE__, __LINE__, "EPOLL_CTL_ADD of %d: errno %d",
                     fd, errno);
}

TEST(level)
{
    struct epoll_event ev;
    int ep = epoll_create1(0), p[2];
    char c;

    CHECK(ep >= 0 && pipe(p) == 0);
    add(ep, p[0], EPOLLIN, 42);
    CHECK(wait1(ep, NULL, 0) == 0);
    CHECK(write(p[1], "ab", 2) == 2);
    CHECK(wait1(ep, &ev, 0) == 1 && ev.events == EPOLLIN && ev.data.u64 == 42);
    CHECK(wait1(ep, &ev, 0) == 1);              /* still ready */
    CHECK(read(p[0], &c, 1) == 1);
    CHECK(wait1(ep, &ev, 0) == 1);              /* one byte left */
    CHECK(read(p[0], &c, 1) == 1);
    CHECK(wait1(ep, NULL, 0) == 0);             /* drained */
    close(p[0]);
    close(p[1]);
    close(ep);
}

TEST(edge)
{
    struct epoll_event ev;
    int ep = epoll_create1(EPOLL_CLOEXEC), p[2];
    char c[8];

    CHECK(ep >= 0 && fcntl(ep, F_GETFD) == FD_CLOEXEC);
    CHECK(pipe2(p, O_NONBLOCK) == 0);
    add(ep, p[0], EPOLLIN | EPOLLET, 1);
    CHECK(write(p[1], "a", 1) == 1);
    CHECK(wait1(ep, &ev, 0) == 1 && (ev.events & EPOLLIN));
    CHECK(wait1(ep, NULL, 0) == 0);             /* nothing new */
    CHECK(write(p[1], "b", 1) == 1);
    CHECK(wait1(ep, &ev, 0) == 1);              /* a new edge */
    CHECK(read(p[0], c, sizeof c) == 2);
    CHECK(wait1(ep, NULL, 0) == 0);
    close(p[0]);
    close(p[1]);
    close(ep);
}

TEST(oneshot)
{
    struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.u64 = 7 };
    int ep = epoll_create(1), fd = eventfd(1, 0);

    CHECK(ep >= 0 && fd >= 0);
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    CHECK(wait1(ep, &ev, 0) == 1 && ev.data.u64 == 7);
    CHECK(wait1(ep, NULL, 0) == 0);             /* disarmed */
    CHECK(eventfd_write(fd, 1) == 0);
    CHECK(wait1(ep, NULL, 0) == 0);             /* still disarmed */
    ev = (struct epoll_event){ .events = EPOLLIN | EPOLLONESHOT, .data.u64 = 8 };
    CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) == 0);
    CHECK(wait1(ep, &ev, 0) == 1 && ev.data.u64 == 8);
    CHECK(wait1(ep, NULL, 0) == 0);
    close(fd);
    close(ep);
}

TEST(ctl_rules)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 1 };
    int ep = epoll_create1(0), ep2 = epoll_create1(0), fd = eventfd(0, 0);

    CHECK(ep >= 0 && ep2 >= 0 && fd >= 0);
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1 && errno == EEXIST);
    CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, 0, &ev) == -1 && errno == ENOENT);
    CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, 0, NULL) == -1 && errno == ENOENT);
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, ep2, &ev) == -1 && errno == EINVAL);
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev) == -1 && errno == EINVAL);
    CHECK(epoll_ctl(ep, 99, fd, &ev) == -1 && errno == EINVAL);
    CHECK(epoll_ctl(fd, EPOLL_CTL_ADD, 1, &ev) == -1 && errno == EINVAL);
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, 999, &ev) == -1 && errno == EBADF);
    CHECK(epoll_wait(ep, &ev, 0, 0) == -1 && errno == EINVAL);
    CHECK(epoll_wait(fd, &ev, 1, 0) == -1 && errno == EINVAL);
    CHECK(epoll_create(0) == -1 && errno == EINVAL);
    CHECK(epoll_create1(1 << 20) == -1 && errno == EINVAL);
    /* MOD: the out direction, new data. */
    ev = (struct epoll_event){ .events = EPOLLOUT, .data.u64 = 9 };
    CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) == 0);
    CHECK(wait1(ep, &ev, 0) == 1 && ev.events == EPOLLOUT && ev.data.u64 == 9);
    CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL) == 0);
    CHECK(wait1(ep, NULL, 0) == 0);
    close(fd);
    close(ep2);
    close(ep);
}

TEST(close_removes)
{
    struct epoll_event ev;
    int ep = epoll_create1(0), p[2], d;

    CHECK(ep >= 0 && pipe(p) == 0);
    add(ep, p[0], EPOLLIN, 5);
    /* A duplicate keeps the file, so the item stays. */
    CHECK((d = dup(p[0])) >= 0);
    CHECK(close(p[0]) == 0);
    CHECK(write(p[1], "x", 1) == 1);
    CHECK(wait1(ep, &ev, 0) == 1 && ev.data.u64 == 5);
    /* The writer goes: EPOLLHUP, which nobody asked for. */
    CHECK(close(p[1]) == 0);
    CHECK(wait1(ep, &ev, 0) == 1 && (ev.events & EPOLLHUP));
    /* The last descriptor goes: so does the item. */
    CHECK(close(d) == 0);
    CHECK(wait1(ep, NULL, 0) == 0);
    /* Its number, reused by a new file, is not in the epoll. */
    CHECK(pipe(p) == 0);
    CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == -1 && errno == ENOENT);
    close(p[0]);
    close(p[1]);
    close(ep);
}

/* ---- Waking ------------------------------------------------------------ */

struct later {
    int fd;
    uint64_t ms;
};

static void write_later(void *arg)
{
    struct later *l = arg;

    sp_sleep(SP_MS(l->ms));
    if (write(l->fd, "w", 1) != 1)
        printf("# write_later: errno %d\n", errno);
}

TEST(wait_wakes)
{
    struct later l;
    struct epoll_event ev;
    int ep = epoll_create1(0), p[2];
    uint64_t t0;
    int64_t ms;

    CHECK(ep >= 0 && pipe(p) == 0);
    add(ep, p[0], EPOLLIN, 3);
    t0 = sp_nanotime();
    CHECK(wait1(ep, NULL, 50) == 0);
    ms = (int64_t)(sp_nanotime() - t0) / 1000000;
    CHECKF(ms >= 49, "a 50 ms timeout returned after %lld ms", (long long)ms);
    /* Woken by the write, not by the 10 s timeout's last look. */
    l = (struct later){ p[1], 30 };
    sp_go(write_later, &l);
    t0 = sp_nanotime();
    CHECK(wait1(ep, &ev, 10000) == 1 && ev.data.u64 == 3);
    ms = (int64_t)(sp_nanotime() - t0) / 1000000;
    CHECKF(ms < 5000, "woken after %lld ms", (long long)ms);
    close(p[0]);
    close(p[1]);
    close(ep);
}

struct waiter {
    int ep;
    int n;                      /* epoll_wait's result; atomic */
    bool done;                  /* atomic */
};

static void wait_g(void *arg)
{
    struct waiter *w = arg;
    struct epoll_event ev;

    __atomic_store_n(&w->n, epoll_wait(w->ep, &ev, 1, 3000), __ATOMIC_RELAXED);
    __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
}

TEST(targeted)
{
    struct waiter a = { epoll_create1(0), 0, false },
                  b = { epoll_create1(0), 0, false };
    int pa[2], pb[2];
    uint64_t t0;

    CHECK(a.ep >= 0 && b.ep >= 0 && pipe(pa) == 0 && pipe(pb) == 0);
    add(a.ep, pa[0], EPOLLIN, 1);
    add(b.ep, pb[0], EPOLLIN, 2);
    sp_go(wait_g, &a);
    sp_go(wait_g, &b);
    sp_sleep(SP_MS(20));
    CHECK(write(pa[1], "a", 1) == 1);
    t0 = sp_nanotime();
    while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE) &&
           sp_nanotime() - t0 < SP_S(2))
        sp_sleep(SP_MS(1));
    CHECK(__atomic_load_n(&a.done, __ATOMIC_ACQUIRE) && a.n == 1);
    sp_sleep(SP_MS(30));
    CHECK(!__atomic_load_n(&b.done, __ATOMIC_ACQUIRE));   /* still parked */
    CHECK(write(pb[1], "b", 1) == 1);
    while (!__atomic_load_n(&b.done, __ATOMIC_ACQUIRE))
        sp_sleep(SP_MS(1));
    CHECK(b.n == 1);
    close(pa[0]);
    close(pa[1]);
    close(pb[0]);
    close(pb[1]);
    close(a.ep);
    close(b.ep);
}

/* ---- no_lost_wakeup ------------------------------------------------------ */

#define SIGNALS (SP_TSAN ? 500 : 3000)

struct producer {
    int efd, wfd;
    uint64_t seed;
};

static void produce(void *arg)
{
    struct producer *p = arg;
    uint64_t x = p->seed;

    for (int i = 0; i < SIGNALS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if (x >> 63) {
            if (eventfd_write(p->efd, 1) != 0)
                printf("# eventfd_write: errno %d\n", errno);
        } else if (write(p->wfd, "p", 1) != 1) {
            printf("# write: errno %d\n", errno);
        }
        if ((x >> 40) % 4 == 0)
            sp_yield();
    }
}

TEST(no_lost_wakeup)
{
    struct producer pr = { .seed = 99 };
    struct epoll_event evs[2];
    int ep = epoll_create1(0), p[2], got = 0, stalls = 0;

    pr.efd = eventfd(0, EFD_NONBLOCK);
    CHECK(ep >= 0 && pr.efd >= 0 && pipe2(p, O_NONBLOCK) == 0);
    pr.wfd = p[1];
    add(ep, pr.efd, EPOLLIN | EPOLLET, 0);
    add(ep, p[0], EPOLLIN | EPOLLET, 1);
    sp_go(produce, &pr);
    while (got < SIGNALS) {
        int n = epoll_wait(ep, evs, 2, 5000);

        if (n == 0 && ++stalls)
            break;
        CHECK(n > 0);
        for (int i = 0; i < n; i++) {
            char buf[256];
            eventfd_t v;
            ssize_t k;

            if (evs[i].data.u64 == 0) {
                while (eventfd_read(pr.efd, &v) == 0)
                    got += (int)v;
            } else {
                while ((k = read(p[0], buf, sizeof buf)) > 0)
                    got += (int)k;
            }
        }
    }
    CHECKF(stalls == 0 && got == SIGNALS, "%d of %d signals, then a 5 s "
           "wait with nothing", got, SIGNALS);
    close(pr.efd);
    close(p[0]);
    close(p[1]);
    close(ep);
}

/* ---- sockets --------------------------------------------------------------- */

#define SA(a) ((struct sockaddr *)&(a))

TEST(sockets)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(7701) };
    struct epoll_event ev;
    int ep = epoll_create1(0), l, c, s, one = 1;
    char addr[16], buf[8];

    CHECKF(sp_net_wait(SP_S(30)) == 0, "no network");
    CHECK(sp_net_addr(addr, sizeof addr) == 0);
    CHECK((l = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
    CHECK(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0);
    CHECK(bind(l, SA(a), sizeof a) == 0 && listen(l, 4) == 0);
    add(ep, l, EPOLLIN, 10);
    CHECK(wait1(ep, NULL, 0) == 0);
    CHECK((c = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
    inet_pton(AF_INET, addr, &a.sin_addr);
    CHECK(connect(c, SA(a), sizeof a) == 0);
    CHECK(wait1(ep, &ev, 5000) == 1 && ev.data.u64 == 10);
    CHECK((s = accept(l, NULL, NULL)) >= 0);
    CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, l, NULL) == 0);
    add(ep, s, EPOLLIN | EPOLLRDHUP, 11);
    add(ep, c, EPOLLOUT | EPOLLET, 12);
    CHECK(wait1(ep, &ev, 5000) == 1 && ev.data.u64 == 12 &&
          (ev.events & EPOLLOUT));
    CHECK(send(c, "hi", 2, 0) == 2);
    CHECK(wait1(ep, &ev, 5000) == 1 && ev.data.u64 == 11 &&
          (ev.events & EPOLLIN));
    /* MSG_PEEK leaves the bytes for the next read. */
    CHECK(recv(s, buf, sizeof buf, MSG_PEEK) == 2 && memcmp(buf, "hi", 2) == 0);
    CHECK(recv(s, buf, 1, MSG_PEEK) == 1 && buf[0] == 'h');
    CHECK(recv(s, buf, sizeof buf, 0) == 2 && memcmp(buf, "hi", 2) == 0);
    CHECK(close(c) == 0);
    CHECK(wait1(ep, &ev, 5000) == 1 && ev.data.u64 == 11 &&
          (ev.events & EPOLLRDHUP));
    CHECK(recv(s, buf, sizeof buf, 0) == 0);
    close(s);
    close(l);
    close(ep);
}

/* ---- select_1000 ----------------------------------------------------------- */

#define PIPES 500

TEST(select_1000)
{
    static int p[PIPES][2];
    static struct pollfd pf[2 * PIPES];
    fd_set rd, wr;
    int maxfd = 0, n;
    struct later l;
    uint64_t t0;

    for (int i = 0; i < PIPES; i++) {
        CHECKF(pipe(p[i]) == 0, "pipe %d: errno %d", i, errno);
        maxfd = p[i][1] > maxfd ? p[i][1] : maxfd;
    }
    CHECK(maxfd >= 1000 && maxfd < FD_SETSIZE);
    for (int i = 0; i < PIPES; i += 7)
        CHECK(write(p[i][1], "s", 1) == 1);
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    for (int i = 0; i < PIPES; i++) {
        FD_SET(p[i][0], &rd);
        FD_SET(p[i][1], &wr);
    }
    n = select(maxfd + 1, &rd, &wr, NULL, &(struct timeval){ 0, 0 });
    CHECKF(n == (PIPES + 6) / 7 + PIPES, "select found %d", n);
    for (int i = 0; i < PIPES; i++) {
        CHECK(!!FD_ISSET(p[i][0], &rd) == (i % 7 == 0));
        CHECK(FD_ISSET(p[i][1], &wr));
    }
    for (int i = 0; i < PIPES; i++) {
        pf[2 * i] = (struct pollfd){ p[i][0], POLLIN, 0 };
        pf[2 * i + 1] = (struct pollfd){ p[i][1], POLLIN, 0 };
    }
    CHECK(poll(pf, 2 * PIPES, 0) == (PIPES + 6) / 7);
    /* Drained, then a select that waits for the last pipe. */
    for (int i = 0; i < PIPES; i += 7) {
        char c;

        CHECK(read(p[i][0], &c, 1) == 1);
    }
    FD_ZERO(&rd);
    for (int i = 0; i < PIPES; i++)
        FD_SET(p[i][0], &rd);
    l = (struct later){ p[PIPES - 1][1], 20 };
    sp_go(write_later, &l);
    t0 = sp_nanotime();
    n = select(maxfd + 1, &rd, NULL, NULL, &(struct timeval){ 10, 0 });
    CHECK(n == 1 && FD_ISSET(p[PIPES - 1][0], &rd));
    CHECKF(sp_nanotime() - t0 < SP_S(5), "woken after %llu ms",
           (unsigned long long)((sp_nanotime() - t0) / 1000000));
    CHECK(select(FD_SETSIZE + 1, &rd, NULL, NULL, NULL) == -1 && errno == EINVAL);
    FD_ZERO(&rd);
    FD_SET(maxfd + 1, &rd);
    CHECK(select(maxfd + 2, &rd, NULL, NULL, NULL) == -1 && errno == EBADF);
    for (int i = 0; i < PIPES; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
}

TEST(fds_freed)
{
    int fd = eventfd(0, 0);

    CHECKF(fd == 3, "a new descriptor got %d", fd);
    close(fd);
}

int main(void)
{
    return sp_test_main();
}
