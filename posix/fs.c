/*
 * fs.c - the RAM file system's tree (fsimpl.h): nodes, folders, the
 * lookup of paths, the accounting of its memory, and the boot that
 * builds "/" with /tmp, /dev and the packed tree.
 *
 * The packed tree (kernel/initrd.h: a cpio archive linked into the image
 * or loaded beside it) is unpacked into "/" at boot without copying a
 * byte of data: a file's pages read from the archive until written, when
 * that page alone is copied (fsfile.c).  So the tree is writable like
 * the rest, and the archive itself never changes.
 *
 * Memory.  Every byte the file system allocates (nodes, names, pages,
 * page tables) is counted against a limit, fsmax=<MiB> on the command
 * line, by default half the memory free at boot; past it a call fails
 * with ENOSPC.  A file's pages come from the kernel's page allocator and
 * go back to it when the file shrinks or goes, so the rest of the
 * machine gets them back; and whatever fsmax= says, a page is refused
 * (ENOSPC) once fewer than a reserve of pages are free (1/16 of memory,
 * at least 4 MiB), so that filling the file system never starves the
 * scheduler of memory for Gs.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/time.h>
#include "kernel/cmdline.h"
#include "kernel/initrd.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "posix/cpio.h"
#include "posix/fsimpl.h"

sp_mutex fs_ns = SP_MUTEX_INIT;
struct fsnode *fs_root, *fs_cwd;

static ino_t next_ino = 1;      /* fs_ns */
static size_t fs_used, fs_max;  /* atomic; fixed after boot */
static size_t fs_reserve;       /* pages; fixed after boot */

struct timespec fs_now(void)
{
    uint64_t ns = sp_walltime();

    return (struct timespec){ .tv_sec = ns / 1000000000,
                              .tv_nsec = ns % 1000000000 };
}

/* ---- Memory ------------------------------------------------------------ */

int fs_account(size_t bytes)
{
    size_t old = __atomic_load_n(&fs_used, __ATOMIC_RELAXED);

    do
        if (bytes > fs_max || old > fs_max - bytes)
            return -ENOSPC;
    while (!__atomic_compare_exchange_n(&fs_used, &old, old + bytes, true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return 0;
}

void fs_unaccount(size_t bytes)
{
    __atomic_fetch_sub(&fs_used, bytes, __ATOMIC_RELAXED);
}

/* malloc of n accounted bytes, or NULL (ENOSPC). */
static void *fs_alloc(size_t n)
{
    void *p;

    if (fs_account(n))
        return NULL;
    if (!(p = malloc(n)))
        fs_unaccount(n);
    return p;
}

char *fs_strdup(const char *s, size_t len)
{
    char *p = fs_alloc(len + 1);

    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

void *fs_page_alloc(void)
{
    uint64_t pa;

    if (mem_free_count() < fs_reserve || fs_account(FS_PAGE))
        return NULL;
    if (!(pa = mem_alloc_pages_unzeroed(1))) {
        fs_unaccount(FS_PAGE);
        return NULL;
    }
    return phys_to_virt(pa);
}

void fs_page_free(void *page)
{
    mem_free_pages((uint64_t)(uintptr_t)page, 1);
    fs_unaccount(FS_PAGE);
}

static void fs_free(void *p, size_t n)
{
    free(p);
    fs_unaccount(n);
}

/* ---- Nodes ------------------------------------------------------------- */

struct fsnode *fs_node_new(mode_t mode)
{
    struct fsnode *n = fs_alloc(sizeof *n);

    if (!n)
        return NULL;
    memset(n, 0, sizeof *n);
    n->mode = mode;
    n->ino = next_ino++;
    n->atime = n->mtime = n->ctime = fs_now();
    if (S_ISREG(mode))
        n->reg.rw = (sp_rwmutex)SP_RWMUTEX_INIT;
    return n;
}

void fs_node_release(struct fsnode *n)
{
    if (n->nlink > 0 || n->opens > 0)
        return;
    if (S_ISREG(n->mode)) {
        for (size_t i = 0; i < n->reg.npages; i++)
            if (n->reg.pages[i])
                fs_page_free(n->reg.pages[i]);
        if (n->reg.pages)
            fs_free(n->reg.pages, n->reg.npages * sizeof *n->reg.pages);
    } else if (S_ISLNK(n->mode) && n->target) {
        fs_free(n->target, strlen(n->target) + 1);
    }
    fs_free(n, sizeof *n);
}

/* ---- Folders ----------------------------------------------------------- */

struct fsdent *fs_dir_find(struct fsnode *dir, const char *name, size_t len)
{
    for (struct fsdent *d = dir->dir.head; d; d = d->next)
        if (d->len == len && memcmp(d->name, name, len) == 0)
            return d;
    return NULL;
}

int fs_dir_add(struct fsnode *dir, const char *name, size_t len,
               struct fsnode *n)
{
    struct fsdent *d = fs_alloc(sizeof *d + len + 1);

    if (!d)
        return -ENOSPC;
    d->next = NULL;
    d->seq = ++dir->dir.seq;
    d->node = n;
    d->len = len;
    memcpy(d->name, name, len);
    d->name[len] = '\0';
    if (dir->dir.tail)
        dir->dir.tail->next = d;
    else
        dir->dir.head = d;
    dir->dir.tail = d;
    dir->dir.n++;
    n->nlink++;
    if (S_ISDIR(n->mode)) {
        n->dir.parent = dir;
        n->nlink++;             /* its own "." */
        dir->nlink++;           /* its ".." */
    }
    dir->mtime = dir->ctime = n->ctime = fs_now();
    return 0;
}

void fs_dir_remove(struct fsnode *dir, struct fsdent *d)
{
    struct fsdent **pp = &dir->dir.head, *prev = NULL;
    struct fsnode *n = d->node;

    while (*pp != d) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    *pp = d->next;
    if (dir->dir.tail == d)
        dir->dir.tail = prev;
    dir->dir.n--;
    n->nlink--;
    if (S_ISDIR(n->mode)) {
        n->nlink--;
        dir->nlink--;
    }
    dir->mtime = dir->ctime = n->ctime = fs_now();
    fs_free(d, sizeof *d + d->len + 1);
    fs_node_release(n);
}

/* ---- Lookups ----------------------------------------------------------- */

static int lookup(struct fsnode *at, const char *path, size_t len,
                  bool follow, int *links, struct fsnode **out)
{
    const char *p = path, *end = path + len;
    struct fsnode *n;

    if (len == 0)
        return -ENOENT;
    n = *p == '/' ? fs_root : at;
    for (;;) {
        const char *c;
        size_t clen;
        struct fsdent *d;
        struct fsnode *next;
        bool last;

        while (p < end && *p == '/')
            p++;
        if (p == end)
            break;
        if (!S_ISDIR(n->mode))
            return -ENOTDIR;
        for (c = p; p < end && *p != '/'; p++)
            ;
        clen = (size_t)(p - c);
        if (clen > NAME_MAX)
            return -ENAMETOOLONG;
        if (clen == 1 && c[0] == '.')
            continue;
        if (clen == 2 && c[0] == '.' && c[1] == '.') {
            n = n->dir.parent;
            continue;
        }
        if (!(d = fs_dir_find(n, c, clen)))
            return -ENOENT;
        next = d->node;
        last = p == end;        /* no '/' after it */
        if (S_ISLNK(next->mode) && (follow || !last)) {
            int e;

            if (++*links > FS_SYMLOOP)
                return -ELOOP;
            e = lookup(n, next->target, strlen(next->target), true, links,
                       &next);
            if (e)
                return e;
        }
        n = next;
    }
    if (len && path[len - 1] == '/' && !S_ISDIR(n->mode))
        return -ENOTDIR;
    *out = n;
    return 0;
}

int fs_lookup(struct fsnode *at, const char *path, size_t len, bool follow,
              struct fsnode **out)
{
    int links = 0;

    if (len >= PATH_MAX)
        return -ENAMETOOLONG;
    return lookup(at, path, len, follow, &links, out);
}

int fs_lookup_parent(struct fsnode *at, const char *path, struct fsnode **dir,
                     const char **name, size_t *len, bool *slash)
{
    size_t end = strlen(path), start;
    int e;

    if (end == 0)
        return -ENOENT;
    if (end >= PATH_MAX)
        return -ENAMETOOLONG;
    *slash = path[end - 1] == '/';
    while (end > 0 && path[end - 1] == '/')
        end--;
    for (start = end; start > 0 && path[start - 1] != '/'; start--)
        ;
    *name = path + start;
    *len = end - start;
    if (*len > NAME_MAX)
        return -ENAMETOOLONG;
    if (start == 0) {           /* "name", or "/" (len 0) */
        *dir = end == 0 ? fs_root : at;
        return 0;
    }
    if ((e = fs_lookup(at, path, start, true, dir)))
        return e;
    return S_ISDIR((*dir)->mode) ? 0 : -ENOTDIR;
}

void fs_stat_node(struct fsnode *n, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_dev = 1;
    st->st_ino = n->ino;
    st->st_mode = n->mode;
    st->st_nlink = n->nlink;
    st->st_blksize = FS_PAGE;
    st->st_atim = n->atime;
    st->st_mtim = n->mtime;
    st->st_ctim = n->ctime;
    if (S_ISREG(n->mode))
        st->st_size = __atomic_load_n(&n->reg.size, __ATOMIC_RELAXED);
    else if (S_ISLNK(n->mode))
        st->st_size = (off_t)strlen(n->target);
    else if (S_ISDIR(n->mode))
        st->st_size = (off_t)(n->dir.n + 2) * 32;
    else if (S_ISCHR(n->mode))
        st->st_rdev = n->dev->rdev;
    st->st_blocks = (st->st_size + 511) / 512;
}

/* ---- Boot: the root, /tmp, /dev and the packed tree --------------------- */

/* A folder named name[len] in dir, made if missing: NULL if a non-folder
   is in the way or memory ran out. */
static struct fsnode *mkdir_in(struct fsnode *dir, const char *name,
                               size_t len, mode_t perm)
{
    struct fsdent *d = fs_dir_find(dir, name, len);
    struct fsnode *n;

    if (d)
        return S_ISDIR(d->node->mode) ? d->node : NULL;
    if (!(n = fs_node_new(S_IFDIR | perm)))
        return NULL;
    if (fs_dir_add(dir, name, len, n)) {
        fs_node_release(n);
        return NULL;
    }
    return n;
}

struct fsnode *fs_mkdir_boot(const char *name, mode_t perm)
{
    return mkdir_in(fs_root, name, strlen(name), perm);
}

/* Adds one archive entry under the root, its folders made as needed:
   0, or a reason it was left out. */
static const char *unpack_one(const struct cpio_entry *e)
{
    const char *p = e->name, *end = e->name + e->namelen, *c = NULL;
    struct fsnode *dir = fs_root, *n;
    mode_t type = e->mode & S_IFMT, perm = e->mode & 07777;
    size_t len = 0;

    for (;;) {                  /* each component; all but the last are
                                   folders on the way */
        const char *s;
        size_t l;

        while (p < end && *p == '/')
            p++;
        if (p == end)
            break;
        for (s = p; p < end && *p != '/'; p++)
            ;
        l = (size_t)(p - s);
        if (l == 1 && s[0] == '.')
            continue;
        if (l == 2 && s[0] == '.' && s[1] == '.')
            return "a path with \"..\"";
        if (l > NAME_MAX)
            return "a name too long";
        if (c && !(dir = mkdir_in(dir, c, len, 0755)))
            return "a folder on its path is a file, or memory ran out";
        c = s;
        len = l;
    }
    if (!c)
        return NULL;            /* "." or "/": the root itself */
    if (type == S_IFDIR) {
        if (!(n = mkdir_in(dir, c, len, perm)))
            return "a file of that name is there, or memory ran out";
        n->mode = S_IFDIR | perm;
        n->mtime = n->ctime = (struct timespec){ .tv_sec = e->mtime };
        return NULL;
    }
    if (type != S_IFREG && type != S_IFLNK)
        return "not a file, folder or symbolic link";
    if (fs_dir_find(dir, c, len))
        return "a second entry of that name";
    if (!(n = fs_node_new(e->mode)))
        return "memory ran out";
    if (type == S_IFREG) {
        n->reg.packed = e->data;
        n->reg.packed_len = e->size;
        n->reg.size = (off_t)e->size;
    } else if (e->size == 0 || e->size >= PATH_MAX ||
               memchr(e->data, '\0', e->size) ||
               !(n->target = fs_strdup(e->data, e->size))) {
        fs_node_release(n);
        return "a symbolic link's target empty or too long, or memory ran out";
    }
    n->mtime = n->ctime = (struct timespec){ .tv_sec = e->mtime };
    if (fs_dir_add(dir, c, len, n)) {
        fs_node_release(n);
        return "memory ran out";
    }
    return NULL;
}

/* Unpacks the packed tree, if there is one, and says what it found. */
static void unpack(void)
{
    const void *base;
    size_t len, files = 0, bytes = 0, left_out = 0;
    const char *from;
    struct cpio_reader r;
    struct cpio_entry e;
    int k;

    if (!initrd_get(&base, &len, &from))
        return;
    cpio_begin(&r, base, len);
    while ((k = cpio_next(&r, &e)) == 1) {
        const char *why = unpack_one(&e);

        if (why) {
            if (left_out++ < 8)
                printk("fs: packed tree: %s left out: %s\n", e.name, why);
            continue;
        }
        files++;
        if ((e.mode & S_IFMT) == S_IFREG)
            bytes += e.size;
    }
    if (k < 0)
        printk("fs: packed tree (%s): %s at byte %zu; the %zu entries "
               "before it are kept\n", from, r.err, r.off, files);
    printk("fs: packed tree from %s: %zu entries, %zu bytes of files%s\n",
           from, files, bytes, left_out ? " (some left out, above)" : "");
}

void fs_init(void)
{
    long mib;

    fs_max = mem_free_count() * FS_PAGE / 2;
    fs_reserve = mem_total_count() / 16;
    if (fs_reserve < (4 << 20) / FS_PAGE)
        fs_reserve = (4 << 20) / FS_PAGE;
    switch (cmdline_long("fsmax", 1, (long)(SIZE_MAX >> 21), &mib)) {
    case CMDLINE_OK:
        fs_max = (size_t)mib << 20;
        break;
    case CMDLINE_ABSENT:
        break;
    default:
        printk("fs: fsmax= wants a size in MiB from 1; using %zu MiB\n",
               fs_max >> 20);
    }
    fs_root = fs_node_new(S_IFDIR | 0755);
    if (!fs_root)
        panic("fs: no memory for the root folder");
    fs_root->dir.parent = fs_root;
    fs_root->nlink = 2;
    fs_cwd = fs_root;
    if (!fs_mkdir_boot("tmp", 01777))
        printk("fs: no /tmp (out of memory)\n");
    fs_dev_init();
    unpack();
    fs_export_init();
}
