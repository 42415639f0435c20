/*
 * fs - the RAM file system's calls, booted with fsmax=4 (MiB):
 *
 *   file_calls      open's flags (O_CREAT, O_EXCL, O_TRUNC, O_APPEND,
 *                   O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW), read, write,
 *                   pread, pwrite, lseek, fstat, ftruncate (a shrink
 *                   then a growth reads zeros), a hole, fsync, the
 *                   access modes (EBADF), and the errors of each
 *   folders         mkdir, rmdir (ENOTEMPTY, EEXIST), readdir's names
 *                   and types, a walk that survives a removal, chdir,
 *                   getcwd, fchdir, relative paths and "..", openat and
 *                   unlinkat from a folder's descriptor, realpath,
 *                   rename of a folder, into itself (EINVAL)
 *   links           symlink, readlink, lstat, a link followed and not,
 *                   a loop (ELOOP), a hard link: two names, one file
 *   unlink_open     a removed file lives on through its descriptor; its
 *                   pages go back to the kernel with the last close
 *   stdio_files     fopen, fprintf, fgets, fseek, ftell, fread, fwrite,
 *                   rename and remove through stdio; mkstemp, tmpfile
 *   devices         /dev/null, zero, full, urandom, console; isatty
 *   append_cores    a G per core and more append records to one file
 *                   through their own descriptors (O_APPEND): none lost,
 *                   none torn
 *   pwrite_cores    Gs on every core pwrite their own stripes of one
 *                   file while others pread it: every read sees whole
 *                   blocks, the end is every stripe's
 *   rename_atomic   a G renames new versions of a file over its name
 *                   while others open and read it: always a whole
 *                   version, never ENOENT
 *   enospc          writes fail with ENOSPC at fsmax (a short write
 *                   first), then work again once a file is removed
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include "tests/lib/testutil.h"

static long fsmax_mib = 4;      /* from the command line's "fsmax=" */
static int ncores = 1;

static uint8_t pattern(uint64_t i, unsigned seed)
{
    return (uint8_t)((i * 2654435761u) >> 13 ^ seed);
}

/* Writes n bytes of pattern seed from offset at, whole. */
static bool write_pattern(int fd, size_t n, unsigned seed)
{
    uint8_t buf[1000];

    for (size_t done = 0; done < n;) {
        size_t k = n - done < sizeof buf ? n - done : sizeof buf;

        for (size_t i = 0; i < k; i++)
            buf[i] = pattern(done + i, seed);
        if (write(fd, buf, k) != (ssize_t)k)
            return false;
        done += k;
    }
    return true;
}

/* ---- file_calls ------------------------------------------------------ */

TEST(file_calls)
{
    char buf[64];
    struct stat st;
    int fd, fd2;

    CHECK(open("/tmp/a", O_RDONLY) < 0 && errno == ENOENT);
    fd = open("/tmp/a", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    CHECK(fd >= 3);
    CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC);
    CHECK(open("/tmp/a", O_RDWR | O_CREAT | O_EXCL, 0640) < 0 && errno == EEXIST);
    CHECK(write(fd, "hello, world", 12) == 12);
    CHECK(lseek(fd, 0, SEEK_CUR) == 12);
    CHECK(lseek(fd, 7, SEEK_SET) == 7);
    CHECK(read(fd, buf, sizeof buf) == 5 && memcmp(buf, "world", 5) == 0);
    CHECK(read(fd, buf, sizeof buf) == 0);
    CHECK(pwrite(fd, "W", 1, 7) == 1);
    CHECK(pread(fd, buf, 5, 7) == 5 && memcmp(buf, "World", 5) == 0);
    CHECK(lseek(fd, 0, SEEK_CUR) == 12);        /* pread/pwrite keep it */
    CHECK(lseek(fd, -1, SEEK_SET) < 0 && errno == EINVAL);
    CHECK(lseek(fd, 0, 42) < 0 && errno == EINVAL);
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
          (st.st_mode & 0777) == (0640 & ~022) && st.st_size == 12 &&
          st.st_nlink == 1);
    CHECK(stat("/tmp/a", &st) == 0 && st.st_size == 12);
    /* A hole past the end reads as zeros; the end follows the write. */
    CHECK(pwrite(fd, "!", 1, 10000) == 1);
    CHECK(pread(fd, buf, 4, 9000) == 4 && memcmp(buf, "\0\0\0\0", 4) == 0);
    CHECK(fstat(fd, &st) == 0 && st.st_size == 10001);
    /* Shrink, then grow: the cut bytes read as zeros. */
    CHECK(ftruncate(fd, 3) == 0);
    CHECK(ftruncate(fd, 8) == 0);
    CHECK(pread(fd, buf, 16, 0) == 8 && memcmp(buf, "hel\0\0\0\0\0", 8) == 0);
    CHECK(ftruncate(fd, -1) < 0 && errno == EINVAL);
    CHECK(fsync(fd) == 0 && fdatasync(fd) == 0);
    CHECK(truncate("/tmp/a", 2) == 0 && stat("/tmp/a", &st) == 0 &&
          st.st_size == 2);
    CHECK(close(fd) == 0);

    /* O_TRUNC, O_APPEND, and the access modes. */
    fd = open("/tmp/a", O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0);
    CHECK(read(fd, buf, 1) < 0 && errno == EBADF);
    CHECK(write(fd, "abc", 3) == 3);
    fd2 = open("/tmp/a", O_WRONLY | O_APPEND);
    CHECK(fd2 >= 0 && lseek(fd, 0, SEEK_SET) == 0);
    CHECK(write(fd2, "de", 2) == 2 && write(fd, "X", 1) == 1);
    CHECK(lseek(fd2, 0, SEEK_CUR) == 5);
    CHECK(close(fd) == 0 && close(fd2) == 0);
    fd = open("/tmp/a", O_RDONLY);
    CHECK(fd >= 0 && write(fd, "x", 1) < 0 && errno == EBADF);
    CHECK(ftruncate(fd, 0) < 0 && errno == EINVAL);
    CHECK(read(fd, buf, sizeof buf) == 5 && memcmp(buf, "Xbcde", 5) == 0);
    CHECK(close(fd) == 0);

    /* The errors of paths. */
    CHECK(open("/tmp", O_RDWR) < 0 && errno == EISDIR);
    CHECK(open("/tmp/a", O_RDONLY | O_DIRECTORY) < 0 && errno == ENOTDIR);
    CHECK(open("/tmp/a/b", O_RDONLY) < 0 && errno == ENOTDIR);
    CHECK(open("/tmp/a/", O_RDONLY) < 0 && errno == ENOTDIR);
    CHECK(open("/nowhere/b", O_RDWR | O_CREAT, 0600) < 0 && errno == ENOENT);
    CHECK(open("", O_RDONLY) < 0 && errno == ENOENT);
    memset(buf, 'n', sizeof buf);
    buf[sizeof buf - 1] = 0;
    {
        char longname[300];

        memset(longname, 'n', sizeof longname);
        longname[0] = '/';
        longname[sizeof longname - 1] = 0;
        CHECK(open(longname, O_RDWR | O_CREAT, 0600) < 0 &&
              errno == ENAMETOOLONG);
    }
    CHECK(access("/tmp/a", R_OK | W_OK) == 0);
    CHECK(access("/tmp/a", X_OK) < 0 && errno == EACCES);
    CHECK(chmod("/tmp/a", 0755) == 0 && access("/tmp/a", X_OK) == 0);
    CHECK(access("/tmp/none", F_OK) < 0 && errno == ENOENT);
    CHECK(unlink("/tmp/a") == 0);
    CHECK(unlink("/tmp/a") < 0 && errno == ENOENT);
    CHECK(unlink("/tmp") < 0 && errno == EISDIR);
}

/* ---- folders ---------------------------------------------------------- */

/* The names in folder path (not "." or ".."), sorted, joined by ','. */
static bool names(const char *path, char *out, size_t n)
{
    struct dirent **list;
    int k = scandir(path, &list, NULL, alphasort);

    if (k < 0)
        return false;
    *out = 0;
    for (int i = 0; i < k; i++) {
        if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
            if (*out)
                strncat(out, ",", n - strlen(out) - 1);
            strncat(out, list[i]->d_name, n - strlen(out) - 1);
        }
        free(list[i]);
    }
    free(list);
    return true;
}

TEST(folders)
{
    char buf[PATH_MAX], got[256];
    struct dirent *e;
    struct stat st;
    DIR *d;
    int fd, dfd, seen = 0;

    CHECK(mkdir("/tmp/d", 0755) == 0);
    CHECK(mkdir("/tmp/d", 0755) < 0 && errno == EEXIST);
    CHECK(mkdir("/tmp/d/e", 0700) == 0);
    CHECK(mkdir("/tmp/none/e", 0700) < 0 && errno == ENOENT);
    CHECK(close(open("/tmp/d/f1", O_CREAT | O_WRONLY, 0600)) == 0);
    CHECK(close(open("/tmp/d/f2", O_CREAT | O_WRONLY, 0600)) == 0);
    CHECK(stat("/tmp/d", &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink == 3);
    CHECK(names("/tmp/d", got, sizeof got) && strcmp(got, "e,f1,f2") == 0);
    CHECK(rmdir("/tmp/d") < 0 && errno == ENOTEMPTY);
    CHECK(rmdir("/tmp/d/f1") < 0 && errno == ENOTDIR);

    /* Types, and a walk that survives a removal behind it. */
    CHECK((d = opendir("/tmp/d")) != NULL);
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, "e"))
            seen |= e->d_type == DT_DIR ? 1 : 16;
        if (!strcmp(e->d_name, "f1")) {
            seen |= e->d_type == DT_REG ? 2 : 16;
            CHECK(unlink("/tmp/d/f1") == 0);
        }
        if (!strcmp(e->d_name, "f2"))
            seen |= e->d_type == DT_REG ? 4 : 16;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            seen |= 8;
    }
    CHECKF(seen == 15, "seen %#x", seen);
    rewinddir(d);
    CHECK((e = readdir(d)) && !strcmp(e->d_name, "."));
    CHECK(closedir(d) == 0);
    CHECK(opendir("/tmp/d/f2") == NULL && errno == ENOTDIR);

    /* The current folder, relative paths, "..". */
    CHECK(getcwd(buf, sizeof buf) && !strcmp(buf, "/"));
    CHECK(chdir("/tmp/d/e") == 0);
    CHECK(getcwd(buf, sizeof buf) && !strcmp(buf, "/tmp/d/e"));
    CHECK(getcwd(buf, 5) == NULL && errno == ERANGE);
    CHECK((fd = open("../f2", O_RDONLY)) >= 0 && close(fd) == 0);
    CHECK(close(open("here", O_CREAT | O_WRONLY, 0600)) == 0);
    CHECK(stat("/tmp/d/e/here", &st) == 0);
    CHECK(realpath("../../d/./e//here", buf) && !strcmp(buf, "/tmp/d/e/here"));
    CHECK(realpath("..", buf) && !strcmp(buf, "/tmp/d"));
    CHECK(realpath("/", buf) && !strcmp(buf, "/"));
    CHECK(realpath("nothere", buf) == NULL && errno == ENOENT);
    CHECK(chdir("here") < 0 && errno == ENOTDIR);
    CHECK((dfd = open("/tmp/d", O_RDONLY | O_DIRECTORY)) >= 0);
    CHECK(fchdir(dfd) == 0 && getcwd(buf, sizeof buf) && !strcmp(buf, "/tmp/d"));
    CHECK(chdir("/") == 0);

    /* openat, fstatat and unlinkat from a folder's descriptor. */
    CHECK((fd = openat(dfd, "g", O_CREAT | O_WRONLY, 0600)) >= 0 && close(fd) == 0);
    CHECK(fstatat(dfd, "g", &st, 0) == 0 && S_ISREG(st.st_mode));
    CHECK(unlinkat(dfd, "g", 0) == 0 && fstatat(dfd, "g", &st, 0) < 0);
    CHECK(mkdirat(dfd, "h", 0700) == 0);
    CHECK(unlinkat(dfd, "h", 0) < 0 && errno == EISDIR);
    CHECK(unlinkat(dfd, "h", AT_REMOVEDIR) == 0);
    CHECK(openat(0, "g", O_RDONLY) < 0 && errno == ENOTDIR);
    CHECK(close(dfd) == 0);

    /* Folders renamed, and the one rename a folder may not make. */
    CHECK(rename("/tmp/d", "/tmp/d/e/inside") < 0 && errno == EINVAL);
    CHECK(rename("/tmp/d/e", "/tmp/e2") == 0);
    CHECK(stat("/tmp/e2/here", &st) == 0 && stat("/tmp/d/e", &st) < 0);
    CHECK(stat("/tmp/d", &st) == 0 && st.st_nlink == 2);
    CHECK(mkdir("/tmp/empty", 0755) == 0);
    CHECK(rename("/tmp/e2", "/tmp/d") < 0 && errno == ENOTEMPTY);
    CHECK(rename("/tmp/e2", "/tmp/empty") == 0);
    CHECK(stat("/tmp/empty/here", &st) == 0);
    CHECK(rename("/tmp/d/f2", "/tmp/empty") < 0 && errno == EISDIR);
    CHECK(unlink("/tmp/empty/here") == 0 && rmdir("/tmp/empty") == 0);
    CHECK(unlink("/tmp/d/f2") == 0 && rmdir("/tmp/d") == 0);
    CHECK(rmdir("/") < 0 && errno == EBUSY);
    CHECK(names("/tmp", got, sizeof got) && strcmp(got, "") == 0);
}

/* ---- links ------------------------------------------------------------- */

TEST(links)
{
    char buf[64];
    struct stat st;
    int fd;

    fd = open("/tmp/target", O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0 && write(fd, "data", 4) == 4 && close(fd) == 0);
    CHECK(symlink("target", "/tmp/sl") == 0);
    CHECK(symlink("target", "/tmp/sl") < 0 && errno == EEXIST);
    CHECK(readlink("/tmp/sl", buf, sizeof buf) == 6 && !memcmp(buf, "target", 6));
    CHECK(readlink("/tmp/target", buf, sizeof buf) < 0 && errno == EINVAL);
    CHECK(lstat("/tmp/sl", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 6);
    CHECK(stat("/tmp/sl", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4);
    CHECK((fd = open("/tmp/sl", O_RDONLY)) >= 0 &&
          read(fd, buf, sizeof buf) == 4 && close(fd) == 0);
    CHECK(open("/tmp/sl", O_RDONLY | O_NOFOLLOW) < 0 && errno == ELOOP);
    CHECK(symlink("/tmp", "/tmp/dl") == 0);
    CHECK(stat("/tmp/dl/target", &st) == 0 && st.st_size == 4);
    CHECK(realpath("/tmp/dl/sl", buf) && !strcmp(buf, "/tmp/target"));
    CHECK(symlink("loop2", "/tmp/loop1") == 0 && symlink("loop1", "/tmp/loop2") == 0);
    CHECK(open("/tmp/loop1", O_RDONLY) < 0 && errno == ELOOP);

    CHECK(link("/tmp/target", "/tmp/hard") == 0);
    CHECK(stat("/tmp/hard", &st) == 0 && st.st_nlink == 2);
    CHECK(unlink("/tmp/target") == 0);
    CHECK(stat("/tmp/hard", &st) == 0 && st.st_nlink == 1 && st.st_size == 4);
    CHECK(stat("/tmp/sl", &st) < 0 && errno == ENOENT);    /* dangling */
    CHECK(link("/tmp", "/tmp/x") < 0 && errno == EPERM);
    for (const char *p = "/tmp/hard\0/tmp/sl\0/tmp/dl\0/tmp/loop1\0/tmp/loop2\0";
         *p; p += strlen(p) + 1)
        CHECK(unlink(p) == 0);
}

/* ---- unlink_open ----------------------------------------------------- */

TEST(unlink_open)
{
    size_t before = mem_free_count(), after;
    char buf[8];
    int fd = open("/tmp/gone", O_CREAT | O_RDWR, 0600);

    CHECK(fd >= 0 && write_pattern(fd, 256 << 10, 7));
    CHECK(unlink("/tmp/gone") == 0);
    CHECK(access("/tmp/gone", F_OK) < 0);
    CHECK(pread(fd, buf, 8, 100000) == 8);
    for (int i = 0; i < 8; i++)
        CHECK(buf[i] == (char)pattern(100000 + i, 7));
    CHECK(write(fd, "more", 4) == 4);
    CHECK(mem_free_count() + 64 <= before);     /* its 64 pages */
    CHECK(close(fd) == 0);
    after = mem_free_count();
    /* The pages are back with the last close (some of the heap's may
       have moved meanwhile). */
    CHECKF(after + 4 >= before, "%zu pages free before, %zu after", before, after);
}

/* ---- stdio_files ------------------------------------------------------ */

TEST(stdio_files)
{
    char line[64], tmpl[] = "/tmp/stXXXXXX";
    FILE *f = fopen("/tmp/s.txt", "w+");
    int fd;

    CHECK(f != NULL);
    for (int i = 0; i < 1000; i++)
        CHECK(fprintf(f, "line %d\n", i) > 0);
    CHECK(fflush(f) == 0);
    CHECK(fseek(f, 0, SEEK_SET) == 0);
    for (int i = 0; i < 1000; i++) {
        char want[32];

        snprintf(want, sizeof want, "line %d\n", i);
        CHECK(fgets(line, sizeof line, f) && !strcmp(line, want));
    }
    CHECK(fgets(line, sizeof line, f) == NULL && feof(f));
    CHECK(ftell(f) == 8890);
    CHECK(fclose(f) == 0);
    CHECK((f = fopen("/tmp/s.txt", "a")) && fwrite("end\n", 1, 4, f) == 4 &&
          fclose(f) == 0);
    CHECK((f = fopen("/tmp/s.txt", "r")) && fseek(f, -4, SEEK_END) == 0 &&
          fread(line, 1, 4, f) == 4 && !memcmp(line, "end\n", 4) && fclose(f) == 0);
    CHECK(rename("/tmp/s.txt", "/tmp/t.txt") == 0);
    CHECK(fopen("/tmp/s.txt", "r") == NULL && errno == ENOENT);
    CHECK(remove("/tmp/t.txt") == 0);

    CHECK((fd = mkstemp(tmpl)) >= 0 && strncmp(tmpl, "/tmp/st", 7) == 0);
    CHECK(write(fd, "x", 1) == 1 && close(fd) == 0 && unlink(tmpl) == 0);
    CHECK((f = tmpfile()) != NULL && fputs("tmp", f) >= 0 && fclose(f) == 0);
}

/* ---- devices ------------------------------------------------------------ */

TEST(devices)
{
    unsigned char buf[256], zero[256] = { 0 };
    struct stat st;
    int fd, ones = 0;

    CHECK((fd = open("/dev/null", O_RDWR)) >= 0);
    CHECK(write(fd, buf, sizeof buf) == sizeof buf && read(fd, buf, 1) == 0);
    CHECK(!isatty(fd) && errno == ENOTTY);
    CHECK(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == (1 << 8 | 3));
    CHECK(close(fd) == 0);
    CHECK((fd = open("/dev/zero", O_RDONLY)) >= 0);
    memset(buf, 1, sizeof buf);
    CHECK(read(fd, buf, sizeof buf) == sizeof buf && !memcmp(buf, zero, sizeof buf));
    CHECK(close(fd) == 0);
    CHECK((fd = open("/dev/full", O_WRONLY)) >= 0);
    CHECK(write(fd, "x", 1) < 0 && errno == ENOSPC && close(fd) == 0);
    CHECK((fd = open("/dev/urandom", O_RDONLY)) >= 0);
    CHECK(read(fd, buf, sizeof buf) == sizeof buf && close(fd) == 0);
    for (size_t i = 0; i < sizeof buf; i++)
        ones += __builtin_popcount(buf[i]);
    CHECKF(ones > 800 && ones < 1248, "%d one bits in 2048", ones);
    CHECK((fd = open("/dev/console", O_WRONLY)) >= 0 && isatty(fd));
    CHECK(write(fd, "console through /dev/console\n", 29) == 29 && close(fd) == 0);
    CHECK(stat("/dev", &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(open("/dev/nothing", O_RDONLY) < 0 && errno == ENOENT);
}

/* ---- append_cores ------------------------------------------------------- */

#define REC_LEN 48

struct appender {
    int id, n, err;
    sp_waitgroup *wg;
};

static void appender_main(void *p)
{
    struct appender *a = p;
    int fd = open("/tmp/log", O_WRONLY | O_APPEND | O_CREAT, 0600);
    char rec[REC_LEN];

    for (int i = 0; fd >= 0 && i < a->n && !a->err; i++) {
        memset(rec, 'a' + a->id % 26, sizeof rec);
        snprintf(rec, sizeof rec, "%03d %06d", a->id, i);
        rec[10] = ' ';
        rec[REC_LEN - 1] = '\n';
        if (write(fd, rec, sizeof rec) != sizeof rec)
            a->err = errno ? errno : -1;
        if (i % 16 == 0)
            sp_yield();
    }
    if (fd < 0)
        a->err = errno;
    else
        close(fd);
    sp_waitgroup_done(a->wg);
}

TEST(append_cores)
{
    enum { WRITERS = 16 };
    int per = ncores > 1 ? 400 : 200, *next = calloc(WRITERS, sizeof *next);
    struct appender a[WRITERS];
    sp_waitgroup wg = SP_WAITGROUP_INIT;
    char rec[REC_LEN];
    struct stat st;
    int fd;

    sp_waitgroup_add(&wg, WRITERS);
    for (int i = 0; i < WRITERS; i++) {
        a[i] = (struct appender){ .id = i, .n = per, .wg = &wg };
        sp_go(appender_main, &a[i]);
    }
    sp_waitgroup_wait(&wg);
    for (int i = 0; i < WRITERS; i++)
        CHECKF(!a[i].err, "writer %d: errno %d", i, a[i].err);
    CHECK(stat("/tmp/log", &st) == 0 && st.st_size == (off_t)WRITERS * per * REC_LEN);
    CHECK((fd = open("/tmp/log", O_RDONLY)) >= 0);
    for (int k = 0; k < WRITERS * per; k++) {
        int id, seq;

        CHECK(read(fd, rec, sizeof rec) == sizeof rec);
        CHECKF(sscanf(rec, "%d %d", &id, &seq) == 2 && id >= 0 && id < WRITERS,
               "record %d torn", k);
        CHECKF(seq == next[id], "writer %d: record %d after %d", id, seq, next[id] - 1);
        next[id]++;
        for (int j = 11; j < REC_LEN - 1; j++)
            CHECKF(rec[j] == 'a' + id % 26, "record %d torn at %d", k, j);
    }
    CHECK(close(fd) == 0 && unlink("/tmp/log") == 0);
    free(next);
}

/* ---- pwrite_cores -------------------------------------------------------- */

#define BLOCK 512
#define STRIPES 8
#define BLOCKS_PER 64

struct striper {
    int fd, id, rounds, err;
    bool reader;
    sp_waitgroup *wg;
};

/* Block b of round r: every byte the same, naming both. */
static uint8_t block_byte(int b, int r)
{
    return (uint8_t)(b * 7 + r * 13 + 1);
}

static void striper_main(void *p)
{
    struct striper *s = p;
    uint8_t buf[BLOCK];

    for (int r = 0; r < s->rounds && !s->err; r++)
        for (int k = 0; k < BLOCKS_PER && !s->err; k++) {
            int b = s->reader ? (r * 31 + k) % (STRIPES * BLOCKS_PER)
                              : s->id * BLOCKS_PER + k;
            off_t at = (off_t)b * BLOCK;

            if (s->reader) {
                ssize_t n = pread(s->fd, buf, BLOCK, at);

                if (n != 0 && n != BLOCK)
                    s->err = 1000;      /* a short block: torn */
                for (int i = 1; n == BLOCK && i < BLOCK; i++)
                    if (buf[i] != buf[0])
                        s->err = 2000 + b;
            } else {
                memset(buf, block_byte(b, r), BLOCK);
                if (pwrite(s->fd, buf, BLOCK, at) != BLOCK)
                    s->err = errno;
            }
        }
    sp_waitgroup_done(s->wg);
}

TEST(pwrite_cores)
{
    enum { READERS = 4 };
    struct striper s[STRIPES + READERS];
    sp_waitgroup wg = SP_WAITGROUP_INIT;
    int rounds = ncores > 1 ? 20 : 8, fd = open("/tmp/striped", O_CREAT | O_RDWR, 0600);
    uint8_t buf[BLOCK];

    CHECK(fd >= 0);
    sp_waitgroup_add(&wg, STRIPES + READERS);
    for (int i = 0; i < STRIPES + READERS; i++) {
        s[i] = (struct striper){ .fd = fd, .id = i, .rounds = rounds,
                                 .reader = i >= STRIPES, .wg = &wg };
        sp_go(striper_main, &s[i]);
    }
    sp_waitgroup_wait(&wg);
    for (int i = 0; i < STRIPES + READERS; i++)
        CHECKF(!s[i].err, "G %d: %d", i, s[i].err);
    for (int b = 0; b < STRIPES * BLOCKS_PER; b++) {
        CHECK(pread(fd, buf, BLOCK, (off_t)b * BLOCK) == BLOCK);
        CHECKF(buf[0] == block_byte(b, rounds - 1) && buf[BLOCK - 1] == buf[0],
               "block %d", b);
    }
    CHECK(close(fd) == 0 && unlink("/tmp/striped") == 0);
}

/* ---- rename_atomic -------------------------------------------------------- */

struct renamer {
    int versions, err, reads;
    bool done;
    sp_waitgroup *wg;
};

/* Version v of the file: a header naming v and its length, then bytes. */
static size_t version_len(int v)
{
    return 100 + (size_t)(v % 7) * 1500;
}

static void rename_writer(void *p)
{
    struct renamer *r = p;

    for (int v = 1; v <= r->versions && !r->err; v++) {
        int fd = open("/tmp/cur.new", O_CREAT | O_TRUNC | O_WRONLY, 0600);
        char head[32];

        snprintf(head, sizeof head, "%08d %08zu\n", v, version_len(v));
        if (fd < 0 || write(fd, head, 18) != 18 ||
            !write_pattern(fd, version_len(v) - 18, (unsigned)v) || close(fd))
            r->err = -v;
        else if (rename("/tmp/cur.new", "/tmp/cur"))
            r->err = errno;
        sp_yield();
    }
    __atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
    sp_waitgroup_done(r->wg);
}

static void rename_reader(void *p)
{
    struct renamer *r = p;
    char *buf = malloc(16384);

    while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && !r->err) {
        int fd = open("/tmp/cur", O_RDONLY), v;
        size_t len;
        ssize_t n;

        if (fd < 0) {
            r->err = 100000 + errno;
            break;
        }
        n = read(fd, buf, 16384);
        close(fd);
        if (n < 18 || sscanf(buf, "%d %zu", &v, &len) != 2 || (size_t)n != len ||
            len != version_len(v)) {
            r->err = 200000 + (int)n;
            break;
        }
        for (size_t i = 18; i < len; i++)
            if ((uint8_t)buf[i] != pattern(i - 18, (unsigned)v)) {
                r->err = 300000 + v;
                break;
            }
        __atomic_fetch_add(&r->reads, 1, __ATOMIC_RELAXED);
        sp_yield();
    }
    free(buf);
    sp_waitgroup_done(r->wg);
}

TEST(rename_atomic)
{
    enum { READERS = 3 };
    struct renamer r = { .versions = ncores > 1 ? 300 : 100 };
    sp_waitgroup wg = SP_WAITGROUP_INIT;
    int fd = open("/tmp/cur", O_CREAT | O_WRONLY, 0600);
    char head[32];

    snprintf(head, sizeof head, "%08d %08zu\n", 0, version_len(0));
    CHECK(fd >= 0 && write(fd, head, 18) == 18 &&
          write_pattern(fd, version_len(0) - 18, 0) && close(fd) == 0);
    r.wg = &wg;
    sp_waitgroup_add(&wg, 1 + READERS);
    for (int i = 0; i < READERS; i++)
        sp_go(rename_reader, &r);
    sp_go(rename_writer, &r);
    sp_waitgroup_wait(&wg);
    CHECKF(!r.err, "error %d", r.err);
    CHECKF(r.reads > 0, "no reads");
    CHECK(access("/tmp/cur.new", F_OK) < 0 && unlink("/tmp/cur") == 0);
}

/* ---- enospc ------------------------------------------------------------- */

TEST(enospc)
{
    size_t limit = (size_t)fsmax_mib << 20, total = 0;
    char buf[4096];
    ssize_t n = 0;
    int fd = open("/tmp/big", O_CREAT | O_WRONLY, 0600), fd2;

    CHECK(fd >= 0);
    memset(buf, 'z', sizeof buf);
    while (total <= limit && (n = write(fd, buf, sizeof buf - 1)) > 0)
        total += (size_t)n;
    CHECKF(n < 0 && errno == ENOSPC, "n %zd errno %d after %zu bytes", n, errno, total);
    CHECKF(total > limit / 2 && total <= limit, "%zu bytes of %zu", total, limit);
    CHECK(total % (sizeof buf - 1) != 0);       /* the last write was short */
    /* A second file: its node may fit, its data does not. */
    fd2 = open("/tmp/more", O_CREAT | O_WRONLY, 0600);
    CHECK(fd2 < 0 || (write(fd2, buf, sizeof buf) < 0 && errno == ENOSPC));
    CHECK(fd2 < 0 || (close(fd2) == 0 && unlink("/tmp/more") == 0));
    CHECK(close(fd) == 0 && unlink("/tmp/big") == 0);
    fd = open("/tmp/big", O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0 && write(fd, buf, sizeof buf) == sizeof buf);
    CHECK(close(fd) == 0 && unlink("/tmp/big") == 0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "fsmax=", 6))
            fsmax_mib = atol(argv[i] + 6);
    ncores = expected_cores(argc, argv);
    if (ncores < 1)
        ncores = 1;
    return sp_test_main();
}
