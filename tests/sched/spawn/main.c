/*
 * spawn - the scheduler core: spawning, stealing, parking and waking,
 * per-G errno, and a final check that every G went back to a free list.
 * Parking uses the scheduler's own gopark/goready so that these tests do
 * not depend on channels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"
#include "tests/lib/testutil.h"

static long all_at_start;

/* Yields until *count reaches want, or about 60 s have passed. */
static bool wait_count(long *count, long want)
{
    uint64_t end = sp_nanotime() + 60000000000ULL;

    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < want) {
        if (sp_nanotime() > end)
            return false;
        sp_yield();
    }
    return true;
}

/* ---- a million Gs (100,000 under a sanitizer), each runs exactly once -- */

#define NSPAWN (SP_TSAN || SP_ASAN ? 100000 : 1000000)

static unsigned char *ran;
static long nran;

static void mark(void *arg)
{
    __atomic_add_fetch(&ran[(uintptr_t)arg], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&nran, 1, __ATOMIC_RELEASE);
}

TEST(spawn_million)
{
    ran = calloc(NSPAWN, 1);
    CHECK(ran);
    nran = 0;
    for (uintptr_t i = 0; i < NSPAWN; i++) {
        sp_go(mark, (void *)i);
        /* A spawner that never blocks holds its core until its quantum
           ends, and the Gs queued behind it stay alive (4 KiB each)
           meanwhile; yielding every 4,096 bounds them. */
        if (i % 4096 == 4095)
            sp_yield();
    }
    CHECKF(wait_count(&nran, NSPAWN), "%ld of %d Gs ran", nran, NSPAWN);
    for (long i = 0; i < NSPAWN; i++)
        CHECKF(ran[i] == 1, "G %ld ran %d times", i, ran[i]);
    free(ran);
}

/* ---- one spawner, every core runs some of its Gs --------------------- */

#define NSTEAL 2000

static long per_core[MAXCPU];
static long nstolen;

static void busy(void *arg)
{
    uint64_t end = sp_nanotime() + 200000;     /* 200 us of work */

    while (sp_nanotime() < end)
        ;
    __atomic_add_fetch(&per_core[sp_cpu_id()], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&nstolen, 1, __ATOMIC_RELEASE);
}

static void spawner(void *arg)
{
    for (int i = 0; i < NSTEAL; i++)
        sp_go(busy, NULL);
}

/* One spawner's NSTEAL Gs run on every core: the others steal them. */
static void steal_to_every_core(void)
{
    memset(per_core, 0, sizeof per_core);
    nstolen = 0;
    sp_go(spawner, NULL);
    CHECKF(wait_count(&nstolen, NSTEAL), "%ld of %d Gs ran", nstolen,
           NSTEAL);
    printf("# stealing: Gs run per core:");
    for (int i = 0; i < sp_ncpu(); i++)
        printf(" %ld", per_core[i]);
    printf("\n");
    for (int i = 0; i < sp_ncpu(); i++) {
        if (per_core[i] == 0)
            sched_detail();     /* who spins, who halts, who holds what */
        CHECKF(per_core[i] > 0, "core %d ran none of the %d Gs (no steal)",
               i, NSTEAL);
    }
}

TEST(stealing)
{
    steal_to_every_core();
}

/* ---- the spinning count survives stalled wakers ----------------------- */

/*
 * A waker that wins nmspinning's 0 -> 1 and then stalls (its host thread
 * descheduled, an SMI) must keep that count when a core that started
 * spinning meanwhile gives up its P and halts: the waker hands the count
 * to that core, and a count lost there is a spinner nobody has, which
 * silences every later wakeup.  With the scheduler's stalls on, rounds of
 * short Gs make cores spin and halt inside wakers' stalls.  Then, stalls
 * off, the count must settle to the Ms' flags, and one spawner's Gs must
 * again reach every core.  From 4 cores up the rounds must have hit the
 * window.  A core starts spinning beside a waker holding the count only
 * while 2 < ncpu - npidle, and the waker won its CAS with a P idle: at 2
 * cores that never happens, and at 3 only once that P's core is busy
 * again, which these rounds seldom bring about.
 */
#define STALL_US 1000
#define STALL_HITS 20

TEST(spinning_survives_stalls)
{
    /* Below 4 cores the window is seldom hit: stall for a while, then
       check the count all the same.  From 4 up, go on past `end` until
       the window was hit once (a busy host may keep the cores from
       meeting in it for a while), up to `last`. */
    uint64_t end = sp_nanotime() + (sp_ncpu() >= 4 ? SP_S(3) : SP_MS(500));
    uint64_t last = end + (sp_ncpu() >= 4 ? SP_S(20) : 0);
    long hits0 = sched_stall_hits(), hits;
    int rounds = 0, n = 4 * sp_ncpu();
    bool agreed;

    sched_stall_set(STALL_US);
    do {
        nstolen = 0;
        for (int i = 0; i < n; i++)
            sp_go(busy, NULL);
        CHECKF(wait_count(&nstolen, n), "%ld of %d Gs ran", nstolen, n);
        rounds++;
    } while (sched_stall_hits() - hits0 < STALL_HITS &&
             (sp_nanotime() < end ||
              (sched_stall_hits() == hits0 && sp_nanotime() < last)));
    sched_stall_set(0);
    hits = sched_stall_hits() - hits0;
    printf("# %ld spinners halted inside a stalled waker's window, "
           "%d rounds\n", hits, rounds);
    /* The two are read apart, and a waker between its count and the
       flag it sets is a moment's disagreement: one agreeing look while
       the machine goes quiet (this G sleeps, the rest halt) is the
       pass.  A count nobody gives back disagrees for good. */
    end = sp_nanotime() + SP_S(5);
    while (!(agreed = sched_nmspinning() == sched_spinning_ms()) &&
           sp_nanotime() < end)
        sp_sleep(SP_MS(1));
    if (!agreed)
        sched_detail();
    CHECKF(agreed, "nmspinning %d, but %d Ms spin for 5 s",
           sched_nmspinning(), sched_spinning_ms());
    if (sp_ncpu() >= 4)
        CHECKF(hits > 0, "no spinner halted inside a stalled waker's "
               "window in %d rounds: the race was not exercised", rounds);
    steal_to_every_core();
}

/* ---- wakeups reach halted cores -------------------------------------- */

/*
 * Two Gs take turns: each readies the other and parks.  The readier keeps
 * its core busy for a moment before parking, so the readied G is usually
 * taken by another core that was halted and got the wakeup IPI.  A lost
 * wakeup leaves both parked: the deadlock detector or the test timeout
 * reports it.
 */
#define NPINGS 100000

struct turn {
    struct spinlock lock;
    struct g *parked;       /* the G waiting for its turn, under lock */
    int ready;              /* a turn was handed over with nobody parked */
};

static struct turn turn = { .lock = SPINLOCK_INIT(LOCK_TEST) };
static long npings, ncross;

static void hand_over(void)
{
    unsigned long f = spin_lock(&turn.lock);
    struct g *gp = turn.parked;

    turn.parked = NULL;
    if (!gp)
        turn.ready++;
    spin_unlock(&turn.lock, f);
    if (gp)
        goready(gp);
}

static void wait_turn(void)
{
    unsigned long f = spin_lock(&turn.lock);

    if (turn.ready) {
        turn.ready--;
        spin_unlock(&turn.lock, f);
        return;
    }
    turn.parked = getg();
    gopark_unlock(&turn.lock, WAIT_TEST);
    arch_irq_restore(f);        /* gopark_unlock returns with irqs off */
}

static void pinger(void *arg)
{
    long *done = arg;

    for (;;) {
        int before, after;

        wait_turn();
        if (__atomic_load_n(&npings, __ATOMIC_ACQUIRE) >= NPINGS) {
            hand_over();
            break;
        }
        before = sp_cpu_id();
        __atomic_add_fetch(&npings, 1, __ATOMIC_RELEASE);
        hand_over();
        for (volatile int i = 0; i < 200; i++)
            ;
        after = sp_cpu_id();
        if (before != after)
            __atomic_add_fetch(&ncross, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(done, 1, __ATOMIC_RELEASE);
}

TEST(no_lost_wakeup)
{
    long done = 0;

    npings = ncross = 0;
    turn.ready = 1;
    sp_go(pinger, &done);
    sp_go(pinger, &done);
    CHECKF(wait_count(&done, 2), "stuck after %ld of %d turns", npings,
           NPINGS);
    CHECKF(npings == NPINGS, "%ld turns", npings);
}

/* ---- 100,000 parked Gs (fewer under a sanitizer) ----------------------- */

/*
 * Under TSan, 4,000: gcc 12's runtime gives each of the first 2,000 G
 * slots a fiber (arch/hosted/context.c) and does work in proportion to
 * the fibers at every acquire and release; 4,000 still parks Gs past
 * the fibered slots.  Under ASan, 10,000: it poisons and unpoisons each
 * G's stack as it starts and parks, which makes 100,000 slow there.
 */
#define NPARK (SP_TSAN ? 4000 : SP_ASAN ? 10000 : 100000)

static struct spinlock park_lock = SPINLOCK_INIT(LOCK_TEST);
static struct g *parked_list;
static long nparked, nwoken;

static void park_once(void *arg)
{
    unsigned long f = spin_lock(&park_lock);

    getg()->schedlink = parked_list;    /* a parked G's link is free */
    parked_list = getg();
    /* Atomic: wait_count reads it without park_lock. */
    __atomic_add_fetch(&nparked, 1, __ATOMIC_RELAXED);
    gopark_unlock(&park_lock, WAIT_TEST);
    arch_irq_restore(f);
    __atomic_add_fetch(&nwoken, 1, __ATOMIC_RELEASE);
}

TEST(many_parked)
{
    long n = 0;

    nparked = nwoken = 0;
    for (int i = 0; i < NPARK; i++)
        sp_go(park_once, NULL);
    CHECKF(wait_count(&nparked, NPARK), "%ld of %d Gs parked", nparked,
           NPARK);
    CHECKF(sched_live_gs() >= NPARK + 1, "%ld Gs alive", sched_live_gs());
    for (;;) {
        unsigned long f = spin_lock(&park_lock);
        struct g *gp = parked_list;

        if (gp)
            parked_list = gp->schedlink;
        spin_unlock(&park_lock, f);
        if (!gp)
            break;
        goready(gp);
        n++;
    }
    CHECKF(n == NPARK, "found %ld parked Gs", n);
    CHECKF(wait_count(&nwoken, NPARK), "%ld of %d woke", nwoken, NPARK);
}

/* ---- errno belongs to the G ------------------------------------------ */

#define NERRNO 64

static long errno_bad, errno_done;

static void errno_keeper(void *arg)
{
    int mine = (int)(uintptr_t)arg;

    for (int i = 0; i < 50; i++) {
        errno = mine;
        sp_yield();             /* may come back on another core */
        if (errno != mine)
            __atomic_add_fetch(&errno_bad, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&errno_done, 1, __ATOMIC_RELEASE);
}

TEST(errno_per_g)
{
    errno_bad = errno_done = 0;
    for (int i = 0; i < NERRNO; i++)
        sp_go(errno_keeper, (void *)(uintptr_t)(1000 + i));
    CHECK(wait_count(&errno_done, NERRNO));
    CHECKF(errno_bad == 0, "errno changed under %ld Gs", errno_bad);
}

/* ---- every G back on a free list -------------------------------------- */

TEST(all_gs_freed)
{
    uint64_t end = sp_nanotime() + 5000000000ULL;

    /* Finished Gs are freed by their core right after they exit, and
       the free count is a sum over the Ps read without a lock: a P that
       is moving a batch between its list and the global one is briefly
       missing those Gs from it.  Wait until both settle. */
    while ((sched_live_gs() > 1 || sched_free_gs() != sched_all_gs() - 1) &&
           sp_nanotime() < end)
        sp_yield();
    CHECKF(sched_live_gs() == 1, "%ld Gs alive, expected only main",
           sched_live_gs());
    CHECKF(sched_free_gs() == sched_all_gs() - 1, "%ld Gs made, %ld free",
           sched_all_gs(), sched_free_gs());
    CHECKF(sched_all_gs() >= all_at_start, "G count went down");
}

int main(void)
{
    all_at_start = sched_all_gs();
    return sp_test_main();
}
