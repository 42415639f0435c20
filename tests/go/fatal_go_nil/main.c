/*
 * fatal_go_nil - Go's TestGoNil (runtime/crash_test.go, testprog GoNil):
 * starting a G with a nil function panics "go of nil func value" at the
 * call, in the G that makes it, not with a fault in the new G (see
 * test.conf).
 */
#include <stddef.h>
#include <spindle/sched.h>

int main(void)
{
    void (*volatile fn)(void *) = NULL;

    sp_go(fn, NULL);
    sp_yield();                 /* the new G, were there one, runs */
    return 0;
}
