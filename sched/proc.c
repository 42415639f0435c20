/*
 * proc.c - the scheduler: Go's G/M/P design on bare metal.
 *
 * The model.  Go multiplexes Gs (goroutines) onto Ms (OS threads) through
 * Ps (the right to run Go code, with a run queue each).  Here there is no
 * OS: every core is one M, and it owns one P for the life of the machine,
 * so GOMAXPROCS is the core count and no M ever blocks in a system call.
 * What remains of Go's design is what makes it fast: a lock-free run queue
 * per P with a runnext slot (runq.c), a global queue for fairness and
 * overflow, stealing by idle Ps (steal.c), and the spinning protocol that
 * keeps enough cores looking for work without burning all of them.
 *
 * Rejected: one global locked run queue (every spawn and wakeup contends on
 * one line), and per-core queues without stealing (one busy spawner leaves
 * the other cores idle).  Go's own history made the same choice (the 2012
 * "Scalable Go Scheduler" design).
 *
 * Contexts.  A G runs on its own stack with interrupts enabled.  Each M
 * also has a scheduler context ("g0"), running schedule_loop on the core's
 * boot stack with interrupts disabled.  A G that blocks, yields or exits
 * calls mcall(), which saves the G and resumes g0; g0 finishes the G's
 * transition (park_m, gosched_m, goexit_m) on its own stack, then picks
 * the next G.  Finishing after the switch is what makes parking
 * race-free: the lock that guards a wait queue is released only once the
 * G is no longer running (see sched.h).  Parks and yields usually skip
 * g0 (not in Go): when the G findrunnable would pick is plain to see
 * (runnext, or the ring's head for a yield), the G switches straight to
 * it, and that G finishes the park or yield when it resumes
 * (handoff_next).
 *
 * Order of findrunnable: this P's due timers, the Gs they readied (the
 * wake queue, wakeq.c: not in Go), the other Ps' overdue timers and
 * woken Gs (look_after_others: not in Go, where sysmon does it),
 * runnext, every 61st tick one G of the global queue, the local ring, a
 * batch of the global queue, the network, stealing, then halt.  Go looks
 * at the global queue before runnext; see findrunnable for why Spindle
 * does not.
 *
 * Spinning (Go's proc.go "Worker thread parking/unparking"), numbered as
 * the order of operations matters:
 *   1. A core that runs out of local and global work becomes a spinner
 *      (m->spinning, nmspinning++) only while 2*nmspinning < ncpu-npidle,
 *      and tries to steal.
 *      Not in Go: a spinner that finds nothing keeps looking, a pass
 *      every few microseconds, for `idlespin` (100 us unless the command
 *      line says otherwise) before it goes on to step 4 (spin_more).
 *   2. A spinner that finds work stops spinning, and if it was the last
 *      spinner it calls wakep(): there may be more work, so parallelism
 *      ramps up one core at a time.
 *   3. Readying a G (goready, newproc) calls wakep(): if some P is idle and
 *      nobody spins, take an idle P off the list, mark its M spinning
 *      (nmspinning 0 -> 1 by CAS, so only one waker does it) and IPI it.
 *   4. A core that finds nothing puts its P on the idle list (under
 *      sched.lock, after a last look at the global queue), then stops
 *      spinning: nmspinning-- (a full barrier, seq-cst) BEFORE it
 *      re-checks every P's run queue.  A G readied concurrently is either
 *      seen by that re-check, or its readier saw the decremented count /
 *      the idle P and woke somebody in step 3.  Re-checking before the
 *      decrement could miss a G whose readier still saw a spinner.
 *   5. Only then does the core halt, with its P on the idle list; an IPI
 *      from step 3 (which took its P off the list) or a device interrupt
 *      wakes it.  arch_halt enables interrupts and halts atomically, so an
 *      IPI sent after the last check still wakes it.
 *
 * Who writes m->spinning, and why the count stays right (the invariant:
 * nmspinning is the number of Ms whose spinning is true, once every core
 * is between steps).  The M itself writes it, except in one case: a
 * waker (step 3) sets it for the M whose P it takes off the idle list.
 * That P is on the list only while its M is inside stop_and_halt, after
 * pidleput and before the M leaves, so that is the only window where the
 * two can race, and:
 *   - stop_and_halt reads its own flag (was_spinning) and, if it was set,
 *     clears it under sched.lock before pidleput, when no waker can pick
 *     the P yet; a waker sets it under the same lock after taking the P
 *     off the list, so the waker's true always comes last - counted by
 *     the waker's CAS, while the M uncounts only its own spin;
 *   - the M's decrement comes after the unlock: until then its own count
 *     stands in for a flag it already cleared, which only delays wakers
 *     (nmspinning > 0), as a spinner about to stop does;
 *   - the M reads a waker's true after sched.lock (the re-check, unidle)
 *     or after p->idle's load-acquire that sees pidleremove's release,
 *     both ordered after the waker's store.
 * So an M leaves stop_and_halt spinning exactly when somebody counted it,
 * and resetspinning or the next stop_and_halt uncounts it.  (Clearing the
 * flag after the unlock, as Go does, is not enough here: a waker that won
 * its CAS before this M started spinning, then stalled, can store true
 * first, and the M's false then erases a count nobody gives back - every
 * later wakep sees a spinner that does not exist.  Go escapes it because
 * its waker takes an idle M from a list the M joins only after clearing
 * its flag.  sched_stall_set opens that window for the tests.)
 *
 * The network (netpoll.c) is polled after the global queue and before
 * stealing, by an idle core before it halts, and by the timer interrupt
 * when nobody polled for 10 ms.
 *
 * Locks used here, in order: sched.lock (global queue, idle list), then
 * gfree.lock and allg.lock (gfree.c).  Run queues are lock-free.
 */
#include <stdlib.h>
#include "arch.h"
#include "cpu.h"
#include "panic.h"
#include "mem.h"
#include "netpoll.h"
#include "printk.h"
#include "sched.h"
#include "schedimpl.h"
#include "timers.h"

struct sched sched = { .lock = SPINLOCK_INIT("sched") };
#if defined(__SANITIZE_THREAD__)
int sched_fence_word;               /* seq_fence under TSan */
#endif

static bool main_started;

static inline struct m *thism(void)
{
    return this_cpu()->m;
}

struct g *running_g(void)
{
    struct m *m = thism();

    return m ? m->curg : NULL;
}

uint32_t fastrand(void)
{
    unsigned long f = arch_irq_save();
    struct p *p = thism()->p;
    uint64_t x = p->rand;

    /* xorshift64* (Vigna); each P has its own state, so no atomics. */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p->rand = x;
    arch_irq_restore(f);
    return (x * 0x2545F4914F6CDD1DULL) >> 32;
}

uint32_t fastrandn(uint32_t n)
{
    /* Lemire's multiply-shift: unbiased enough and no division. */
    return ((uint64_t)fastrand() * n) >> 32;
}

/* ---- The global run queue (caller holds sched.lock) ------------------ */

/*
 * A FIFO of chunks, each a page holding an array of G pointers: an
 * overflowing local queue appends its batch with one copy, and a P
 * refilling copies pointers out of one array.  (Go links the Gs through
 * g.schedlink; walking 128 Gs whose lines sit in other cores' caches held
 * sched.lock for microseconds while every spawning core spun on it.)
 * Chunks come from the page allocator, which any context may call, and
 * empty ones are kept for reuse; sched_init makes the first, so a queue
 * that never holds more than a chunk's worth never allocates.
 */
#define GCHUNK_SLOTS ((PAGE_SIZE - 2 * sizeof(void *)) / sizeof(struct g *))

struct gchunk {
    struct gchunk *next;
    uint32_t head, tail;        /* g[head..tail) are queued */
    struct g *g[GCHUNK_SLOTS];
};
_Static_assert(sizeof(struct gchunk) <= PAGE_SIZE, "a chunk is a page");

static struct gchunk *gchunk_new(void)
{
    struct gchunk *c = sched.chunkfree;
    uint64_t pa;

    if (c) {
        sched.chunkfree = c->next;
    } else {
        if (!(pa = mem_alloc_pages(1)))
            panic("globrunqput: out of memory for the global run queue "
                  "(%u Gs queued)", sched.runqsize);
        c = phys_to_virt(pa);
        __atomic_store_n(&sched.nchunks, sched.nchunks + 1,
                         __ATOMIC_RELAXED);
    }
    c->next = NULL;
    c->head = c->tail = 0;
    return c;
}

/* Appends gs[0..n) in order. */
static void globrunqputn(struct g *const *gs, uint32_t n)
{
    assert(spin_holding(&sched.lock));
    __atomic_store_n(&sched.runqsize, sched.runqsize + n, __ATOMIC_RELAXED);
    while (n) {
        struct gchunk *c = sched.runqtail;
        uint32_t k;

        if (!c || c->tail == GCHUNK_SLOTS) {
            c = gchunk_new();
            if (sched.runqtail)
                sched.runqtail->next = c;
            else
                sched.runqhead = c;
            sched.runqtail = c;
        }
        k = GCHUNK_SLOTS - c->tail < n ? GCHUNK_SLOTS - c->tail : n;
        for (uint32_t i = 0; i < k; i++)
            c->g[c->tail + i] = gs[i];
        c->tail += k;
        gs += k;
        n -= k;
    }
}

long sched_runq_pages(void)
{
    return __atomic_load_n(&sched.nchunks, __ATOMIC_RELAXED);
}

void globrunqput(struct g *gp)
{
    globrunqputn(&gp, 1);
}

/*
 * Takes Go's batch for p, min(size/ncpu + 1, max if given, half a local
 * queue), into out[] (at most RUNQ_SIZE / 2); returns how many.  The
 * caller runs out[0] and puts the rest in p's queue once it has dropped
 * the lock.
 */
static uint32_t globrunqget(struct p *p, uint32_t max, struct g **out)
{
    uint32_t n, got = 0;

    assert(spin_holding(&sched.lock));
    if (!sched.runqsize)
        return 0;
    n = sched.runqsize / (uint32_t)ncpu + 1;
    if (n > sched.runqsize)
        n = sched.runqsize;
    if (max && n > max)
        n = max;
    if (n > RUNQ_SIZE / 2)
        n = RUNQ_SIZE / 2;
    __atomic_store_n(&sched.runqsize, sched.runqsize - n, __ATOMIC_RELAXED);
    while (got < n) {
        struct gchunk *c = sched.runqhead;
        uint32_t k = c->tail - c->head < n - got ? c->tail - c->head
                                                 : n - got;

        for (uint32_t i = 0; i < k; i++)
            out[got + i] = c->g[c->head + i];
        c->head += k;
        got += k;
        if (c->head == c->tail) {
            sched.runqhead = c->next;
            if (!sched.runqhead)
                sched.runqtail = NULL;
            c->next = sched.chunkfree;
            sched.chunkfree = c;
        }
    }
    return got;
}

/* Puts gp on p's local queue; on overflow half the queue goes global. */
void runqput(struct p *p, struct g *gp, bool next)
{
    struct g *batch[RUNQ_SIZE / 2 + 1];
    uint32_t n;
    unsigned long f;

    if (runq_put(&p->runq, gp, next, batch, &n))
        return;
    f = spin_lock(&sched.lock);
    globrunqputn(batch, n);
    spin_unlock(&sched.lock, f);
}

/*
 * Makes the Gs of a schedlink list (G_WAITING, from the network poller)
 * runnable on the global queue, and wakes an idle core for them (which
 * wakes the next if there is more: step 2 below).  Go's injectglist, for
 * callers that may be in an interrupt: the local queue's runnext belongs
 * to the interrupted G's hand-offs.  Interrupts off.
 */
void injectglist(struct g *list)
{
    unsigned long f = spin_lock(&sched.lock);

    while (list) {
        struct g *gp = list;

        list = gp->schedlink;
        __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
        globrunqput(gp);
    }
    spin_unlock(&sched.lock, f);
    wakep();
}

/* ---- Idle Ps and waking cores ---------------------------------------- */

/* Caller holds sched.lock.  p's run queue is empty. */
static void pidleput(struct p *p)
{
    assert(spin_holding(&sched.lock));
    p->idlelink = sched.pidle;
    sched.pidle = p;
    __atomic_store_n(&p->idle, true, __ATOMIC_RELAXED);
    __atomic_add_fetch(&sched.npidle, 1, __ATOMIC_SEQ_CST);
}

/* Caller holds sched.lock.  Takes p (which is idle) off the list. */
static void pidleremove(struct p *p)
{
    struct p **pp = &sched.pidle;

    assert(spin_holding(&sched.lock));
    while (*pp != p)
        pp = &(*pp)->idlelink;
    *pp = p->idlelink;
    __atomic_sub_fetch(&sched.npidle, 1, __ATOMIC_SEQ_CST);
    /* Pairs with the load-acquire in the idle loop of findrunnable. */
    __atomic_store_n(&p->idle, false, __ATOMIC_RELEASE);
}

/* Cycles in us microseconds, for a counter of any rate. */
static uint64_t us_cycles(uint64_t us)
{
    return arch_cycles_hz() * us / 1000000;
}

static void relax_for(uint64_t cycles)
{
    uint64_t end = arch_cycles() + cycles;

    while (arch_cycles() < end)
        arch_cpu_relax();
}

/*
 * Fault injection for the spinning protocol (sched_stall_set): a waker
 * stalls between its CAS and sched.lock, and a spinner giving up its P
 * stalls before its decrement - the windows a host that deschedules a
 * core's thread, or an SMI, opens at random.  Off (0) except in tests.
 */
static uint64_t stall_cycles;
static int stalled_wakers;      /* wakers inside their stall; atomic */
static long stall_hits;         /* spinners that halted meanwhile; atomic */

void sched_stall_set(uint32_t us)
{
    __atomic_store_n(&stall_cycles, us_cycles(us), __ATOMIC_RELAXED);
}

long sched_stall_hits(void)
{
    return __atomic_load_n(&stall_hits, __ATOMIC_RELAXED);
}

/* A waker that has won nmspinning's 0 -> 1; off, one load. */
static inline void waker_stall(void)
{
    uint64_t c = __atomic_load_n(&stall_cycles, __ATOMIC_RELAXED);

    if (__builtin_expect(c != 0, 0)) {
        __atomic_add_fetch(&stalled_wakers, 1, __ATOMIC_SEQ_CST);
        relax_for(c);
        __atomic_sub_fetch(&stalled_wakers, 1, __ATOMIC_SEQ_CST);
    }
}

/* A spinner whose P is on the idle list, before it uncounts itself. */
static inline void spinner_stall(void)
{
    uint64_t c = __atomic_load_n(&stall_cycles, __ATOMIC_RELAXED);

    if (__builtin_expect(c != 0, 0)) {
        if (__atomic_load_n(&stalled_wakers, __ATOMIC_SEQ_CST))
            __atomic_add_fetch(&stall_hits, 1, __ATOMIC_RELAXED);
        relax_for(2 * c);
    }
}

/*
 * wakep for a caller whose only publication of work was a seq-cst
 * read-modify-write (goready's CAS of an empty runnext): in the seq-cst
 * order the loads below come after it, which is all wakep's fence is
 * for.  The spinner's side is unchanged: after its decrement of
 * nmspinning it either finds runnext set (or already taken by a thief,
 * which then runs all the work there was), or the loads here see it
 * still spinning.  A runnext that displaced a G also stored the ring's
 * tail, with a release store only: that needs wakep.
 */
static void wakep_after_rmw(void)
{
    int zero = 0;
    struct p *p;
    unsigned long f;

    if (!__atomic_load_n(&sched.npidle, __ATOMIC_SEQ_CST) ||
        __atomic_load_n(&sched.nmspinning, __ATOMIC_SEQ_CST))
        return;
    /* Only one waker at a time turns an idle core into the spinner. */
    if (!__atomic_compare_exchange_n(&sched.nmspinning, &zero, 1, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    waker_stall();
    f = spin_lock(&sched.lock);
    p = sched.pidle;
    if (p) {
        /* m->spinning: relaxed atomics, as wakers set it for an idle M
           while the M may still be on its way to halt; the order comes
           from the seq-cst nmspinning and sched.lock (see "Who writes
           m->spinning" above). */
        __atomic_store_n(&sched.allm[p->id]->spinning, true,
                         __ATOMIC_RELAXED);  /* seen after idle = false */
        pidleremove(p);
    }
    spin_unlock(&sched.lock, f);
    if (!p) {
        __atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
        return;
    }
    arch_send_ipi(sched.allm[p->id]->cpu);
}

void wakep(void)
{
    /*
     * Step 3's first half.  The caller has just published work with a
     * release store (a run queue's tail, or sched.lock's unlock); a
     * release store followed by a load may be reordered (the load
     * satisfied first, x86's store buffer, or any weakly ordered core),
     * and then this waker reads a stale "somebody spins" while the last
     * spinner, after its seq-cst decrement, reads the queues from before
     * the store: a lost wakeup.  The full fence pairs with that decrement
     * in stop_and_halt (step 4).
     */
    seq_fence();
    wakep_after_rmw();
}

/* Step 2: a spinner found work. */
static void resetspinning(struct m *m)
{
    __atomic_store_n(&m->spinning, false, __ATOMIC_RELAXED);
    if (__atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST) == 0)
        wakep();
}

/* ---- Finding work ----------------------------------------------------- */

static bool any_runq_nonempty(void)
{
    for (int i = 0; i < ncpu; i++)
        if (!runq_empty(&sched.allp[i]->runq) || !wakeq_empty(sched.allp[i]))
            return true;
    return false;
}

static struct g *take_global(struct p *p, uint32_t max)
{
    struct g *batch[RUNQ_SIZE / 2];
    unsigned long f;
    uint32_t n;

    if (!__atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED))
        return NULL;
    f = spin_lock(&sched.lock);
    n = globrunqget(p, max, batch);
    spin_unlock(&sched.lock, f);
    if (!n)
        return NULL;
    /* p's queue is empty here, or n is 1 (the 1-in-61 look): no
       overflow. */
    for (uint32_t i = 1; i < n; i++)
        runqput(p, batch[i], false);
    /* Not in Go: the rest of the batch went into our ring, where a core
       that went idle a moment ago cannot have seen it (its last look at
       the rings came before); without a wakeup those Gs would wait for
       our G's whole slice. */
    if (n > 1 && __atomic_load_n(&sched.npidle, __ATOMIC_RELAXED))
        wakep();
    return batch[0];
}

/* True if p has work of its own: queued Gs or a timer that is due. */
static bool p_has_work(struct p *p)
{
    uint64_t t = timers_next(p);

    return !runq_empty(&p->runq) || !wakeq_empty(p) ||
           (t && t <= arch_cycles());
}

/*
 * An idle core looks after every P's timers, not only its own: a busy
 * core whose G runs with interrupts off (or never lets a thief in) would
 * otherwise leave its timers late (Go's idle M sleeps until the earliest
 * timer of any P).  Runs the due ones - what they ready lands on this
 * core's P - and returns the earliest deadline left, 0 if none.
 */
static uint64_t run_due_timers(void)
{
    uint64_t now = arch_cycles(), earliest = 0;

    for (int i = 0; i < ncpu; i++) {
        struct p *q = sched.allp[i];
        uint64_t t = timers_next(q);

        if (t && t <= now)
            t = timers_run(q, now);
        if (t && (!earliest || t < earliest))
            earliest = t;
    }
    return earliest;
}

/* True if some P has a timer due before `when` (0: any timer at all). */
static bool timers_next_any_before(uint64_t when)
{
    for (int i = 0; i < ncpu; i++) {
        uint64_t t = timers_next(sched.allp[i]);

        if (t && (!when || t < when))
            return true;
    }
    return false;
}

/* Takes p off the idle list if it is still there. */
static void unidle(struct p *p)
{
    unsigned long f = spin_lock(&sched.lock);

    if (p->idle)
        pidleremove(p);
    spin_unlock(&sched.lock, f);
}

/*
 * Gs the network readied, for this core to run the first: the rest go to
 * the global queue for whoever wakep finds (Go's findRunnable after a
 * netpoll).  Returns the first, runnable.
 */
static struct g *run_polled(struct g *list)
{
    if (list->schedlink)
        injectglist(list->schedlink);
    __atomic_store_n(&list->status, G_RUNNABLE, __ATOMIC_RELAXED);
    return list;
}

/* What this core's device interrupt readied while it idled, or NULL.
   Interrupts are off: the interrupt cannot add to it meanwhile. */
static struct g *take_polled(struct m *m)
{
    struct g *list = m->polled;

    m->polled = NULL;
    return list;
}

/*
 * Steps 4 and 5: give up the P and halt until an IPI hands it back, this
 * P's own timer (armed for its earliest timer) brings work, or the
 * network readies Gs.  Returns one of those Gs for this core to run, or
 * NULL: look for work again.
 */
static struct g *stop_and_halt(struct m *m)
{
    struct p *p = m->p;
    bool was_spinning = __atomic_load_n(&m->spinning, __ATOMIC_RELAXED);
    unsigned long f = spin_lock(&sched.lock);
    struct g *list;

    /* Before pidleput: from then on a waker may set it (see "Who writes
       m->spinning"). */
    if (was_spinning)
        __atomic_store_n(&m->spinning, false, __ATOMIC_RELAXED);
    pidleput(p);
    if (sched.npidle == ncpu && !sched.runqsize)
        checkdead();
    spin_unlock(&sched.lock, f);
    if (was_spinning) {
        spinner_stall();
        __atomic_sub_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
    }
    /* Step 4's re-check comes after the decrement and the idle P's
       publication (the unlock's release store): full fence, paired with
       the one in wakep. */
    seq_fence();
    if (any_runq_nonempty() ||
        __atomic_load_n(&sched.runqsize, __ATOMIC_RELAXED)) {
        f = spin_lock(&sched.lock);
        if (p->idle) {
            pidleremove(p);
            if (was_spinning) {
                __atomic_store_n(&m->spinning, true, __ATOMIC_RELAXED);
                __atomic_add_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
            }
        }
        spin_unlock(&sched.lock, f);
        return NULL;
    }
    m->slice_end = 0;
    while (__atomic_load_n(&p->idle, __ATOMIC_ACQUIRE)) {
        uint64_t wake = run_due_timers();

        if ((list = take_polled(m))) {
            unidle(p);
            return run_polled(list);
        }
        if (p_has_work(p)) {
            unidle(p);
            return NULL;
        }
        if ((list = netpoll())) {
            unidle(p);          /* first, or wakep would pick this P */
            return run_polled(list);
        }
        smp_poll_calls();
        core_timer_set(m, earliest(wake, netpoll_deadline()));
        /* Seq-cst, paired with timer_start's scan: either it sees this
           core halted, or this core's next loop sees its timer. */
        __atomic_store_n(&m->halted, true, __ATOMIC_SEQ_CST);
        seq_fence();  /* store, then loads */
        /* idle again, last, with interrupts off until the halt: a cross-
           core call above (smp_poll_calls) runs with them on, and may
           have taken the IPI of a waker that gave this P work since the
           loop's first look; without this look the core would halt with
           nobody left to wake it (the waker's nmspinning = 1 stops every
           later one). */
        if (!timers_next_any_before(m->armed) && !m->polled &&
            __atomic_load_n(&p->idle, __ATOMIC_ACQUIRE))
            arch_halt();
        __atomic_store_n(&m->halted, false, __ATOMIC_RELAXED);
    }
    /* A waker took the P; what the interrupt polled meanwhile is ours. */
    return (list = take_polled(m)) ? run_polled(list) : NULL;
}

/*
 * Not in Go, where sysmon does it: a core passing through the scheduler
 * runs the other Ps' timers that are overdue by WATCH_GRACE_US, and takes
 * from their wake queues before its own run queue.  Their own core should
 * have done both, but it may be running one long G, or not running at
 * all: under QEMU's TCG a core is a host thread, which the host can
 * deschedule for milliseconds, and its timer interrupts come from QEMU's
 * main-loop thread, which waits as long for a host CPU when the vCPU
 * threads keep them busy (preempt.c).  A core running short Gs passes
 * here every few microseconds, so a timer is then at most about the
 * grace late, whatever happens to its own core.  The grace leaves the
 * owner's interrupt, normally on time, to run its timers.  A lock held
 * by a stalled core is passed by (the hint may be stale: the lock is
 * then only waited for).  `now` is 0 if the caller did not read the
 * clock: it is read only when some P has timers.
 */
#define WATCH_GRACE_US 100

static uint64_t watch_grace;    /* WATCH_GRACE_US in cycles */

static struct g *look_after_others(struct p *p, uint64_t now)
{
    struct p *woken = NULL;
    bool ran = false;

    for (int i = 0; i < ncpu; i++) {
        struct p *q = sched.allp[i];
        uint64_t t = timers_next(q);

        if (q == p)
            continue;
        if (t) {
            if (!now)
                now = arch_cycles();
            if (t + watch_grace <= now && !spin_is_locked(&q->timerlock)) {
                timers_run(q, now);
                ran = true;
            }
        }
        if (!woken && !wakeq_empty(q))
            woken = q;
    }
    /* What those timers readied is in this P's wake queue (the caller
       found it empty just before). */
    if (ran && !wakeq_empty(p))
        return wakeq_get(p);
    if (woken && !spin_is_locked(&woken->wakelock))
        return wakeq_steal(p, woken);
    return NULL;
}

/*
 * Not in Go: how long a spinner that found nothing keeps looking before
 * it gives up its P (step 1).  A halt and the IPI that ends it cost the
 * waker microseconds (under QEMU's TCG, ~4 us of the waker's own time per
 * IPI), and most of the wakeups two Gs handing work back and forth cause
 * find nothing: the readied G is in runnext, which its readier runs
 * before a thief may take it.  A spinner still counted in nmspinning
 * turns each of those wakeups into two loads.  Linux's guest halt-polling
 * makes the same trade.  idlespin=0 restores Go's behaviour.
 */
#define IDLESPIN_DEFAULT_US 100
#define IDLESPIN_MAX_US 10000
#define IDLESPIN_PASS_US 2      /* pause between two passes */

static long idlespin_us;

static void idlespin_init(void)
{
    idlespin_us = sched_setting("idlespin", 0, IDLESPIN_MAX_US,
                                IDLESPIN_DEFAULT_US, "us");
}

long sched_idlespin_us(void)
{
    return idlespin_us;
}

/*
 * A spinner found nothing.  True if its idlespin window (which starts at
 * the first call, *end 0) is still open: it has paused before the next
 * pass.
 */
static bool spin_more(uint64_t *end)
{
    uint64_t now = arch_cycles();

    if (!idlespin_us)
        return false;
    if (!*end)
        *end = now + us_cycles(idlespin_us);
    if (now >= *end)
        return false;
    relax_for(us_cycles(IDLESPIN_PASS_US));
    return true;
}

/* Go's findRunnable. */
static struct g *findrunnable(struct m *m, bool *inherit)
{
    struct p *p = m->p;
    struct g *gp;
    uint64_t spin_end = 0;

    for (;;) {
        uint64_t now = 0;

        smp_poll_calls();
        if (timers_next(p))
            timers_run(p, now = arch_cycles());
        *inherit = false;
        if (!wakeq_empty(p) && (gp = wakeq_get(p)))
            return gp;
        if (ncpu > 1 && (gp = look_after_others(p, now)))
            return gp;
        /*
         * runnext first: a G just readied (by a channel partner or a
         * timer) runs next.  Go checks the global queue first every 61st
         * tick, which can put a preempted CPU hog ahead of a woken
         * sleeper for a whole extra slice.  Starting with runnext cannot
         * starve the global queue: runnext Gs share their readier's slice
         * and are preempted into the global queue when it ends.
         */
        if (__atomic_load_n(&p->runq.runnext, __ATOMIC_RELAXED) &&
            (gp = runq_get(&p->runq, inherit)))
            return gp;
        /* Every 61st tick the global queue goes first, so a steady
           stream of local work cannot starve it. */
        if (p->schedtick % 61 == 0 && (gp = take_global(p, 1)))
            return gp;
        if ((gp = runq_get(&p->runq, inherit)))
            return gp;
        if ((gp = take_global(p, 0)))
            return gp;
        if ((gp = netpoll()))
            return run_polled(gp);
        if (__atomic_load_n(&m->spinning, __ATOMIC_RELAXED) ||
            2 * __atomic_load_n(&sched.nmspinning, __ATOMIC_SEQ_CST) <
                ncpu - __atomic_load_n(&sched.npidle, __ATOMIC_SEQ_CST)) {
            if (!__atomic_load_n(&m->spinning, __ATOMIC_RELAXED)) {
                __atomic_store_n(&m->spinning, true, __ATOMIC_RELAXED);
                __atomic_add_fetch(&sched.nmspinning, 1, __ATOMIC_SEQ_CST);
            }
            if ((gp = stealwork(m)))
                return gp;
            if (spin_more(&spin_end))
                continue;
        }
        if ((gp = stop_and_halt(m)))
            return gp;
        spin_end = 0;           /* woken: a new window */
    }
}

/* ---- Switching -------------------------------------------------------- */

/* gp becomes m's running G: execute without the switch.  Inline in both
   callers: it is on the path of every schedule. */
static inline __attribute__((always_inline)) void
setcurg(struct m *m, struct g *gp, bool inherit)
{
    /* curg, schedtick, goid: relaxed atomics, as sched_detail (trace.c)
       reads them from any core. */
    __atomic_store_n(&m->curg, gp, __ATOMIC_RELAXED);
    m->woken = false;
    __atomic_store_n(&gp->status, G_RUNNING, __ATOMIC_RELAXED);
    /* A G from runnext shares the slice of the G that readied it (Go's
       inheritTime), so two Gs handing work back and forth cannot keep
       the others waiting forever.  After the core idled there is no
       slice to share (slice_end is 0): start one. */
    if (!inherit || !m->slice_end) {
        __atomic_store_n(&m->p->schedtick, m->p->schedtick + 1,
                         __ATOMIC_RELAXED);
        m->slice_end = arch_cycles() + quantum;
    }
    core_timer_arm(m, earliest(earliest(m->slice_end, timers_next(m->p)),
                               netpoll_deadline()));
    /* Atomic: a thief's steal_pause reads it to see that we switched. */
    __atomic_store_n(&m->p->nsched, m->p->nsched + 1, __ATOMIC_RELAXED);
}

static void execute(struct m *m, struct g *gp, bool inherit)
{
    setcurg(m, gp, inherit);
    arch_switch(&m->g0sp, gp->sp);
}

static __attribute__((noreturn)) void schedule_loop(struct m *m)
{
    for (;;) {
        bool inherit;
        struct g *gp;

        schedtrace_tick();
        gp = findrunnable(m, &inherit);

        if (__atomic_load_n(&m->spinning, __ATOMIC_RELAXED))
            resetspinning(m);
        execute(m, gp, inherit);
        /* Back on g0: the G called mcall(). */
        gp = m->curg;
        __atomic_store_n(&m->curg, NULL, __ATOMIC_RELAXED);
        m->mcall_fn(gp);
    }
}

static void park_m(struct g *gp);
static void goyield_m(struct g *gp);

/*
 * The direct hand-off (not in Go).  A G that parks has usually just
 * readied its partner into runnext (a channel or semaphore hand-off), and
 * a G that yields has the head of its P's ring behind it; findrunnable
 * would pick that G next.  Going through g0 to learn it costs a second
 * context switch and a turn of the scheduler loop, so the G switches
 * straight to it instead, and the second half of the park or yield (the
 * status, then unlockf or the requeue) runs as soon as the new G resumes
 * (finish_handoff), as Linux's finish_task_switch runs for the task
 * switched to.  Every place a G resumes calls finish_handoff: mcall, the
 * timer interrupt that preempted it, and gentry for a G that never ran.
 *
 * The choice stays findrunnable's: cross-core calls, due timers and the
 * wake queue come first there, and any of them sends the G the long way;
 * so does the 1-in-61 tick that looks at the global queue.  A park takes
 * only runnext (its ring head may be a G that findrunnable's global look
 * would put behind); a yield takes runnext or else the ring's head, and
 * goes the long way when both are empty, where goyield_m may fetch work.
 * Interrupts off.
 */
static inline __attribute__((always_inline)) struct g *
handoff_next(struct m *m, bool yield, bool *inherit)
{
    struct p *p = m->p;
    uint64_t t = timers_next(p);
    struct g *next;

    schedtrace_tick();
    if (smp_calls_pending() || (t && t <= arch_cycles()) || !wakeq_empty(p))
        return NULL;
    *inherit = true;
    if ((next = runq_get_next(&p->runq)) || !yield)
        return next;
    if (p->schedtick % 61 == 0)
        return NULL;
    *inherit = false;
    return runq_get_ring(&p->runq);
}

/* The second half of a yield that handed off: as goyield_m, minus the
   look for work (the ring was not empty). */
static void requeue_m(struct g *gp)
{
    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    runqput(thism()->p, gp, false);
}

/* A G that resumes: finishes the park or yield of the G that switched
   straight to it, if one did (prev's mcall_fn says which: park_m, or
   goyield_m for a yield).  Inline in mcall and gentry. */
static inline __attribute__((always_inline)) void finish_handoff_here(void)
{
    struct m *m = thism();
    struct g *prev = m->handoff;

    if (prev) {
        m->handoff = NULL;
        if (m->mcall_fn == park_m)
            park_m(prev);
        else
            requeue_m(prev);
    }
}

void finish_handoff(void)
{
    finish_handoff_here();
}

/* mcall's switch for a park or a yield: to the next G directly, or to
   g0.  Out of line once for each (park_switch, yield_switch), so that
   mcall stays short where it is inlined. */
static inline __attribute__((always_inline)) void
switch_next(struct m *m, struct g *gp, bool yield)
{
    bool inherit;
    struct g *next = handoff_next(m, yield, &inherit);

    if (next) {
        m->handoff = gp;
        setcurg(m, next, inherit);
        arch_switch(&gp->sp, next->sp);
    } else {
        arch_switch(&gp->sp, m->g0sp);
    }
}

static __attribute__((noinline)) void park_switch(struct m *m, struct g *gp)
{
    switch_next(m, gp, false);
}

static __attribute__((noinline)) void yield_switch(struct m *m, struct g *gp)
{
    switch_next(m, gp, true);
}

/*
 * Switches from the running G to g0, which calls fn(gp); a park or a
 * yield may go straight to the next G instead (handoff_next).  Returns
 * when the G runs again, possibly on another core, with its interrupt
 * state back.
 */
static inline __attribute__((always_inline)) void
mcall(void (*fn)(struct g *), bool (*unlockf)(struct g *, void *), void *arg)
{
    unsigned long f = arch_irq_save();
    struct m *m = thism();
    struct g *gp = m->curg;

    if (!gp)
        panic("mcall: called on the scheduler stack of cpu %d", m->cpu->id);
    m->mcall_fn = fn;
    m->park_unlock = unlockf;
    m->park_arg = arg;
    if (fn == park_m)
        park_switch(m, gp);
    else if (fn == goyield_m)
        yield_switch(m, gp);
    else
        arch_switch(&gp->sp, m->g0sp);
    finish_handoff_here();
    arch_irq_restore(f);
}

static void park_m(struct g *gp)
{
    struct m *m = thism();

    __atomic_store_n(&gp->status, G_WAITING, __ATOMIC_RELEASE);
    if (m->park_unlock && !m->park_unlock(gp, m->park_arg)) {
        __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
        runqput(m->p, gp, true);
    }
}

void gopark(bool (*unlockf)(struct g *gp, void *arg), void *arg,
            enum waitreason reason)
{
    struct g *gp = getg();

    if (!gp)
        panic("gopark: called off any goroutine on cpu %d", cpu_id());
    gp->waitreason = reason;
    gp->param = NULL;
    mcall(park_m, unlockf, arg);
}

static bool unlock_spinlock(struct g *gp, void *l)
{
    spin_release(l);            /* interrupts stay off, as g0 runs */
    return true;
}

void gopark_unlock(struct spinlock *l, enum waitreason reason)
{
    if (spin_depth() != 1 || !spin_holding(l))
        panic("gopark_unlock: goroutine %lu parks holding %d spinlocks",
              (unsigned long)getg()->goid, spin_depth());
    gopark(unlock_spinlock, l, reason);
}

void goready(struct g *gp)
{
    unsigned long f = arch_irq_save();
    int st = __atomic_load_n(&gp->status, __ATOMIC_ACQUIRE);

    if (st != G_WAITING)
        panic("goready: goroutine %lu has status %d, not waiting",
              (unsigned long)gp->goid, st);
    gp->status = G_RUNNABLE;
    if (__atomic_load_n(&thism()->running, __ATOMIC_RELAXED)) {
        wakeq_put(thism()->p, gp);      /* its timer fired: run it first */
        wakep();
    } else {
        struct p *p = thism()->p;
        /* Only this P makes runnext non-NULL: NULL now stays NULL until
           the CAS below, which then displaces nothing. */
        bool displaces = __atomic_load_n(&p->runq.runnext,
                                         __ATOMIC_RELAXED) != NULL;

        runqput(p, gp, true);
        if (displaces)
            wakep();
        else
            wakep_after_rmw();
    }
    arch_irq_restore(f);
}

void gosched_m(struct g *gp)
{
    unsigned long f = spin_lock(&sched.lock);

    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    globrunqput(gp);
    spin_unlock(&sched.lock, f);
    wakep();        /* an idle core can take it (Go's goschedImpl) */
}

void gosched(void)
{
    mcall(gosched_m, NULL, NULL);
}

/*
 * Go's goyield: the G goes to the tail of its own P's queue, not the
 * global one.  What sp_yield and a semaphore handoff do: the other Gs of
 * this P run first, no lock is taken, and no other core is woken (the
 * G was running, so there is no more work than before).  Gs waiting in
 * the global queue still get their turn from the 1-in-61 check, and
 * idle cores steal.  Go's Gosched goes through the global queue instead
 * (gosched above, kept for preemption), which on every yield makes all
 * cores take one lock.
 *
 * Not in Go: a G that yields with nothing else on its P first fetches
 * work from the global queue or another P (steal_once), on every
 * YIELD_LOOK-th schedule of its P.  Otherwise a G polling in a yield loop
 * (waiting for a count, say) keeps its core busy with itself forever -
 * that core is never idle, so it never steals - while other cores'
 * queues hold hundreds of Gs.  Not on every yield: when there is nothing
 * to take, the look costs more than the yield (yield bench, 3 Gs on one
 * core and 1 on the other: 20% slower looking every time).
 */
#define YIELD_LOOK 16

static void goyield_m(struct g *gp)
{
    struct p *p = thism()->p;
    struct g *other;

    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    if (p->schedtick % YIELD_LOOK == 0 && runq_owner_empty(&p->runq) &&
        wakeq_empty(p) &&
        ((other = take_global(p, 0)) || (other = steal_once(p))))
        runqput(p, other, false);
    runqput(p, gp, false);
}

void goyield(void)
{
    mcall(goyield_m, NULL, NULL);
}

static void goexit_m(struct g *gp)
{
    __atomic_store_n(&gp->status, G_DEAD, __ATOMIC_RELAXED);
    gfput(thism()->p, gp);
}

void goexit(void)
{
    mcall(goexit_m, NULL, NULL);
    panic("goexit: a dead goroutine ran again");
}

/* First code of every G. */
static void gentry(void *arg)
{
    struct g *gp = arg;

    finish_handoff_here();
    arch_irq_enable();
    gp->fn(gp->arg);
    goexit();
}

/*
 * A fresh G id.  Each P takes them from the global counter GOID_BATCH at
 * a time (Go's goidcache), so spawning cores do not all bump one word.
 * Ids stay unique, not ordered across Ps.  Interrupts off.
 */
#define GOID_BATCH 16

static uint64_t newgoid(struct p *p)
{
    if (p->goidnext == p->goidend) {
        p->goidend = __atomic_add_fetch(&sched.goidgen, GOID_BATCH,
                                        __ATOMIC_RELAXED) + 1;
        p->goidnext = p->goidend - GOID_BATCH;
    }
    return p->goidnext++;
}

uint64_t newproc(void (*fn)(void *), void *arg)
{
    unsigned long f = arch_irq_save();
    struct p *p = thism()->p;
    struct g *gp = gfget(p);
    uint64_t goid;

    if (!gp)
        panic("newproc: out of memory for a new goroutine");
    gp->fn = fn;
    gp->arg = arg;
    goid = newgoid(p);
    __atomic_store_n(&gp->goid, goid, __ATOMIC_RELAXED);  /* sched_detail */
    gp->reent._errno = 0;
    gp->npreempt = 0;
    arch_context_init(&gp->sp, gp->stack_hi, gentry, gp);
    __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
    runqput(p, gp, true);
    if (main_started)
        wakep();
    arch_irq_restore(f);
    return goid;
}

/*
 * newproc for a G (sp_go), with back-pressure.  Not in Go: a Go spawner
 * that fills its P's ring moves half of it to the global queue and goes
 * on, so a loop of `go` takes sched.lock every 128 Gs, and every core
 * refilling from the global queue takes it too (spawn_par spent most of
 * its time there).  Here a G that fills its P's ring yields instead: the
 * Gs it made run, or are stolen by idle cores, before it makes more.
 * Spawning then never takes a lock, and a spawner that outruns the
 * machine holds at most a ring's worth of runnable Gs.  A spawner on an
 * otherwise idle machine loses nothing: its Gs are its core's next work.
 */
uint64_t go(void (*fn)(void *), void *arg)
{
    uint64_t goid = newproc(fn, arg);
    unsigned long f = arch_irq_save();
    bool full = runq_len(&thism()->p->runq) >= RUNQ_SIZE - 1;

    arch_irq_restore(f);
    if (full && getg())
        goyield();
    return goid;
}

/* ---- Start ------------------------------------------------------------ */

static int nstarted;

/*
 * The thief's pause before taking a victim's runnext.  Go sleeps 3 us, the
 * time an owner on hardware needs from readying a G to running it.  Under
 * emulation (QEMU TCG, where Spindle is tested) that path takes 7-10 times
 * longer, and a 3 us pause let thieves snatch most hand-offs: two Gs
 * ping-ponging on one core were split across two, with an IPI per message
 * (pingpong 1.2-1.8 us per switch at 2 cores, against 0.98 us with this
 * pause; fib's speedup rose from 1.8 to 1.97).  On hardware the longer
 * pause only delays the last steal round of an idle core.
 */
#define STEAL_PAUSE_US 20

static bool steal_pause(struct runq *q)
{
    struct p *p = (struct p *)((char *)q - offsetof(struct p, runq));
    uint64_t nsched = __atomic_load_n(&p->nsched, __ATOMIC_RELAXED);

    relax_for(us_cycles(STEAL_PAUSE_US));
    return __atomic_load_n(&p->nsched, __ATOMIC_RELAXED) == nsched;
}

/* Zeroed memory on cache lines of its own, never freed: each core writes
   its M and P all the time, and must not share a line with the next
   core's.  (newlib here has no aligned_alloc.) */
static void *zalloc_lines(size_t size)
{
    uintptr_t v = (uintptr_t)calloc(1, size + 2 * CACHE_LINE);

    return v ? (void *)((v + CACHE_LINE) & ~(uintptr_t)(CACHE_LINE - 1))
             : NULL;
}

/* Boot core, before any core enters the scheduler. */
static void sched_init(void)
{
    for (int i = 0; i < ncpu; i++) {
        struct m *m = zalloc_lines(sizeof *m);
        struct p *p = zalloc_lines(sizeof *p);

        if (!m || !p)
            panic("sched_init: out of memory");
        p->id = i;
        p->rand = 0x9E3779B97F4A7C15ULL * (i + 1);
        runq_init(&p->runq);
        p->timerlock = (struct spinlock)SPINLOCK_INIT("timers");
        p->wakelock = (struct spinlock)SPINLOCK_INIT("wakeq");
        p->runq.pause = steal_pause;
        m->cpu = cpus[i];
        m->p = p;
        sched.allp[i] = p;
        sched.allm[i] = m;
    }
    sched.chunkfree = gchunk_new();
    steal_init(ncpu);
    schedtrace_init();
    preempt_init();
    idlespin_init();
    watch_grace = us_cycles(WATCH_GRACE_US);
    time_init();
}

void sched_start(void (*main_fn)(void *))
{
    struct cpu *c = this_cpu();

    if (main_fn) {
        sched_init();
        /* Release: the other cores read allm/allp after seeing it. */
        __atomic_store_n(&sched.ready, true, __ATOMIC_RELEASE);
        arch_send_ipi_others();
    } else {
        while (!__atomic_load_n(&sched.ready, __ATOMIC_ACQUIRE)) {
            smp_poll_calls();
            arch_halt();
        }
    }
    arch_irq_save();
    c->m = sched.allm[c->id];
    __atomic_add_fetch(&nstarted, 1, __ATOMIC_RELEASE);
    if (main_fn) {
        /* Main is G 1; it starts where the others can see it. */
        while (__atomic_load_n(&nstarted, __ATOMIC_ACQUIRE) < ncpu)
            arch_cpu_relax();
        newproc(main_fn, NULL);
        main_started = true;
    }
    schedule_loop(c->m);
}
