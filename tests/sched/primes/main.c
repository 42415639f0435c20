/*
 * primes - Go's concurrent prime sieve (test/chan/sieve1.go) finds the
 * first 1,000 primes (500 under TSan, where every channel operation
 * costs a hundred times more), checked against trial division: a chain
 * of a G per prime, each passing on what its prime does not divide,
 * spread over every core by stealing.
 */
#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/test.h>

#define N (SP_TSAN ? 500 : 1000)
#define NTH_PRIME (SP_TSAN ? 3571 : 7919)      /* the Nth prime */

struct stage {
    sp_chan *from, *to;
    int p;
};

/* 2, 3, 4, ... down ch, for ever. */
static void numbers(void *arg)
{
    for (int v = 2;; v++)
        sp_chan_send(arg, &v);
}

/* Passes on what st->p does not divide, for ever. */
static void stage(void *arg)
{
    struct stage *st = arg;
    int v;

    for (;;) {
        sp_chan_recv(st->from, &v);
        if (v % st->p != 0)
            sp_chan_send(st->to, &v);
    }
}

/* The first n primes into got[]; false when out of memory.  The chain's
   Gs stay parked when it returns, as in Go's test. */
static bool sieve(int n, int *got)
{
    sp_chan *head = sp_chan_make(sizeof(int), 0);

    if (!head)
        return false;
    sp_go(numbers, head);
    for (int i = 0; i < n; i++) {
        struct stage *st = malloc(sizeof *st);

        sp_chan_recv(head, &got[i]);
        if (!st || !(st->to = sp_chan_make(sizeof(int), 0)))
            return false;
        st->from = head;
        st->p = got[i];
        sp_go(stage, st);
        head = st->to;
    }
    return true;
}

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

    CHECK(sieve(N, got));
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
