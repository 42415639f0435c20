/*
 * dirent.c - folder streams (<dirent.h>) on descriptors of the RAM file
 * system's folders (fsfile.c's fs_readdir): opendir, fdopendir, readdir,
 * readdir_r, rewinddir, telldir, seekdir, dirfd, closedir, scandir and
 * alphasort.  A stream's entry buffer is its own: readdir's result lasts
 * until the stream's next call, and two Gs must not share a stream
 * without a lock of their own (as POSIX has it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "posix/fsimpl.h"

struct __spindle_dir {
    int fd;
    struct dirent ent;
};

static int fail(int e)
{
    *__errno() = e;
    return -1;
}

DIR *fdopendir(int fd)
{
    struct file *f = fd_get(fd);
    struct fsnode *n = f ? fs_file_node(f) : NULL;
    bool dir = n && S_ISDIR(n->mode);
    DIR *d;

    if (f)
        file_put(f);
    if (!dir) {
        fail(f ? ENOTDIR : EBADF);
        return NULL;
    }
    if (!(d = malloc(sizeof *d))) {
        fail(ENOMEM);
        return NULL;
    }
    d->fd = fd;
    return d;
}

DIR *opendir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d;

    if (fd < 0)
        return NULL;
    if (!(d = fdopendir(fd))) {
        int e = *__errno();

        close(fd);
        fail(e);
    }
    return d;
}

/* The next entry into ent: 1, 0 at the end, or -errno. */
static int next(DIR *d, struct dirent *ent)
{
    struct file *f = fd_get(d->fd);
    int r;

    if (!f)
        return -EBADF;
    r = fs_readdir(f, &ent->d_ino, &ent->d_type, ent->d_name);
    if (r > 0)
        ent->d_off = fs_telldir(f);
    file_put(f);
    ent->d_reclen = sizeof *ent;
    return r;
}

struct dirent *readdir(DIR *d)
{
    int r = next(d, &d->ent);

    if (r < 0)
        fail(-r);
    return r > 0 ? &d->ent : NULL;
}

int readdir_r(DIR *restrict d, struct dirent *restrict ent,
              struct dirent **restrict out)
{
    int r = next(d, ent);

    *out = r > 0 ? ent : NULL;
    return r < 0 ? -r : 0;
}

long telldir(DIR *d)
{
    struct file *f = fd_get(d->fd);
    long pos;

    if (!f)
        return fail(EBADF);
    pos = fs_telldir(f);
    file_put(f);
    return pos;
}

void seekdir(DIR *d, long pos)
{
    struct file *f = fd_get(d->fd);

    if (f) {
        fs_seekdir(f, pos);
        file_put(f);
    }
}

void rewinddir(DIR *d)
{
    seekdir(d, 0);
}

int dirfd(DIR *d)
{
    return d->fd;
}

int closedir(DIR *d)
{
    int r = close(d->fd);

    free(d);
    return r;
}

int alphasort(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int scandir(const char *path, struct dirent ***out,
            int (*keep)(const struct dirent *),
            int (*cmp)(const struct dirent **, const struct dirent **))
{
    DIR *d = opendir(path);
    struct dirent *e, **list = NULL;
    size_t n = 0, cap = 0;
    int saved;

    if (!d)
        return -1;
    while ((e = readdir(d))) {
        if (keep && !keep(e))
            continue;
        if (n == cap) {
            struct dirent **l = realloc(list, (cap = cap ? 2 * cap : 16) *
                                              sizeof *list);

            if (!l)
                goto nomem;
            list = l;
        }
        if (!(list[n] = malloc(sizeof *e)))
            goto nomem;
        memcpy(list[n++], e, sizeof *e);
    }
    closedir(d);
    if (cmp)
        qsort(list, n, sizeof *list,
              (int (*)(const void *, const void *))cmp);
    *out = list;
    return (int)n;
nomem:
    saved = ENOMEM;
    while (n)
        free(list[--n]);
    free(list);
    closedir(d);
    return fail(saved);
}
