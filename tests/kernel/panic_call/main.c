/*
 * panic_call - panic() from C: the runner expects the message first, the
 * core, and a backtrace through the caller (see `test.conf`).  Any core: main
 * starts in core 0's runnext, but an idle core may take it from there
 * when core 0 is slow to get to it (its thread descheduled by the host).
 */
#include "kernel/export_test.h"

static __attribute__((noinline)) void broken_invariant(int n)
{
    panic("broken_invariant: counter is %d, expected 0", n);
}

int main(void)
{
    broken_invariant(42);
    return 0;
}
