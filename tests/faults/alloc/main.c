/*
 * faults/alloc - booted with fault=alloc:20 (2% of page allocations
 * fail from main() on): malloc and the channel constructor fail cleanly
 * and often enough to be seen, what they did hand out is whole and
 * separate, and the heap works on afterwards.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/test.h>
#include "kernel/export_test.h"

#define NBLOCKS 256
#define BLOCK   (64 * 1024)

static uint64_t failed_before;

TEST(malloc_fails_cleanly)
{
    static unsigned char *b[NBLOCKS];
    int got = 0, null = 0, enomem = 0;
    struct fault_counts c;

    fault_counts(&c);
    failed_before = c.allocs_failed;
    /* Each block is kept, so each one needs fresh heap pages. */
    for (int i = 0; i < NBLOCKS; i++) {
        errno = 0;
        b[i] = malloc(BLOCK);
        if (!b[i]) {
            null++;
            enomem += errno == ENOMEM;
            continue;
        }
        memset(b[i], i & 0xff, BLOCK);
        got++;
    }
    for (int i = 0; i < NBLOCKS; i++) {
        if (!b[i])
            continue;
        for (int k = 0; k < BLOCK; k += 4096)
            CHECKF(b[i][k] == (i & 0xff) && b[i][BLOCK - 1] == (i & 0xff),
                   "block %d overwritten at %d", i, k);
        free(b[i]);
    }
    CHECKF(null > 0 && got > 0, "%d of %d mallocs failed", null, NBLOCKS);
    CHECKF(enomem == null, "%d of %d failures set ENOMEM", enomem, null);
}

TEST(chan_make_fails_cleanly)
{
    int null = 0, ok = 0;

    /* A 4 MiB buffer each time: the heap must grow for each one kept. */
    for (int i = 0; i < 64 && (!null || !ok); i++) {
        sp_chan *c = sp_chan_make(sizeof(uint64_t), 512 * 1024);
        uint64_t v = i, w = 0;

        if (!c) {
            null++;
            continue;
        }
        sp_chan_send(c, &v);
        CHECK(sp_chan_recv(c, &w) && w == v);
        ok++;
        /* Not freed: the next one needs new pages. */
    }
    CHECKF(null > 0 && ok > 0, "%d made, %d refused", ok, null);
}

TEST(heap_works_after)
{
    struct fault_counts c;
    char *s = NULL;

    /* Small blocks come from the heap's free space: no new pages. */
    for (int i = 0; i < 1000; i++) {
        free(s);
        s = malloc(100);
        CHECK(s);
        memset(s, 'x', 100);
    }
    free(s);
    fault_counts(&c);
    CHECKF(c.allocs_failed > failed_before, "no page allocation failed");
}

int main(void)
{
    return sp_test_main();
}
