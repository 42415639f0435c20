/*
 * pipe.c - pipes (pipe, pipe2) and stream socket pairs (socketpair with
 * AF_UNIX and SOCK_STREAM): in-kernel byte rings whose ends are files
 * (fd.h).
 *
 * A ring (struct ring) carries bytes one way: RING_SIZE bytes, a read
 * position `head` that only its reader moves and a write position
 * `tail` that only its writer moves, both counting bytes forever.  The
 * reader and the writer are each one G at a time (rmu, wmu: G mutexes,
 * as a socket's), so the ring is single-producer single-consumer and
 * needs no lock: the writer stores its bytes, then `tail` (release); the
 * reader loads `tail` (acquire), reads, then stores `head` (release),
 * which the writer loads (acquire) before reusing the space.
 *
 * Waiting.  A blocked reader parks on the ring's polldesc in direction
 * 'r', a blocked writer in 'w' (sched/polldesc.h: prepare, try, wait;
 * readiness reported after the prepare is never lost).  A writer that
 * stored bytes readies 'r'; a reader that freed space readies 'w'; and
 * each tells the watchers (poll, epoll) of the end on the other side.
 *
 * A pipe is one ring, read through end 0 and written through end 1.  A
 * socket pair is two rings: end 0 reads ring 0 and writes ring 1, end 1
 * the other way round.  Both ends and the rings are one allocation,
 * freed when both ends' files are: so an end can always reach the other
 * end's file to tell its watchers.
 *
 * Closing.  When an end's last descriptor closes, its rings learn that
 * their reader (rclosed) or writer (wclosed) is gone, and the Gs parked
 * on them are readied to look: a reader of a ring with no writer reads
 * what is left, then 0 (end of file); a writer to a ring with no reader
 * fails with EPIPE (SIGPIPE is never raised); a call blocked on the end
 * that was closed fails with EBADF.  Writes of at most PIPE_BUF bytes are
 * atomic; a blocking write returns when all its bytes are in the ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <spindle/sync.h>
#include "posix/fd.h"
#include "sched/polldesc.h"
#include "sched/sched.h"

#define RING_SIZE 65536         /* bytes; a power of two */

struct ring {
    char *buf;                  /* RING_SIZE bytes */
    uint64_t head, tail;        /* bytes read, written; atomic (above) */
    bool rclosed, wclosed;      /* reader's, writer's end closed; atomic */
    sp_mutex rmu, wmu;          /* one reader, one writer at a time */
    struct polldesc pd;         /* 'r': a reader waits; 'w': a writer */
    struct file *rfile, *wfile; /* the ends reading and writing it */
};

struct pend {
    struct file f;              /* first: an end is a file */
    struct ring *in, *out;      /* what it reads, writes; NULL: neither */
    struct pipeobj *obj;
};

struct pipeobj {
    struct pend end[2];
    struct ring ring[2];        /* a pipe uses ring[0] only */
    int nrings;
    int refs;                   /* ends not freed yet; atomic */
};

#define LOAD(x)         __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)     __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* Readies the G parked on r in direction mode, if any. */
static void ring_ready(struct ring *r, int mode)
{
    struct g *gp = pd_ready(&r->pd, mode);

    if (gp)
        goready(gp);
}

/* ---- Reading and writing ------------------------------------------------ */

/* Copies out what r holds, up to len, and takes it unless peek; the
   count (0: it was empty). */
static size_t ring_take(struct ring *r, char *dst, size_t len, bool peek)
{
    uint64_t head = r->head, tail = LOAD(r->tail);
    size_t n = tail - head, off = head & (RING_SIZE - 1), first;

    if (n > len)
        n = len;
    first = n < RING_SIZE - off ? n : RING_SIZE - off;
    memcpy(dst, r->buf + off, first);
    memcpy(dst + first, r->buf, n - first);
    if (!peek)
        STORE(r->head, head + n);
    return n;
}

/* Copies in as much of src as fits, up to len; the count. */
static size_t ring_put(struct ring *r, const char *src, size_t len)
{
    uint64_t tail = r->tail, head = LOAD(r->head);
    size_t n = RING_SIZE - (tail - head), off = tail & (RING_SIZE - 1), first;

    if (n > len)
        n = len;
    first = n < RING_SIZE - off ? n : RING_SIZE - off;
    memcpy(r->buf + off, src, first);
    memcpy(r->buf, src + first, n - first);
    STORE(r->tail, tail + n);
    return n;
}

static size_t ring_room(struct ring *r)
{
    return RING_SIZE - (LOAD(r->tail) - LOAD(r->head));
}

/* A read, or with peek one that leaves the bytes in the ring. */
static long pend_get(struct file *f, void *buf, size_t len, bool nb,
                     bool peek)
{
    struct pend *e = (struct pend *)f;
    struct ring *r = e->in;
    long n = 0;

    if (!r)
        return -EBADF;
    if (!len)
        return 0;
    if (!dir_lock(&r->rmu, nb))
        return -EAGAIN;
    pd_prepare(&r->pd, 'r');
    for (;;) {
        bool eof;

        if (file_closed(&e->f)) {
            n = -EBADF;
            break;
        }
        /* wclosed before the take: bytes written before the close are
           in the ring by then. */
        eof = LOAD(r->wclosed);
        if ((n = (long)ring_take(r, buf, len, peek)) || eof)
            break;
        if (nb) {
            n = -EAGAIN;
            break;
        }
        pd_wait(&r->pd, 'r');
    }
    sp_mutex_unlock(&r->rmu);
    if (n > 0 && !peek) {
        ring_ready(r, 'w');
        file_wake(r->wfile);
    }
    return n;
}

static long pend_read(struct file *f, void *buf, size_t len, bool nb)
{
    return pend_get(f, buf, len, nb, false);
}

static long pend_peek(struct file *f, void *buf, size_t len, bool nb)
{
    return pend_get(f, buf, len, nb, true);
}

static long pend_write(struct file *f, const void *buf, size_t len, bool nb)
{
    struct pend *e = (struct pend *)f;
    struct ring *r = e->out;
    const char *src = buf;
    size_t done = 0;
    long err = 0;

    if (!r)
        return -EBADF;
    if (!dir_lock(&r->wmu, nb))
        return -EAGAIN;
    pd_prepare(&r->pd, 'w');
    while (done < len) {
        size_t n = 0;

        if (file_closed(&e->f)) {
            err = -EBADF;
            break;
        }
        if (LOAD(r->rclosed)) {
            err = -EPIPE;
            break;
        }
        /* At most PIPE_BUF bytes go in whole or not at all. */
        if (len > PIPE_BUF || ring_room(r) >= len)
            n = ring_put(r, src + done, len - done);
        if (n) {
            done += n;
            ring_ready(r, 'r');
            file_wake(r->rfile);
            continue;
        }
        if (nb) {
            err = -EAGAIN;
            break;
        }
        pd_wait(&r->pd, 'w');
    }
    sp_mutex_unlock(&r->wmu);
    return done ? (long)done : err;
}

static unsigned pend_poll(struct file *f)
{
    struct pend *e = (struct pend *)f;
    unsigned m = 0;

    if (file_closed(&e->f))
        return POLLNVAL;
    if (e->in) {
        if (LOAD(e->in->tail) != LOAD(e->in->head))
            m |= POLLIN | POLLRDNORM;
        if (LOAD(e->in->wclosed))
            m |= e->out ? POLLIN | POLLRDNORM | POLLRDHUP : POLLHUP;
    }
    if (e->out) {
        if (LOAD(e->out->rclosed))
            m |= e->in ? POLLOUT | POLLWRNORM | POLLHUP : POLLERR;
        else if (ring_room(e->out) >= PIPE_BUF)
            m |= POLLOUT | POLLWRNORM;
    }
    if (e->in && e->out && LOAD(e->in->wclosed) && LOAD(e->out->rclosed))
        m |= POLLHUP;
    return m;
}

/* ---- Closing ------------------------------------------------------------ */

static void pend_close(struct file *f)
{
    struct pend *e = (struct pend *)f;

    if (e->in) {
        STORE(e->in->rclosed, true);
        ring_ready(e->in, 'r');             /* our reader: EBADF */
        ring_ready(e->in, 'w');             /* its writer: EPIPE */
        file_wake(e->in->wfile);
    }
    if (e->out) {
        STORE(e->out->wclosed, true);
        ring_ready(e->out, 'w');            /* our writer: EBADF */
        ring_ready(e->out, 'r');            /* its reader: end of file */
        file_wake(e->out->rfile);
    }
}

static void pend_free(struct file *f)
{
    struct pipeobj *o = ((struct pend *)f)->obj;

    if (__atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL))
        return;
    for (int i = 0; i < o->nrings; i++) {
        pd_fini(&o->ring[i].pd);
        free(o->ring[i].buf);
    }
    free(o);
}

static const struct fileops pipe_ops = {
    .type = S_IFIFO, .read = pend_read, .write = pend_write,
    .poll = pend_poll, .close = pend_close, .free = pend_free,
};

static const struct fileops pair_ops = {
    .type = S_IFSOCK, .read = pend_read, .write = pend_write, .peek = pend_peek,
    .poll = pend_poll, .close = pend_close, .free = pend_free,
};

/* ---- Making them ------------------------------------------------------ */

/* Two ends over nrings rings (1: a pipe, 2: a socket pair), installed
   as fds[0] and fds[1].  0 or -errno. */
static int make_pair(int nrings, int fds[2], bool nonblock, bool cloexec)
{
    struct pipeobj *o = calloc(1, sizeof *o);
    int fd0, fd1;

    if (!o)
        return -ENOMEM;
    o->nrings = nrings;
    o->refs = 2;
    for (int i = 0; i < nrings; i++) {
        if (!(o->ring[i].buf = malloc(RING_SIZE))) {
            while (i--)
                free(o->ring[i].buf);
            free(o);
            return -ENOMEM;
        }
        pd_init(&o->ring[i].pd);
    }
    for (int i = 0; i < 2; i++) {
        struct pend *e = &o->end[i];

        file_init(&e->f, nrings == 1 ? &pipe_ops : &pair_ops);
        e->obj = o;
        if (nrings == 1) {
            e->in = i == 0 ? &o->ring[0] : NULL;
            e->out = i == 1 ? &o->ring[0] : NULL;
            e->f.flags = i == 0 ? O_RDONLY : O_WRONLY;
        } else {
            e->in = &o->ring[i];
            e->out = &o->ring[1 - i];
        }
        if (nonblock)
            e->f.flags |= O_NONBLOCK;
        if (e->in)
            e->in->rfile = &e->f;
        if (e->out)
            e->out->wfile = &e->f;
    }
    if ((fd0 = fd_install(&o->end[0].f, 0, cloexec)) < 0) {
        file_put(&o->end[1].f);
        file_put(&o->end[0].f);
        return fd0;
    }
    if ((fd1 = fd_install(&o->end[1].f, 0, cloexec)) < 0) {
        file_put(&o->end[1].f);
        fd_close(fd0);
        return fd1;
    }
    fds[0] = fd0;
    fds[1] = fd1;
    return 0;
}

static int result(int r)
{
    if (r < 0) {
        errno = -r;
        return -1;
    }
    return r;
}

int pipe2(int fds[2], int flags)
{
    if (flags & ~(O_NONBLOCK | O_CLOEXEC))
        return result(-EINVAL);
    return result(make_pair(1, fds, flags & O_NONBLOCK, flags & O_CLOEXEC));
}

int pipe(int fds[2])
{
    return pipe2(fds, 0);
}

int socketpair(int domain, int type, int protocol, int sv[2])
{
    int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (domain != AF_UNIX)
        return result(-EAFNOSUPPORT);
    if (kind != SOCK_STREAM || protocol != 0)
        return result(-EOPNOTSUPP);
    return result(make_pair(2, sv, type & SOCK_NONBLOCK,
                            type & SOCK_CLOEXEC));
}
