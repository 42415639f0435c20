/*
 * select_atomic - a select that does not block answers for one instant,
 * as Go's does (its TestNonblockSelectRace, with the window made wide).
 * c1 holds a value; a G selects on c1 and c2 with a default while main
 * fills c2 and then empties c1: at every instant one of the two is
 * ready, so the select must receive.  sched_select_gap_set holds the
 * select 50 us after each case it finds not ready, so that when it polls
 * c2 first, main's lock-free send and receive land before it polls c1:
 * a select that trusted each poll on its own would then answer that
 * nothing is ready.  Needs two cores (test.conf), so that main runs while
 * the select waits.
 */
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include "sched/export_test.h"

#define ROUNDS (SP_TSAN ? 100 : 400)
#define MAX_ROUNDS (ROUNDS * 20)
#define GAP_US (SP_TSAN ? 500 : 50)

struct round {
    sp_chan *c1, *c2, *done;
    int started;                /* the G is about to select; atomic */
};

static void selector(void *arg)
{
    struct round *r = arg;
    struct sp_case cs[2] = { { r->c1, SP_RECV, NULL, false },
                             { r->c2, SP_RECV, NULL, false } };
    bool got;

    __atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
    got = sp_select(cs, 2, false) >= 0;
    sp_chan_send(r->done, &got);
}

TEST(nonblocking_select_is_one_instant)
{
    long repolls0 = sched_select_repolls();
    int missed = 0, rounds = 0;

    /* At least ROUNDS rounds, and on until the window was hit once: a
     * slow build (TSan) or a busy host can make main late for it. */
    sched_select_gap_set(GAP_US);
    do {
        struct round r = { sp_chan_make(sizeof(int), 1),
                           sp_chan_make(sizeof(int), 1),
                           sp_chan_make(sizeof(bool), 1), 0 };
        bool got = false;

        CHECK(r.c1 && r.c2 && r.done);
        sp_chan_send(r.c1, &(int){ 1 });
        sp_go(selector, &r);
        while (!__atomic_load_n(&r.started, __ATOMIC_ACQUIRE))
            sp_yield();
        sp_chan_send(r.c2, &(int){ 2 });
        sp_chan_tryrecv(r.c1, NULL, NULL);
        sp_chan_recv(r.done, &got);
        missed += !got;
        sp_chan_free(r.c1);
        sp_chan_free(r.c2);
        sp_chan_free(r.done);
        rounds++;
    } while (rounds < MAX_ROUNDS &&
             (rounds < ROUNDS || sched_select_repolls() == repolls0));
    sched_select_gap_set(0);
    CHECKF(missed == 0, "%d of %d selects found no channel ready", missed,
           rounds);
    /* The window was hit: some polls were done again. */
    CHECKF(sched_select_repolls() > repolls0, "no select polled again in "
           "%d rounds: the test did not open its window", rounds);
}

int main(void)
{
    return sp_test_main();
}
