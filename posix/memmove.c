/*
 * memmove.c - memmove on x86_64, in place of newlib's generic C one
 * (build/newlib has no assembly memmove for x86_64; aarch64 keeps
 * newlib's, which moves 16 bytes a step).  newlib's copies an
 * overlapping move upward a byte at a time, and any move whose two
 * pointers are not both 8-byte aligned too: Redis's listpacks move
 * unaligned runs of up to 8 KiB on every push and pop at a list's head
 * (docs/benchmarks.md, "Redis beside Linux").  This one moves 8 bytes a
 * step, unaligned loads and stores being allowed on x86_64, in the
 * direction that reads every byte before it is overwritten.
 *
 * The loops must not be turned back into a call to memmove or memcpy
 * (GCC's loop-idiom recognition would make this function call itself).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)

__attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    uint64_t w;

    if (d == s || n == 0)
        return dst;
    if ((uintptr_t)d < (uintptr_t)s || (uintptr_t)d - (uintptr_t)s >= n) {
        /* Upward reads first: a store at d never reaches a byte of s
           not yet read, d being below s or past s + n. */
        for (; n >= 8; n -= 8, d += 8, s += 8) {
            __builtin_memcpy(&w, s, 8);
            __builtin_memcpy(d, &w, 8);
        }
        while (n--)
            *d++ = *s++;
    } else {
        /* d inside (s, s + n): from the top down. */
        d += n;
        s += n;
        for (; n >= 8; n -= 8) {
            d -= 8;
            s -= 8;
            __builtin_memcpy(&w, s, 8);
            __builtin_memcpy(d, &w, 8);
        }
        while (n--)
            *--d = *--s;
    }
    return dst;
}

#endif
