/*
 * random.c - getentropy and getrandom, and posix_memalign for newlib's
 * aligned_alloc.
 *
 * Where the bytes come from: a seeded generator, not the CPU.  RDRAND
 * (x86_64) and RNDR (aarch64, ARMv8.5) would need an instruction and a
 * feature test behind arch/arch.h, which has none yet, and the CPUs the
 * tests boot (QEMU's default x86_64 model, the Cortex-A72) lack them
 * anyway.  The generator is SplitMix64 over a 64-bit state that every
 * call advances atomically, seeded at the first call from the wall clock
 * and the cycle counter, with the cycle counter mixed into every output
 * word.  Distinct calls give distinct bytes; the bytes are NOT
 * cryptographically strong: a program that needs secrets must not use
 * them as such.
 *
 * getentropy takes at most 256 bytes (EIO above, as on Linux and
 * OpenBSD); getrandom any length, flags GRND_NONBLOCK, GRND_RANDOM and
 * GRND_INSECURE accepted (it never blocks).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/random.h>
#include <unistd.h>
#include <spindle/time.h>
#include "arch/arch.h"

#define GOLDEN 0x9e3779b97f4a7c15ULL

static uint64_t rng_state;      /* 0 until seeded; atomic */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rng_next(void)
{
    uint64_t s = __atomic_load_n(&rng_state, __ATOMIC_RELAXED);

    if (!s) {
        uint64_t seed = mix(sp_walltime() ^ mix(arch_cycles())) | 1;

        /* One seeder wins; the others use its seed. */
        __atomic_compare_exchange_n(&rng_state, &s, seed, false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    s = __atomic_add_fetch(&rng_state, GOLDEN, __ATOMIC_RELAXED);
    return mix(s) ^ mix(arch_cycles() + s);
}

static void rng_fill(unsigned char *p, size_t len)
{
    while (len) {
        uint64_t w = rng_next();
        size_t n = len < sizeof w ? len : sizeof w;

        memcpy(p, &w, n);
        p += n;
        len -= n;
    }
}

int getentropy(void *buf, size_t len)
{
    if (len > 256) {
        errno = EIO;
        return -1;
    }
    if (!buf && len) {
        errno = EFAULT;
        return -1;
    }
    rng_fill(buf, len);
    return 0;
}

ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
    if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE)) {
        errno = EINVAL;
        return -1;
    }
    if (!buf && len) {
        errno = EFAULT;
        return -1;
    }
    if (len > (size_t)INTPTR_MAX)
        len = INTPTR_MAX;     /* what the return value can say */
    rng_fill(buf, len);
    return len;
}

/* newlib's aligned_alloc calls it; memalign does the work.  Returns an
   error number; *p untouched on failure. */
int posix_memalign(void **p, size_t align, size_t size)
{
    void *m;

    if (!align || (align & (align - 1)) || align % sizeof(void *))
        return EINVAL;
    m = memalign(align, size ? size : 1);
    if (!m)
        return ENOMEM;
    *p = m;
    return 0;
}
