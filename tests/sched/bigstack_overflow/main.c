/*
 * bigstack_overflow - a G on a 256 KiB big stack (sp_go_attr) recurses
 * without end: it runs into the guard page below its stack, and the
 * panic names the goroutine, says it was a stack overflow and gives the
 * stack's size (see `test.conf`).
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
    sp_sleep(SP_MS(20));
    recurse(0);
}

int main(void)
{
    struct sp_go_attr a = { .stack_size = 256 * 1024 };

    sp_go_attr(deep, 0, &a);
    for (;;)
        sp_sleep(SP_MS(10));
}
