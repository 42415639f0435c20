/*
 * steal - timers started on a core that is then hogged still fire on
 * time, because some core runs them.
 *
 * A G starts 100 timers of 5-50 ms on its core (half channel timers,
 * half after-funcs), then keeps that core for 400 ms without calling the
 * scheduler.  Two ways of keeping it:
 *
 *   - preemptoff: the G cannot be preempted, but the core still takes
 *     its timer interrupt, which runs the core's due timers.  Channel
 *     timers fire from there; an after-func's new G lands on the hogged
 *     core's run queue and must be stolen by another core to run.
 *   - interrupts off (a spinlock held): the core runs nothing at all, so
 *     a timer fires on time only if another core runs the hogged core's
 *     timers (Go's stealWork/checkTimers; timers.h "or on a thief's").
 *   - interrupts off, and every other core kept busy by a G that yields
 *     in a loop: no core is idle or steals, so the timers fire on time
 *     only because a busy core looks after the other Ps' overdue timers
 *     each time it passes through the scheduler (proc.c,
 *     look_after_others).
 *
 * With two or more cores every timer must fire, and every after-func
 * run, long before the hog lets go: within 100 ms of its deadline, where
 * a timer that waits for the 400 ms hog is 350-395 ms late (under TSan
 * the hog runs 1 s and the bound is 700 ms).  The bound is not 10 ms:
 * under TCG on a 2-core host even timers fired by the hogged core's own
 * interrupt, with no stealing involved, come tens of milliseconds late
 * whenever the host deschedules a vCPU, so a tight bound fails correct
 * kernels; how many timers were more than 10 ms late is printed.  On one
 * core nothing else can run them: there they must only all fire, none
 * early.
 *
 * Every timer must still be pending when the hog takes its core: one
 * that came due before (the host stalled the hog's vCPU while it started
 * them) may have fired on that core's own interrupt and left an
 * after-func's G in its run queue, which a busy core rightly does not
 * steal.  Such a run does not test what it is for; it is said and run
 * again, up to HOG_TRIES times, and judged as any other the last time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "tests/lib/testutil.h"
#include "tests/lib/timeutil.h"

#define NSTEAL 100
#define MIN_DUE_MS 5
#define MAX_DUE_MS 50
/* On time: well before the hog lets go.  Under TSan (hosted, 4 core
   threads on a 2-core host, every access slowed several times) timers
   run by other cores were seen up to 500 ms late with the host loaded,
   so there the hog runs 1 s: a timer that waits for it is 950 ms late
   or more, and 700 ms keeps the two apart. */
#define SLOW (SP_TSAN || sp_ncpu() >= 8)   /* also 8 vCPUs on 2 host cores */
#define HOG_TIME (SLOW ? SP_S(1) : SP_MS(400))
#define ON_TIME (SLOW ? SP_MS(700) : SP_MS(100))
#define PROMPT SP_MS(10)
#define HOG_TRIES 3

struct steal {
    sp_timer *t[NSTEAL];
    uint64_t due[NSTEAL];       /* sp_nanotime() deadline */
    uint64_t ran[NSTEAL];       /* after-func: when its G ran */
    long nran;
    bool irqoff;                /* hog with a spinlock, not preemptoff */
    bool hogging;               /* the hog holds its core (busy Gs spin) */
    uint64_t hog_start;         /* sp_nanotime() once it holds it */
    long nbusy;                 /* busy Gs that saw the hog start */
    int cpu;                    /* the hogged core */
    bool moved;                 /* the hog left its core: a bug */
    sp_waitgroup wg;
};

static struct steal st;
static struct spinlock hog_lock = SPINLOCK_INIT(LOCK_TEST);

static void ran(void *arg)
{
    long i = (long)(uintptr_t)arg;

    st.ran[i] = sp_nanotime();
    __atomic_add_fetch(&st.nran, 1, __ATOMIC_RELEASE);
}

/* Even timers are channel timers, odd ones after-funcs. */
static bool is_chan(int i)
{
    return i % 2 == 0;
}

static void hog(void *arg)
{
    uint64_t seed = 0x5EED + st.irqoff, end;
    unsigned long f = 0;

    /* The timers go in this core's heap; keep the core from here on (a
       preemption between reading the core and the region below would
       move the hog and look like a move inside it). */
    getg()->preemptoff++;
    st.cpu = sp_cpu_id();
    for (int i = 0; i < NSTEAL; i++) {
        uint64_t ns = SP_MS(MIN_DUE_MS) +
                      rnd(&seed) % SP_MS(MAX_DUE_MS - MIN_DUE_MS);

        st.due[i] = sp_nanotime() + ns;
        st.t[i] = is_chan(i) ? sp_timer_new(ns) :
                  sp_after_func(ns, ran, (void *)(uintptr_t)i);
    }
    /* With interrupts off, the timers' own core cannot even take its
       timer interrupt: only other cores can run them. */
    if (st.irqoff)
        f = spin_lock(&hog_lock);
    st.hog_start = sp_nanotime();
    __atomic_store_n(&st.hogging, true, __ATOMIC_RELEASE);
    end = sp_nanotime() + HOG_TIME;
    while (sp_nanotime() < end)
        if (sp_cpu_id() != st.cpu)
            st.moved = true;
    __atomic_store_n(&st.hogging, false, __ATOMIC_RELEASE);
    if (st.irqoff)
        spin_unlock(&hog_lock, f);
    getg()->preemptoff--;
    sp_waitgroup_done(&st.wg);
}

/* Keeps a core busy while the hog runs, passing through the scheduler
   at every yield but never idle. */
static void busy(void *arg)
{
    uint64_t give_up = sp_nanotime() + SP_S(5);

    (void)arg;
    while (!__atomic_load_n(&st.hogging, __ATOMIC_ACQUIRE) &&
           sp_nanotime() < give_up)
        sp_yield();
    if (__atomic_load_n(&st.hogging, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&st.nbusy, 1, __ATOMIC_RELAXED);
        while (__atomic_load_n(&st.hogging, __ATOMIC_ACQUIRE))
            sp_yield();
    }
    sp_waitgroup_done(&st.wg);
}

/* One run.  *again (false on entry) is set, after saying why, if a
   timer came due before the hog held its core and this is not the
   `last` try; a failed check returns with it false. */
static void hog_run(bool irqoff, bool others_busy, bool last, bool *again)
{
    int nbusy = others_busy ? sp_ncpu() - 1 : 0;
    uint64_t worst = 0, first_late_by = 0, when;
    int late = 0, early = 0, first_late = -1, over10 = 0, before = 0;
    bool strict = sp_ncpu() > 1;

    memset(&st, 0, sizeof st);
    st.irqoff = irqoff;
    sp_waitgroup_add(&st.wg, 1 + nbusy);
    for (int i = 0; i < nbusy; i++)
        sp_go(busy, NULL);
    sp_go(hog, NULL);
    sp_waitgroup_wait(&st.wg);
    CHECKF(st.nbusy == nbusy, "%ld of %d busy Gs ran while the hog held "
           "its core", st.nbusy, nbusy);
    CHECKF(!st.moved, "the hog left core %d while it could not be "
           "preempted", st.cpu);
    CHECKF(wait_count(&st.nran, NSTEAL / 2, SP_S(5)), "%ld of %d "
           "after-funcs ran", st.nran, NSTEAL / 2);
    for (int i = 0; i < NSTEAL; i++) {
        uint64_t at;

        if (is_chan(i)) {
            CHECKF(sp_chan_recv_timeout(sp_timer_chan(st.t[i]), &when,
                                        SP_S(5), NULL),
                   "timer %d never fired", i);
            at = when;
        } else {
            at = st.ran[i];
        }
        if (at < st.due[i]) {
            early++;
            continue;
        }
        over10 += at - st.due[i] > PROMPT;
        if (at - st.due[i] > ON_TIME) {
            if (first_late < 0) {
                first_late = i;
                first_late_by = at - st.due[i];
            }
            late++;
        }
        if (at - st.due[i] > worst)
            worst = at - st.due[i];
    }
    for (int i = 0; i < NSTEAL; i++) {
        before += st.due[i] <= st.hog_start;
        sp_timer_free(st.t[i]);
    }
    if (before && strict && !last) {
        printf("# %d of %d timers came due before the hog held its core: "
               "again\n", before, NSTEAL);
        *again = true;
        return;
    }
    printf("# %s hog%s on core %d of %d: worst lateness %llu us; %d of %d "
           "timers more than %llu ms late, %d more than %llu ms\n",
           irqoff ? "interrupts-off" : "preemptoff",
           nbusy ? " beside busy cores" : "", st.cpu, sp_ncpu(),
           (unsigned long long)worst / 1000, over10, NSTEAL,
           (unsigned long long)PROMPT / 1000000, late,
           (unsigned long long)ON_TIME / 1000000);
    CHECKF(early == 0, "%d timers fired before their deadline", early);
    if (strict)
        CHECKF(late == 0, "%d of %d timers on the hogged core fired more "
               "than %llu ms late (the first: %s %d, %llu us late; worst "
               "%llu us)", late, NSTEAL,
               (unsigned long long)ON_TIME / 1000000,
               is_chan(first_late) ? "channel timer" : "after-func",
               first_late, (unsigned long long)first_late_by / 1000,
               (unsigned long long)worst / 1000);
}

static void hogged_core(bool irqoff, bool others_busy)
{
    bool again = true;

    for (int try = 1; again; try++) {
        again = false;
        hog_run(irqoff, others_busy, try == HOG_TRIES, &again);
    }
}

TEST(preemptoff_hog)
{
    hogged_core(false, false);
}

TEST(irqoff_hog)
{
    hogged_core(true, false);
}

TEST(irqoff_hog_busy)
{
    hogged_core(true, true);
}

TEST(all_freed)
{
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
