/*
 * spawn.c - the workloads that exercise the scheduler alone: spawning
 * (from one G and from every core at once) and yielding.  A spawner never
 * yields by itself: sp_go does once its core's run queue is full, so the
 * Gs it made run (or are stolen) before too many pile up.
 */
#include <stdio.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include "bench.h"

#define NSPAWN      1000000
#define NYIELD      1000000

/* ---- spawn: 1,000,000 Gs from one G ---------------------------------- */

/* The whole of a spawned G: one atomic decrement (the countdown). */
static void spawned(void *arg)
{
    countdown_hit(arg);
}

static void spawn_n(struct countdown *cd, long n)
{
    for (long i = 0; i < n; i++)
        sp_go(spawned, cd);
}

static bool spawn_done(const char *name, struct countdown *cd)
{
    long left = __atomic_load_n(&cd->left, __ATOMIC_ACQUIRE);

    if (left != 0) {
        printf("# ERROR %s: %ld of %d Gs ran\n", name, NSPAWN - left,
               NSPAWN);
        return false;
    }
    return true;
}

bool bench_spawn(double out[NFIG])
{
    struct countdown cd;
    uint64_t t0;

    countdown_init(&cd, NSPAWN);
    t0 = sp_nanotime();
    spawn_n(&cd, NSPAWN);
    countdown_wait(&cd);
    out[0] = since(t0) / NSPAWN;
    return spawn_done("spawn", &cd);
}

/* ---- spawn_par: ncpu spawners, 1,000,000 Gs in all ------------------- */

struct spawner {
    struct countdown *cd;
    long n;
};

static void spawner(void *arg)
{
    struct spawner *s = arg;

    spawn_n(s->cd, s->n);
}

bool bench_spawn_par(double out[NFIG])
{
    int ncpu = sp_ncpu();
    struct spawner s[ncpu];
    struct countdown cd;
    uint64_t t0;

    countdown_init(&cd, NSPAWN);
    t0 = sp_nanotime();
    for (int p = 0; p < ncpu; p++) {
        s[p] = (struct spawner){ &cd, share(NSPAWN, ncpu, p) };
        sp_go(spawner, &s[p]);
    }
    countdown_wait(&cd);
    out[0] = since(t0) / NSPAWN;
    return spawn_done("spawn_par", &cd);
}

/* ---- yield: 2*ncpu Gs, 1,000,000 yields in all ----------------------- */

struct yielder {
    struct countdown *cd;
    long n;
    long *total;
};

static void yielder(void *arg)
{
    struct yielder *y = arg;

    for (long i = 0; i < y->n; i++)
        sp_yield();
    __atomic_add_fetch(y->total, y->n, __ATOMIC_RELAXED);
    countdown_hit(y->cd);
}

bool bench_yield(double out[NFIG])
{
    int ng = 2 * sp_ncpu();
    struct yielder y[ng];
    struct countdown cd;
    long total = 0;
    uint64_t t0;

    countdown_init(&cd, ng);
    t0 = sp_nanotime();
    for (int i = 0; i < ng; i++) {
        y[i] = (struct yielder){ &cd, share(NYIELD, ng, i), &total };
        sp_go(yielder, &y[i]);
    }
    countdown_wait(&cd);
    out[0] = since(t0) / NYIELD;
    if (total != NYIELD) {
        printf("# ERROR yield: %ld yields, want %d\n", total, NYIELD);
        return false;
    }
    return true;
}
