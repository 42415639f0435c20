/*
 * idle - an idle Spindle costs the host next to nothing: every core halts
 * until its next timer or an IPI, with no periodic tick.  Main sleeps 2 s
 * between the IDLE START and IDLE END lines while the runner measures the
 * QEMU process's CPU time over that window from the host (`hostcpu`: the
 * most percent of one host core it may use).  In-image, the case checks
 * that the sleep itself was not cut short.
 */
#include <stdio.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define IDLE_NS SP_S(2)

TEST(idle_two_seconds)
{
    uint64_t t0;

    printf("IDLE START\n");
    t0 = sp_nanotime();
    sp_sleep(IDLE_NS);
    printf("IDLE END\n");
    sp_sleep(SP_S(1));      /* still idle while the runner takes its sample */
    CHECKF(sp_nanotime() - t0 >= IDLE_NS + SP_S(1), "slept only %llu ns",
           (unsigned long long)(sp_nanotime() - t0));
}

int main(void)
{
    return sp_test_main();
}
