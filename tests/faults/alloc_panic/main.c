/*
 * faults/alloc_panic - booted with fault=alloc:1000 (every page
 * allocation fails from main() on): a spawn that needs a new G slot
 * panics, naming what ran out (test.conf's expect), instead of running
 * a G with no stack.
 */
#include <spindle/sched.h>

static void nothing(void *arg)
{
}

int main(void)
{
    for (int i = 0; i < 100000; i++)
        sp_go(nothing, NULL);
    return 0;       /* not reached: the first spawn has no slot */
}
