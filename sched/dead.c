/*
 * dead.c - deadlock detection (Go's checkdead).
 *
 * Called by the last core to go idle, under sched.lock, after it found
 * the global queue empty.  Every P is idle then.  If no run queue holds a
 * G (an idle core running another P's timers may have just readied one
 * into its own idle P), no timer is waiting or running, and the network
 * has nothing, then no G can ever run again: any G still parked is stuck,
 * and if there is none, main left by sp_goexit with nothing else to run.
 * Go prints the same lines and exits 2.
 */
#include "arch/arch.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

#define DEADLOCK_EXIT_STATUS 2

static const char *const reasons[WAIT_NREASONS] = {
    [WAIT_NONE] = "",
    [WAIT_CHAN_SEND] = "chan send",
    [WAIT_CHAN_RECV] = "chan receive",
    [WAIT_CHAN_SEND_NIL] = "chan send (nil chan)",
    [WAIT_CHAN_RECV_NIL] = "chan receive (nil chan)",
    [WAIT_SELECT] = "select",
    [WAIT_SELECT_NO_CASES] = "select (no cases)",
    [WAIT_MUTEX] = "sync.Mutex.Lock",
    [WAIT_RWMUTEX_R] = "sync.RWMutex.RLock",
    [WAIT_RWMUTEX_W] = "sync.RWMutex.Lock",
    [WAIT_WAITGROUP] = "sync.WaitGroup.Wait",
    [WAIT_SEMA] = "semacquire",
    [WAIT_SLEEP] = "sleep",
    [WAIT_IO] = "IO wait",
    [WAIT_TEST] = "test park",
    [WAIT_MOVE] = "moving to another core",
    [WAIT_COND] = "sync.Cond.Wait",
};

const char *waitreason_string(enum waitreason r)
{
    return r < WAIT_NREASONS && reasons[r] ? reasons[r] : "?";
}

static int nwaiting;

static void count(struct g *gp)
{
    nwaiting++;
}

static void report(struct g *gp)
{
    printk("goroutine %lu [%s]\n", (unsigned long)gp->goid,
           waitreason_string(gp->waitreason));
}

void checkdead(void)
{
    assert(spin_holding(&sched.lock));
    /* Cheap checks first: this runs each time the last core goes idle,
       and walking every G is O(all Gs ever made). */
    if (timers_pending() || netpoll_waiters())
        return;
    for (int i = 0; i < ncpu; i++)
        if (!runq_empty(&sched.allp[i]->runq) || !wakeq_empty(sched.allp[i]))
            return;
    nwaiting = 0;
    for_each_waiting_g(count);
    stop_machine();
    if (!nwaiting) {
        /* main does not return (its return ends the machine), so a
           machine with no G at all is one whose main called sp_goexit. */
        printk("fatal error: no goroutines (main called runtime.Goexit) - "
               "deadlock!\n");
        arch_exit(DEADLOCK_EXIT_STATUS);
    }
    printk("fatal error: all goroutines are asleep - deadlock!\n\n");
    for_each_waiting_g(report);
    arch_exit(DEADLOCK_EXIT_STATUS);
}
