/*
 * eventfd.c - eventfd (sys/eventfd.h): a 64-bit counter as a file
 * (fd.h).
 *
 * The counter changes by compare-and-swap, so a read and a write never
 * wait for each other; readers are one G at a time (rmu) and so are
 * writers (wmu), because each direction has one waiting slot in the
 * polldesc (sched/polldesc.h: prepare, try, wait).  A write that added
 * readies 'r' and tells the watchers; a read that took readies 'w' and
 * tells them.  Closing the last descriptor readies both, and the Gs
 * parked there fail with EBADF.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <spindle/sync.h>
#include "posix/fd.h"
#include "sched/polldesc.h"
#include "sched/sched.h"

#define EFD_MAX 0xfffffffffffffffeULL   /* the counter's largest value */

struct efd {
    struct file f;              /* first: an eventfd is a file */
    uint64_t count;             /* atomic */
    bool semaphore;             /* EFD_SEMAPHORE; fixed */
    sp_mutex rmu, wmu;          /* one reader, one writer at a time */
    struct polldesc pd;
};

static void efd_ready(struct efd *e, int mode)
{
    struct g *gp = pd_ready(&e->pd, mode);

    if (gp)
        goready(gp);
}

static long efd_read(struct file *f, void *buf, size_t len, bool nb)
{
    struct efd *e = (struct efd *)f;
    uint64_t c, take = 0;
    long r = 0;

    if (len < sizeof c)
        return -EINVAL;
    if (!dir_lock(&e->rmu, nb))
        return -EAGAIN;
    pd_prepare(&e->pd, 'r');
    for (;;) {
        if (file_closed(&e->f)) {
            r = -EBADF;
            break;
        }
        c = __atomic_load_n(&e->count, __ATOMIC_ACQUIRE);
        if (c) {
            take = e->semaphore ? 1 : c;
            if (__atomic_compare_exchange_n(&e->count, &c, c - take, false,
                                            __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                break;
            continue;
        }
        if (nb) {
            r = -EAGAIN;
            break;
        }
        pd_wait(&e->pd, 'r');
    }
    sp_mutex_unlock(&e->rmu);
    if (r)
        return r;
    memcpy(buf, &take, sizeof take);
    efd_ready(e, 'w');
    file_wake(f);
    return sizeof take;
}

static long efd_write(struct file *f, const void *buf, size_t len, bool nb)
{
    struct efd *e = (struct efd *)f;
    uint64_t c, add;
    long r = 0;

    if (len < sizeof add)
        return -EINVAL;
    memcpy(&add, buf, sizeof add);
    if (add > EFD_MAX)
        return -EINVAL;
    if (!dir_lock(&e->wmu, nb))
        return -EAGAIN;
    pd_prepare(&e->pd, 'w');
    for (;;) {
        if (file_closed(&e->f)) {
            r = -EBADF;
            break;
        }
        c = __atomic_load_n(&e->count, __ATOMIC_ACQUIRE);
        if (add <= EFD_MAX - c) {
            if (__atomic_compare_exchange_n(&e->count, &c, c + add, false,
                                            __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                break;
            continue;
        }
        if (nb) {
            r = -EAGAIN;
            break;
        }
        pd_wait(&e->pd, 'w');
    }
    sp_mutex_unlock(&e->wmu);
    if (r)
        return r;
    if (add) {
        efd_ready(e, 'r');
        file_wake(f);
    }
    return sizeof add;
}

static unsigned efd_poll(struct file *f)
{
    struct efd *e = (struct efd *)f;
    uint64_t c = __atomic_load_n(&e->count, __ATOMIC_ACQUIRE);
    unsigned m = 0;

    if (file_closed(&e->f))
        return POLLNVAL;
    if (c)
        m |= POLLIN | POLLRDNORM;
    if (c < EFD_MAX)
        m |= POLLOUT | POLLWRNORM;
    return m;
}

static void efd_close(struct file *f)
{
    struct efd *e = (struct efd *)f;

    efd_ready(e, 'r');
    efd_ready(e, 'w');
}

static void efd_free(struct file *f)
{
    struct efd *e = (struct efd *)f;

    pd_fini(&e->pd);
    free(e);
}

static const struct fileops efd_ops = {
    .type = 0, .read = efd_read, .write = efd_write,
    .poll = efd_poll, .close = efd_close, .free = efd_free,
};

int eventfd(unsigned int initval, int flags)
{
    struct efd *e;
    int fd;

    if (flags & ~(EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK)) {
        errno = EINVAL;
        return -1;
    }
    if (!(e = calloc(1, sizeof *e))) {
        errno = ENOMEM;
        return -1;
    }
    file_init(&e->f, &efd_ops);
    e->f.flags |= flags & EFD_NONBLOCK;
    e->count = initval;
    e->semaphore = flags & EFD_SEMAPHORE;
    pd_init(&e->pd);
    if ((fd = fd_install(&e->f, 0, flags & EFD_CLOEXEC)) < 0) {
        file_put(&e->f);
        errno = -fd;
        return -1;
    }
    return fd;
}

int eventfd_read(int fd, eventfd_t *value)
{
    return read(fd, value, sizeof *value) == sizeof *value ? 0 : -1;
}

int eventfd_write(int fd, eventfd_t value)
{
    return write(fd, &value, sizeof value) == sizeof value ? 0 : -1;
}
