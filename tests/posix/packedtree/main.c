/*
 * packedtree - the initrd the boot path hands over is the file system's
 * tree under / (tests/kernel/initrd/tree, packed by the runner): what the
 * kernel received (kernel/initrd.h) is what the POSIX layer unpacked.
 *
 *   files_read_back   each file's size, mode and bytes (a CRC-32 the host
 *                     computed of the tree's file), the empty one included
 *   folders_and_link  the folders are folders; etc/issue is a symbolic
 *                     link to motd, and reads as motd
 *   tree_writable     a packed file written in its second page: that
 *                     page changes, the first stays the archive's bytes;
 *                     truncated and grown it reads zeros; packed files
 *                     renamed and removed, a new one beside them
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <spindle/test.h>
#include "kernel/export_test.h"

/* The whole of path into buf (at most cap bytes); its length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    ssize_t n, got = 0;

    if (fd < 0)
        return -1;
    while ((n = read(fd, buf + got, cap - got)) > 0)
        got += n;
    close(fd);
    return n < 0 ? -1 : got;
}

TEST(files_read_back)
{
    static const struct {
        const char *path;
        mode_t mode;
        size_t size;
        uint32_t crc;
    } files[] = {
        { "/hello.txt", 0644, 27, 0x7397376c },
        { "/etc/motd", 0644, 20, 0xdf91cbcd },
        { "/bin/tool", 0755, 20, 0x7233fbdb },
        { "/share/doc/noise.bin", 0644, 5000, 0xdd2a2f71 },
        { "/etc/empty", 0644, 0, 0 },
    };
    static char buf[8192];

    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct stat st;
        ssize_t n;

        CHECKF(stat(files[i].path, &st) == 0, "%s: not there", files[i].path);
        CHECKF(S_ISREG(st.st_mode) && (size_t)st.st_size == files[i].size,
               "%s: mode 0%o, %ld bytes", files[i].path, (unsigned)st.st_mode,
               (long)st.st_size);
        /* The tree's modes as the checkout left them: the owner's bits. */
        CHECKF((st.st_mode & 0700) == (files[i].mode & 0700), "%s: mode 0%o",
               files[i].path, (unsigned)st.st_mode);
        n = slurp(files[i].path, buf, sizeof buf);
        CHECKF(n == (ssize_t)files[i].size, "%s: read %ld bytes", files[i].path, (long)n);
        CHECKF(crc32_update(0, buf, (size_t)n) == files[i].crc, "%s: other bytes",
               files[i].path);
    }
}

TEST(folders_and_link)
{
    static const char *const dirs[] = { "/bin", "/etc", "/share", "/share/doc" };
    char buf[64];
    struct stat st;
    ssize_t n;

    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        CHECKF(stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode), "%s: not a folder", dirs[i]);
    CHECK(lstat("/etc/issue", &st) == 0 && S_ISLNK(st.st_mode));
    n = readlink("/etc/issue", buf, sizeof buf);
    CHECKF(n == 4 && !memcmp(buf, "motd", 4), "etc/issue -> %.*s", (int)(n > 0 ? n : 0), buf);
    n = slurp("/etc/issue", buf, sizeof buf);
    CHECK(n == 20 && !memcmp(buf, "Welcome to Spindle.\n", 20));
}

TEST(tree_writable)
{
    static char before[5000];
    char buf[16];
    struct stat st;
    int fd;

    CHECK(slurp("/share/doc/noise.bin", before, sizeof before) == 5000);
    CHECK((fd = open("/share/doc/noise.bin", O_RDWR)) >= 0);
    CHECK(pwrite(fd, "XYZ", 3, 4500) == 3);
    CHECK(pread(fd, buf, 7, 4498) == 7 && !memcmp(buf, before + 4498, 2) &&
          !memcmp(buf + 2, "XYZ", 3) && !memcmp(buf + 5, before + 4503, 2));
    CHECK(pread(fd, buf, 16, 100) == 16 && !memcmp(buf, before + 100, 16));
    CHECK(ftruncate(fd, 10) == 0 && ftruncate(fd, 6000) == 0);
    CHECK(pread(fd, buf, 12, 5) == 12 && !memcmp(buf, before + 5, 5) &&
          buf[5] == 0 && buf[11] == 0);
    CHECK(pread(fd, buf, 3, 4500) == 3 && !memcmp(buf, "\0\0\0", 3));
    CHECK(close(fd) == 0);
    CHECK(rename("/share/doc/noise.bin", "/tmp/moved") == 0);
    CHECK(stat("/tmp/moved", &st) == 0 && st.st_size == 6000);
    CHECK(unlink("/etc/motd") == 0 && stat("/etc/issue", &st) < 0);
    CHECK((fd = open("/etc/new", O_CREAT | O_WRONLY, 0644)) >= 0 &&
          write(fd, "x", 1) == 1 && close(fd) == 0);
    CHECK(unlink("/tmp/moved") == 0 && rmdir("/share/doc") == 0);
}

int main(void)
{
    return sp_test_main();
}
