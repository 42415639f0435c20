/*
 * fsexport_test - posix/fsexport.c's export stream, encoded from a tree
 * on the host's file system, and tools/run/fsexport.py's decoding of it:
 * the tree comes back byte for byte and mode for mode (as a folder and
 * as a cpio archive), what cannot be sent is said and skipped with the
 * stream still whole, and a stream that is cut short, damaged or names a
 * path outside the output is refused with nothing written.  Run from the
 * top of the tree (python3 runs the tool).
 */
#define _GNU_SOURCE             /* memmem */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "kernel/crc32.h"
#include "posix/cpio.h"
#include "posix/fsexport.h"

static char top[256];           /* the test's temporary folder */
static char said[4096];         /* the encoder's lines, one a line */

struct buf {
    unsigned char *p;
    size_t len, cap;
    size_t fail_after;          /* put fails once len would pass it; 0: never */
};

static bool buf_put(void *arg, const void *b, size_t n)
{
    struct buf *s = arg;

    if (s->fail_after && s->len + n > s->fail_after)
        return false;
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + s->len, b, n);
    s->len += n;
    return true;
}

static void buf_say(void *arg, const char *line)
{
    (void)arg;
    strncat(said, line, sizeof said - strlen(said) - 2);
    strcat(said, "\n");
}

static void writef(const char *rel, const void *data, size_t n, mode_t mode)
{
    char p[PATH_MAX];
    int fd;

    snprintf(p, sizeof p, "%s/%s", top, rel);
    fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n)
        abort();
    close(fd);
    chmod(p, mode);
}

static void save(const char *rel, const struct buf *s)
{
    writef(rel, s->p, s->len, 0644);
}

static int sh(const char *fmt, ...)
{
    char cmd[2 * PATH_MAX];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static unsigned char big[200000];

/* The tree: a folder with files (an empty one, one past the encoder's
   chunk, one with a space in its name and mode 0600), a subfolder, a
   symbolic link, a FIFO (skipped). */
static void make_tree(void)
{
    char p[PATH_MAX];

    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 7 + i / 251);
    snprintf(p, sizeof p, "%s/tree", top);
    if (mkdir(p, 0750))
        abort();
    snprintf(p, sizeof p, "%s/tree/sub", top);
    if (mkdir(p, 0755))
        abort();
    writef("tree/empty", "", 0, 0644);
    writef("tree/big.rdb", big, sizeof big, 0644);
    writef("tree/sub/a file", "hello\n", 6, 0600);
    snprintf(p, sizeof p, "%s/tree/link", top);
    if (symlink("sub/a file", p))
        abort();
    snprintf(p, sizeof p, "%s/tree/fifo", top);
    if (mkfifo(p, 0644))
        abort();
}

static struct buf encode(const char *rel, size_t fail_after)
{
    struct buf s = { .fail_after = fail_after };
    struct fsexport_out o = { .put = buf_put, .say = buf_say, .arg = &s };
    char p[PATH_MAX];

    said[0] = 0;
    snprintf(p, sizeof p, "%s/%s", top, rel);
    fsexport_begin(&o);
    fsexport_path(&o, p);
    fsexport_end(&o);
    return s;
}

TEST(round_trip_folder)
{
    struct buf s = encode("tree", 0);
    struct stat st;
    char p[PATH_MAX];

    if (!CHECK(s.len > sizeof big))
        return;
    CHECK(!memcmp(s.p, FSEXPORT_MAGIC, strlen(FSEXPORT_MAGIC)));
    CHECK(strstr(said, "fifo: is not a folder, a file or a symbolic link"));
    save("stream", &s);
    /* Two folders, three files, one link: six records. */
    CHECK(!memcmp(s.p + s.len - 4, "E 6\n", 4));
    /* Something the exported folder no longer holds goes; something
       outside it stays. */
    CHECK(sh("mkdir -p %s/out%s/tree/sub/old && touch %s/out%s/tree/stale %s/out/kept",
             top, top, top, top, top) == 0);
    CHECK(sh("python3 tools/run/fsexport.py %s/stream %s/out >/dev/null", top, top) == 0);
    CHECK(sh("test -f %s/out/kept", top) == 0);
    CHECK(sh("diff -r --no-dereference -x fifo %s/tree %s/out%s/tree", top, top, top) == 0);
    snprintf(p, sizeof p, "%s/out%s/tree/sub/a file", top, top);
    CHECK(!stat(p, &st) && (st.st_mode & 07777) == 0600);
    snprintf(p, sizeof p, "%s/out%s/tree/fifo", top, top);
    CHECK(lstat(p, &st) < 0);
    free(s.p);
}

/* The archive, as the guest's reader (posix/cpio.c) walks it. */
TEST(round_trip_cpio)
{
    struct buf s = encode("tree/sub", 0);
    static unsigned char arc[65536];
    char p[PATH_MAX], want[PATH_MAX];
    struct cpio_reader r;
    struct cpio_entry e;
    ssize_t n;
    int fd, k, found = 0;

    save("stream2", &s);
    CHECK(sh("python3 tools/run/fsexport.py %s/stream2 %s/x.cpio >/dev/null", top, top) == 0);
    snprintf(p, sizeof p, "%s/x.cpio", top);
    fd = open(p, O_RDONLY);
    n = fd < 0 ? -1 : read(fd, arc, sizeof arc);
    if (fd >= 0)
        close(fd);
    if (!CHECK(n > 0))
        return;
    snprintf(want, sizeof want, "%s/tree/sub/a file", top + 1);
    cpio_begin(&r, arc, (size_t)n);
    while ((k = cpio_next(&r, &e)) == 1)
        if (!strcmp(e.name, want))
            found = e.mode == 0100600 && e.size == 6 &&
                    !memcmp(e.data, "hello\n", 6);
    CHECK(k == 0);
    CHECK(found);
    free(s.p);
}

/* Other output before the stream (a trace dump on the same channel). */
TEST(stream_after_other_output)
{
    struct buf s = encode("tree/empty", 0);
    struct buf t = { 0 };

    buf_put(&t, "TRACE BEGIN 1\nSPINDLE-EXPORT 1 is not at a line start\n", 54);
    buf_put(&t, s.p, s.len);
    save("stream3", &t);
    CHECK(sh("python3 tools/run/fsexport.py %s/stream3 %s/out3 >/dev/null", top, top) == 0);
    CHECK(sh("test -f %s/out3%s/tree/empty", top, top) == 0);
    free(s.p);
    free(t.p);
}

TEST(missing_path_said)
{
    struct buf s = encode("no-such", 0);

    CHECK(strstr(said, "no-such: not exported: No such file or directory"));
    CHECK(s.len == strlen(FSEXPORT_MAGIC) + 4 &&
          !memcmp(s.p + strlen(FSEXPORT_MAGIC), "E 0\n", 4));
    free(s.p);
}

/* The channel fails mid-way: the encoder stops, the stream has no end. */
TEST(put_failure_stops)
{
    struct buf s = encode("tree", 1000);

    CHECK(s.len <= 1000 && s.len > 0);
    CHECK(!memmem(s.p, s.len, "\nE ", 3));
    save("cut", &s);
    CHECK(sh("python3 tools/run/fsexport.py %s/cut %s/outcut 2>/dev/null", top, top) == 1);
    CHECK(sh("test -e %s/outcut", top) != 0);
    free(s.p);
}

TEST(damage_refused)
{
    struct buf s = encode("tree/big.rdb", 0);
    char *rec;

    if (!CHECK(s.len > 100000))
        return;
    /* Cut short inside the data. */
    save("short", &(struct buf){ s.p, 50000, 0, 0 });
    CHECK(sh("python3 tools/run/fsexport.py %s/short %s/o1 2>&1 | grep -q 'cut short in its data'", top, top) == 0);
    /* One byte of the data flipped. */
    s.p[100000] ^= 1;
    save("flipped", &s);
    CHECK(sh("python3 tools/run/fsexport.py %s/flipped %s/o2 2>&1 | grep -q 'CRC mismatch'", top, top) == 0);
    CHECK(sh("test -e %s/o2", top) != 0);
    s.p[100000] ^= 1;
    /* A path that climbs out of the output. */
    rec = memmem(s.p, s.len, "F 644", 5);
    if (CHECK(rec)) {
        char *name = strchr(rec + 6, ' ') + 1;

        memcpy(name, "../", 3);
        save("climb", &s);
        CHECK(sh("python3 tools/run/fsexport.py %s/climb %s/o3 2>&1 | grep -q 'is not relative and plain'", top, top) == 0);
    }
    /* No stream at all. */
    save("none", &(struct buf){ (unsigned char *)"console only\n", 13, 0, 0 });
    CHECK(sh("python3 tools/run/fsexport.py %s/none %s/o4 2>/dev/null", top, top) == 2);
    free(s.p);
}

int main(int argc, char **argv)
{
    char tmpl[] = "/tmp/fsexport_test.XXXXXX";
    int rc;

    char *real;

    if (!mkdtemp(tmpl) || !(real = realpath(tmpl, NULL)) ||
        strlen(real) >= sizeof top)
        return 1;
    strcpy(top, real);
    free(real);
    make_tree();
    rc = h_run(argc, argv);
    sh("rm -rf %s", top);
    return rc;
}
