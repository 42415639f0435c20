/*
 * schedimpl.h - what the files of sched/ share with each other and
 * nothing else: the global scheduler state and the internal calls.
 */
#ifndef SCHED_SCHEDIMPL_H
#define SCHED_SCHEDIMPL_H

#include "cpu.h"
#include "sched.h"
#include "spinlock.h"

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

    /* Atomics (seq-cst: the spinning protocol in proc.c needs it);
       written only when a core goes idle, wakes or spins. */
    _Alignas(CACHE_LINE) int npidle;
    int nmspinning;

    /* Handed out to the Ps GOID_BATCH at a time (newproc). */
    _Alignas(CACHE_LINE) uint64_t goidgen;

    _Alignas(CACHE_LINE) struct spinlock lock;
    /* Under lock: the global run queue (chunks of G pointers, proc.c)
       and the idle P list. */
    struct gchunk *runqhead, *runqtail, *chunkfree;
    long nchunks;               /* pages they take; atomic stores */
    uint32_t runqsize;          /* also read without the lock, as a hint */
    struct p *pidle;
};

extern struct sched sched;

/* proc.c */
void globrunqput(struct g *gp);
void runqput(struct p *p, struct g *gp, bool next);
void wakep(void);
void injectglist(struct g *list);
/* On g0: gp, just switched out, goes to the global queue (a yield or a
   preemption, as Go's goschedImpl) and an idle core may take it. */
void gosched_m(struct g *gp);
/* Called by a G that resumes, interrupts off: finishes the park or yield
   of the G that switched straight to it (the direct hand-off), if any. */
void finish_handoff(void);
__attribute__((noreturn)) void goexit(void);

/* timers.c: the earliest `when` in p's timer heap, 0 if empty; a hint
   read without the lock (pairs with update_timer0's store-release). */
static inline uint64_t timers_next(const struct p *p)
{
    return __atomic_load_n(&p->timer0, __ATOMIC_ACQUIRE);
}

/* wakeq.c: Gs readied by timer functions; interrupts off. */
void wakeq_put(struct p *p, struct g *gp);
struct g *wakeq_get(struct p *p);
struct g *wakeq_steal(struct p *thief, struct p *victim);

static inline bool wakeq_empty(struct p *p)
{
    return !__atomic_load_n(&p->nwake, __ATOMIC_SEQ_CST);
}

/* steal.c */
void steal_init(int n);
struct g *stealwork(struct m *m);
/* One pass over the other Ps, taking from their wake queues, and from
   their rings when they hold two Gs or more (never their runnext); for a
   G that yields with nothing else on its P. */
struct g *steal_once(struct p *p);

/* gfree.c: G allocation, free lists, the list of all Gs. */
struct g *gfget(struct p *p);
void gfput(struct p *p, struct g *gp);

/* dead.c: called with sched.lock held when every P has gone idle. */
void checkdead(void);

/* gfree.c: calls fn on every parked G (callers keep the G set still). */
void for_each_waiting_g(void (*fn)(struct g *));

/* preempt.c */
extern uint64_t quantum;        /* slice length in cycles */
void preempt_init(void);
/* A scheduler setting from the command line: key's value, clamped into
   min..max, or def if absent or not a number; a bad one is reported. */
long sched_setting(const char *key, long min, long max, long def,
                   const char *unit);

extern uint64_t timer_gap;      /* cycles; see preempt.c */

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

/* core_timer_set for a core that runs Gs: no sooner than timer_gap after
   its last timer interrupt (preempt.c, "Interrupt moderation"). */
static inline void core_timer_arm(struct m *m, uint64_t deadline)
{
    if (deadline && deadline < m->irq_at + timer_gap)
        deadline = m->irq_at + timer_gap;
    core_timer_set(m, deadline);
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

/* kernel/smp.c: runs a pending smp_call_all request on this core.  The
   check is inline: every schedule makes it. */
void smp_run_call(struct cpu *c);

/* True if a smp_call_all request waits for this core. */
static inline bool smp_calls_pending(void)
{
    struct cpu *c = this_cpu();

    return __atomic_load_n(&c->call_seq, __ATOMIC_RELAXED) != c->call_done;
}

static inline void smp_poll_calls(void)
{
    struct cpu *c = this_cpu();

    /* Pairs with the store-release of call_seq in smp_call_all. */
    if (__atomic_load_n(&c->call_seq, __ATOMIC_ACQUIRE) != c->call_done)
        smp_run_call(c);
}

/*
 * A full barrier between a store and the loads after it (the spinning
 * protocol's store-fence-load pairs, proc.c).  ThreadSanitizer does not
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

/* The earlier of two arch_cycles() deadlines, where 0 means none. */
static inline uint64_t earliest(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

#endif
