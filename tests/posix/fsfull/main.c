/*
 * fsfull - the RAM file system when the machine's memory, not fsmax=,
 * runs out (booted with a limit far past the guest's memory):
 *
 *   heap_full       writes to files in /tmp until one fails: ENOSPC,
 *                   never a panic; the bytes written read back; the
 *                   machine still runs Gs and allocates once the files
 *                   are removed, and the same bytes fit again
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>

#define CHUNK (64 << 10)
#define MAX_FILES 64

static size_t fill(char *buf, int *nfiles)
{
    size_t total = 0;

    for (*nfiles = 0; *nfiles < MAX_FILES; (*nfiles)++) {
        char path[32];
        int fd;
        ssize_t n = 0;

        snprintf(path, sizeof path, "/tmp/f%d", *nfiles);
        if ((fd = open(path, O_CREAT | O_WRONLY, 0600)) < 0)
            return errno == ENOSPC ? total : 0;
        for (int i = 0; i < 16 && (n = write(fd, buf, CHUNK)) == CHUNK; i++)
            total += CHUNK;
        if (n > 0 && n < CHUNK)
            total += (size_t)n;
        close(fd);
        if (n < 0) {
            (*nfiles)++;
            return errno == ENOSPC ? total : 0;
        }
    }
    return 0;                   /* never ran out: the test is wrong */
}

static void touch(void *p)
{
    sp_waitgroup_done(p);
}

TEST(heap_full)
{
    char *buf = malloc(CHUNK), path[32], got[64];
    size_t first, second;
    sp_waitgroup wg = SP_WAITGROUP_INIT;
    int nfiles, fd;

    CHECK(buf != NULL);
    memset(buf, 'q', CHUNK);
    first = fill(buf, &nfiles);
    CHECKF(first > (8 << 20), "ran out after %zu bytes (%d files)", first, nfiles);
    printf("fsfull: memory full after %zu MiB in %d files\n", first >> 20, nfiles);
    CHECK((fd = open("/tmp/f0", O_RDONLY)) >= 0);
    CHECK(pread(fd, got, sizeof got, CHUNK * 3 + 5) == sizeof got);
    CHECK(memcmp(got, buf, sizeof got) == 0 && close(fd) == 0);
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "/tmp/f%d", i);
        CHECKF(unlink(path) == 0, "%s: errno %d", path, errno);
    }
    /* Gs and the heap work again. */
    sp_waitgroup_add(&wg, 100);
    for (int i = 0; i < 100; i++)
        sp_go(touch, &wg);
    sp_waitgroup_wait(&wg);
    second = fill(buf, &nfiles);
    CHECKF(second + (4 << 20) >= first, "%zu bytes the first time, %zu after",
           first, second);
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "/tmp/f%d", i);
        unlink(path);
    }
    free(buf);
}

int main(void)
{
    return sp_test_main();
}
