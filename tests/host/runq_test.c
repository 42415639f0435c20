/*
 * runq_test.c - host unit test for sched/runq.c.
 *
 * The single-threaded cases pin down Go's semantics: FIFO order, runnext
 * displacement and inheritTime, the overflow of half the ring plus one,
 * steals of n - n/2, the runnext steal and its pause, runq_empty,
 * runq_push_batch, index wrap-around at 2^32, and the steal precondition.
 *
 * The stress case runs one owner thread that creates NG uniquely numbered
 * Gs and randomly puts (to runnext or the tail) and gets them, pushing
 * overflow batches to a locked global list and refilling from it
 * with runq_push_batch, while NTHIEF thieves steal (with and without
 * runnext) from it and from each other into their own queues and drain
 * those.  Every G must be run exactly once.  Built with ThreadSanitizer it
 * also checks that every handoff orders the G's contents (written by the
 * creator, read and written by whoever runs it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "harness.h"
#include "sched/runq.h"

/*
 * No <pthread.h>: it includes <sched.h>, and with -Isched on the command
 * line that finds the kernel's sched/sched.h instead of the C library's.
 * The three calls the threaded cases need are declared here (glibc's
 * pthread_t is an unsigned long on every Linux target); locks and
 * barriers are built from atomics below.
 */
typedef unsigned long pthread_t;
int pthread_create(pthread_t *t, const void *attr, void *(*fn)(void *),
                   void *arg);
int pthread_join(pthread_t t, void **ret);
int sched_yield(void);

struct g {
    int id;
    int ran_by;                 /* stress: who ran it (a plain write) */
    int hops;                   /* stress: refills + runs (plain writes) */
    struct g *link;             /* stress: global list */
};

/* ---- panic: fatal, unless a case expects it ------------------------ */

static jmp_buf *panic_jmp;
static char panic_msg[256];

void panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(panic_msg, sizeof(panic_msg), fmt, ap);
    va_end(ap);
    if (panic_jmp != NULL)
        longjmp(*panic_jmp, 1);
    fprintf(stderr, "panic: %s\n", panic_msg);
    abort();
}

/* ---- helpers for the single-threaded cases ------------------------- */

#define NSMALL 1024
static struct g small[NSMALL];
static struct runq qa, qb;

static void setup(void)
{
    for (int i = 0; i < NSMALL; i++)
        small[i] = (struct g){ .id = i };
    runq_init(&qa);
    runq_init(&qb);
}

/* Puts small[from, to) at the tail; false if any put failed. */
static bool fill(struct runq *q, int from, int to)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov;

    for (int i = from; i < to; i++)
        if (!runq_push(q, &small[i], false, ov, &nov) || nov != 0)
            return false;
    return true;
}

/* Gets from q and checks that small[from, to) come out in order from the
 * ring (not runnext); returns false at the first mismatch. */
static bool drain_expect(struct runq *q, int from, int to)
{
    bool inh;

    for (int i = from; i < to; i++) {
        struct g *gp = runq_get(q, &inh);
        if (gp != &small[i] || inh) {
            FAIL("expected G %d from the ring, got %d (inherit_time %d)",
                 i, gp ? gp->id : -1, inh);
            return false;
        }
    }
    return true;
}

static void advance(struct runq *q, uint32_t by)
{
    q->head += by;
    q->tail += by;
}

/* ---- cases --------------------------------------------------------- */

TEST(put_get_fifo)
{
    bool inh = true;

    setup();
    CHECK(runq_get(&qa, &inh) == NULL);
    CHECK(!inh);
    CHECK(fill(&qa, 0, 10));
    CHECK(runq_len(&qa) == 10);
    drain_expect(&qa, 0, 10);
    CHECK(runq_get(&qa, &inh) == NULL);
    CHECK(runq_len(&qa) == 0);
    /* Interleaved, and many times around the ring. */
    for (int round = 0; round < 10; round++) {
        CHECK(fill(&qa, 0, 200));
        drain_expect(&qa, 0, 100);
        CHECK(fill(&qa, 200, 250));
        drain_expect(&qa, 100, 250);
    }
    CHECK(runq_empty(&qa));
}

TEST(runnext_displacement)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov = 99;
    bool inh;

    setup();
    CHECK(runq_push(&qa, &small[0], true, ov, &nov) && nov == 0);
    CHECK(qa.runnext == &small[0]);
    CHECK(runq_len(&qa) == 0);      /* runnext is not in the ring */
    CHECK(runq_push(&qa, &small[1], false, ov, &nov) && nov == 0);
    /* small[0] is displaced to the tail, behind small[1]. */
    CHECK(runq_push(&qa, &small[2], true, ov, &nov) && nov == 0);
    CHECK(runq_push(&qa, &small[3], false, ov, &nov) && nov == 0);
    CHECK(runq_get(&qa, &inh) == &small[2] && inh);
    CHECK(runq_get(&qa, &inh) == &small[1] && !inh);
    CHECK(runq_get(&qa, &inh) == &small[0] && !inh);
    /* A new runnext jumps the queue again. */
    CHECK(runq_push(&qa, &small[4], true, ov, &nov) && nov == 0);
    CHECK(runq_get(&qa, &inh) == &small[4] && inh);
    CHECK(runq_get(&qa, &inh) == &small[3] && !inh);
    CHECK(runq_get(&qa, &inh) == NULL && !inh);
}

TEST(overflow_moves_half_plus_one)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov = 0;

    setup();
    advance(&qa, 77);   /* the ring starts mid-way, so the copy wraps */
    CHECK(fill(&qa, 0, RUNQ_SIZE));
    CHECK(runq_len(&qa) == RUNQ_SIZE);
    CHECK(!runq_push(&qa, &small[RUNQ_SIZE], false, ov, &nov));
    if (!CHECK(nov == RUNQ_SIZE / 2 + 1))
        return;
    for (int i = 0; i < RUNQ_SIZE / 2; i++)
        if (!CHECK(ov[i] == &small[i]))
            return;
    CHECK(ov[RUNQ_SIZE / 2] == &small[RUNQ_SIZE]);
    CHECK(runq_len(&qa) == RUNQ_SIZE / 2);
    drain_expect(&qa, RUNQ_SIZE / 2, RUNQ_SIZE);
    CHECK(runq_empty(&qa));
}

TEST(overflow_from_runnext)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov = 0;
    bool inh;

    setup();
    CHECK(runq_push(&qa, &small[500], true, ov, &nov));
    CHECK(fill(&qa, 0, RUNQ_SIZE));
    /* small[501] takes runnext; the displaced small[500] does not fit. */
    CHECK(!runq_push(&qa, &small[501], true, ov, &nov));
    if (!CHECK(nov == RUNQ_SIZE / 2 + 1))
        return;
    CHECK(ov[0] == &small[0] && ov[RUNQ_SIZE / 2 - 1] ==
          &small[RUNQ_SIZE / 2 - 1]);
    CHECK(ov[RUNQ_SIZE / 2] == &small[500]);
    CHECK(runq_get(&qa, &inh) == &small[501] && inh);
    drain_expect(&qa, RUNQ_SIZE / 2, RUNQ_SIZE);
    CHECK(runq_empty(&qa));
}

/* A victim with n Gs, a thief whose ring starts at offset: the thief takes
 * small[0, k) with k = n - n/2, runs the newest of them, small[k - 1], at
 * once (as Go does) and queues the others; the victim keeps the rest. */
static void steal_one(int n, uint32_t offset)
{
    int k = n - n / 2;
    struct g *gp;

    setup();
    advance(&qb, offset);
    if (!CHECK(fill(&qa, 0, n)))
        return;
    gp = runq_steal(&qb, &qa, false);
    if (gp != &small[k - 1]) {
        FAIL("n=%d offset=%u: stole %d", n, offset, gp ? gp->id : -1);
        return;
    }
    if (runq_len(&qb) != (uint32_t)(k - 1) ||
        runq_len(&qa) != (uint32_t)(n / 2)) {
        FAIL("n=%d offset=%u: thief %u, victim %u", n, offset,
             runq_len(&qb), runq_len(&qa));
        return;
    }
    drain_expect(&qb, 0, k - 1);
    drain_expect(&qa, k, n);
    CHECK(runq_empty(&qa) && runq_empty(&qb));
}

TEST(steal_takes_half)
{
    static const int ns[] = { 1, 2, 3, 4, 5, 128, 129, 255, 256 };

    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        steal_one(ns[i], 0);
        steal_one(ns[i], 200);
    }
    /* Nothing to steal. */
    setup();
    CHECK(runq_steal(&qb, &qa, true) == NULL);
    CHECK(runq_empty(&qb));
}

TEST(grab_into_ring_batch)
{
    struct g *batch[RUNQ_SIZE] = { 0 };

    setup();
    CHECK(fill(&qa, 0, 20));
    CHECK(runq_grab(&qa, batch, RUNQ_SIZE - 3, false) == 10);
    for (int i = 0; i < 10; i++)
        CHECK(batch[(RUNQ_SIZE - 3 + i) % RUNQ_SIZE] == &small[i]);
    CHECK(batch[RUNQ_SIZE - 4] == NULL && batch[7] == NULL);
    CHECK(runq_len(&qa) == 10);
    /* The grab is not published anywhere: qa just lost them. */
    drain_expect(&qa, 10, 20);
    CHECK(runq_grab(&qa, batch, 0, true) == 0);
}

static int npause;

/* A pause during which the owner did nothing. */
static bool count_pause(struct runq *q)
{
    CHECK(q == &qa);
    npause++;
    return true;
}

/* Plays the owner taking its runnext G just as the thief's pause ends
   (after the pause looked): the thief's CAS loses. */
static bool owner_takes_runnext(struct runq *q)
{
    bool inh;

    npause++;
    CHECK(runq_get(q, &inh) == &small[7] && inh);
    return true;
}

/* Plays the owner handing off during the pause: it runs its runnext G,
   which readies the same G again (two Gs ping-ponging on one core). */
static bool owner_runs_and_readies_again(struct runq *q)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov;
    bool inh;

    npause++;
    CHECK(runq_get(q, &inh) == &small[7] && inh);
    CHECK(runq_push(q, &small[7], true, ov, &nov));
    return false;
}

TEST(steal_runnext)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov;
    bool inh;

    setup();
    qa.pause = count_pause;
    npause = 0;
    CHECK(runq_push(&qa, &small[7], true, ov, &nov));
    CHECK(!runq_empty(&qa));
    CHECK(runq_steal(&qb, &qa, false) == NULL);
    CHECK(npause == 0);
    CHECK(runq_steal(&qb, &qa, true) == &small[7]);
    CHECK(npause == 1);
    CHECK(runq_empty(&qa) && runq_empty(&qb));

    /* With Gs in the ring, runnext stays where it is. */
    CHECK(runq_push(&qa, &small[7], true, ov, &nov));
    CHECK(fill(&qa, 0, 2));
    CHECK(runq_steal(&qb, &qa, true) == &small[0]);
    CHECK(npause == 1);
    CHECK(runq_get(&qa, &inh) == &small[7] && inh);
    CHECK(runq_get(&qa, &inh) == &small[1] && !inh);

    /* The owner wins the race for runnext during the pause. */
    qa.pause = owner_takes_runnext;
    CHECK(runq_push(&qa, &small[7], true, ov, &nov));
    CHECK(runq_steal(&qb, &qa, true) == NULL);
    CHECK(npause == 2);
    CHECK(runq_empty(&qa) && runq_empty(&qb));

    /* The owner switched during the pause and the same G is back in
       runnext: it is running its runnext Gs, so the thief leaves it. */
    qa.pause = owner_runs_and_readies_again;
    CHECK(runq_push(&qa, &small[7], true, ov, &nov));
    CHECK(runq_steal(&qb, &qa, true) == NULL);
    CHECK(npause == 3);
    CHECK(runq_empty(&qb) && runq_get(&qa, &inh) == &small[7] && inh);

    /* Nothing happened during the pause: the thief takes it. */
    qa.pause = count_pause;
    CHECK(runq_push(&qa, &small[7], true, ov, &nov));
    CHECK(runq_steal(&qb, &qa, true) == &small[7]);
    CHECK(npause == 4);

    /* NULL hook: no pause, still steals. */
    qa.pause = NULL;
    CHECK(runq_push(&qa, &small[8], true, ov, &nov));
    CHECK(runq_steal(&qb, &qa, true) == &small[8]);
}

TEST(empty_and_len)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov;
    bool inh;

    setup();
    CHECK(runq_empty(&qa) && runq_len(&qa) == 0);
    CHECK(runq_push(&qa, &small[0], true, ov, &nov));
    CHECK(!runq_empty(&qa) && runq_len(&qa) == 0);
    CHECK(runq_push(&qa, &small[1], true, ov, &nov));
    CHECK(!runq_empty(&qa) && runq_len(&qa) == 1);
    CHECK(runq_get(&qa, &inh) == &small[1]);
    CHECK(!runq_empty(&qa) && runq_len(&qa) == 1);
    CHECK(runq_get(&qa, &inh) == &small[0]);
    CHECK(runq_empty(&qa) && runq_len(&qa) == 0);
    CHECK(fill(&qa, 0, RUNQ_SIZE));
    CHECK(!runq_empty(&qa) && runq_len(&qa) == RUNQ_SIZE);
}

TEST(put_batch)
{
    struct g *gs[RUNQ_SIZE];

    setup();
    for (int i = 0; i < RUNQ_SIZE; i++)
        gs[i] = &small[300 + i];
    CHECK(runq_push_batch(&qa, gs, 0) == 0);
    CHECK(runq_push_batch(&qa, gs, 5) == 5);
    CHECK(runq_len(&qa) == 5);
    drain_expect(&qa, 300, 305);
    /* Only the free space is filled; the rest stays with the caller. */
    advance(&qa, 100);
    CHECK(fill(&qa, 0, 250));
    CHECK(runq_push_batch(&qa, gs, 10) == 6);
    CHECK(runq_len(&qa) == RUNQ_SIZE);
    CHECK(runq_push_batch(&qa, gs + 6, 4) == 0);
    drain_expect(&qa, 0, 250);
    drain_expect(&qa, 300, 306);
    CHECK(runq_empty(&qa));
    /* A batch steals like anything else. */
    CHECK(runq_push_batch(&qa, gs, 128) == 128);
    CHECK(runq_steal(&qb, &qa, false) == &small[363]);
    CHECK(runq_len(&qb) == 63 && runq_len(&qa) == 64);
}

/* head and tail are free-running 32-bit counters. */
TEST(index_wraparound)
{
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint32_t nov;

    setup();
    advance(&qa, UINT32_MAX - 5);
    advance(&qb, UINT32_MAX - 60);
    CHECK(fill(&qa, 0, 20));
    CHECK(runq_len(&qa) == 20 && qa.tail < qa.head);
    drain_expect(&qa, 0, 3);
    CHECK(runq_steal(&qb, &qa, false) == &small[11]);
    CHECK(runq_len(&qb) == 8 && runq_len(&qa) == 8);
    drain_expect(&qb, 3, 11);
    drain_expect(&qa, 12, 20);
    /* Overflow across the wrap. */
    advance(&qa, -(uint32_t)100);
    CHECK(fill(&qa, 0, RUNQ_SIZE));
    CHECK(!runq_push(&qa, &small[600], false, ov, &nov) &&
          nov == RUNQ_SIZE / 2 + 1);
    CHECK(ov[0] == &small[0] && ov[RUNQ_SIZE / 2] == &small[600]);
    drain_expect(&qa, RUNQ_SIZE / 2, RUNQ_SIZE);
    CHECK(runq_empty(&qa));
}

TEST(steal_needs_room)
{
    jmp_buf jb;

    setup();
    CHECK(fill(&qa, 0, 10));
    CHECK(fill(&qb, 100, 100 + RUNQ_SIZE / 2 + 1));
    panic_msg[0] = '\0';
    panic_jmp = &jb;
    if (setjmp(jb) == 0) {
        runq_steal(&qb, &qa, false);
        panic_jmp = NULL;
        FAIL("runq_steal into a thief with %d Gs did not panic",
             RUNQ_SIZE / 2 + 1);
        return;
    }
    panic_jmp = NULL;
    CHECK(strncmp(panic_msg, "runqsteal:", 10) == 0);
    /* Nothing moved. */
    CHECK(runq_len(&qa) == 10);
    CHECK(runq_len(&qb) == RUNQ_SIZE / 2 + 1);
}

/* xorshift64: cheap, per thread, reproducible. */
static uint32_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 32);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- runq_empty against a live owner ------------------------------- */

/*
 * The owner drives a queue through Go's runq_empty race over and over:
 * with X alone in runnext and the ring empty, it puts Y to runnext (X
 * moves to the ring) and gets Y, so for a moment the only G sits in the
 * ring and runnext is empty.  Then it puts Z to runnext and takes X out of
 * the ring with runq_grab, which is back where it started (Z alone in
 * runnext) without the queue ever being empty.  live is a counter, odd
 * while that goes on.  Observers read it, call runq_empty, read it again:
 * the same odd value both times means the queue held a G throughout, so
 * runq_empty must say false.
 */
#define NCYCLE 4000
#define NSTEP 64                /* race windows per live period */
#define MINCHECKS 20000         /* then keep cycling until this many */
#define EMPTY_BUDGET_S 1.0      /* and while time is left */
#define NOBSERVER 2

static struct runq eq;
static unsigned live;                   /* atomic */
static int eq_started, eq_done;         /* atomic */
static long eq_checks, eq_wrong;        /* atomic */
static int eq_owner_bad;                /* the owner's own view was off */

static void *empty_owner(void *arg)
{
    struct g *ov[RUNQ_SIZE / 2 + 1], *scratch[RUNQ_SIZE];
    double t0 = now();
    uint32_t nov;
    bool inh;

    (void)arg;
    /* Start once the observers run, or a fast owner may finish first. */
    while (__atomic_load_n(&eq_started, __ATOMIC_ACQUIRE) < NOBSERVER)
        sched_yield();
    for (long cyc = 0; cyc < 100L * NCYCLE; cyc++) {
        struct g *x = &small[0];

        if (cyc >= NCYCLE && now() - t0 >= EMPTY_BUDGET_S &&
            __atomic_load_n(&eq_checks, __ATOMIC_RELAXED) >= MINCHECKS)
            break;

        runq_push(&eq, x, true, ov, &nov);
        /* store-release: the observer that reads it sees x queued. */
        __atomic_fetch_add(&live, 1, __ATOMIC_RELEASE);
        for (int k = 0; k < NSTEP; k++) {
            struct g *y = &small[1 + k % 8], *z = &small[10 + k % 8];

            runq_push(&eq, y, true, ov, &nov);
            if (runq_get(&eq, &inh) != y || !inh)
                eq_owner_bad++;
            runq_push(&eq, z, true, ov, &nov);
            if (runq_grab(&eq, scratch, 0, false) != 1 || scratch[0] != x)
                eq_owner_bad++;
            x = z;
        }
        __atomic_fetch_add(&live, 1, __ATOMIC_RELEASE);
        if (runq_get(&eq, &inh) != x || runq_get(&eq, &inh) != NULL)
            eq_owner_bad++;
    }
    __atomic_store_n(&eq_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *empty_observer(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&eq_started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&eq_done, __ATOMIC_ACQUIRE)) {
        unsigned s1 = __atomic_load_n(&live, __ATOMIC_ACQUIRE);
        bool e = runq_empty(&eq);
        uint32_t n = runq_len(&eq);
        unsigned s2 = __atomic_load_n(&live, __ATOMIC_ACQUIRE);

        if (n > RUNQ_SIZE)
            __atomic_fetch_add(&eq_wrong, 1, __ATOMIC_RELAXED);
        if (s1 == s2 && (s1 & 1)) {
            __atomic_fetch_add(&eq_checks, 1, __ATOMIC_RELAXED);
            if (e)
                __atomic_fetch_add(&eq_wrong, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

TEST(empty_while_owner_runs)
{
    pthread_t ot, obs[NOBSERVER];

    setup();
    runq_init(&eq);
    if (!CHECK(pthread_create(&ot, NULL, empty_owner, NULL) == 0))
        return;
    for (int i = 0; i < NOBSERVER; i++)
        if (pthread_create(&obs[i], NULL, empty_observer, NULL) != 0)
            abort();
    pthread_join(ot, NULL);
    for (int i = 0; i < NOBSERVER; i++)
        pthread_join(obs[i], NULL);
    fprintf(stderr, "# runq_empty: %ld checks while non-empty\n",
            eq_checks);
    if (eq_wrong != 0)
        FAIL("%ld wrong answers from runq_empty or runq_len", eq_wrong);
    CHECK(eq_owner_bad == 0);
    CHECK(eq_checks >= MINCHECKS);
    CHECK(runq_empty(&eq));
}

/* ---- stress -------------------------------------------------------- */

#define NG 200000
#define NTHIEF 3
#define MINROUND 8
#define MAXROUND 48
#define ROUND_BUDGET_S 2.5      /* go past MINROUND while time is left */
#define NKNOB 4
#define TIMEOUT_S 20

/* What changes from round to round. */
struct knobs {
    bool pause_yields;          /* the runnext pause gives up the core */
    int steal_runnext;          /* 0: never, 1: always, 2: at random */
    uint32_t next_pct;          /* owner puts to runnext this often */
    int work;                   /* loop iterations per G run */
};

static const struct knobs rounds[NKNOB] = {
    { true, 2, 50, 0 }, { false, 1, 90, 300 }, { true, 0, 50, 100 },
    { false, 2, 20, 300 },
};

static struct knobs kn;
static struct g *sg;
static int *ran;                /* per G: times run (atomic) */
static int nran;                /* total runs (atomic) */
static int stop;                /* set by main on timeout (atomic) */
static int nbad, ndup;          /* atomic */
static struct runq owner_q, thief_q[NTHIEF];
static int nstarted;            /* start line for the threads (atomic) */

/* All threads of a round start together, or the first would run alone. */
static void start_line(void)
{
    __atomic_fetch_add(&nstarted, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&nstarted, __ATOMIC_ACQUIRE) < NTHIEF + 1)
        sched_yield();
}

/* The global run queue: a list under a test-and-test-and-set lock, which
 * yields while it waits (4 threads share 2 cores). */
static int glock;

static void glock_take(void)
{
    /* CAS-acquire: pairs with the store-release in glock_drop. */
    while (__atomic_exchange_n(&glock, 1, __ATOMIC_ACQUIRE) != 0)
        while (__atomic_load_n(&glock, __ATOMIC_RELAXED) != 0)
            sched_yield();
}

static void glock_drop(void)
{
    __atomic_store_n(&glock, 0, __ATOMIC_RELEASE);
}

static struct g *ghead, *gtail;
static uint32_t glen;

/* Statistics (atomic), printed as comment lines. */
static long st_overflow, st_steal, st_pause, st_refill, st_partial,
            st_glob1, st_runnext, st_byowner;

static void st_add(long *c)
{
    __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void glob_put(struct g **gs, uint32_t n, bool front)
{
    glock_take();
    for (uint32_t i = 0; i < n; i++) {
        struct g *gp = front ? gs[n - 1 - i] : gs[i];
        if (front) {
            gp->link = ghead;
            ghead = gp;
            if (gtail == NULL)
                gtail = gp;
        } else {
            gp->link = NULL;
            if (gtail != NULL)
                gtail->link = gp;
            else
                ghead = gp;
            gtail = gp;
        }
    }
    glen += n;
    glock_drop();
}

/* Takes up to max Gs; with max 0, Go's share min(len/4 + 1, 128). */
static uint32_t glob_get(struct g **gs, uint32_t max)
{
    uint32_t n = 0;

    glock_take();
    if (max == 0)
        max = glen / 4 + 1 < 128 ? glen / 4 + 1 : 128;
    while (n < max && ghead != NULL) {
        gs[n++] = ghead;
        ghead = ghead->link;
        if (ghead == NULL)
            gtail = NULL;
    }
    glen -= n;
    glock_drop();
    return n;
}

static bool done(void)
{
    return __atomic_load_n(&nran, __ATOMIC_ACQUIRE) >= NG ||
           __atomic_load_n(&stop, __ATOMIC_ACQUIRE);
}

static void run(struct g *gp, int who)
{
    long idx = gp - sg;

    if (idx < 0 || idx >= NG || gp->id != idx) {
        __atomic_fetch_add(&nbad, 1, __ATOMIC_RELAXED);
        return;
    }
    if (__atomic_fetch_add(&ran[idx], 1, __ATOMIC_RELAXED) != 0)
        __atomic_fetch_add(&ndup, 1, __ATOMIC_RELAXED);
    /* Plain writes: if a handoff did not order them after the creator's
     * and the refiller's writes, or two threads ran gp, TSan reports. */
    gp->ran_by = who;
    gp->hops++;
    for (volatile int i = 0; i < kn.work; i++)
        ;               /* the G's "work": lets thieves catch up */
    if (who == 0)
        st_byowner++;   /* only the owner writes it */
    __atomic_fetch_add(&nran, 1, __ATOMIC_RELEASE);
}

/* The owner's pause hook: sometimes give up the core, so that the owner
 * really does get to run runnext while a thief waits, and sometimes say
 * that it switched, so that the thief gives up. */
static __thread uint64_t pause_seed = 0x9e3779b97f4a7c15ull;
static bool stress_pause(struct runq *q)
{
    uint64_t r = rnd(&pause_seed);

    (void)q;
    st_add(&st_pause);
    if (kn.pause_yields && (r & 3) == 0)
        sched_yield();
    return (r & 0x30) != 0;
}

/* Refill from the global queue; partial batches go back to its front. */
static void owner_refill(uint32_t max)
{
    struct g *gs[128];
    uint32_t n = glob_get(gs, max), m;

    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        gs[i]->hops++;  /* must reach a thief through runq_push_batch */
    st_add(&st_refill);
    m = runq_push_batch(&owner_q, gs, n);
    if (m < n) {
        st_add(&st_partial);
        glob_put(gs + m, n - m, true);
    }
}

static void *owner(void *arg)
{
    static const uint32_t putp[] = { 20, 50, 80, 100 };
    struct g *ov[RUNQ_SIZE / 2 + 1];
    uint64_t seed = 0x243f6a8885a308d3ull;
    uint32_t made = 0, pp = 50, nov;
    bool inh;

    (void)arg;
    start_line();
    for (uint32_t op = 0; !done(); op++) {
        uint32_t r = rnd(&seed);
        struct g *gp;

        /* Phases from mostly-get to put-only bursts that overflow. */
        if (op % 512 == 0)
            pp = putp[r >> 30];
        if (made < NG && r % 100 < pp) {
            gp = &sg[made];
            gp->id = (int)made++;
            if (!runq_push(&owner_q, gp, (r >> 8) % 100 < kn.next_pct, ov,
                          &nov)) {
                if (nov != RUNQ_SIZE / 2 + 1)
                    __atomic_fetch_add(&nbad, 1, __ATOMIC_RELAXED);
                st_add(&st_overflow);
                glob_put(ov, nov, false);
            }
        } else if ((r & 0x3f0000) == 0) {
            owner_refill(128);  /* maybe into a non-empty queue */
        } else if ((gp = runq_get(&owner_q, &inh)) != NULL) {
            if (inh)
                st_add(&st_runnext);
            run(gp, 0);
        } else {
            owner_refill(0);
            if (made == NG && runq_empty(&owner_q))
                sched_yield();
        }
    }
    return NULL;
}

static void *thief(void *arg)
{
    int me = (int)(intptr_t)arg;
    struct runq *q = &thief_q[me];
    uint64_t seed = 0x13198a2e03707344ull * (uint64_t)(me + 1);
    bool inh;

    start_line();
    while (!done()) {
        uint32_t r = rnd(&seed);
        struct g *gp = runq_get(q, &inh);

        if (inh)    /* nobody ever puts to a thief's runnext */
            __atomic_fetch_add(&nbad, 1, __ATOMIC_RELAXED);
        if (gp == NULL) {
            struct runq *v = &owner_q;
            bool rn = kn.steal_runnext == 2 ? (r & 0x10000) != 0
                                            : kn.steal_runnext == 1;
            if (r % 4 == 0)     /* thieves rob each other too */
                v = &thief_q[(me + 1 + (r >> 8) % (NTHIEF - 1)) % NTHIEF];
            gp = runq_steal(q, v, rn);
            if (gp != NULL)
                st_add(&st_steal);
        }
        if (gp == NULL && (r & 0xf00000) == 0 && glob_get(&gp, 1) == 1)
            st_add(&st_glob1);
        if (gp != NULL)
            run(gp, me + 1);
        else
            sched_yield();
    }
    return NULL;
}

static void stress_round(int round)
{
    pthread_t ot, tt[NTHIEF];
    double t0 = now(), t;
    uint32_t zero = 0, more = 0, left = 0;
    bool inh;

    kn = rounds[round % NKNOB];
    nran = stop = nbad = ndup = 0;
    st_overflow = st_steal = st_pause = st_refill = st_partial = 0;
    st_glob1 = st_runnext = st_byowner = 0;
    ghead = gtail = NULL;
    glen = 0;
    memset(sg, 0, NG * sizeof(*sg));
    memset(ran, 0, NG * sizeof(*ran));
    runq_init(&owner_q);
    owner_q.pause = stress_pause;
    for (int i = 0; i < NTHIEF; i++)
        runq_init(&thief_q[i]);
    nstarted = 0;
    if (pthread_create(&ot, NULL, owner, NULL) != 0)
        abort();
    for (int i = 0; i < NTHIEF; i++)
        if (pthread_create(&tt[i], NULL, thief, (void *)(intptr_t)i) != 0)
            abort();
    while (!done() && now() - t0 < TIMEOUT_S) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(ot, NULL);
    for (int i = 0; i < NTHIEF; i++)
        pthread_join(tt[i], NULL);
    t = now() - t0;

    /* Anything still queued means the run was cut short by the timeout. */
    while (runq_get(&owner_q, &inh) != NULL)
        left++;
    for (int i = 0; i < NTHIEF; i++)
        while (runq_get(&thief_q[i], &inh) != NULL)
            left++;
    left += glen;
    for (int i = 0; i < NG; i++) {
        zero += ran[i] == 0;
        more += ran[i] > 1;
    }
    fprintf(stderr, "# stress round %d: %.2f s, %d Gs, %ld overflows, "
            "%ld steals, %ld runnext pauses, %ld runnext runs, "
            "%ld refills (%ld partial), %ld global singles, "
            "%ld run by thieves\n",
            round, t, NG, st_overflow, st_steal, st_pause, st_runnext,
            st_refill, st_partial, st_glob1, NG - st_byowner);
    if (nran != NG || zero != 0 || more != 0)
        FAIL("round %d: ran %d of %d in %.1f s: %u never ran "
             "(%u still queued), %u ran twice or more",
             round, nran, NG, t, zero, left, more);
    if (nbad != 0 || ndup != 0 || left != 0)
        FAIL("round %d: %d bad, %d duplicate, %u left", round, nbad, ndup,
             left);
}

TEST(stress)
{
    double t0 = now();
    int r;

    sg = calloc(NG, sizeof(*sg));
    ran = calloc(NG, sizeof(*ran));
    if (!CHECK(sg != NULL && ran != NULL))
        return;
    for (r = 0; r < MAXROUND && !h_failed(); r++) {
        if (r >= MINROUND && now() - t0 > ROUND_BUDGET_S)
            break;
        stress_round(r);
    }
    fprintf(stderr, "# stress: %d rounds in %.2f s\n", r, now() - t0);
    free(sg);
    free(ran);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
