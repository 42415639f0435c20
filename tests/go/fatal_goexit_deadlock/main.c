/*
 * fatal_goexit_deadlock - main calls sp_goexit() (Go's runtime.Goexit)
 * and the other Gs end: with no G left, Go says "fatal error: no
 * goroutines (main called runtime.Goexit) - deadlock!" and exits 2 (see
 * test.conf).  runtime/crash_test.go's TestGoexitDeadlock (testprog
 * GoexitDeadlock: two Gs that loop briefly) and, with argv "-- exit",
 * TestGoexitCrash (testprog GoexitExit: a G that sleeps 1 ms).
 */
#include <stdio.h>
#include <string.h>
#include <spindle/sched.h>
#include <spindle/time.h>

static void f(void *arg)
{
    for (volatile int i = 0; i < 10; i++)
        ;
}

static void sleeper(void *arg)
{
    sp_sleep(SP_MS(1));
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exit")) {
        printf("t1\n");
        sp_go(sleeper, NULL);
        printf("t2\n");
    } else {
        sp_go(f, NULL);
        sp_go(f, NULL);
    }
    sp_goexit();
}
