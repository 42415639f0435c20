/*
 * testutil.h - small helpers shared by the in-image kernel tests.
 */
#ifndef TESTS_LIB_TESTUTIL_H
#define TESTS_LIB_TESTUTIL_H

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/export_test.h"
#include "kernel/export_test.h"

/* The core count the runner booted with ("cores=N" after "--"), or 0. */
static inline int expected_cores(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "cores=", 6))
            return atoi(argv[i] + 6);
    return 0;
}

/* A reusable barrier for the cores inside one sp_on_each_cpu call. */
struct barrier {
    int count, gen;
};

static inline void barrier_wait(struct barrier *b, int n)
{
    int gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);

    if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == n) {
        __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
        arch_cpu_relax();
}

/* xorshift64*: a per-core random stream that needs no locks. */
static inline uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/*
 * Bytes malloc has handed out and not had back, or -1 if it cannot tell.
 * Read from malloc_stats(), captured off the console: newlib's mallinfo()
 * does not return the struct layout its installed <malloc.h> declares on
 * these targets.  The last "in use bytes" line is the total (glibc prints
 * one per arena first).
 */
static inline long heap_in_use(void)
{
    static char buf[4096];
    const char *p, *last = NULL;
    size_t n;

    fflush(stdout);
    console_capture(buf, sizeof buf - 1);
    malloc_stats();
    fflush(stderr);
    n = console_tap(NULL, 0);
    buf[n] = 0;
    for (p = buf; (p = strstr(p, "in use bytes")); p++)
        last = p;
    return last && (last = strchr(last, '=')) ? strtol(last + 1, NULL, 10) : -1;
}

#endif
