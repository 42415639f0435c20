/*
 * panic_fault - the last core dereferences an unmapped address (page 0 is
 * never mapped).  The runner expects the page-fault panic with CR2, the
 * registers and a backtrace naming the faulting function (see `test.conf`).
 */
#include <spindle/cpu.h>

static volatile int *volatile bad = (int *)0x10;

static __attribute__((noinline)) void touch_unmapped(void *arg)
{
    if (sp_cpu_id() == sp_ncpu() - 1)
        *bad = 1;
}

int main(void)
{
    sp_on_each_cpu(touch_unmapped, 0);
    return 0;               /* not reached: the fault ends the machine */
}
