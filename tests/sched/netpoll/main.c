/*
 * netpoll - when the scheduler polls the network (sched/netpoll.h).
 *
 * There is no network driver yet, so the test installs a fake one: its
 * poll function records when and from where it was called, and hands
 * back one parked G once a chosen time has come (a "packet" arrived).
 *
 *   busy_cores_poll   every core runs a G that never calls the scheduler,
 *                     with quantum=250 (`test.conf`): the polls
 *                     must still come at most ~10 ms apart (sysmon's rule,
 *                     done by the timer interrupt; without it the gap is
 *                     a whole slice), and the G the fake packet readies
 *                     must run long before the hogs give up their cores.
 *   idle_cores_poll   every G is parked, one of them waiting for the
 *                     network: that is not a deadlock, and an idle core
 *                     must poll and find the packet within a few periods.
 *   no_waiter_no_poll with no G waiting the poller is never called.
 *
 * Margins are wide because under TCG a vCPU is sometimes descheduled by
 * the host for several ms (see tests/time/steal); on a host loaded with
 * other QEMUs, gaps of 75-110 ms were seen with a 50 ms margin.  Without
 * the rule the gap is a whole slice, 250 ms, and the waiter waits for
 * the hogs to finish.
 */
#include <stdio.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"
#include "tests/lib/timeutil.h"

#define MAXPOLLS 4096
#define HOG_TIME SP_MS(700)
#define PACKET_AT SP_MS(450)    /* after the hogs started */
#define WINDOW_FROM SP_MS(50)   /* polls are checked from here to PACKET_AT */
#define MAX_GAP SP_MS(100)      /* the rule says 10 ms; quantum is 250 */
#define BUSY_LATENCY SP_MS(100) /* poll period + quantum/10 + host jitter */
#define IDLE_LATENCY SP_MS(100)  /* without idle polls: never */
/* A core polls another core's queue only once that queue went unpolled
   for 5 periods of 10 ms (netpoll.c's stranded()); the slack covers the
   two clocks and the poll's own time. */
#define STRANDED SP_MS(45)

static struct {
    struct g *waiter;           /* parked in WAIT_IO; taken by the poll */
    uint64_t packet_at;         /* sp_nanotime() the fake packet arrives */
    uint64_t woke_at;           /* when the waiter ran again */
    uint64_t poll_at[MAXPOLLS]; /* sp_nanotime() of each poll */
    bool poll_in_g[MAXPOLLS];   /* polled on a G's stack (an interrupt) */
    int npolls;
    sp_waitgroup wg;
    /* A NIC with a queue per core (each_core_polls_its_queue): */
    int packet_q;               /* the queue the packet comes on */
    int polls[MAXCPU][MAXCPU];  /* [queue][core] polls; atomic */
    uint64_t lastpoll[MAXCPU];  /* [queue] sp_nanotime() of its last poll */
    uint64_t wait_from;         /* before the waiter began to wait */
    int early[MAXCPU][MAXCPU];  /* [queue][core] polls of another core's
                                   queue before it was stranded */
    int woke_on;                /* the core the waiter ran on, woken */
} fake;

/* The fake driver for queue q.  Interrupts are off; one core at a time
   polls a queue, and the single-queue tests have only queue 0. */
static struct g *fake_poll(int q)
{
    uint64_t now = sp_nanotime(), since;
    int i, c = this_cpu()->id;
    struct g *gp;

    __atomic_add_fetch(&fake.polls[q][c], 1, __ATOMIC_RELAXED);
    /* The queue's `polling` orders its lastpoll between cores. */
    since = fake.lastpoll[q] > fake.wait_from ? fake.lastpoll[q]
                                              : fake.wait_from;
    if (c != q && now - since < STRANDED)
        __atomic_add_fetch(&fake.early[q][c], 1, __ATOMIC_RELAXED);
    fake.lastpoll[q] = now;
    /* Queue 0's polls alone are recorded: one core at a time makes them. */
    if (q == 0 && (i = __atomic_load_n(&fake.npolls, __ATOMIC_RELAXED)) <
                      MAXPOLLS) {
        fake.poll_at[i] = now;
        fake.poll_in_g[i] = getg() != NULL;
        __atomic_store_n(&fake.npolls, i + 1, __ATOMIC_RELEASE);
    }
    gp = __atomic_load_n(&fake.waiter, __ATOMIC_ACQUIRE);
    if (!gp || q != fake.packet_q ||
        now < __atomic_load_n(&fake.packet_at, __ATOMIC_RELAXED) ||
        !__atomic_compare_exchange_n(&fake.waiter, &gp, NULL, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return NULL;
    gp->schedlink = NULL;
    return gp;
}

/* On g0, once the waiter is off its stack: the driver may see it now. */
static bool publish(struct g *gp, void *arg)
{
    __atomic_store_n(&fake.waiter, gp, __ATOMIC_RELEASE);
    return true;
}

static void waiter(void *arg)
{
    netpoll_wait_add(1);
    gopark(publish, NULL, WAIT_IO);
    fake.woke_at = sp_nanotime();
    fake.woke_on = sp_cpu_id();
    netpoll_wait_add(-1);
    sp_waitgroup_done(&fake.wg);
}

static void hog(void *arg)
{
    uint64_t end = *(uint64_t *)arg;

    spin_until(end);
    sp_waitgroup_done(&fake.wg);
}

/* Starts the waiter, its packet due at packet_at on queue packet_q of a
   NIC with nqueues; returns once it is parked. */
static void start_waiter_on(uint64_t packet_at, int nqueues, int packet_q)
{
    memset(&fake, 0, sizeof fake);
    fake.packet_at = packet_at;
    fake.packet_q = packet_q;
    fake.woke_on = -1;
    fake.wait_from = sp_nanotime();
    netpoll_init(fake_poll, nqueues);
    sp_waitgroup_add(&fake.wg, 1);
    sp_go(waiter, NULL);
    while (!__atomic_load_n(&fake.waiter, __ATOMIC_ACQUIRE))
        sp_sleep(SP_US(100));
}

static void start_waiter(uint64_t packet_at)
{
    start_waiter_on(packet_at, 1, 0);
}

TEST(busy_cores_poll)
{
    uint64_t t0, end, gap = 0, prev, from, to;
    int n, in_window = 0, in_g = 0;

    start_waiter(UINT64_MAX);   /* no packet until the hogs run */
    t0 = sp_nanotime();
    end = t0 + HOG_TIME;
    __atomic_store_n(&fake.packet_at, t0 + PACKET_AT, __ATOMIC_RELAXED);
    sp_waitgroup_add(&fake.wg, sp_ncpu());
    for (int i = 0; i < sp_ncpu(); i++)
        sp_go(hog, &end);
    sp_waitgroup_wait(&fake.wg);
    netpoll_init(NULL, 1);

    n = __atomic_load_n(&fake.npolls, __ATOMIC_ACQUIRE);
    from = t0 + WINDOW_FROM;
    to = t0 + PACKET_AT;
    prev = from;
    for (int i = 0; i < n; i++) {
        if (fake.poll_at[i] < from || fake.poll_at[i] > to)
            continue;
        in_window++;
        in_g += fake.poll_in_g[i];
        if (fake.poll_at[i] - prev > gap)
            gap = fake.poll_at[i] - prev;
        prev = fake.poll_at[i];
    }
    if (to - prev > gap)
        gap = to - prev;
    printf("# %d polls while %d cores were busy, %d from an interrupt; "
           "longest gap %llu us; the waiter ran %lld us after its packet\n",
           in_window, sp_ncpu(), in_g, (unsigned long long)gap / 1000,
           (long long)(fake.woke_at - (t0 + PACKET_AT)) / 1000);
    CHECKF(in_g > 0, "no poll came from a timer interrupt (%d polls)",
           in_window);
    CHECKF(gap <= MAX_GAP, "no poll for %llu us while the cores were busy",
           (unsigned long long)gap / 1000);
    CHECKF(fake.woke_at >= t0 + PACKET_AT, "the waiter ran before its "
           "packet came");
    CHECKF(fake.woke_at - (t0 + PACKET_AT) <= BUSY_LATENCY, "the waiter "
           "ran %llu us after its packet",
           (unsigned long long)(fake.woke_at - (t0 + PACKET_AT)) / 1000);
}

TEST(idle_cores_poll)
{
    uint64_t at;

    start_waiter(sp_nanotime() + SP_MS(100));
    at = fake.packet_at;
    sp_waitgroup_wait(&fake.wg);   /* main parks too: all cores idle */
    netpoll_init(NULL, 1);
    printf("# idle cores: the waiter ran %lld us after its packet, "
           "%d polls\n", (long long)(fake.woke_at - at) / 1000,
           fake.npolls);
    CHECK(fake.woke_at >= at);
    CHECKF(fake.woke_at - at <= IDLE_LATENCY, "the waiter ran %llu us "
           "after its packet", (unsigned long long)(fake.woke_at - at) / 1000);
}

TEST(no_waiter_no_poll)
{
    uint64_t end;

    memset(&fake, 0, sizeof fake);
    netpoll_init(fake_poll, 1);
    end = sp_nanotime() + SP_MS(100);
    sp_waitgroup_add(&fake.wg, sp_ncpu());
    for (int i = 0; i < sp_ncpu(); i++)
        sp_go(hog, &end);
    sp_waitgroup_wait(&fake.wg);
    sp_sleep(SP_MS(30));        /* idle cores, too */
    netpoll_init(NULL, 1);
    CHECKF(fake.npolls == 0, "polled %d times with no G waiting",
           fake.npolls);
}

/*
 * A NIC with a queue per core, every core busy: each core's timer polls
 * its own queue, another core's only once that one went 50 ms without a
 * poll (its vCPU stopped by the host: a rescue), and the G a packet on
 * the last queue readies runs on the last core (its wake queue), not
 * anywhere else.
 */
TEST(each_core_polls_its_queue)
{
    int nq = sp_ncpu(), last = nq - 1, rescues = 0;
    uint64_t t0, end;

    start_waiter_on(UINT64_MAX, nq, last);
    t0 = sp_nanotime();
    end = t0 + HOG_TIME;
    __atomic_store_n(&fake.packet_at, t0 + PACKET_AT, __ATOMIC_RELAXED);
    sp_waitgroup_add(&fake.wg, nq);
    for (int i = 0; i < nq; i++)
        sp_go(hog, &end);
    sp_waitgroup_wait(&fake.wg);
    netpoll_init(NULL, 1);
    for (int q = 0; q < nq; q++) {
        int mine = __atomic_load_n(&fake.polls[q][q], __ATOMIC_RELAXED);

        CHECKF(mine > 0, "core %d never polled its queue", q);
        for (int c = 0; c < nq; c++) {
            CHECKF(fake.early[q][c] == 0, "core %d polled queue %d %d "
                   "times before it was stranded", c, q, fake.early[q][c]);
            if (c != q)
                rescues += fake.polls[q][c];
        }
    }
    printf("# %d queues: the waiter of queue %d ran on core %d, %lld us "
           "after its packet; %d rescues of a stranded queue\n", nq, last,
           fake.woke_on, (long long)(fake.woke_at - (t0 + PACKET_AT)) / 1000,
           rescues);
    CHECKF(fake.woke_on == last, "the waiter of queue %d ran on core %d",
           last, fake.woke_on);
    CHECK(fake.woke_at >= t0 + PACKET_AT);
}

TEST(all_freed)
{
    CHECK(netpoll_waiters() == 0);
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
