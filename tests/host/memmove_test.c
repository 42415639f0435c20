/*
 * memmove_test - posix/memmove.c (x86_64's memmove): every length up to
 * 80 bytes, and a few of several KiB, between every pair of offsets in
 * one buffer (overlapping up and down, and apart) gives what a copy
 * through a second buffer gives, touches no byte outside the
 * destination, and returns the destination.
 */
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"

void *posix_memmove(void *dst, const void *src, size_t n);

#define SIZE 9000

static unsigned char buf[SIZE], want[SIZE], tmp[SIZE];

/* One move of n bytes from offset s to offset d within the first len
   bytes of buf; false on a mismatch there. */
static bool one(size_t d, size_t s, size_t n, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(i * 131 + (i >> 8) + 7);
    memcpy(want, buf, len);
    for (size_t k = 0; k < n; k++)
        tmp[k] = buf[s + k];
    for (size_t k = 0; k < n; k++)
        want[d + k] = tmp[k];
    if (posix_memmove(buf + d, buf + s, n) != buf + d)
        return false;
    return !memcmp(buf, want, len);
}

TEST(every_short_move)
{
    for (size_t n = 0; n <= 80; n++)
        for (size_t s = 0; s < 24; s++)
            for (size_t d = 0; d < 104; d++)
                if (!one(d, s, n, 200)) {
                    h_failf(__FILE__, __LINE__, "%zu bytes from %zu to %zu differ",
                            n, s, d);
                    return;
                }
}

/* Listpack-sized moves, by one entry's few bytes up and down. */
TEST(long_overlapping_moves)
{
    static const size_t ns[] = { 4095, 4096, 8192, 8191 };

    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t delta = 1; delta <= 17; delta++) {
            CHECK(one(100 + delta, 100, ns[i], SIZE));
            CHECK(one(100, 100 + delta, ns[i], SIZE));
            CHECK(one(3 + delta, 3, ns[i], SIZE));
        }
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
