/*
 * gotest.h - what the ports of Go's tests (tests/go/) share: waits that
 * give up (where a bug would leave Go's test hanging until its harness
 * kills it, these return false after WAIT_NS and the case fails, naming
 * the wait), acquire/release int accesses, and Go's stackGrowthRecursive.
 */
#ifndef TESTS_LIB_GOTEST_H
#define TESTS_LIB_GOTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/time.h>

#define WAIT_NS SP_S(20)        /* a wait that must end gives up after 20 s */

/* Receives from c, giving up after WAIT_NS: false then. */
static inline bool recv_wait(sp_chan *c, void *v)
{
    return sp_chan_recv_timeout(c, v, WAIT_NS, NULL) == 1;
}

struct wg_wait {
    sp_waitgroup *wg;
    sp_chan *done;
};

static inline void wg_waiter(void *arg)
{
    struct wg_wait *w = arg;

    sp_waitgroup_wait(w->wg);
    sp_chan_send(w->done, NULL);
}

/* Waits for wg, giving up after ns: false then (the Gs still run). */
static inline bool wg_wait_for(sp_waitgroup *wg, uint64_t ns)
{
    struct wg_wait *w = malloc(sizeof *w);

    if (!w || !(w->done = sp_chan_make(0, 1)))
        return false;
    w->wg = wg;
    sp_go(wg_waiter, w);
    if (sp_chan_recv_timeout(w->done, NULL, ns, NULL) != 1)
        return false;           /* w is leaked: the waiter still uses it */
    sp_chan_free(w->done);
    free(w);
    return true;
}

static inline bool wg_wait(sp_waitgroup *wg)
{
    return wg_wait_for(wg, WAIT_NS);
}

static inline void store(int *p, int v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline int load(const int *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Go's stackGrowthRecursive: about 1 KiB of stack a level. */
static __attribute__((noinline, unused)) int stack_growth(int i)
{
    volatile uint64_t pad[128];
    uint64_t sum = 0;

    for (int j = 0; j < 128; j++)
        pad[j] = 0;
    for (int j = 0; j < 128; j++)
        sum |= pad[j];
    if (i != 0 && sum == 0)
        return stack_growth(i - 1) + (int)pad[i % 128];
    return (int)sum;
}

#endif
