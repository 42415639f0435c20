/*
 * pipe - the descriptor calls and the in-kernel files of posix/:
 *
 *   pipe_stream     4 MiB through a pipe from a G to another (cores
 *                   apart at smp > 1) in odd-sized writes and reads,
 *                   checked by a running checksum; end of file after the
 *                   writer's close
 *   pipe_atomic     4 writers of PIPE_BUF-byte records, one reader: no
 *                   record is torn
 *   pipe_nonblock   O_NONBLOCK (pipe2, fcntl): EAGAIN on an empty read
 *                   and a full pipe, a partial write, PIPE_BUF all or
 *                   nothing; EPIPE with the reader gone
 *   pipe_close_wakes  a G blocked reading, and one blocked writing, are
 *                   woken by the close of their own descriptor (EBADF)
 *                   or of the other end (0, EPIPE)
 *   socketpair      both directions at once, 1 MiB each way, send/recv
 *                   and read/write; MSG_DONTWAIT, MSG_PEEK; shutdown by
 *                   close
 *   eventfd         counter and semaphore modes, blocking read woken by
 *                   a write from another G, EAGAIN, overflow, EINVAL
 *   dup_fcntl       dup/dup2/dup3/F_DUPFD (lowest free, a floor), the
 *                   shared O_NONBLOCK of duplicates, FD_CLOEXEC per
 *                   descriptor, a pipe end alive until its last
 *                   descriptor closes; the console dup'd onto a pipe's
 *                   descriptor number
 *   readv_writev    gather and scatter across element boundaries, and a
 *                   long vector an element at a time
 *   stdio_on_pipe   FILEs on both ends of a pipe (fdopen): a writer G,
 *                   line-buffered (each line's flush takes the stream's
 *                   lock again inside fprintf's), that parks inside
 *                   fprintf holding its stream's lock and may wake on
 *                   another core, while the reader reads with fgets
 *   fds_freed       every descriptor the cases opened is free again
 */
#define _GNU_SOURCE             /* pipe2, dup3 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define STREAM_BYTES (4u << 20)

/* A byte of position i of a test stream. */
static uint8_t pattern(uint64_t i, unsigned seed)
{
    return (uint8_t)((i * 2654435761u) >> 13 ^ seed);
}

/* Runs fn(arg) in a G and returns a channel that gets one int when it
   ends. */
struct job {
    void (*fn)(void *);
    void *arg;
    sp_chan *done;
};

static void job_main(void *p)
{
    struct job *j = p;

    j->fn(j->arg);
    sp_chan_send(j->done, &(int){ 1 });
}

static struct job *start(void (*fn)(void *), void *arg)
{
    struct job *j = malloc(sizeof *j);

    j->fn = fn;
    j->arg = arg;
    j->done = sp_chan_make(sizeof(int), 1);
    sp_go(job_main, j);
    return j;
}

static void join(struct job *j)
{
    int one;

    sp_chan_recv(j->done, &one);
    sp_chan_free(j->done);
    free(j);
}

/* ---- pipe_stream ------------------------------------------------------ */

struct streamer {
    int fd;
    unsigned seed;
    size_t bytes;
    uint64_t sum;               /* writer: of what it wrote */
    long err;
};

static void stream_writer(void *p)
{
    struct streamer *s = p;
    uint8_t buf[7919];
    size_t done = 0, chunk = 1;

    while (done < s->bytes) {
        size_t n = chunk < s->bytes - done ? chunk : s->bytes - done;
        ssize_t w;

        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(done + i, s->seed);
        if ((w = write(s->fd, buf, n)) != (ssize_t)n) {
            s->err = w < 0 ? errno : -1;
            break;
        }
        for (size_t i = 0; i < n; i++)
            s->sum = s->sum * 31 + buf[i];
        done += n;
        chunk = chunk * 3 % sizeof buf + 1;
    }
    close(s->fd);
}

/* Reads fd to its end; the bytes must be pattern(seed).  Returns the
   count read, -1 on a mismatch or error. */
static long drain_check(int fd, unsigned seed, uint64_t *sum)
{
    static uint8_t buf[4099];
    uint64_t at = 0;
    ssize_t n;

    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++, at++) {
            if (buf[i] != pattern(at, seed))
                return -1;
            *sum = *sum * 31 + buf[i];
        }
    return n < 0 ? -1 : (long)at;
}

TEST(pipe_stream)
{
    struct streamer s = { .seed = 7, .bytes = STREAM_BYTES };
    uint64_t sum = 0;
    struct job *j;
    int p[2];
    long got;

    CHECK(pipe(p) == 0);
    CHECK(fcntl(p[0], F_GETFL) == O_RDONLY && fcntl(p[1], F_GETFL) == O_WRONLY);
    s.fd = p[1];
    j = start(stream_writer, &s);
    got = drain_check(p[0], s.seed, &sum);
    join(j);
    CHECKF(got == STREAM_BYTES, "read %ld of %u bytes", got, STREAM_BYTES);
    CHECK(s.err == 0 && sum == s.sum);
    CHECK(read(p[0], &sum, 1) == 0);            /* still end of file */
    CHECK(close(p[0]) == 0);
}

/* ---- pipe_atomic ------------------------------------------------------ */

#define WRITERS 4
#define RECORDS 200

struct recw {
    int fd, id;
    long err;
};

static void record_writer(void *p)
{
    struct recw *w = p;
    uint8_t rec[PIPE_BUF];

    for (int r = 0; r < RECORDS; r++) {
        memset(rec, w->id * RECORDS + r, sizeof rec);
        rec[0] = (uint8_t)w->id;
        rec[1] = (uint8_t)r;
        if (write(w->fd, rec, sizeof rec) != sizeof rec)
            w->err = errno ? errno : -1;
        if (r % 16 == 0)
            sp_yield();
    }
}

TEST(pipe_atomic)
{
    struct recw w[WRITERS];
    struct job *j[WRITERS];
    int next[WRITERS] = { 0 }, p[2], torn = 0;
    uint8_t rec[PIPE_BUF];

    CHECK(pipe(p) == 0);
    for (int i = 0; i < WRITERS; i++) {
        w[i] = (struct recw){ p[1], i, 0 };
        j[i] = start(record_writer, &w[i]);
    }
    for (int n = 0; n < WRITERS * RECORDS; n++) {
        size_t got = 0;

        /* A record may arrive in more than one read; never mixed. */
        while (got < sizeof rec) {
            ssize_t k = read(p[0], rec + got, sizeof rec - got);

            CHECK(k > 0);
            got += k;
        }
        int id = rec[0], r = rec[1];
        uint8_t fill = (uint8_t)(id * RECORDS + r);

        CHECK(id < WRITERS);
        CHECKF(r == (next[id] & 0xff), "writer %d: record %d after %d", id,
               r, next[id]);
        next[id]++;
        for (size_t i = 2; i < sizeof rec; i++)
            torn += rec[i] != fill;
    }
    for (int i = 0; i < WRITERS; i++) {
        join(j[i]);
        CHECK(w[i].err == 0);
    }
    CHECKF(torn == 0, "%d bytes of other records inside records", torn);
    close(p[0]);
    close(p[1]);
}

/* ---- pipe_nonblock ------------------------------------------------------ */

TEST(pipe_nonblock)
{
    static uint8_t big[70000];
    uint8_t b[PIPE_BUF];
    int p[2];
    ssize_t n;

    CHECK(pipe2(p, O_NONBLOCK) == 0);
    CHECK(fcntl(p[0], F_GETFL) & O_NONBLOCK);
    CHECK(read(p[0], b, 1) == -1 && errno == EAGAIN);
    /* A long write takes what fits (64 KiB), then EAGAIN. */
    n = write(p[1], big, sizeof big);
    CHECKF(n > 0 && n < (ssize_t)sizeof big, "wrote %ld", (long)n);
    CHECK(write(p[1], big, 1) == -1 && errno == EAGAIN);
    /* Room for less than PIPE_BUF: an atomic write does not go in. */
    CHECK(read(p[0], b, PIPE_BUF - 1) == PIPE_BUF - 1);
    CHECK(write(p[1], b, PIPE_BUF) == -1 && errno == EAGAIN);
    CHECK(write(p[1], b, PIPE_BUF - 1) == PIPE_BUF - 1);
    /* fcntl turns blocking back on for both ends' later calls. */
    CHECK(fcntl(p[1], F_SETFL, 0) == 0);
    CHECK(!(fcntl(p[1], F_GETFL) & O_NONBLOCK));
    CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
    /* The reader gone: EPIPE, and no signal. */
    CHECK(close(p[0]) == 0);
    CHECK(write(p[1], b, 1) == -1 && errno == EPIPE);
    CHECK(close(p[1]) == 0);
    CHECK(pipe2(p, 12345) == -1 && errno == EINVAL);
}

/* ---- pipe_close_wakes --------------------------------------------------- */

struct blocked {
    int fd;
    bool write;
    ssize_t r;
    int err;
};

static void block_call(void *p)
{
    struct blocked *b = p;
    static uint8_t big[65536 + 1];
    uint8_t c;

    errno = 0;
    b->r = b->write ? write(b->fd, big, sizeof big) : read(b->fd, &c, 1);
    b->err = errno;
}

/* Starts a G blocked in a call on fd, closes `victim`, and checks the
   call's result. */
static void close_wakes(int fd, bool wr, int victim, ssize_t want_r,
                        int want_err)
{
    struct blocked b = { fd, wr, 0, 0 };
    struct job *j = start(block_call, &b);

    sp_sleep(SP_MS(20));        /* long enough to be parked */
    CHECK(close(victim) == 0);
    join(j);
    CHECKF(b.r == want_r && (want_r >= 0 || b.err == want_err),
           "fd %d %s after close(%d): %ld, errno %d", fd,
           wr ? "write" : "read", victim, (long)b.r, b.err);
}

TEST(pipe_close_wakes)
{
    int p[2];

    CHECK(pipe(p) == 0);
    close_wakes(p[0], false, p[1], 0, 0);       /* writer gone: EOF */
    CHECK(close(p[0]) == 0);
    CHECK(pipe(p) == 0);
    close_wakes(p[0], false, p[0], -1, EBADF);  /* own end closed */
    CHECK(close(p[1]) == 0);
    CHECK(pipe(p) == 0);
    /* A writer of 64 KiB + 1 fills the ring and blocks; then the reader
       goes: the bytes written so far count. */
    close_wakes(p[1], true, p[0], 65536, 0);
    CHECK(close(p[1]) == 0);
}

/* ---- socketpair ---------------------------------------------------------- */

TEST(socketpair_both_ways)
{
    struct streamer a = { .seed = 11, .bytes = 1u << 20 };
    struct streamer b = { .seed = 13, .bytes = 1u << 20 };
    uint64_t suma = 0, sumb = 0;
    struct job *ja, *jb;
    int sv[2], sv2[2];
    char c;
    struct stat st;

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(fstat(sv[0], &st) == 0 && S_ISSOCK(st.st_mode));
    /* Each writer writes into its own descriptor and closes it: the
       other end reads its stream, then end of file. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv2) == 0);
    a.fd = sv[0];
    b.fd = sv2[1];
    ja = start(stream_writer, &a);
    jb = start(stream_writer, &b);
    CHECK(drain_check(sv[1], a.seed, &suma) == (long)a.bytes);
    CHECK(drain_check(sv2[0], b.seed, &sumb) == (long)b.bytes);
    join(ja);
    join(jb);
    CHECK(suma == a.sum && sumb == b.sum);
    close(sv[1]);
    close(sv2[0]);

    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    CHECK(recv(sv[0], &c, 1, 0) == -1 && errno == EAGAIN);
    CHECK(send(sv[1], "xy", 2, MSG_NOSIGNAL) == 2);
    CHECK(recv(sv[0], &c, 1, MSG_PEEK) == 1 && c == 'x');
    CHECK(recv(sv[0], &c, 1, MSG_DONTWAIT) == 1 && c == 'x');
    CHECK(read(sv[0], &c, 1) == 1 && c == 'y');
    CHECK(send(sv[0], "z", 1, 0) == 1 && read(sv[1], &c, 1) == 1 && c == 'z');
    close(sv[1]);
    CHECK(recv(sv[0], &c, 1, 0) == 0);          /* the peer is gone */
    CHECK(send(sv[0], "z", 1, MSG_NOSIGNAL) == -1 && errno == EPIPE);
    close(sv[0]);
    CHECK(socketpair(AF_INET, SOCK_STREAM, 0, sv) == -1 &&
          errno == EAFNOSUPPORT);
    CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == -1);
}

/* ---- eventfd -------------------------------------------------------------- */

static void efd_adder(void *p)
{
    sp_sleep(SP_MS(10));
    eventfd_write(*(int *)p, 5);
}

TEST(eventfd_counter)
{
    eventfd_t v;
    struct job *j;
    int fd, sfd;

    CHECK((fd = eventfd(3, 0)) >= 0);
    CHECK(eventfd_write(fd, 4) == 0);
    CHECK(eventfd_read(fd, &v) == 0 && v == 7);
    /* Empty: a blocking read waits for another G's write. */
    j = start(efd_adder, &fd);
    CHECK(eventfd_read(fd, &v) == 0 && v == 5);
    join(j);
    CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
    CHECK(eventfd_read(fd, &v) == -1 && errno == EAGAIN);
    CHECK(read(fd, &v, 4) == -1 && errno == EINVAL);
    v = ~0ULL;
    CHECK(write(fd, &v, 8) == -1 && errno == EINVAL);
    CHECK(eventfd_write(fd, 0xfffffffffffffffeULL) == 0);
    CHECK(eventfd_write(fd, 1) == -1 && errno == EAGAIN);    /* full */
    CHECK(eventfd_read(fd, &v) == 0 && v == 0xfffffffffffffffeULL);
    close(fd);

    CHECK((sfd = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK)) >= 0);
    CHECK(eventfd_read(sfd, &v) == 0 && v == 1);
    CHECK(eventfd_read(sfd, &v) == 0 && v == 1);
    CHECK(eventfd_read(sfd, &v) == -1 && errno == EAGAIN);
    close(sfd);
    CHECK(eventfd(0, 0x4000000) == -1 && errno == EINVAL);
}

/* ---- dup_fcntl ---------------------------------------------------------- */

TEST(dup_fcntl)
{
    int p[2], d, d2;
    char c;

    CHECK(pipe(p) == 0);
    CHECK((d = dup(p[1])) > p[1]);
    CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
    CHECK(fcntl(d, F_GETFL) & O_NONBLOCK);      /* one file, one flag */
    CHECK(fcntl(p[1], F_SETFL, 0) == 0);
    CHECK((d2 = fcntl(p[0], F_DUPFD, 100)) == 100);
    CHECK(fcntl(p[0], F_DUPFD_CLOEXEC, 100) == 101);
    CHECK(fcntl(101, F_GETFD) == FD_CLOEXEC && fcntl(100, F_GETFD) == 0);
    CHECK(fcntl(100, F_SETFD, FD_CLOEXEC) == 0 && fcntl(100, F_GETFD) == FD_CLOEXEC);
    CHECK(close(101) == 0);
    /* The write end lives on in d after its first descriptor closes. */
    CHECK(close(p[1]) == 0);
    CHECK(write(d, "a", 1) == 1 && read(100, &c, 1) == 1 && c == 'a');
    CHECK(close(d) == 0);
    CHECK(read(p[0], &c, 1) == 0);              /* now the writer is gone */
    CHECK(close(p[0]) == 0);
    /* dup2 onto an open descriptor closes what it named first. */
    CHECK(pipe(p) == 0);
    CHECK(dup2(p[1], 100) == 100);              /* 100 was the old read end */
    CHECK(write(100, "b", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'b');
    CHECK(dup2(p[1], p[1]) == p[1]);
    CHECK(dup3(p[1], p[1], 0) == -1 && errno == EINVAL);
    CHECK(dup3(p[1], 200, O_CLOEXEC) == 200 && fcntl(200, F_GETFD) == FD_CLOEXEC);
    /* The console is a descriptor like the others. */
    CHECK((d = dup(1)) >= 0 && isatty(d) && write(d, "", 0) == 0);
    CHECK(close(d) == 0);
    CHECK(dup(4096) == -1 && errno == EBADF);
    CHECK(dup2(1, -1) == -1 && errno == EBADF);
    CHECK(fcntl(p[0], 999) == -1 && errno == EINVAL);
    CHECK(fcntl(999, F_GETFL) == -1 && errno == EBADF);
    close(100);
    close(200);
    close(p[0]);
    close(p[1]);
}

/* ---- readv_writev ------------------------------------------------------- */

TEST(readv_writev)
{
    char a[3], b[5], c[64], out[16];
    struct iovec wv[3] = { { "abc", 3 }, { "", 0 }, { "defgh", 5 } };
    struct iovec rv[3] = { { a, 3 }, { b, 5 }, { c, sizeof c } };
    struct iovec one = { out, sizeof out };
    static char big[3][40000];
    struct iovec bigv[3];
    int p[2];

    CHECK(pipe(p) == 0);
    CHECK(writev(p[1], wv, 3) == 8);
    CHECK(readv(p[0], rv, 2) == 8);
    CHECK(memcmp(a, "abc", 3) == 0 && memcmp(b, "defgh", 5) == 0);
    CHECK(writev(p[1], wv, 3) == 8);
    CHECK(readv(p[0], &one, 1) == 8 && memcmp(out, "abcdefgh", 8) == 0);
    /* Longer than one gather: an element at a time; the ring takes 64
       KiB, so the second element goes in part and the call stops. */
    CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
    for (int i = 0; i < 3; i++)
        bigv[i] = (struct iovec){ big[i], sizeof big[i] };
    CHECK(writev(p[1], bigv, 3) == 65536);
    CHECK(writev(p[1], bigv, -1) == -1 && errno == EINVAL);
    close(p[0]);
    close(p[1]);
}

/* ---- stdio_on_pipe ------------------------------------------------------ */

#define LINES 20000

static void line_writer(void *arg)
{
    FILE *w = arg;

    for (int i = 0; i < LINES; i++)
        fprintf(w, "line %d of %d\n", i, LINES);
    fclose(w);
}

TEST(stdio_on_pipe)
{
    char line[64], want[64];
    int p[2], n = 0, bad = 0;
    struct job *j;
    FILE *r, *w;

    CHECK(pipe(p) == 0);
    CHECK((r = fdopen(p[0], "r")) && (w = fdopen(p[1], "w")));
    CHECK(setvbuf(w, NULL, _IOLBF, 256) == 0);
    j = start(line_writer, w);
    while (fgets(line, sizeof line, r)) {
        snprintf(want, sizeof want, "line %d of %d\n", n, LINES);
        bad += strcmp(line, want) != 0;
        n++;
    }
    join(j);
    CHECKF(n == LINES && bad == 0, "%d lines, %d wrong", n, bad);
    CHECK(fclose(r) == 0);
}

/* ---- fds_freed ---------------------------------------------------------- */

TEST(fds_freed)
{
    int p[2];

    CHECK(pipe(p) == 0);
    CHECKF(p[0] == 3 && p[1] == 4, "a new pipe got %d and %d", p[0], p[1]);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    return sp_test_main();
}
