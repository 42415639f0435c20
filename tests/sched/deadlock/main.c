/*
 * deadlock - main and one other G park for good with nothing left to wake
 * them: the machine must say so in Go's words and exit 2 (see `test.conf`).
 */
#include <spindle/sched.h>
#include "sched/export_test.h"

static void park_forever(void *arg)
{
    gopark(NULL, NULL, WAIT_SEMA);
}

int main(void)
{
    sp_go(park_forever, 0);
    gopark(NULL, NULL, WAIT_TEST);
    return 0;
}
