/*
 * gdb_target - a known set of Gs for the gdb script (tools/run/gdb/spindle.py)
 * to find: main (G 1) starts three Gs that park receiving on a channel,
 * two that sleep, and one that spins without ever blocking, waits until
 * the five are parked and the spinner has started, and calls
 * gdb_stop_here(), where tests/host/gdb_test.sh breaks.  There, on one
 * core, main runs, the spinner is runnable (the timer preempted it so
 * that main could run again), three Gs wait in "chan receive" and two in
 * "sleep".  The ids of each group are in recv_goid, sleep_goid and
 * spin_goid for the debugger.  In-image, the case checks the scheduler's
 * own count of those states at that point, then releases every G and
 * checks that they all end.
 */
#include <stdio.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "sched/export_test.h"

#define NRECV 3
#define NSLEEP 2
#define SLEEP_NS SP_MS(300)
#define SETTLE_NS SP_S(10)

uint64_t recv_goid[NRECV], sleep_goid[NSLEEP], spin_goid;

static sp_chan *work, *done;
static int released, spinning;

/* Where the debugger stops: the Gs above exist and hold still. */
__attribute__((noinline)) void gdb_stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

static void finish(void)
{
    int one = 1;

    sp_chan_send(done, &one);
}

__attribute__((noinline)) static void gdb_recv_worker(void *arg)
{
    int v;

    recv_goid[(long)arg] = sp_goid();
    sp_chan_recv(work, &v);
    finish();
}

__attribute__((noinline)) static void gdb_sleep_worker(void *arg)
{
    sleep_goid[(long)arg] = sp_goid();
    while (!__atomic_load_n(&released, __ATOMIC_ACQUIRE))
        sp_sleep(SLEEP_NS);
    finish();
}

__attribute__((noinline)) static void gdb_spin_worker(void *arg)
{
    spin_goid = sp_goid();
    __atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&released, __ATOMIC_ACQUIRE))
        __asm__ volatile("" ::: "memory");
    finish();
}

TEST(gs_in_place)
{
    struct gcensus c;
    uint64_t end;
    int v = 0;

    work = sp_chan_make(sizeof(int), 0);
    done = sp_chan_make(sizeof(int), NRECV + NSLEEP + 1);
    CHECK(work && done);
    for (long i = 0; i < NRECV; i++)
        sp_go(gdb_recv_worker, (void *)i);
    for (long i = 0; i < NSLEEP; i++)
        sp_go(gdb_sleep_worker, (void *)i);
    sp_go(gdb_spin_worker, NULL);
    end = sp_nanotime() + SETTLE_NS;
    for (;;) {
        sched_census(&c);
        if (c.waiting == NRECV + NSLEEP &&
            __atomic_load_n(&spinning, __ATOMIC_ACQUIRE))
            break;
        CHECKF(sp_nanotime() < end, "after %llu s: %ld waiting, spinner %s",
               (unsigned long long)(SETTLE_NS / SP_S(1)), c.waiting,
               spinning ? "started" : "not started");
        sp_sleep(SP_MS(1));
    }
    gdb_stop_here();
    CHECKF(c.running + c.runnable == 2 && c.all - c.dead == 7,
           "%ld running, %ld runnable, %ld alive; want 2 and 7",
           c.running, c.runnable, c.all - c.dead);
    __atomic_store_n(&released, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < NRECV; i++)
        sp_chan_send(work, &v);
    for (int i = 0; i < NRECV + NSLEEP + 1; i++)
        sp_chan_recv(done, &v);
}

int main(void)
{
    return sp_test_main();
}
