/*
 * fatal_deadlock_all_asleep - Go's TestSimpleDeadlock (runtime/
 * crash_test.go, testprog SimpleDeadlock): main blocks in `select {}`
 * with no other G; the machine prints Go's deadlock report and exits 2
 * (see test.conf).  tests/sched/deadlock parks through the scheduler's
 * own call; this one through the public API.
 */
#include <stddef.h>
#include <spindle/chan.h>

int main(void)
{
    sp_select(NULL, 0, true);   /* select {} */
    return 0;
}
