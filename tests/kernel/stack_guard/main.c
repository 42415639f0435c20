/*
 * stack_guard - unbounded recursion runs a stack into its guard page.  The
 * runner expects the fatal exception to be reported as a stack overflow
 * (see `test.conf`), not silent corruption.
 */
#include <stdint.h>

static volatile uint64_t limit = ~0ULL;     /* never reached */

static __attribute__((noinline)) uint64_t recurse(uint64_t n)
{
    volatile char pad[256];

    pad[0] = n;
    if (n == limit)
        return 0;
    return recurse(n + 1) + pad[0];
}

int main(void)
{
    return recurse(0);
}
