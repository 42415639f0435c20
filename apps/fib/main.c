/*
 * fib - parallel fork-join: fib(N) (default 32; `-- N` to change) with a
 * new G for each call while n > 20 and plain recursion below, the shape of
 * the fib benchmark (README, "What is measured").  Shows every core working on one problem.
 *
 *   make run APP=fib SMP=4
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>

#define CUTOFF 20

struct job {
    int n;
    long result;
    sp_waitgroup *wg;
};

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static void fib_par(void *arg);

static long fib(int n)
{
    sp_waitgroup wg = SP_WAITGROUP_INIT;
    struct job a = { n - 1, 0, &wg }, b = { n - 2, 0, &wg };

    if (n <= CUTOFF)
        return fib_seq(n);
    sp_waitgroup_add(&wg, 2);
    sp_go(fib_par, &a);
    sp_go(fib_par, &b);
    sp_waitgroup_wait(&wg);
    return a.result + b.result;
}

static void fib_par(void *arg)
{
    struct job *j = arg;

    j->result = fib(j->n);
    sp_waitgroup_done(j->wg);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 32;
    uint64_t t0 = sp_nanotime();
    long r;

    if (n < 0 || n > 45) {
        printf("fib: want n in 0..45, got %s\n", argv[1]);
        return 2;
    }
    r = fib(n);
    printf("fib(%d) = %ld on %d cores in %llu ms\n", n, r, sp_ncpu(),
           (unsigned long long)(sp_nanotime() - t0) / 1000000);
    return r == fib_seq(n) ? 0 : 1;
}
