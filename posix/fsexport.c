/*
 * fsexport.c - the export stream's encoder (posix/fsexport.h): plain
 * POSIX calls on the file system, so that the host test
 * (tests/host/fsexport_test.c) runs the same code on Linux's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel/crc32.h"
#include "posix/fsexport.h"

#define CHUNK 65536

/* One walk: the path being written (abs: "/" then rel) and a read buffer. */
struct walk {
    struct fsexport_out *o;
    char abs[PATH_MAX + 2];
    size_t len;                 /* strlen(abs) */
    unsigned char *buf;         /* CHUNK bytes */
};

static bool put(struct fsexport_out *o, const void *buf, size_t n)
{
    if (o->failed)
        return false;
    if (n && !o->put(o->arg, buf, n))
        o->failed = true;
    return !o->failed;
}

static void say(struct walk *w, const char *what, int err)
{
    char line[PATH_MAX + 128];

    snprintf(line, sizeof line, "%s: %s%s%s", w->abs, what,
             err ? ": " : "", err ? strerror(err) : "");
    w->o->say(w->o->arg, line);
}

/* The stream's name of w->abs: without its leading slash, "." for /. */
static const char *rel(const struct walk *w)
{
    return w->len > 1 ? w->abs + 1 : ".";
}

static bool header(struct walk *w, char type, mode_t mode, long long size)
{
    char line[PATH_MAX + 64];
    int n;

    if (size < 0)
        n = snprintf(line, sizeof line, "%c %o %s\n", type,
                     (unsigned)(mode & 07777), rel(w));
    else
        n = snprintf(line, sizeof line, "%c %o %lld %s\n", type,
                     (unsigned)(mode & 07777), size, rel(w));
    w->o->records++;
    return put(w->o, line, (size_t)n);
}

static bool trailer(struct walk *w, uint32_t crc)
{
    char line[16];
    int n = snprintf(line, sizeof line, "C %08x\n", (unsigned)crc);

    return put(w->o, line, (size_t)n);
}

/* A file's record: size bytes as fstat gave them, zeros past a shrink. */
static bool file(struct walk *w, const struct stat *st)
{
    int fd = open(w->abs, O_RDONLY | O_CLOEXEC);
    long long left = st->st_size;
    uint32_t crc = 0;
    bool shrank = false;

    if (fd < 0) {
        say(w, "not exported", errno);
        return !w->o->failed;
    }
    if (!header(w, 'F', st->st_mode, st->st_size)) {
        close(fd);
        return false;
    }
    while (left > 0) {
        size_t want = left < CHUNK ? (size_t)left : CHUNK;
        ssize_t got = shrank ? 0 : read(fd, w->buf, want);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (!shrank)
                say(w, got < 0 ? "read failed; zeros sent for the rest"
                               : "shrank while read; zeros sent for the rest",
                    got < 0 ? errno : 0);
            shrank = true;
            memset(w->buf, 0, want);
            got = (ssize_t)want;
        }
        crc = crc32_update(crc, w->buf, (size_t)got);
        if (!put(w->o, w->buf, (size_t)got)) {
            close(fd);
            return false;
        }
        left -= got;
    }
    close(fd);
    return trailer(w, crc);
}

static bool symlink_record(struct walk *w, const struct stat *st)
{
    char target[PATH_MAX];
    ssize_t n = readlink(w->abs, target, sizeof target);

    if (n < 0) {
        say(w, "not exported", errno);
        return !w->o->failed;
    }
    return header(w, 'L', st->st_mode, n) && put(w->o, target, (size_t)n) &&
           trailer(w, crc32_update(0, target, (size_t)n));
}

/* Appends /name to w->abs; false (said) if the path would be too long or
   the name cannot go in a line. */
static bool push(struct walk *w, const char *name)
{
    size_t n = strlen(name);

    if (w->len + 1 + n > PATH_MAX) {
        say(w, "a name under it makes too long a path; not exported", 0);
        return false;
    }
    if (w->len > 1)
        w->abs[w->len++] = '/';
    memcpy(w->abs + w->len, name, n + 1);
    w->len += n;
    if (strchr(name, '\n')) {
        say(w, "has a newline in its name; not exported", 0);
        return false;
    }
    return true;
}

static bool node(struct walk *w);

static bool folder(struct walk *w, const struct stat *st)
{
    DIR *d;
    struct dirent *e;
    size_t len = w->len;
    bool ok = true;

    if (!header(w, 'D', st->st_mode, -1))
        return false;
    if (!(d = opendir(w->abs))) {
        say(w, "cannot be listed", errno);
        return !w->o->failed;
    }
    while (ok && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (push(w, e->d_name))
            ok = node(w);
        w->len = len;
        w->abs[len] = 0;
    }
    closedir(d);
    return ok;
}

static bool node(struct walk *w)
{
    struct stat st;

    if (lstat(w->abs, &st) < 0) {
        say(w, "not exported", errno);
        return !w->o->failed;
    }
    switch (st.st_mode & S_IFMT) {
    case S_IFDIR:
        return folder(w, &st);
    case S_IFREG:
        return file(w, &st);
    case S_IFLNK:
        return symlink_record(w, &st);
    default:
        say(w, "is not a folder, a file or a symbolic link; not exported", 0);
        return !w->o->failed;
    }
}

bool fsexport_begin(struct fsexport_out *o)
{
    return put(o, FSEXPORT_MAGIC, strlen(FSEXPORT_MAGIC));
}

bool fsexport_path(struct fsexport_out *o, const char *path)
{
    struct walk *w = malloc(sizeof *w);
    char *canon;
    bool ok;

    if (!w || !(w->buf = malloc(CHUNK))) {
        free(w);
        o->say(o->arg, "out of memory; nothing exported");
        return !o->failed;
    }
    w->o = o;
    /* Its name in the stream is where it is, its links resolved; what
       lies under it is walked without following links. */
    if (!(canon = realpath(path, NULL))) {
        snprintf(w->abs, sizeof w->abs, "%s", path);
        w->len = strlen(w->abs);
        say(w, "not exported", errno);
        ok = !o->failed;
    } else if (strlen(canon) > PATH_MAX || strchr(canon, '\n')) {
        snprintf(w->abs, sizeof w->abs, "%.*s", PATH_MAX, canon);
        w->len = strlen(w->abs);
        say(w, "too long a path, or a newline in it; not exported", 0);
        ok = !o->failed;
    } else {
        strcpy(w->abs, canon);
        w->len = strlen(canon);
        ok = node(w);
    }
    free(canon);
    free(w->buf);
    free(w);
    return ok;
}

bool fsexport_end(struct fsexport_out *o)
{
    char line[32];
    int n = snprintf(line, sizeof line, "E %lu\n", o->records);

    return put(o, line, (size_t)n);
}
