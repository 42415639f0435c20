/*
 * gstack_overflow - a G (not main) recurses without end: its stack runs
 * into the guard page below it, and the panic names the goroutine and
 * says it was a stack overflow (see `test.conf`).
 */
#include <stdint.h>
#include <spindle/sched.h>

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
    recurse(0);
}

int main(void)
{
    sp_go(deep, 0);
    sp_go(deep, 0);
    for (;;)
        sp_yield();
}
