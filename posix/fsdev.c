/*
 * fsdev.c - the devices of /dev (fsimpl.h): null (reads end of file,
 * takes every write), zero (reads zeros, takes every write), full
 * (reads zeros, every write fails with ENOSPC), random and urandom
 * (getrandom's bytes; neither ever blocks), and console (the console's
 * file, as descriptors 0-2 are).  Each open but the console's makes a
 * file of its own; offsets mean nothing to them (lseek returns 0).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "posix/fsimpl.h"

struct devfile {
    struct file f;
    const struct fsdev *dev;    /* fixed */
};

static long zero_read(struct file *f, void *buf, size_t len, bool nb)
{
    memset(buf, 0, len);
    return (long)len;
}

static long null_read(struct file *f, void *buf, size_t len, bool nb)
{
    return 0;
}

static long random_read(struct file *f, void *buf, size_t len, bool nb)
{
    return getrandom(buf, len, 0);
}

static long sink_write(struct file *f, const void *buf, size_t len, bool nb)
{
    return (long)len;
}

static long full_write(struct file *f, const void *buf, size_t len, bool nb)
{
    return -ENOSPC;
}

static unsigned dev_poll(struct file *f)
{
    return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
}

static void dev_close(struct file *f)
{
}

static void dev_free(struct file *f)
{
    free(f);
}

static off_t dev_seek(struct file *f, off_t off, int whence)
{
    return 0;
}

static void dev_stat(struct file *f, struct stat *st)
{
    st->st_mode |= 0666;
    st->st_rdev = ((struct devfile *)f)->dev->rdev;
}

static int dev_sync(struct file *f)
{
    return -EINVAL;             /* as Linux's character devices */
}

#define DEV_OPS(rd, wr) { \
    .type = S_IFCHR, .read = rd, .write = wr, .poll = dev_poll, \
    .close = dev_close, .free = dev_free, .seek = dev_seek, \
    .stat = dev_stat, .sync = dev_sync }

static const struct fileops null_ops = DEV_OPS(null_read, sink_write);
static const struct fileops zero_ops = DEV_OPS(zero_read, sink_write);
static const struct fileops full_ops = DEV_OPS(zero_read, full_write);
static const struct fileops random_ops = DEV_OPS(random_read, sink_write);

/* Linux's device numbers, which programs may compare against. */
#define DEV(major, minor) ((dev_t)((major) << 8 | (minor)))
static const struct fsdev devs[] = {
    { "null", DEV(1, 3), &null_ops },
    { "zero", DEV(1, 5), &zero_ops },
    { "full", DEV(1, 7), &full_ops },
    { "random", DEV(1, 8), &random_ops },
    { "urandom", DEV(1, 9), &random_ops },
    { "console", DEV(5, 1), NULL },     /* the console's own file */
};

struct file *fs_dev_open(const struct fsdev *dev, int flags, int *err)
{
    struct devfile *d;

    if (!dev->ops) {
        file_hold(console_file());
        return console_file();
    }
    if (!(d = malloc(sizeof *d))) {
        *err = -ENOMEM;
        return NULL;
    }
    file_init(&d->f, dev->ops);
    d->f.flags = flags & (O_ACCMODE | O_NONBLOCK);
    d->dev = dev;
    return &d->f;
}

void fs_dev_init(void)
{
    struct fsnode *dir = fs_mkdir_boot("dev", 0755), *n;

    for (size_t i = 0; dir && i < sizeof devs / sizeof devs[0]; i++) {
        if (!(n = fs_node_new(S_IFCHR | 0666)))
            break;
        n->dev = &devs[i];
        if (fs_dir_add(dir, devs[i].name, strlen(devs[i].name), n)) {
            fs_node_release(n);
            break;
        }
    }
}
