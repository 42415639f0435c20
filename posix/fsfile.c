/*
 * fsfile.c - files and folders of the RAM file system open (fsimpl.h):
 * a regular file's data in pages, and the calls on a descriptor of a
 * file or folder.
 *
 * A regular file's bytes are FS_PAGE pages in a table indexed by page
 * number.  A page not there reads from the packed tree's bytes of the
 * file where it has them (packed, packed_len) and as zeros past them
 * (a hole); the first write to it allocates it and copies in what it
 * read as.  Truncation frees the pages past the new end and clears the
 * tail of the last, so a file that grows again reads zeros there.
 *
 * Atomicity: a read, write, pread, pwrite or ftruncate holds the file's
 * rw for its whole length, so each sees the others whole; a write with
 * O_APPEND finds the end and writes under the one lock.  A descriptor's
 * offset is guarded by its pos_lock for the length of a read or write
 * (as Linux's f_pos_lock), so two Gs reading one descriptor get
 * successive bytes.  fsync and fdatasync have nothing to flush: the
 * memory is the file; they return 0.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "posix/fsimpl.h"

#define FS_FILE_MAX  ((off_t)1 << 40)   /* EFBIG past it */
#define RW_MAX       0x7ffff000UL       /* one call's bytes, as Linux's */

struct fsfile {
    struct file f;
    struct fsnode *n;           /* fixed; its opens counts this file */
    sp_mutex pos_lock;
    off_t pos;                  /* a file's: pos_lock; a folder's readdir
                                   position: fs_ns */
};

static struct fsfile *fsfile_of(struct file *f)
{
    return (struct fsfile *)f;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* ---- A regular file's data (rw held) ----------------------------------- */

/* Copies len bytes at off into buf; off + len <= size. */
static void copy_out(struct fsnode *n, unsigned char *buf, size_t len,
                     off_t off)
{
    while (len) {
        size_t pg = (size_t)off / FS_PAGE, in = (size_t)off % FS_PAGE;
        size_t k = min_size(len, FS_PAGE - in), from_packed = 0;
        unsigned char *page = pg < n->reg.npages ? n->reg.pages[pg] : NULL;

        if (page) {
            memcpy(buf, page + in, k);
        } else {
            if ((size_t)off < n->reg.packed_len) {
                from_packed = min_size(k, n->reg.packed_len - (size_t)off);
                memcpy(buf, n->reg.packed + off, from_packed);
            }
            memset(buf + from_packed, 0, k - from_packed);
        }
        buf += k;
        off += (off_t)k;
        len -= k;
    }
}

/* A page table of at least want entries: 0 or -ENOSPC. */
static int grow_table(struct fsnode *n, size_t want)
{
    size_t cap = n->reg.npages ? n->reg.npages : 16;
    unsigned char **t;

    if (want <= n->reg.npages)
        return 0;
    while (cap < want)
        cap *= 2;
    if (fs_account(cap * sizeof *t))
        return -ENOSPC;
    if (!(t = realloc(n->reg.pages, cap * sizeof *t))) {
        fs_unaccount(cap * sizeof *t);
        return -ENOSPC;
    }
    memset(t + n->reg.npages, 0, (cap - n->reg.npages) * sizeof *t);
    fs_unaccount(n->reg.npages * sizeof *t);
    n->reg.pages = t;
    n->reg.npages = cap;
    return 0;
}

/* Page pg, there to be written (the table covers it): NULL if memory is
   out. */
static unsigned char *page_for_write(struct fsnode *n, size_t pg)
{
    unsigned char *p = n->reg.pages[pg];
    size_t at = pg * FS_PAGE, packed = 0;

    if (p)
        return p;
    if (!(p = fs_page_alloc()))
        return NULL;
    if (at < n->reg.packed_len) {
        packed = min_size(FS_PAGE, n->reg.packed_len - at);
        memcpy(p, n->reg.packed + at, packed);
    }
    memset(p + packed, 0, FS_PAGE - packed);
    return n->reg.pages[pg] = p;
}

static void set_size(struct fsnode *n, off_t size)
{
    __atomic_store_n(&n->reg.size, size, __ATOMIC_RELAXED);
}

static long data_read(struct fsnode *n, void *buf, size_t len, off_t off)
{
    long r = 0;

    sp_rwmutex_rlock(&n->reg.rw);
    if (off < n->reg.size) {
        len = min_size(min_size(len, RW_MAX), (size_t)(n->reg.size - off));
        copy_out(n, buf, len, off);
        r = (long)len;
    }
    sp_rwmutex_runlock(&n->reg.rw);
    return r;
}

/* Writes at off, or at the end if off < 0; *at: where it wrote. */
static long data_write(struct fsnode *n, const void *buf, size_t len,
                       off_t off, off_t *at)
{
    const unsigned char *src = buf;
    size_t done = 0;
    long r;

    len = min_size(len, RW_MAX);
    sp_rwmutex_lock(&n->reg.rw);
    if (off < 0)
        off = n->reg.size;
    *at = off;
    if (len == 0) {
        r = 0;
    } else if (off >= FS_FILE_MAX || (off_t)len > FS_FILE_MAX - off) {
        r = -EFBIG;
    } else if (grow_table(n, ((size_t)off + len + FS_PAGE - 1) / FS_PAGE)) {
        r = -ENOSPC;
    } else {
        while (done < len) {
            size_t o = (size_t)off + done, in = o % FS_PAGE;
            size_t k = min_size(len - done, FS_PAGE - in);
            unsigned char *p = page_for_write(n, o / FS_PAGE);

            if (!p)
                break;
            memcpy(p + in, src + done, k);
            done += k;
        }
        r = done ? (long)done : -ENOSPC;
        if (done) {
            if (off + (off_t)done > n->reg.size)
                set_size(n, off + (off_t)done);
            n->mtime = n->ctime = fs_now();
        }
    }
    sp_rwmutex_unlock(&n->reg.rw);
    return r;
}

int fs_truncate(struct fsnode *n, off_t len)
{
    size_t keep;

    if (len > FS_FILE_MAX)
        return -EFBIG;
    sp_rwmutex_lock(&n->reg.rw);
    keep = ((size_t)len + FS_PAGE - 1) / FS_PAGE;
    for (size_t pg = keep; pg < n->reg.npages; pg++)
        if (n->reg.pages[pg]) {
            fs_page_free(n->reg.pages[pg]);
            n->reg.pages[pg] = NULL;
        }
    if (len % FS_PAGE && keep <= n->reg.npages && n->reg.pages[keep - 1])
        memset(n->reg.pages[keep - 1] + len % FS_PAGE, 0,
               FS_PAGE - len % FS_PAGE);
    if ((size_t)len < n->reg.packed_len)
        n->reg.packed_len = (size_t)len;
    set_size(n, len);
    n->mtime = n->ctime = fs_now();
    sp_rwmutex_unlock(&n->reg.rw);
    return 0;
}

/* ---- A regular file's calls ------------------------------------------- */

static int accmode(struct file *f)
{
    return __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_ACCMODE;
}

static long reg_read(struct file *f, void *buf, size_t len, bool nb)
{
    struct fsfile *o = fsfile_of(f);
    long r;

    if (accmode(f) == O_WRONLY)
        return -EBADF;
    sp_mutex_lock(&o->pos_lock);
    r = data_read(o->n, buf, len, o->pos);
    if (r > 0)
        o->pos += r;
    sp_mutex_unlock(&o->pos_lock);
    return r;
}

static long reg_write(struct file *f, const void *buf, size_t len, bool nb)
{
    struct fsfile *o = fsfile_of(f);
    bool append = __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_APPEND;
    off_t at;
    long r;

    if (accmode(f) == O_RDONLY)
        return -EBADF;
    sp_mutex_lock(&o->pos_lock);
    r = data_write(o->n, buf, len, append ? -1 : o->pos, &at);
    if (r >= 0)
        o->pos = at + r;
    sp_mutex_unlock(&o->pos_lock);
    return r;
}

static long reg_pread(struct file *f, void *buf, size_t len, off_t off)
{
    if (accmode(f) == O_WRONLY)
        return -EBADF;
    return data_read(fsfile_of(f)->n, buf, len, off);
}

static long reg_pwrite(struct file *f, const void *buf, size_t len, off_t off)
{
    off_t at;

    if (accmode(f) == O_RDONLY)
        return -EBADF;
    /* As Linux's: with O_APPEND, pwrite appends. */
    if (__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_APPEND)
        off = -1;
    return data_write(fsfile_of(f)->n, buf, len, off, &at);
}

static off_t reg_seek(struct file *f, off_t off, int whence)
{
    struct fsfile *o = fsfile_of(f);
    off_t base, r;

    sp_mutex_lock(&o->pos_lock);
    switch (whence) {
    case SEEK_SET:
        base = 0;
        break;
    case SEEK_CUR:
        base = o->pos;
        break;
    case SEEK_END:
        base = __atomic_load_n(&o->n->reg.size, __ATOMIC_RELAXED);
        break;
    default:
        sp_mutex_unlock(&o->pos_lock);
        return -EINVAL;
    }
    if ((off > 0 && base > FS_FILE_MAX - off) || base + off < 0)
        r = -EINVAL;
    else
        r = o->pos = base + off;
    sp_mutex_unlock(&o->pos_lock);
    return r;
}

static int reg_truncate(struct file *f, off_t len)
{
    if (accmode(f) == O_RDONLY)
        return -EINVAL;         /* as Linux's: not open for writing */
    return fs_truncate(fsfile_of(f)->n, len);
}

/* ---- What files and folders share -------------------------------------- */

static unsigned fs_poll(struct file *f)
{
    return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
}

static void fs_close(struct file *f)
{
    /* No call on a file of the file system waits: nothing to wake. */
}

static void fs_free_file(struct file *f)
{
    struct fsfile *o = fsfile_of(f);

    sp_mutex_lock(&fs_ns);
    o->n->opens--;
    fs_node_release(o->n);
    sp_mutex_unlock(&fs_ns);
    free(o);
}

static void fs_fstat(struct file *f, struct stat *st)
{
    fs_stat_node(fsfile_of(f)->n, st);
}

static int fs_sync(struct file *f)
{
    return 0;
}

static const struct fileops reg_ops = {
    .type = S_IFREG, .read = reg_read, .write = reg_write, .poll = fs_poll,
    .close = fs_close, .free = fs_free_file, .pread = reg_pread,
    .pwrite = reg_pwrite, .seek = reg_seek, .stat = fs_fstat,
    .truncate = reg_truncate, .sync = fs_sync,
};

/* ---- A folder's calls -------------------------------------------------- */

static long dir_read(struct file *f, void *buf, size_t len, bool nb)
{
    return -EISDIR;
}

static long dir_write(struct file *f, const void *buf, size_t len, bool nb)
{
    return -EISDIR;
}

static long dir_pread(struct file *f, void *buf, size_t len, off_t off)
{
    return -EISDIR;
}

/* A folder's position: 0 ".", 1 "..", then an entry's seq + 1. */
static off_t dir_seek(struct file *f, off_t off, int whence)
{
    if (whence != SEEK_SET || off < 0)
        return -EINVAL;
    sp_mutex_lock(&fs_ns);
    fsfile_of(f)->pos = off;
    sp_mutex_unlock(&fs_ns);
    return off;
}

static const struct fileops dir_ops = {
    .type = S_IFDIR, .read = dir_read, .write = dir_write, .poll = fs_poll,
    .close = fs_close, .free = fs_free_file, .pread = dir_pread,
    .seek = dir_seek, .stat = fs_fstat, .sync = fs_sync,
};

static unsigned char dtype(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return DT_REG;
    case S_IFDIR: return DT_DIR;
    case S_IFLNK: return DT_LNK;
    case S_IFCHR: return DT_CHR;
    default:      return DT_UNKNOWN;
    }
}

int fs_readdir(struct file *f, ino_t *ino, unsigned char *type, char *name)
{
    struct fsfile *o = fsfile_of(f);
    struct fsnode *dir;
    struct fsdent *d;
    int r = 1;

    if (f->ops != &dir_ops)
        return -ENOTDIR;
    dir = o->n;
    sp_mutex_lock(&fs_ns);
    if (o->pos < 2 && dir->nlink > 0) {
        struct fsnode *n = o->pos == 0 ? dir : dir->dir.parent;

        *ino = n->ino;
        *type = DT_DIR;
        strcpy(name, o->pos == 0 ? "." : "..");
        o->pos++;
    } else {
        for (d = dir->dir.head; d && (off_t)d->seq + 1 < o->pos; d = d->next)
            ;
        if (d) {
            *ino = d->node->ino;
            *type = dtype(d->node->mode);
            memcpy(name, d->name, d->len + 1);
            o->pos = (off_t)d->seq + 2;
        } else {
            r = 0;
        }
    }
    if (r)
        dir->atime = fs_now();
    sp_mutex_unlock(&fs_ns);
    return r;
}

long fs_telldir(struct file *f)
{
    long pos;

    sp_mutex_lock(&fs_ns);
    pos = (long)fsfile_of(f)->pos;
    sp_mutex_unlock(&fs_ns);
    return pos;
}

void fs_seekdir(struct file *f, long pos)
{
    dir_seek(f, pos, SEEK_SET);
}

/* ---- Opening ----------------------------------------------------------- */

struct file *fs_file_open(struct fsnode *n, int flags, int *err)
{
    struct fsfile *o = malloc(sizeof *o);

    if (!o) {
        *err = -ENOMEM;
        return NULL;
    }
    file_init(&o->f, S_ISDIR(n->mode) ? &dir_ops : &reg_ops);
    o->f.flags = flags & (O_ACCMODE | O_NONBLOCK | O_APPEND);
    o->n = n;
    o->pos_lock = (sp_mutex)SP_MUTEX_INIT;
    o->pos = 0;
    return &o->f;
}

struct fsnode *fs_file_node(struct file *f)
{
    return f->ops == &reg_ops || f->ops == &dir_ops ? fsfile_of(f)->n : NULL;
}
