/*
 * primes - the concurrent sieve of apps/primes finds the first 1,000
 * primes (500 under TSan, where every channel operation costs a hundred
 * times more), checked against trial division.
 */
#include <spindle/test.h>
#include "../../../apps/primes/sieve.h"

#define N (SP_TSAN ? 500 : 1000)
#define NTH_PRIME (SP_TSAN ? 3571 : 7919)      /* the Nth prime */

static bool is_prime(int v)
{
    if (v < 2)
        return false;
    for (int d = 2; d * d <= v; d++)
        if (v % d == 0)
            return false;
    return true;
}

TEST(first_primes)
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
    CHECKF(got[N - 1] == NTH_PRIME, "prime %d is %d", N, got[N - 1]);
}

int main(void)
{
    return sp_test_main();
}
