/*
 * poll.c - poll, ppoll, select and pselect on any descriptor (fd.h).
 *
 * A call looks at each descriptor's file (ops->poll) and returns if
 * something is ready or it may not wait.  Otherwise it registers a watch
 * on each file, all readying one polldesc of its own (which also carries
 * the timeout as its read deadline), looks again, and parks in pd_wait
 * until a watched file reports a change or the deadline passes, then
 * looks again.  Register, look, wait: a change either comes after the
 * look (and readies the polldesc, which pd_wait then finds) or before
 * it (and the look sees it).  Only the files a G polls wake it.
 *
 * A descriptor closed while it is polled: the caller holds a reference
 * to its file, which reports POLLNVAL once closed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <spindle/time.h>
#include "posix/fd.h"
#include "sched/polldesc.h"
#include "sched/sched.h"

/* One polled descriptor: its file (a reference) and the watch on it. */
struct pentry {
    struct file *f;             /* NULL: fd < 0 or not open */
    struct watch w;
    struct polldesc *pd;        /* the poller's */
};

/* A watched file changed: wake the poller.  Under the file's wlock. */
static struct g *pentry_fn(struct watch *w, struct g *list)
{
    struct pentry *e = (struct pentry *)((char *)w - offsetof(struct pentry, w));

    return pd_ready_push(e->pd, 'r', list);
}

/* Looks at every descriptor; the number with something to report. */
static int scan(struct pollfd *fds, struct pentry *pe, nfds_t nfds)
{
    int n = 0;

    for (nfds_t i = 0; i < nfds; i++) {
        unsigned r = 0;

        if (fds[i].fd >= 0)
            r = pe[i].f ? pe[i].f->ops->poll(pe[i].f) : POLLNVAL;
        fds[i].revents = (short)(r & ((unsigned short)fds[i].events |
                                      POLLERR | POLLHUP | POLLNVAL));
        n += fds[i].revents != 0;
    }
    return n;
}

/* poll with a deadline: an sp_nanotime() value, 0 for none, -1 for "do
   not wait".  The count, or -errno. */
static int do_poll(struct pollfd *fds, nfds_t nfds, int64_t deadline)
{
    struct pentry small[8], *pe = small;
    struct polldesc pd;
    int n;

    if (nfds > NFD)
        return -EINVAL;
    if (nfds > sizeof small / sizeof small[0] &&
        !(pe = calloc(nfds, sizeof *pe)))
        return -ENOMEM;
    for (nfds_t i = 0; i < nfds; i++)
        pe[i].f = fds[i].fd >= 0 ? fd_get(fds[i].fd) : NULL;
    if ((n = scan(fds, pe, nfds)) || deadline < 0)
        goto out;
    pd_init(&pd);
    if (deadline > 0)
        pd_set_deadline(&pd, deadline, 'r');
    for (nfds_t i = 0; i < nfds; i++)
        if (pe[i].f) {
            pe[i].pd = &pd;
            pe[i].w.fn = pentry_fn;
            pe[i].w.gone = NULL;
            file_watch(pe[i].f, &pe[i].w);     /* false: closed, and
                                                  its poll says so */
        }
    /* Watched: from here on every change readies pd, and the wait below
       finds it.  PD_ETIMEOUT: the deadline passed. */
    if (pd_prepare(&pd, 'r') == PD_OK)
        while (!(n = scan(fds, pe, nfds)) && pd_wait(&pd, 'r') == PD_OK)
            ;
    if (!n)
        n = scan(fds, pe, nfds);
    for (nfds_t i = 0; i < nfds; i++)
        if (pe[i].f)
            file_unwatch(pe[i].f, &pe[i].w);
    pd_fini(&pd);
out:
    for (nfds_t i = 0; i < nfds; i++)
        if (pe[i].f)
            file_put(pe[i].f);
    if (pe != small)
        free(pe);
    return n;
}

/* A relative timeout in ns (negative: none) as do_poll's deadline. */
static int64_t deadline_in(int64_t ns)
{
    if (ns < 0)
        return 0;
    if (ns == 0)
        return -1;
    return (int64_t)sp_nanotime() + ns;
}

static int result(int n)
{
    if (n < 0) {
        errno = -n;
        return -1;
    }
    return n;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    return result(do_poll(fds, nfds, deadline_in(
        timeout < 0 ? -1 : (int64_t)timeout * 1000000)));
}

int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *ts,
          const sigset_t *mask)
{
    if (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000))
        return result(-EINVAL);
    return result(do_poll(fds, nfds, deadline_in(
        ts ? ts->tv_sec * 1000000000LL + ts->tv_nsec : -1)));
}

/* select's sets as pollfds, polled, and back; ns as deadline_in's. */
static int do_select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
                     int64_t ns)
{
    struct pollfd *fds;
    int n = 0, k = 0;

    if (nfds < 0 || nfds > FD_SETSIZE)
        return -EINVAL;
    if (!(fds = malloc((nfds ? nfds : 1) * sizeof *fds)))
        return -ENOMEM;
    for (int fd = 0; fd < nfds; fd++) {
        short ev = (rd && FD_ISSET(fd, rd) ? POLLIN : 0) |
                   (wr && FD_ISSET(fd, wr) ? POLLOUT : 0) |
                   (ex && FD_ISSET(fd, ex) ? POLLPRI : 0);

        if (ev)
            fds[k++] = (struct pollfd){ fd, ev, 0 };
    }
    n = do_poll(fds, k, deadline_in(ns));
    if (n >= 0) {
        for (int i = 0; i < k; i++)
            if (fds[i].revents & POLLNVAL)
                n = -EBADF;
    }
    if (n >= 0) {
        n = 0;
        if (rd)
            FD_ZERO(rd);
        if (wr)
            FD_ZERO(wr);
        if (ex)
            FD_ZERO(ex);
        for (int i = 0; i < k; i++) {
            short r = fds[i].revents, ev = fds[i].events;

            if ((ev & POLLIN) && (r & (POLLIN | POLLHUP | POLLERR))) {
                FD_SET(fds[i].fd, rd);
                n++;
            }
            if ((ev & POLLOUT) && (r & (POLLOUT | POLLERR))) {
                FD_SET(fds[i].fd, wr);
                n++;
            }
            if ((ev & POLLPRI) && (r & POLLPRI)) {
                FD_SET(fds[i].fd, ex);
                n++;
            }
        }
    }
    free(fds);
    return n;
}

int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
    if (tv && (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000))
        return result(-EINVAL);
    return result(do_select(nfds, rd, wr, ex,
                            tv ? tv->tv_sec * 1000000000LL +
                                 tv->tv_usec * 1000LL : -1));
}

int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
            const struct timespec *ts, const sigset_t *mask)
{
    if (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000))
        return result(-EINVAL);
    return result(do_select(nfds, rd, wr, ex,
                            ts ? ts->tv_sec * 1000000000LL + ts->tv_nsec
                               : -1));
}
