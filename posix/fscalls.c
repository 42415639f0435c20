/*
 * fscalls.c - the calls that name files by path, on the RAM file system
 * (fsimpl.h): open and openat, stat, lstat and fstatat, access, mkdir,
 * rmdir, unlink, link, rename, symlink, readlink, truncate, chmod,
 * chown, utimes and utimensat, chdir, fchdir, getcwd, realpath (umask
 * is proc.c's);
 * and mknod and mkfifo, which fail (EPERM: no device numbers to make;
 * EOPNOTSUPP: no named pipes).
 *
 * Each call holds fs_ns from its lookup to its change: it is atomic with
 * respect to every other path call.  There is one user, root, so
 * permissions are kept and reported but never refuse a call (access's
 * X_OK asks for an execute bit, as root's does); chown has nothing to
 * change.  A relative path starts at the current folder, which is shared
 * by every G (one process).
 *
 * Every call sets the calling G's errno and returns -1 on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include "posix/fsimpl.h"

#undef errno
extern int errno;

/* The calling G's errno = e, and the global one (newlib's _r wrappers
   copy it); -1. */
static int fail(int e)
{
    errno = *__errno() = e;
    return -1;
}

/* r as a call's result: r >= 0, or -1 and errno = -r. */
static int result(int r)
{
    return r < 0 ? fail(-r) : r;
}

static bool is_dots(const char *name, size_t len)
{
    return (len == 1 && name[0] == '.') ||
           (len == 2 && name[0] == '.' && name[1] == '.');
}

/*
 * The folder a relative path of an *at call starts from: 0 and *at, or
 * -errno.  *hold is a reference to dirfd's file (keeping its node alive),
 * for the caller to put after dropping fs_ns; NULL for AT_FDCWD and an
 * absolute path.
 */
static int start_dir(int dirfd, const char *path, struct fsnode **at,
                     struct file **hold)
{
    struct fsnode *n;

    *hold = NULL;
    *at = fs_cwd;
    if (!path)
        return -EFAULT;
    if (*path == '/' || dirfd == AT_FDCWD)
        return 0;
    if (!(*hold = fd_get(dirfd)))
        return -EBADF;
    n = fs_file_node(*hold);
    if (!n || !S_ISDIR(n->mode))
        return -ENOTDIR;
    *at = n;
    return 0;
}

static void end_call(struct file *hold)
{
    sp_mutex_unlock(&fs_ns);
    if (hold)
        file_put(hold);
}

/* Takes fs_ns (the caller's end_call drops it, whatever the result) and
   finds the node path names from dirfd (follow: a last symbolic link
   followed): 0 and *n, or -errno. */
static int begin_lookup(int dirfd, const char *path, bool follow,
                        struct file **hold, struct fsnode **n)
{
    struct fsnode *at;
    int e;

    sp_mutex_lock(&fs_ns);
    if ((e = start_dir(dirfd, path, &at, hold)))
        return e;
    return fs_lookup(at, path, strlen(path), follow, n);
}

/* ---- open ---------------------------------------------------------------- */

/* The node path names for open, made if O_CREAT asks: 0 and *out, or
   -errno.  fs_ns held. */
static int open_node(struct fsnode *at, const char *path, int flags,
                     mode_t mode, struct fsnode **out)
{
    struct fsnode *dir, *n;
    struct fsdent *d;
    const char *name;
    size_t len;
    bool slash;
    int e;

    if (!(flags & O_CREAT))
        return fs_lookup(at, path, strlen(path), !(flags & O_NOFOLLOW), out);
    if ((e = fs_lookup_parent(at, path, &dir, &name, &len, &slash)))
        return e;
    if (len == 0 || is_dots(name, len) || slash)
        return (flags & O_EXCL) ? -EEXIST : -EISDIR;
    if ((d = fs_dir_find(dir, name, len))) {
        if (flags & O_EXCL)
            return -EEXIST;
        if (S_ISLNK(d->node->mode) && !(flags & O_NOFOLLOW))
            return fs_lookup(dir, name, len, true, out);
        *out = d->node;
        return 0;
    }
    if (dir->nlink == 0)
        return -ENOENT;         /* a removed folder */
    if (!(n = fs_node_new(S_IFREG | (mode & 07777 & ~proc_umask()))))
        return -ENOSPC;
    if ((e = fs_dir_add(dir, name, len, n))) {
        fs_node_release(n);
        return e;
    }
    *out = n;
    return 0;
}

/* openat's core: a file with one reference, or NULL and -errno in *err. */
static struct file *open_file(struct fsnode *at, const char *path, int flags,
                              mode_t mode, int *err)
{
    int acc = flags & O_ACCMODE, e;
    struct fsnode *n;
    struct file *f;

    if ((e = open_node(at, path, flags, mode, &n)))
        goto fail;
    e = -ELOOP;
    if (S_ISLNK(n->mode))
        goto fail;              /* O_NOFOLLOW on a link */
    e = -ENOTDIR;
    if ((flags & O_DIRECTORY) && !S_ISDIR(n->mode))
        goto fail;
    e = -EISDIR;
    if (S_ISDIR(n->mode) && (acc != O_RDONLY || (flags & (O_TRUNC | O_CREAT))))
        goto fail;
    if (S_ISCHR(n->mode)) {
        if (!(f = fs_dev_open(n->dev, flags, &e)))
            goto fail;
        return f;
    }
    if ((flags & O_TRUNC) && S_ISREG(n->mode) && acc != O_RDONLY &&
        (e = fs_truncate(n, 0)))
        goto fail;
    if (!(f = fs_file_open(n, flags, &e)))
        goto fail;
    n->opens++;
    return f;
fail:
    *err = e;
    return NULL;
}

int openat(int dirfd, const char *path, int flags, ...)
{
    struct fsnode *at;
    struct file *hold, *f = NULL;
    mode_t mode = 0;
    int e, fd;

    if (flags & O_CREAT) {
        va_list ap;

        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if ((flags & O_ACCMODE) == O_ACCMODE)
        return fail(EINVAL);
    sp_mutex_lock(&fs_ns);
    if (!(e = start_dir(dirfd, path, &at, &hold)))
        f = open_file(at, path, flags, mode, &e);
    end_call(hold);
    if (!f)
        return fail(-e);
    if ((fd = fd_install(f, 0, flags & O_CLOEXEC)) < 0) {
        file_put(f);
        return fail(-fd);
    }
    return fd;
}

int _open(const char *path, int flags, int mode)
{
    return openat(AT_FDCWD, path, flags, mode);
}

int creat(const char *path, mode_t mode)
{
    return openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

/* ---- stat, access ------------------------------------------------------ */

int fstatat(int dirfd, const char *restrict path, struct stat *restrict st,
            int flags)
{
    struct fsnode *n;
    struct file *hold;
    int e;

    if (flags & ~AT_SYMLINK_NOFOLLOW)
        return fail(EINVAL);
    if (!(e = begin_lookup(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW),
                               &hold, &n)))
        fs_stat_node(n, st);
    end_call(hold);
    return result(e);
}

int _stat(const char *path, struct stat *st)
{
    return fstatat(AT_FDCWD, path, st, 0);
}

int lstat(const char *restrict path, struct stat *restrict st)
{
    return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
    struct fsnode *n;
    struct file *hold;
    int e;

    if ((mode & ~(R_OK | W_OK | X_OK)) ||
        (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW)))
        return fail(EINVAL);
    if (!(e = begin_lookup(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW),
                               &hold, &n)) &&
        (mode & X_OK) && !S_ISDIR(n->mode) && !(n->mode & 0111))
        e = -EACCES;
    end_call(hold);
    return result(e);
}

int access(const char *path, int mode)
{
    return faccessat(AT_FDCWD, path, mode, 0);
}

/* ---- Making and removing names ------------------------------------------ */

/* A path's folder and last component (fs_lookup_parent's). */
struct last {
    struct fsnode *dir;
    const char *name;
    size_t len;
    bool slash;
};

/* Takes fs_ns (the caller's end_call drops it, whatever the result) and
   resolves path from dirfd into *l: 0 or -errno. */
static int begin_parent(int dirfd, const char *path, struct file **hold,
                        struct last *l)
{
    struct fsnode *at;
    int e;

    sp_mutex_lock(&fs_ns);
    if ((e = start_dir(dirfd, path, &at, hold)))
        return e;
    return fs_lookup_parent(at, path, &l->dir, &l->name, &l->len, &l->slash);
}

/* Makes a node of mode (a folder, or a link to target) at path. */
static int make_at(int dirfd, const char *path, mode_t mode,
                   const char *target)
{
    struct file *hold;
    struct fsnode *n;
    struct last l;
    int e;

    if ((e = begin_parent(dirfd, path, &hold, &l)))
        goto out;
    e = -EEXIST;
    if (l.len == 0 || is_dots(l.name, l.len) ||
        fs_dir_find(l.dir, l.name, l.len))
        goto out;
    e = -ENOENT;
    if (l.dir->nlink == 0 || (l.slash && !S_ISDIR(mode)))
        goto out;
    e = -ENOSPC;
    if (!(n = fs_node_new(mode)))
        goto out;
    if (target && !(n->target = fs_strdup(target, strlen(target)))) {
        fs_node_release(n);
        goto out;
    }
    if ((e = fs_dir_add(l.dir, l.name, l.len, n)))
        fs_node_release(n);
out:
    end_call(hold);
    return result(e);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
    return make_at(dirfd, path, S_IFDIR | (mode & 07777 & ~proc_umask()),
                   NULL);
}

int mkdir(const char *path, mode_t mode)
{
    return mkdirat(AT_FDCWD, path, mode);
}

int _mkdir(const char *path, mode_t mode)
{
    return mkdirat(AT_FDCWD, path, mode);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
    if (!target)
        return fail(EFAULT);
    if (!*target)
        return fail(ENOENT);
    if (strlen(target) >= PATH_MAX)
        return fail(ENAMETOOLONG);
    return make_at(dirfd, path, S_IFLNK | 0777, target);
}

int symlink(const char *target, const char *path)
{
    return symlinkat(target, AT_FDCWD, path);
}

/* Removes path's name: a folder (rmdir) or anything else (unlink). */
static int remove_at(int dirfd, const char *path, bool rmdir)
{
    struct file *hold;
    struct fsnode *n;
    struct fsdent *d;
    struct last l;
    int e;

    if ((e = begin_parent(dirfd, path, &hold, &l)))
        goto out;
    if (l.len == 0) {
        e = rmdir ? -EBUSY : -EISDIR;
        goto out;
    }
    if (is_dots(l.name, l.len)) {
        e = !rmdir ? -EISDIR : l.len == 1 ? -EINVAL : -ENOTEMPTY;
        goto out;
    }
    if (!(d = fs_dir_find(l.dir, l.name, l.len))) {
        e = -ENOENT;
        goto out;
    }
    n = d->node;
    if (rmdir && !S_ISDIR(n->mode))
        e = -ENOTDIR;
    else if (!rmdir && S_ISDIR(n->mode))
        e = -EISDIR;
    else if (!rmdir && l.slash)
        e = -ENOTDIR;
    else if (rmdir && n->dir.n)
        e = -ENOTEMPTY;
    else
        fs_dir_remove(l.dir, d);
out:
    end_call(hold);
    return result(e);
}

int unlinkat(int dirfd, const char *path, int flags)
{
    if (flags & ~AT_REMOVEDIR)
        return fail(EINVAL);
    return remove_at(dirfd, path, flags & AT_REMOVEDIR);
}

int _unlink(const char *path)
{
    return remove_at(AT_FDCWD, path, false);
}

int rmdir(const char *path)
{
    return remove_at(AT_FDCWD, path, true);
}

int _link(const char *old, const char *new)
{
    struct fsnode *n, *dir;
    const char *name;
    size_t len;
    bool slash;
    int e;

    if (!old || !new)
        return fail(EFAULT);
    sp_mutex_lock(&fs_ns);
    if ((e = fs_lookup(fs_cwd, old, strlen(old), false, &n)) ||
        (e = fs_lookup_parent(fs_cwd, new, &dir, &name, &len, &slash)))
        goto out;
    if (S_ISDIR(n->mode))
        e = -EPERM;
    else if (len == 0 || is_dots(name, len) || fs_dir_find(dir, name, len))
        e = -EEXIST;
    else if (dir->nlink == 0)
        e = -ENOENT;
    else
        e = fs_dir_add(dir, name, len, n);
out:
    sp_mutex_unlock(&fs_ns);
    return result(e);
}

int link(const char *old, const char *new)
{
    return _link(old, new);
}

/* ---- rename ------------------------------------------------------------ */

/* True if folder dir is n or lies under it. */
static bool is_under(struct fsnode *dir, struct fsnode *n)
{
    for (;;) {
        if (dir == n)
            return true;
        if (dir == fs_root || dir->nlink == 0)
            return false;
        dir = dir->dir.parent;
    }
}

/* Makes entry d of folder dir name n instead of what it named, in one
   step (rename's replacement of its target). */
static void dent_replace(struct fsnode *dir, struct fsdent *d,
                         struct fsnode *n)
{
    struct fsnode *old = d->node;

    d->node = n;
    n->nlink++;
    if (S_ISDIR(n->mode)) {
        n->nlink++;             /* its "." again; undone by the remove */
        n->dir.parent = dir;
        dir->nlink++;
    }
    old->nlink--;
    if (S_ISDIR(old->mode)) {
        old->nlink--;
        dir->nlink--;
    }
    dir->mtime = dir->ctime = n->ctime = fs_now();
    fs_node_release(old);
}

int renameat(int olddirfd, const char *old, int newdirfd, const char *new)
{
    struct fsnode *oat, *nat, *odir, *ndir, *n;
    struct file *ohold = NULL, *nhold = NULL;
    struct fsdent *od, *nd;
    const char *oname, *nname;
    size_t olen, nlen;
    bool oslash, nslash;
    int e;

    sp_mutex_lock(&fs_ns);
    if ((e = start_dir(olddirfd, old, &oat, &ohold)) ||
        (e = start_dir(newdirfd, new, &nat, &nhold)) ||
        (e = fs_lookup_parent(oat, old, &odir, &oname, &olen, &oslash)) ||
        (e = fs_lookup_parent(nat, new, &ndir, &nname, &nlen, &nslash)))
        goto out;
    e = -EBUSY;
    if (olen == 0 || nlen == 0)
        goto out;
    e = -EINVAL;
    if (is_dots(oname, olen) || is_dots(nname, nlen))
        goto out;
    e = -ENOENT;
    if (!(od = fs_dir_find(odir, oname, olen)) || ndir->nlink == 0)
        goto out;
    n = od->node;
    nd = fs_dir_find(ndir, nname, nlen);
    e = -ENOTDIR;
    if (!S_ISDIR(n->mode) && (oslash || nslash))
        goto out;
    e = 0;
    if (nd && nd->node == n)
        goto out;               /* two names of one file: nothing to do */
    if (S_ISDIR(n->mode)) {
        e = -EINVAL;
        if (is_under(ndir, n))
            goto out;           /* into itself */
        e = -ENOTDIR;
        if (nd && !S_ISDIR(nd->node->mode))
            goto out;
        e = -ENOTEMPTY;
        if (nd && nd->node->dir.n)
            goto out;
    } else if (nd && S_ISDIR(nd->node->mode)) {
        e = -EISDIR;
        goto out;
    }
    if (nd)
        dent_replace(ndir, nd, n);
    else if ((e = fs_dir_add(ndir, nname, nlen, n)))
        goto out;
    fs_dir_remove(odir, od);
    e = 0;
out:
    sp_mutex_unlock(&fs_ns);
    if (ohold)
        file_put(ohold);
    if (nhold)
        file_put(nhold);
    return result(e);
}

int _rename(const char *old, const char *new)
{
    return renameat(AT_FDCWD, old, AT_FDCWD, new);
}

int rename(const char *old, const char *new)
{
    return renameat(AT_FDCWD, old, AT_FDCWD, new);
}

/* ---- Links, sizes, modes, times ----------------------------------------- */

ssize_t readlinkat(int dirfd, const char *restrict path, char *restrict buf,
                   size_t n)
{
    struct fsnode *node;
    struct file *hold;
    int e;
    ssize_t r = 0;

    if (!(e = begin_lookup(dirfd, path, false, &hold, &node))) {
        if (!S_ISLNK(node->mode)) {
            e = -EINVAL;
        } else {
            r = (ssize_t)strlen(node->target);
            if ((size_t)r > n)
                r = (ssize_t)n;
            memcpy(buf, node->target, (size_t)r);
        }
    }
    end_call(hold);
    return e ? fail(-e) : r;
}

ssize_t readlink(const char *restrict path, char *restrict buf, size_t n)
{
    return readlinkat(AT_FDCWD, path, buf, n);
}

int truncate(const char *path, off_t len)
{
    struct fsnode *n;
    int e;

    if (!path)
        return fail(EFAULT);
    if (len < 0)
        return fail(EINVAL);
    sp_mutex_lock(&fs_ns);
    if (!(e = fs_lookup(fs_cwd, path, strlen(path), true, &n)))
        e = S_ISDIR(n->mode) ? -EISDIR : !S_ISREG(n->mode) ? -EINVAL :
            fs_truncate(n, len);
    sp_mutex_unlock(&fs_ns);
    return result(e);
}

/* The node behind fd (a file or folder of the file system), held by
   *hold; NULL and -errno in *err for another kind of file. */
static struct fsnode *fd_node(int fd, struct file **hold, int *err)
{
    struct fsnode *n;

    if (!(*hold = fd_get(fd))) {
        *err = -EBADF;
        return NULL;
    }
    if (!(n = fs_file_node(*hold)))
        *err = 0;               /* another kind: the caller decides */
    return n;
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
    struct fsnode *n;
    struct file *hold;
    int e;

    if (!(e = begin_lookup(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW),
                               &hold, &n))) {
        n->mode = (n->mode & S_IFMT) | (mode & 07777);
        n->ctime = fs_now();
    }
    end_call(hold);
    return result(e);
}

int chmod(const char *path, mode_t mode)
{
    return fchmodat(AT_FDCWD, path, mode, 0);
}

int fchmod(int fd, mode_t mode)
{
    struct file *hold;
    struct fsnode *n;
    int e = 0;

    if ((n = fd_node(fd, &hold, &e))) {
        sp_mutex_lock(&fs_ns);
        n->mode = (n->mode & S_IFMT) | (mode & 07777);
        n->ctime = fs_now();
        sp_mutex_unlock(&fs_ns);
    }
    if (hold)
        file_put(hold);
    return result(e);
}

/* chown's: the one user owns everything; only the path is checked. */
static int owner_at(const char *path, bool follow)
{
    struct fsnode *n;
    int e;

    if (!path)
        return fail(EFAULT);
    sp_mutex_lock(&fs_ns);
    e = fs_lookup(fs_cwd, path, strlen(path), follow, &n);
    sp_mutex_unlock(&fs_ns);
    return result(e);
}

int chown(const char *path, uid_t uid, gid_t gid)
{
    return owner_at(path, true);
}

int lchown(const char *path, uid_t uid, gid_t gid)
{
    return owner_at(path, false);
}

int fchown(int fd, uid_t uid, gid_t gid)
{
    struct file *f = fd_get(fd);

    if (!f)
        return fail(EBADF);
    file_put(f);
    return 0;
}

/* Sets n's times from ts (utimensat's: NULL is now; UTIME_NOW,
   UTIME_OMIT); fs_ns held. */
static int set_times(struct fsnode *n, const struct timespec ts[2])
{
    struct timespec now = fs_now();

    for (int i = 0; i < 2; i++) {
        struct timespec t = ts ? ts[i] : (struct timespec){ 0, UTIME_NOW };

        if (t.tv_nsec == UTIME_OMIT)
            continue;
        if (t.tv_nsec == UTIME_NOW)
            t = now;
        else if (t.tv_nsec < 0 || t.tv_nsec >= 1000000000)
            return -EINVAL;
        *(i ? &n->mtime : &n->atime) = t;
    }
    n->ctime = now;
    return 0;
}

int utimensat(int dirfd, const char *path, const struct timespec *ts,
              int flags)
{
    struct fsnode *n;
    struct file *hold;
    int e;

    if (!(e = begin_lookup(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW),
                               &hold, &n)))
        e = set_times(n, ts);
    end_call(hold);
    return result(e);
}

int futimens(int fd, const struct timespec *ts)
{
    struct file *hold;
    struct fsnode *n;
    int e = 0;

    if ((n = fd_node(fd, &hold, &e))) {
        sp_mutex_lock(&fs_ns);
        e = set_times(n, ts);
        sp_mutex_unlock(&fs_ns);
    } else if (!e) {
        e = -EINVAL;            /* a socket's, a pipe's: no times */
    }
    if (hold)
        file_put(hold);
    return result(e);
}

int utimes(const char *path, const struct timeval *tv)
{
    struct timespec ts[2];

    if (!tv)
        return utimensat(AT_FDCWD, path, NULL, 0);
    for (int i = 0; i < 2; i++) {
        if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
            return fail(EINVAL);
        ts[i] = (struct timespec){ tv[i].tv_sec, tv[i].tv_usec * 1000 };
    }
    return utimensat(AT_FDCWD, path, ts, 0);
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
    if (S_ISREG(mode) || (mode & S_IFMT) == 0) {
        int fd = openat(AT_FDCWD, path, O_CREAT | O_EXCL | O_WRONLY, mode);

        return fd < 0 ? -1 : close(fd);
    }
    if (S_ISDIR(mode))
        return fail(EINVAL);
    return fail(S_ISFIFO(mode) ? EOPNOTSUPP : EPERM);
}

int mkfifo(const char *path, mode_t mode)
{
    return fail(EOPNOTSUPP);
}

/* ---- The current folder, and names of folders --------------------------- */

/*
 * Writes the absolute path of folder dir, then "/" and name[len] if len,
 * into buf of size n: 0, or -ERANGE (too small), -ENOENT (a removed
 * folder).  fs_ns held.
 */
static int path_of(struct fsnode *dir, const char *name, size_t len,
                   char *buf, size_t n)
{
    size_t at = n;              /* the path is built from its end */

    if (dir->nlink == 0)
        return -ENOENT;
    if (at < len + 2)
        return -ERANGE;
    buf[--at] = '\0';
    if (len) {
        at -= len;
        memcpy(buf + at, name, len);
        buf[--at] = '/';
    }
    while (dir != fs_root) {
        struct fsnode *up = dir->dir.parent;
        struct fsdent *d;

        for (d = up->dir.head; d && d->node != dir; d = d->next)
            ;
        if (!d)
            return -ENOENT;
        if (at < d->len + 1)
            return -ERANGE;
        at -= d->len;
        memcpy(buf + at, d->name, d->len);
        buf[--at] = '/';
        dir = up;
    }
    if (at == n - 1)
        buf[--at] = '/';        /* the root itself */
    memmove(buf, buf + at, n - at);
    return 0;
}

/* getcwd(NULL, n) allocates the buffer (n bytes, or PATH_MAX if 0), as
   glibc's does. */
char *getcwd(char *buf, size_t n)
{
    char *out = buf;
    int e;

    if (buf && n == 0) {
        fail(EINVAL);
        return NULL;
    }
    if (!buf && !(out = malloc(n = n ? n : PATH_MAX))) {
        fail(ENOMEM);
        return NULL;
    }
    sp_mutex_lock(&fs_ns);
    e = path_of(fs_cwd, NULL, 0, out, n);
    sp_mutex_unlock(&fs_ns);
    if (e) {
        if (!buf)
            free(out);
        fail(-e);
        return NULL;
    }
    return out;
}

/* Makes n the current folder; fs_ns held.  The current folder counts as
   an open of its node, so that removing it leaves it alive (and empty). */
static int set_cwd(struct fsnode *n)
{
    struct fsnode *old = fs_cwd;

    if (!S_ISDIR(n->mode))
        return -ENOTDIR;
    n->opens++;
    fs_cwd = n;
    old->opens--;
    fs_node_release(old);
    return 0;
}

int chdir(const char *path)
{
    struct fsnode *n;
    int e;

    if (!path)
        return fail(EFAULT);
    sp_mutex_lock(&fs_ns);
    if (!(e = fs_lookup(fs_cwd, path, strlen(path), true, &n)))
        e = set_cwd(n);
    sp_mutex_unlock(&fs_ns);
    return result(e);
}

int fchdir(int fd)
{
    struct file *hold;
    struct fsnode *n;
    int e = 0;

    if ((n = fd_node(fd, &hold, &e))) {
        sp_mutex_lock(&fs_ns);
        e = set_cwd(n);
        sp_mutex_unlock(&fs_ns);
    } else if (!e) {
        e = -ENOTDIR;
    }
    if (hold)
        file_put(hold);
    return result(e);
}

/* realpath's core: the absolute path of path from folder at, with no
   ".", "..", extra '/' or symbolic link, into out[PATH_MAX]; fs_ns held. */
static int real_path(struct fsnode *at, const char *path, int links,
                     char *out)
{
    struct fsnode *dir;
    struct fsdent *d;
    const char *name;
    size_t len;
    bool slash;
    int e;

    if ((e = fs_lookup_parent(at, path, &dir, &name, &len, &slash)))
        return e;
    if (len == 0)
        return path_of(fs_root, NULL, 0, out, PATH_MAX);
    if (is_dots(name, len)) {
        struct fsnode *n;

        if ((e = fs_lookup(dir, name, len, true, &n)))
            return e;
        return path_of(n, NULL, 0, out, PATH_MAX);
    }
    if (!(d = fs_dir_find(dir, name, len)))
        return -ENOENT;
    if (S_ISLNK(d->node->mode)) {
        if (++links > FS_SYMLOOP)
            return -ELOOP;
        return real_path(dir, d->node->target, links, out);
    }
    if (S_ISDIR(d->node->mode))
        return path_of(d->node, NULL, 0, out, PATH_MAX);
    if (slash)
        return -ENOTDIR;
    return path_of(dir, name, len, out, PATH_MAX);
}

char *realpath(const char *restrict path, char *restrict resolved)
{
    char *out = resolved ? resolved : malloc(PATH_MAX);
    int e;

    if (!path) {
        fail(EINVAL);
        return NULL;
    }
    if (!out) {
        fail(ENOMEM);
        return NULL;
    }
    sp_mutex_lock(&fs_ns);
    e = *path ? real_path(fs_cwd, path, 0, out) : -ENOENT;
    sp_mutex_unlock(&fs_ns);
    if (e) {
        if (!resolved)
            free(out);
        fail(e == -ERANGE ? ENAMETOOLONG : -e);
        return NULL;
    }
    return out;
}
