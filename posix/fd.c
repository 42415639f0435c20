/*
 * fd.c - the descriptor table, the references of the files behind it,
 * their watch lists, and the console's descriptors 0-2.  fd.h states the
 * rules; this file keeps them.
 *
 * The table is NFD entries under fd_lock, a leaf spinlock: a look-up, an
 * install or a close holds it for a few stores.  A descriptor takes the
 * lowest free number (POSIX).  FD_CLOEXEC is kept per descriptor and
 * means nothing more: there is no exec.
 *
 * The console's three descriptors are files like the others (so that
 * dup2 can put a socket on 1, or the console on 5); they are never
 * freed, and a close of one only frees the number.
 */
#include <errno.h>
#include <poll.h>
#include <sys/stat.h>
#include "kernel/printk.h"
#include "posix/fd.h"
#include "sched/sched.h"

/* ---- The console ------------------------------------------------------ */

static long console_read(struct file *f, void *buf, size_t len, bool nb)
{
    return 0;                   /* no input yet: end of file */
}

static long console_wr(struct file *f, const void *buf, size_t len, bool nb)
{
    console_write(buf, len);
    return (long)len;
}

static unsigned console_poll(struct file *f)
{
    return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
}

static void console_nop(struct file *f)
{
}

static const struct fileops console_ops = {
    .type = S_IFCHR, .tty = true, .read = console_read, .write = console_wr,
    .poll = console_poll, .close = console_nop, .free = console_nop,
};

/* Never freed: its references start high enough that no put ends them. */
#define CONSOLE_FILE { .ops = &console_ops, .refs = 1 << 30, .ndesc = 1 << 30, \
                       .flags = O_RDWR, \
                       .wlock = SPINLOCK_INIT(LOCK_FILE_WATCH) }
static struct file console_in = CONSOLE_FILE, console_out = CONSOLE_FILE,
                   console_err = CONSOLE_FILE;

struct file *console_file(void)
{
    return &console_out;
}

static struct spinlock fd_lock = SPINLOCK_INIT(LOCK_FDS);
/* Under fd_lock; the console's entries are there before any code runs. */
static struct file *fdtab[NFD] = { &console_in, &console_out, &console_err };
static bool cloexec[NFD];

/* Takes w off f's list; under f->wlock. */
static void unlink_watch(struct file *f, struct watch *w)
{
    w->on = false;
    if (w->prev)
        w->prev->next = w->next;
    else
        f->watchers = w->next;
    if (w->next)
        w->next->prev = w->prev;
}

/* ---- References --------------------------------------------------------- */

void file_init(struct file *f, const struct fileops *ops)
{
    f->ops = ops;
    f->refs = 1;
    f->ndesc = 0;
    f->flags = O_RDWR;
    f->wlock = (struct spinlock)SPINLOCK_INIT(LOCK_FILE_WATCH);
    f->watchers = NULL;
    f->closed = false;
}

struct file *fd_get(int fd)
{
    struct file *f = NULL;
    unsigned long fl;

    if (fd < 0 || fd >= NFD)
        return NULL;
    fl = spin_lock(&fd_lock);
    if ((f = fdtab[fd]))
        f->refs++;
    spin_unlock(&fd_lock, fl);
    return f;
}

void file_hold(struct file *f)
{
    unsigned long fl = spin_lock(&fd_lock);

    f->refs++;
    spin_unlock(&fd_lock, fl);
}

void file_put(struct file *f)
{
    unsigned long fl = spin_lock(&fd_lock);
    bool last = --f->refs == 0;

    spin_unlock(&fd_lock, fl);
    if (last)
        f->ops->free(f);
}

/* ---- The table ---------------------------------------------------------- */

/* Puts f at the lowest free entry from min; under fd_lock.  The first
   descriptor of f takes over a reference the caller gives; later ones
   share it. */
static int install_locked(struct file *f, int min, bool cloexec_flag)
{
    for (int i = min; i < NFD; i++)
        if (!fdtab[i]) {
            fdtab[i] = f;
            cloexec[i] = cloexec_flag;
            return i;
        }
    return -EMFILE;
}

int fd_install(struct file *f, int min, bool cloexec_flag)
{
    unsigned long fl = spin_lock(&fd_lock);
    int fd = install_locked(f, min < 0 ? 0 : min, cloexec_flag);

    if (fd >= 0)
        f->ndesc++;
    spin_unlock(&fd_lock, fl);
    return fd;
}

/* The last descriptor of f went: mark it closed, close it, end its epoll items, wake its
   pollers (they find the descriptor gone), and drop the descriptors'
   reference. */
static void last_close(struct file *f)
{
    struct g *list = NULL;
    unsigned long fl;

    /* closed first: the kind's close and the calls it wakes read it. */
    fl = spin_lock(&f->wlock);
    __atomic_store_n(&f->closed, true, __ATOMIC_SEQ_CST);
    spin_unlock(&f->wlock, fl);
    f->ops->close(f);
    fl = spin_lock(&f->wlock);
    for (struct watch *w = f->watchers, *next; w; w = next) {
        next = w->next;
        if (w->gone) {
            unlink_watch(f, w);
            w->gone(w);
        } else {
            list = w->fn(w, list);
        }
    }
    spin_unlock(&f->wlock, fl);
    file_ready_list(list);
    file_put(f);
}

/* Takes fd's entry out of the table; its file if that was its last
   descriptor (the caller then runs last_close), else NULL.  *was: what
   fd named (NULL if nothing); under fd_lock. */
static struct file *remove_locked(int fd, struct file **was)
{
    struct file *f = fdtab[fd];

    *was = f;
    if (!f)
        return NULL;
    fdtab[fd] = NULL;
    cloexec[fd] = false;
    return --f->ndesc == 0 ? f : NULL;
}

int fd_close(int fd)
{
    struct file *f, *last;
    unsigned long fl;

    if (fd < 0 || fd >= NFD)
        return -EBADF;
    fl = spin_lock(&fd_lock);
    last = remove_locked(fd, &f);
    spin_unlock(&fd_lock, fl);
    if (!f)
        return -EBADF;
    if (last)
        last_close(last);
    return 0;
}

int fd_dup(int oldfd, int newfd, int min, bool cloexec_flag)
{
    struct file *f, *was = NULL, *last = NULL;
    unsigned long fl;
    int fd;

    if (oldfd < 0 || oldfd >= NFD || newfd >= NFD || min >= NFD)
        return -EBADF;
    fl = spin_lock(&fd_lock);
    if (!(f = fdtab[oldfd])) {
        spin_unlock(&fd_lock, fl);
        return -EBADF;
    }
    if (newfd == oldfd) {
        spin_unlock(&fd_lock, fl);
        return newfd;
    }
    if (newfd >= 0) {
        last = remove_locked(newfd, &was);
        fdtab[newfd] = f;
        cloexec[newfd] = cloexec_flag;
        fd = newfd;
    } else {
        fd = install_locked(f, min < 0 ? 0 : min, cloexec_flag);
    }
    if (fd >= 0)
        f->ndesc++;
    spin_unlock(&fd_lock, fl);
    if (last)
        last_close(last);
    return fd;
}

int fd_getfd(int fd)
{
    unsigned long fl;
    int r = -EBADF;

    if (fd < 0 || fd >= NFD)
        return r;
    fl = spin_lock(&fd_lock);
    if (fdtab[fd])
        r = cloexec[fd] ? FD_CLOEXEC : 0;
    spin_unlock(&fd_lock, fl);
    return r;
}

int fd_setfd(int fd, int flags)
{
    unsigned long fl;
    int r = -EBADF;

    if (fd < 0 || fd >= NFD)
        return r;
    fl = spin_lock(&fd_lock);
    if (fdtab[fd]) {
        cloexec[fd] = (flags & FD_CLOEXEC) != 0;
        r = 0;
    }
    spin_unlock(&fd_lock, fl);
    return r;
}

/* ---- Watches ------------------------------------------------------------ */

bool file_watch(struct file *f, struct watch *w)
{
    unsigned long fl = spin_lock(&f->wlock);

    if (f->closed) {
        spin_unlock(&f->wlock, fl);
        return false;
    }
    w->on = true;
    w->prev = NULL;
    w->next = f->watchers;
    if (f->watchers)
        f->watchers->prev = w;
    f->watchers = w;
    spin_unlock(&f->wlock, fl);
    /* Pairs with file_notify's: either the owner's look at the file after
       this sees the change, or the notifier sees w. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return true;
}

void file_unwatch(struct file *f, struct watch *w)
{
    unsigned long fl = spin_lock(&f->wlock);

    if (w->on)
        unlink_watch(f, w);
    spin_unlock(&f->wlock, fl);
}

struct g *file_notify(struct file *f, struct g *list)
{
    unsigned long fl;

    /* The change was stored before this call; the fence pairs with
       file_watch's (store, fence, load on both sides), so a watch that
       was registered too late to be seen here looks after the change. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&f->watchers, __ATOMIC_RELAXED))
        return list;
    fl = spin_lock(&f->wlock);
    for (struct watch *w = f->watchers; w; w = w->next)
        list = w->fn(w, list);
    spin_unlock(&f->wlock, fl);
    return list;
}

void file_ready_list(struct g *list)
{
    while (list) {
        struct g *gp = list;

        list = gp->schedlink;
        goready(gp);
    }
}

void file_wake(struct file *f)
{
    file_ready_list(file_notify(f, NULL));
}
