/*
 * fd.h - the descriptor table (fd.c) and what lies behind a descriptor:
 * a struct file, one kind per implementation (the console, a socket, a
 * pipe end, an eventfd, an epoll instance, a file or folder of the file
 * system, a device of /dev), reached through its fileops.  posix/'s files share it; newlib's system calls go through it.
 *
 * References.  A file counts its references in `refs` (under fd.c's
 * table lock): one for all the descriptors that name it, one for every
 * call in progress and every other holder (an epoll item does not hold
 * one: the file leaves its epolls when its last descriptor goes).  The
 * last descriptor's close calls ops->close, which wakes the calls blocked
 * on the file and stops it from being used; the last reference calls
 * ops->free.  So a call that got its file from fd_get may use it until
 * file_put, whatever close does meanwhile.
 *
 * Readiness.  A file reports that what it is ready for may have changed
 * with file_notify: every watch registered on it (a poll() in progress,
 * an epoll item) is told, under the file's watch lock, and hands back
 * the Gs to make runnable.  The watch then asks ops->poll what is ready:
 * the notification carries no bits, so a watch can never miss a change
 * that happened between a look and its registration (register, then
 * look).
 *
 * Lock order: a network stack's lock, then a file's wlock, then an epoll
 * instance's lock, then the table's lock (a leaf).  ops->poll may take a
 * stack's lock: never call it under a wlock or an epoll's lock.
 */
#ifndef POSIX_FD_H
#define POSIX_FD_H

#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <spindle/sync.h>
#include "kernel/spinlock.h"

#define NFD 1024                /* descriptors, the console's included */

struct file;
struct g;

struct fileops {
    mode_t type;                /* S_IFSOCK, S_IFIFO, S_IFCHR, S_IFREG,
                                   S_IFDIR: fstat's */
    bool tty;                   /* a terminal (isatty): the console */
    /* A read or write of the file: a count, or -errno.  nonblock: the
       call must not wait (O_NONBLOCK, MSG_DONTWAIT): -EAGAIN instead.
       NULL: EINVAL. */
    long (*read)(struct file *f, void *buf, size_t len, bool nonblock);
    long (*write)(struct file *f, const void *buf, size_t len,
                  bool nonblock);
    /* read that leaves the bytes to the next read (recv's MSG_PEEK);
       NULL: EOPNOTSUPP. */
    long (*peek)(struct file *f, void *buf, size_t len, bool nonblock);
    /* What the file is ready for now: POLLIN, POLLOUT, POLLERR, POLLHUP,
       POLLRDHUP (and the RDNORM/WRNORM twins).  A G holding no
       spinlock. */
    unsigned (*poll)(struct file *f);
    /* The last descriptor is gone (file_closed(f) is true already):
       wake every call blocked on f, which fail with EBADF.  A G. */
    void (*close)(struct file *f);
    /* The last reference is gone: free f.  A G holding no spinlock. */
    void (*free)(struct file *f);

    /* The calls of a file with offsets (the file system's and /dev's);
       each NULL for the others.  A G. */
    /* pread, pwrite: at off, the file's offset untouched; NULL: ESPIPE. */
    long (*pread)(struct file *f, void *buf, size_t len, off_t off);
    long (*pwrite)(struct file *f, const void *buf, size_t len, off_t off);
    /* lseek: the new offset, or -errno; NULL: ESPIPE. */
    off_t (*seek)(struct file *f, off_t off, int whence);
    /* fstat beyond st_mode's type and st_blksize, which are set; NULL:
       nothing more (an anonymous file). */
    void (*stat)(struct file *f, struct stat *st);
    /* ftruncate: 0 or -errno; NULL: EINVAL. */
    int (*truncate)(struct file *f, off_t len);
    /* fsync and fdatasync: 0 or -errno; NULL: EINVAL (a pipe's, a
       socket's, as on Linux). */
    int (*sync)(struct file *f);
};

/*
 * A registration for f's readiness changes.  fn is called by
 * file_notify under f->wlock (and possibly a stack's lock): it must not
 * park or call ops->poll; it pushes the Gs to make runnable onto list
 * through g->schedlink and returns the new head.  gone, if not NULL, is
 * called (under f->wlock, after w was taken off the list) when f's last
 * descriptor closes: an epoll item's, which then leaves its epoll.
 */
struct watch {
    struct watch *next, *prev;  /* on the file's list; under its wlock */
    bool on;                    /* on the list; under its wlock */
    struct g *(*fn)(struct watch *w, struct g *list);
    void (*gone)(struct watch *w);
};

struct file {
    const struct fileops *ops;  /* fixed */
    int refs;                   /* under the table's lock */
    int ndesc;                  /* descriptors naming f; the table's lock */
    int flags;                  /* the access mode (O_RDWR unless the
                                   file says), O_NONBLOCK and O_APPEND
                                   (F_SETFL); atomic */
    struct spinlock wlock;      /* guards watchers and closed */
    struct watch *watchers;
    bool closed;                /* its last descriptor closed: no new
                                   watch, and every call fails; set
                                   under wlock before ops->close;
                                   file_closed() reads it */
};

/* The console's file, which /dev/console opens: never freed. */
struct file *console_file(void);

/* Fills in a new file with one reference, the caller's; O_RDWR. */
void file_init(struct file *f, const struct fileops *ops);

/*
 * Gives f the lowest free descriptor not below min; the descriptor takes
 * over the caller's reference.  Returns it, or -EMFILE (the caller still
 * holds its reference).  cloexec: FD_CLOEXEC on the new descriptor.
 */
int fd_install(struct file *f, int min, bool cloexec);

/* The file behind fd, with a reference for the caller; NULL if fd is
   not open. */
struct file *fd_get(int fd);

/* Another reference; the caller holds one. */
void file_hold(struct file *f);

/* Drops a reference; the last one frees f (ops->free). */
void file_put(struct file *f);

/* Closes fd: 0, or -EBADF.  The last descriptor of its file closes it
   (ops->close), calls its watches' gone and wakes the others. */
int fd_close(int fd);

/* dup2's core: newfd names oldfd's file (closing what it named first).
   newfd < 0: the lowest free one from 0.  Returns it or -errno. */
int fd_dup(int oldfd, int newfd, int min, bool cloexec);

/* FD_CLOEXEC of fd (F_GETFD/F_SETFD): the flags, or -EBADF. */
int fd_getfd(int fd);
int fd_setfd(int fd, int flags);

/* True once f's last descriptor has closed (a call then fails with
   EBADF).  Anywhere. */
static inline bool file_closed(struct file *f)
{
    return __atomic_load_n(&f->closed, __ATOMIC_SEQ_CST);
}

/* True if the call on f must not wait: O_NONBLOCK, or dontwait. */
static inline bool file_nonblock(struct file *f, bool dontwait)
{
    return dontwait ||
        (__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NONBLOCK);
}

/* Takes the mutex that makes a file's readers (or writers) one G at a
   time; a call that must not wait (nb) does not wait for it either:
   false if another G holds it. */
static inline bool dir_lock(sp_mutex *m, bool nb)
{
    if (nb)
        return sp_mutex_trylock(m);
    sp_mutex_lock(m);
    return true;
}

/* Registers w on f: false (and nothing done) if f's last descriptor has
   closed.  A G holding no spinlock. */
bool file_watch(struct file *f, struct watch *w);

/* Takes w off f, if it is still on (fd_close may have taken it off and
   called its gone).  A G holding no spinlock; f must be alive (a
   reference, or a guarantee of the watch's owner). */
void file_unwatch(struct file *f, struct watch *w);

/*
 * f's readiness may have changed: every watch is told; the Gs they hand
 * back are pushed onto list, returned.  Anywhere (under a stack's lock
 * too); call it after the change is visible to ops->poll.
 */
struct g *file_notify(struct file *f, struct g *list);

/* file_notify, and makes the Gs runnable: a G holding no spinlock. */
void file_wake(struct file *f);

/* Makes a list of file_notify's Gs runnable; a G holding no spinlock. */
void file_ready_list(struct g *list);

#endif
