/*
 * gstack_overflow - a G (not main) recurses without end: its stack runs
 * into the guard page below it, and the panic names the goroutine and
 * says it was a stack overflow (see `test.conf`).  The Gs sleep first,
 * so that with stackrelease=20 their pages are given back and mapped
 * again before the recursion (sched/release.c): the guard holds either
 * way.
 */
#include <stdint.h>
#include <spindle/sched.h>
#include <spindle/time.h>

static volatile uint64_t limit = ~0ULL;     /* never reached */

static __attribute__((noinline)) uint64_t recurse(uint64_t n)
{
    volatile char pad[512];

    pad[0] = n;
    if (n == limit)
        return 0;
    return recurse(n + 1) + pad[0];
}

static void deep(void *arg)
{
    sp_sleep(SP_MS(200));
    recurse(0);
}

int main(void)
{
    sp_go(deep, 0);
    sp_go(deep, 0);
    for (;;)
        sp_sleep(SP_MS(10));
}
