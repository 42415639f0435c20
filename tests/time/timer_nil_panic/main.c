/*
 * timer_nil_panic - stopping or resetting a NULL timer panics in Go's
 * words for a Timer never made (test.conf: `-- stop`, `-- reset`).
 */
#include <string.h>
#include <spindle/time.h>

int main(int argc, char **argv)
{
    sp_timer *volatile t = NULL;

    if (argc > 1 && !strcmp(argv[1], "reset"))
        sp_timer_reset(t, SP_MS(1));
    else
        sp_timer_stop(t);
    return 0;
}
