/*
 * schedimpl.h - what the files of sched/ share with each other and
 * nothing else: the global scheduler state and the internal calls.
 */
#ifndef SCHED_SCHEDIMPL_H
#define SCHED_SCHEDIMPL_H

#include "kernel/cpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "sched/sched.h"

/*
 * Laid out by who writes what, one group per cache line, so that a core
 * taking the lock does not steal the line every other core reads on each
 * wakep() (npidle, nmspinning) or steal (allp), nor the one spawns bump.
 */
#define CACHE_LINE 64

struct sched {
    /* Written once by sched_init, then only read. */
    struct p *allp[MAXCPU];
    struct m *allm[MAXCPU];
    bool ready;                 /* allp/allm built; store-release */

    /* Atomics (seq-cst: the spinning protocol in idle.c needs it);
       written only when a core goes idle, wakes or spins. */
    _Alignas(CACHE_LINE) int npidle;
    int nmspinning;

    /* Handed out to the Ps GOID_BATCH at a time (newproc). */
    _Alignas(CACHE_LINE) uint64_t goidgen;

    _Alignas(CACHE_LINE) struct spinlock lock;
    /* Under lock: the global run queue (chunks of G pointers,
       globrunq.c) and the idle P list. */
    struct gchunk *runqhead, *runqtail, *chunkfree;
    long nchunks;               /* pages they take; atomic stores */
    uint32_t runqsize;          /* also read without the lock, as a hint */
    struct p *pidle;
};

extern struct sched sched;

/* globrunq.c: the global run queue.  The callers of globrunqput,
   globrunqputbatch (gs[0..n) in order) and globrunqget (Go's batch for
   p, at most max if max is not 0, into out[]; how many) hold
   sched.lock.  injectglist makes a schedlink list of waiting Gs
   runnable on the global queue and calls wakep. */
void globrunq_init(void);
void globrunqput(struct g *gp);
void globrunqputbatch(struct g *const *gs, uint32_t n);
uint32_t globrunqget(struct p *p, uint32_t max, struct g **out);
void injectglist(struct g *list);

/*
 * A function of the hottest path, which the linker puts with the others
 * on one page of their own (linker/<arch>.ld): under QEMU's TCG a jump
 * or call into another page cannot be chained to the next translated
 * block and costs a lookup, and where a function's blocks happen to
 * straddle a page boundary its every run pays for the crossings.  The
 * page holds a few kilobytes: the link fails when they outgrow it.
 */
#define SP_HOT_PAGE __attribute__((section(".text.hot")))

/* A function of the scheduler's hot paths that is smaller than 2 KiB,
   aligned so that it never straddles a page boundary (the cost above). */
#define SP_UNSPLIT __attribute__((aligned(2048)))

/* The functions of a park, which call one another: together in one
   2 KiB-aligned block (the linker scripts check the size), so that no
   build's layout puts a call between them across a page boundary. */
#define SP_PARK_BLOCK __attribute__((section(".text.park")))

/* proc.c: puts gp at the tail of p's ring, half the ring going global
   on overflow. */
void runqput_ring(struct p *p, struct g *gp);

/* Puts gp on p's local queue (in runnext with next, the G it displaces
   at the tail).  Returns whether a G went to the ring: false when gp took
   an empty runnext, its only publication then being that seq-cst CAS
   (wakep_after_rmw).  Inline up to the ring: on the path of every
   goready. */
static inline bool runqput(struct p *p, struct g *gp, bool next)
{
    if (next && !(gp = runq_swap_next(&p->runq, gp)))
        return false;
    runqput_ring(p, gp);
    return true;
}

/* idle.c: idle Ps, spinning Ms and waking cores (its steps 1 to 5).
   wakep and wakep_after_rmw (below, inline) are step 3's check, and
   wake_idle_core its slow half.  resetspinning is step 2;
   stop_and_halt steps 4 and 5, returning a G the network readied for
   this core, or NULL: look again.  spin_more
   says whether a spinner that found nothing keeps looking (idlespin).
   run_polled takes the first G of a list the network readied and
   injects the rest. */
void wake_idle_core(void);
void resetspinning(struct m *m);
struct g *stop_and_halt(struct m *m);
bool spin_more(uint64_t *end);
void idlespin_init(void);
struct g *run_polled(struct g *list);

/* proc.c */
/* Zeroed memory on cache lines of its own, never freed: for what a core
   writes all the time (its M and P, the profiler's buffer), which must
   not share a line with another core's.  (newlib here has no
   aligned_alloc.)  NULL if there is no memory. */
void *zalloc_lines(size_t size);
/* On g0: gp, just switched out, goes to the global queue (a yield or a
   preemption, as Go's goschedImpl) and an idle core may take it. */
void gosched_m(struct g *gp);
/* Called by a G the timer preempted when it runs again, interrupts off:
   finishes the park or yield of the G that switched straight to it (the
   direct hand-off), if any; mcall and gentry do the same inline. */
void preempted_resume(void);

/* timers.c: the earliest `when` in p's timer heap, 0 if empty; a hint
   read without the lock (pairs with update_timer0's store-release). */
static inline uint64_t timers_next(const struct p *p)
{
    return __atomic_load_n(&p->timer0, __ATOMIC_ACQUIRE);
}

/* wakeq.c: Gs readied by timer functions; interrupts off. */
void wakeq_init(void);
void wakeq_put(struct p *p, struct g *gp);
struct g *wakeq_get(struct p *p);
struct g *wakeq_steal(struct p *thief, struct p *victim);

static inline bool wakeq_empty(struct p *p)
{
    return !__atomic_load_n(&p->nwake, __ATOMIC_SEQ_CST);
}

/* steal.c.  The callers of stealwork and steal_once have nothing in
   their own ring (the tracer counts a steal from what it holds after). */
void steal_init(int n);
struct g *stealwork(struct m *m);
/* The runq pause hook of every P (runq.c): true if the victim may lose
   its runnext. */
bool steal_pause(struct runq *q);
/* One pass over the other Ps, taking from their wake queues, and from
   their rings when they hold two Gs or more (never their runnext); for a
   G that yields with nothing else on its P. */
struct g *steal_once(struct p *p);

/* gattr.c: a big stack and TLS for a fresh G (false: no big stack to
   be had; interrupts off); back to plain once dead (g0); this core's
   thread pointer for gp, or the core's own if gp is NULL (setcurg). */
bool gattr_setup(struct g *gp, size_t stack, bool tls);
void gattr_exit(struct g *gp);
void gattr_switch_tp(struct m *m, struct g *gp);
/* A core's own TLS block's thread pointer, 0 where the arch has no TLS
   per G (sched_init, boot core). */
uintptr_t gattr_core_tp(void);
/* The stack a G asking for `want` bytes (with tls or not) gets: 0 for
   its slot's, else a big stack's size; (size_t)-1 if over
   SP_GO_STACK_MAX. */
size_t gattr_stack(size_t want, bool tls);

/* gfree.c: G allocation, free lists, the list of all Gs. */
struct g *gfget(struct p *p);
void gfput(struct p *p, struct g *gp);

/* dead.c: called with sched.lock held when every P has gone idle. */
void checkdead(void);

/* gfree.c: calls fn on every parked G (callers keep the G set still). */
void for_each_waiting_g(void (*fn)(struct g *));
/* gfree.c: calls fn(gp, arg) on every G ever made, dead ones too, under
   the lock of the list (fn must not take it or make a G). */
void for_each_g(void (*fn)(struct g *, void *), void *arg);

/* preempt.c */
extern uint64_t quantum;        /* slice length in cycles */
void preempt_init(void);
/* Parked Gs give back their pages (release.c).  release_step runs a
   batch if one is due, from an idle core's findrunnable, and is true if
   it did (then the core looks for work again). */
extern uint32_t release_epoch;
void release_init(void);
bool release_step(struct m *m);

/* A scheduler setting from the command line: key's value, clamped into
   min..max, or def if absent or not a number; a bad one is reported. */
long sched_setting(const char *key, long min, long max, long def,
                   const char *unit);

extern uint64_t timer_gap;      /* cycles; see preempt.c */

/* The earlier of two arch_cycles() deadlines, where 0 means none:
   without a branch, 0 - 1 being the latest deadline there is. */
static inline uint64_t earliest(uint64_t a, uint64_t b)
{
    return (a - 1 < b - 1 ? a - 1 : b - 1) + 1;
}

/* Sets the core timer to `deadline` unless it already fires sooner; for
   a core about to halt, which has nothing else to run its timers. */
static inline void core_timer_set(struct m *m, uint64_t deadline)
{
    if (deadline && (!m->armed || deadline < m->armed)) {
        /* Atomic: wake_idle_for (timers.c) reads it from other cores. */
        __atomic_store_n(&m->armed, deadline, __ATOMIC_RELAXED);
        arch_timer_arm(deadline);
    }
}

/* core_timer_set, no sooner than timer_gap after the core's last timer
   interrupt (preempt.c, "Interrupt moderation"). */
static inline void core_timer_gap(struct m *m, uint64_t deadline)
{
    if (deadline && deadline < m->irq_at + timer_gap)
        deadline = m->irq_at + timer_gap;
    core_timer_set(m, deadline);
}

/* core_timer_gap for a core that runs Gs or looks for work, no later
   than the profiler's next sample (m->prof_due, 0 while the core does
   not sample: profile.c).  A halted core is not woken for a sample but
   charged its sleep when it wakes: a timer interrupt in the halt arms
   core_timer_gap. */
static inline void core_timer_arm(struct m *m, uint64_t deadline)
{
    core_timer_gap(m, earliest(deadline, m->prof_due));
}

/* time.c: reads the wall clock once. */
void time_init(void);

/* trace.c: schedtrace=N */
void schedtrace_init(void);
extern uint64_t schedtrace_period;      /* cycles; 0 = off */
void schedtrace_due(void);

/* Every schedule: prints the line if its time has come. */
static inline void schedtrace_tick(void)
{
    if (schedtrace_period)
        schedtrace_due();
}

/*
 * A full barrier between a store and the loads after it (the spinning
 * protocol's store-fence-load pairs, idle.c).  ThreadSanitizer does not
 * model fences (gcc refuses them under -fsanitize=thread), so there it is
 * a seq-cst read-modify-write of one shared word: both sides of a pair
 * then order through that word, which TSan follows, and the hardware
 * still gets a full barrier (a locked instruction on x86).
 */
#if defined(__SANITIZE_THREAD__)
extern int sched_fence_word;
static inline void seq_fence(void)
{
    __atomic_fetch_add(&sched_fence_word, 0, __ATOMIC_SEQ_CST);
}
#else
static inline void seq_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

/*
 * Step 3 of the spinning protocol (idle.c): if some P is idle and no M
 * spins, wake_idle_core turns an idle core into the spinner.  Inline: a
 * G readied on a busy machine pays two loads.
 *
 * wakep_after_rmw is for a caller whose only publication of work was a
 * seq-cst read-modify-write (goready's CAS of an empty runnext): in the
 * seq-cst order the loads come after it, which is all wakep's fence is
 * for.  The spinner's side is unchanged: after its decrement of
 * nmspinning it either finds runnext set (or already taken by a thief,
 * which then runs all the work there was), or the loads here see it
 * still spinning.  A runnext that displaced a G also stored the ring's
 * tail, with a release store only: that needs wakep.
 */
static inline void wakep_after_rmw(void)
{
    if (!__atomic_load_n(&sched.npidle, __ATOMIC_SEQ_CST) ||
        __atomic_load_n(&sched.nmspinning, __ATOMIC_SEQ_CST))
        return;
    wake_idle_core();
}

/*
 * For a caller that has just published work with a release store (a run
 * queue's tail, or sched.lock's unlock).  A release store followed by a
 * load may be reordered (the load satisfied first, x86's store buffer,
 * or any weakly ordered core), and then this waker reads a stale
 * "somebody spins" while the last spinner, after its seq-cst decrement,
 * reads the queues from before the store: a lost wakeup.  The full fence
 * pairs with that decrement in stop_and_halt (step 4).
 */
static inline void wakep(void)
{
    seq_fence();
    wakep_after_rmw();
}

/*
 * True if Gs wait to run on the caller's P (its run queue, runnext or
 * wake queue): a G about to busy-wait for a peer would hold them up, and
 * the peer may be one of them (Go's sync_runtime_canSpin asks the same).
 * A hint read without locks, interrupts on or off: the G may change
 * cores between the loads.
 */
static inline bool others_waiting(void)
{
    struct p *p = this_cpu()->m->p;

    return !runq_empty(&p->runq) || !wakeq_empty(p);
}

/* Cycles in us microseconds, for a counter of any rate. */
static inline uint64_t us_cycles(uint64_t us)
{
    return arch_cycles_hz() * us / 1000000;
}

/*
 * Spins for `cycles` of the cycle counter, relaxing the core, and reads
 * the counter once per RELAX_READ_PAUSES x86 pauses' worth of relaxing
 * (cpu_pause), some 0.3-0.5 us on hardware, not once per hint: under
 * QEMU's TCG an aarch64 counter read takes the emulator's global lock,
 * and a core spinning on it slowed every other core's reads, of which
 * each switch makes one (docs/benchmarks.md, "Many live Gs").  It may
 * overshoot by that much; its callers' waits are microseconds long.
 */
#define RELAX_READ_PAUSES 8

static inline void relax_for(uint64_t cycles)
{
    uint64_t end = arch_cycles() + cycles;

    while (arch_cycles() < end)
        for (int i = 0; i < RELAX_READ_PAUSES; i++)
            cpu_pause();
}

#endif
