/*
 * primes - the concurrent sieve of apps/primes finds the first 1,000
 * primes, checked against trial division.
 */
#include <spindle/test.h>
#include "../../../apps/primes/sieve.h"

#define N 1000

static bool is_prime(int v)
{
    if (v < 2)
        return false;
    for (int d = 2; d * d <= v; d++)
        if (v % d == 0)
            return false;
    return true;
}

static void first_thousand(void)
{
    static int got[N];
    int want = 1;

    CHECK(sieve(N, got) == N);
    for (int i = 0; i < N; i++) {
        while (!is_prime(++want))
            ;
        CHECKF(got[i] == want, "prime %d is %d, expected %d", i, got[i],
               want);
    }
    CHECKF(got[N - 1] == 7919, "the 1000th prime is %d", got[N - 1]);
}

static const struct sp_test tests[] = {
    { "first_thousand", first_thousand },
};

int main(void)
{
    return SP_TEST_MAIN(tests);
}
