/*
 * primes - prints the first N primes (default 1000; `-- N` to change)
 * with the concurrent prime sieve: a chain of N Gs linked by unbuffered
 * channels, spread over every core.
 *
 *   make run APP=primes SMP=4
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/cpu.h>
#include "sieve.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    uint64_t t0 = sp_nanotime();
    int *primes;

    if (n < 1 || !(primes = malloc(n * sizeof *primes))) {
        printf("primes: want a count of at least 1, got %s\n", argv[1]);
        return 2;
    }
    if (sieve(n, primes) != n) {
        printf("primes: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        printf("%d%c", primes[i], i % 10 == 9 || i == n - 1 ? '\n' : ' ');
    printf("%d primes through a chain of %d goroutines on %d cores in "
           "%llu ms\n", n, n + 1, sp_ncpu(),
           (unsigned long long)(sp_nanotime() - t0) / 1000000);
    return 0;
}
