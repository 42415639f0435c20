/*
 * after_func_nil_panic - sp_after_func with no function panics at the
 * call, in Go's words for a go of a nil func (test.conf); Go's AfterFunc
 * would fail later, when the timer fired, far from the bug.
 */
#include <stddef.h>
#include <spindle/time.h>

int main(void)
{
    void (*volatile fn)(void *) = NULL;

    sp_after_func(SP_MS(1), fn, NULL);
    return 0;
}
