/*
 * wg_negative_panic - one done() too many panics "sync: negative
 * WaitGroup counter", as in Go (see `test.conf`).
 */
#include <stddef.h>
#include <spindle/sched.h>
#include <spindle/sync.h>

static sp_waitgroup wg;

static void worker(void *arg)
{
    sp_waitgroup_done(&wg);
}

int main(void)
{
    sp_waitgroup_add(&wg, 2);
    sp_go(worker, NULL);
    sp_go(worker, NULL);
    sp_waitgroup_wait(&wg);
    sp_waitgroup_done(&wg);     /* the counter goes to -1 */
    return 0;
}
