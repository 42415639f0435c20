/*
 * polldesc_test.c - host unit test for sched/polldesc.c.
 *
 * polldesc.c is built unchanged, against the real sched/sched.h,
 * timers.h, netpoll.h, kernel/spinlock.h (and spinlock.c, so the locks are
 * the kernel's own) and spindle/time.h.  Only the layer below is faked,
 * here and in tests/host/polldesc_shim/ (arch.h, newlib's reent.h):
 *
 *   a G       a pthread with a semaphore.  gopark sets G_WAITING, runs
 *             the G's one-shot park hook (if any: the moment between
 *             pd_wait's PD_WAIT and its commit, where the tests put
 *             reports to force the interleavings), calls the unlock
 *             callback and, if it says so, sleeps on the semaphore, then
 *             runs a one-shot resume hook; goready checks G_WAITING and
 *             posts it.  For the stress cases gopark also dawdles (spins
 *             a random while, sometimes yields) before the commit, so
 *             that reports fall into that window often.
 *   a core    the thread itself: thread-local struct cpu and interrupt
 *             flag, so spin_lock's checks work per thread.
 *   the clock a fake cycle counter at 2.5 GHz that the tests set.
 *   timers    a list under a mutex.  Due timers fire only when a test
 *             asks (timers_fire), or in two steps (timer_pop takes one
 *             off the list as timers_run does, firing_run calls its
 *             function later) to stage a late firing.
 *   panic     longjmps to the case that expects it, else aborts.
 *
 * The cases pin down Go's semantics one at a time; the three stress cases
 * run real threads against each other (a G waiting, a poller reporting,
 * a timer thread firing deadlines, a closer) with a watchdog that fails
 * the case, instead of hanging, when a wakeup is lost.  Every case ends
 * with no G counted in netpoll_wait_add and pd_fini'd cleanly.
 *
 * Built twice (Makefile): with ASan and UBSan, and with TSan.  On the
 * include path sched/ is only -iquote (so <pthread.h> still finds the C
 * library's <sched.h>), tests/host/polldesc_shim comes with -I (for
 * <reent.h>) and arch/ not at all.  `polldesc_test NAME...` runs only
 * the cases named.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#undef timer_destroy
#include "harness.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "sched/netpoll.h"
#include "sched/polldesc.h"
#include "sched/sched.h"
#include <spindle/time.h>
#include "kernel/spinlock.h"
#include "sched/timers.h"

#ifndef WATCHDOG_S
#define WATCHDOG_S 120          /* a G that takes longer is hung */
#endif
#define PARK_WAIT_S 10          /* for a G to reach its park */

/* ---- panic ------------------------------------------------------------ */

static __thread jmp_buf *panic_jmp;
static __thread char panic_msg[256];

void panic(const char *fmt, ...)
{
    va_list ap;
    jmp_buf *j = panic_jmp;

    va_start(ap, fmt);
    vsnprintf(panic_msg, sizeof(panic_msg), fmt, ap);
    va_end(ap);
    if (j) {
        panic_jmp = NULL;
        longjmp(*j, 1);
    }
    fprintf(stderr, "panic: %s\n", panic_msg);
    abort();
}

/* Runs stmt, which must panic with a message containing want. */
#define EXPECT_PANIC(stmt, want)                                        \
    do {                                                                \
        jmp_buf jb_;                                                    \
        panic_msg[0] = '\0';                                            \
        if (setjmp(jb_) == 0) {                                         \
            panic_jmp = &jb_;                                           \
            stmt;                                                       \
            panic_jmp = NULL;                                           \
            FAIL("%s did not panic", #stmt);                            \
        } else if (!strstr(panic_msg, want)) {                          \
            FAIL("%s panicked with \"%s\", not \"%s\"", #stmt,          \
                 panic_msg, want);                                      \
        }                                                               \
    } while (0)

/* ---- cores, clock ------------------------------------------------------ */

__thread unsigned long shim_irq_off;
static __thread struct cpu tcpu;
static int ncpuid;

struct cpu *arch_this_cpu(void)
{
    if (!tcpu.self) {
        tcpu.self = &tcpu;
        tcpu.id = __atomic_fetch_add(&ncpuid, 1, __ATOMIC_RELAXED);
    }
    return &tcpu;
}

void arch_cpu_relax(void)
{
    sched_yield();
}

#define HZ 2500000000ULL        /* 2.5 cycles a ns: rounding shows */
#define T0_NS 1000000           /* where every case starts the clock */

static uint64_t fake_cycles;    /* atomic */

uint64_t arch_cycles(void)
{
    return __atomic_load_n(&fake_cycles, __ATOMIC_ACQUIRE);
}

uint64_t arch_cycles_hz(void)
{
    return HZ;
}

/* As sched/time.c computes it. */
uint64_t sp_nanotime(void)
{
    uint64_t c = arch_cycles();

    return c / HZ * 1000000000 + c % HZ * 1000000000 / HZ;
}

/* The first cycle count at which sp_nanotime() reads ns. */
static uint64_t cycles_at(uint64_t ns)
{
    return (ns * 5 + 1) / 2;
}

static void clock_set(uint64_t cycles)
{
    __atomic_store_n(&fake_cycles, cycles, __ATOMIC_RELEASE);
}

static void clock_to_ns(uint64_t ns)
{
    clock_set(cycles_at(ns));
}

/* ---- timers ------------------------------------------------------------ */

#define MAXTIMERS 16

static pthread_mutex_t tmu = PTHREAD_MUTEX_INITIALIZER;
static struct timer *armed[MAXTIMERS];      /* T_WAITING ones */
static int narmed;
static struct timer *inflight[MAXTIMERS];   /* popped, function not done */
static int ninflight;

static void list_del(struct timer **a, int *n, struct timer *t)
{
    for (int i = 0; i < *n; i++)
        if (a[i] == t) {
            a[i] = a[--*n];
            return;
        }
    panic("fake timers: timer %p not on its list", (void *)t);
}

void timer_init(struct timer *t, void (*f)(void *), void *arg)
{
    *t = (struct timer){ .f = f, .arg = arg, .h = -1 };
}

static void start_locked(struct timer *t, uint64_t when, uint64_t period)
{
    if (t->status != T_IDLE)
        panic("timer_start: timer already started (status %d)", t->status);
    if (period)
        panic("fake timers: one-shot only");
    if (narmed == MAXTIMERS)
        panic("fake timers: too many");
    t->when = when;
    t->status = T_WAITING;
    armed[narmed++] = t;
}

static bool stop_locked(struct timer *t)
{
    if (t->status != T_WAITING)
        return false;
    list_del(armed, &narmed, t);
    t->status = T_IDLE;
    return true;
}

void timer_start(struct timer *t, uint64_t when, uint64_t period)
{
    pthread_mutex_lock(&tmu);
    start_locked(t, when, period);
    pthread_mutex_unlock(&tmu);
}

bool timer_stop(struct timer *t)
{
    bool was;

    pthread_mutex_lock(&tmu);
    was = stop_locked(t);
    pthread_mutex_unlock(&tmu);
    return was;
}

bool timer_reset(struct timer *t, uint64_t when, uint64_t period)
{
    bool was;

    pthread_mutex_lock(&tmu);
    was = stop_locked(t);
    start_locked(t, when, period);
    pthread_mutex_unlock(&tmu);
    return was;
}

void timer_destroy(struct timer *t)
{
    timer_stop(t);
    for (;;) {
        bool running = false;

        pthread_mutex_lock(&tmu);
        for (int i = 0; i < ninflight; i++)
            running |= inflight[i] == t;
        pthread_mutex_unlock(&tmu);
        if (!running)
            return;
        sched_yield();
    }
}

/* A timer taken off the list, its function not run yet. */
struct firing {
    struct timer *t;
    void (*f)(void *);
    void *arg;
};

/* Takes the earliest timer due at the clock's now, as timers_run does:
   it is idle from here on, and its function will run (firing_run). */
static bool timer_pop(struct firing *fi)
{
    uint64_t now = arch_cycles();
    int best = -1;

    pthread_mutex_lock(&tmu);
    for (int i = 0; i < narmed; i++)
        if (armed[i]->when <= now &&
            (best < 0 || armed[i]->when < armed[best]->when))
            best = i;
    if (best >= 0) {
        struct timer *t = armed[best];

        list_del(armed, &narmed, t);
        t->status = T_IDLE;
        inflight[ninflight++] = t;
        *fi = (struct firing){ t, t->f, t->arg };
    }
    pthread_mutex_unlock(&tmu);
    return best >= 0;
}

/* Runs a popped timer's function as a core would: interrupts off. */
static void firing_run(const struct firing *fi)
{
    unsigned long f = arch_irq_save();

    fi->f(fi->arg);
    arch_irq_restore(f);
    pthread_mutex_lock(&tmu);
    list_del(inflight, &ninflight, fi->t);
    pthread_mutex_unlock(&tmu);
}

/* Fires every timer due now; returns how many. */
static int timers_fire(void)
{
    struct firing fi;
    int n = 0;

    while (timer_pop(&fi)) {
        firing_run(&fi);
        n++;
    }
    return n;
}

static int timers_armed(void)
{
    int n;

    pthread_mutex_lock(&tmu);
    n = narmed;
    pthread_mutex_unlock(&tmu);
    return n;
}

static uint64_t armed_when(void)
{
    uint64_t w;

    pthread_mutex_lock(&tmu);
    w = narmed ? armed[0]->when : 0;
    pthread_mutex_unlock(&tmu);
    return w;
}

static int timers_inflight(void)
{
    int n;

    pthread_mutex_lock(&tmu);
    n = ninflight;
    pthread_mutex_unlock(&tmu);
    return n;
}

/* ---- netpoll ----------------------------------------------------------- */

int netpoll_nwait;

void netpoll_wait_add(int delta)
{
    if (__atomic_add_fetch(&netpoll_nwait, delta, __ATOMIC_SEQ_CST) < 0)
        panic("netpoll_wait_add: more Gs stopped waiting than started");
}

/* ---- Gs ----------------------------------------------------------------- */

struct tg {
    struct g g;                 /* first: goready finds the tg from it */
    pthread_t th;
    sem_t wake;                 /* goready posts */
    sem_t done;                 /* fn returned */
    bool joined;
    int (*fn)(struct tg *);
    struct polldesc *pd;
    int mode;
    int result;                 /* fn's */
    int nsleep;                 /* parks that slept; atomic */
    int ncancel;                /* parks whose unlock callback said no;
                                   atomic */
    int progress;               /* stress: steps done; atomic */
    uint32_t park_spin;         /* stress: gopark spins up to this many
                                   rounds (and sometimes yields) before
                                   the commit, to widen the window a
                                   report can fall into */
    uint32_t seed;
    /* Run once by gopark, between PD_WAIT and the commit: */
    void (*hook)(struct tg *);
    /* Run once by gopark when a sleep ends, before it returns: */
    void (*resume_hook)(struct tg *);
    /* What the hooks saw (read after the join): */
    bool hook_ran;
    uintptr_t hook_slot;
    struct g *hook_g;
    char hook_msg[256];
};

static uint32_t xorshift(uint32_t *s)
{
    uint32_t x = *s;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Spins 0..max-1 rounds: shifts the interleavings about. */
static void spin_some(uint32_t *seed, uint32_t max)
{
    for (uint32_t n = xorshift(seed) % max; n; n--)
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static __thread struct tg *self;
static long nreadied;           /* goready calls; atomic */

void gopark(bool (*unlockf)(struct g *gp, void *arg), void *arg,
            enum waitreason reason)
{
    struct tg *t = self;
    void (*h)(struct tg *);
    unsigned long f;
    bool sleep = true;

    if (!t)
        panic("gopark: called off any goroutine");
    t->g.waitreason = reason;
    t->g.param = NULL;
    __atomic_store_n(&t->g.status, G_WAITING, __ATOMIC_RELEASE);
    if ((h = t->hook)) {
        t->hook = NULL;
        h(t);
    }
    if (t->park_spin) {
        spin_some(&t->seed, t->park_spin);
        if (xorshift(&t->seed) % 4 == 0)
            sched_yield();      /* lets a reporter in on a busy host */
    }
    f = arch_irq_save();        /* park_m runs unlockf so */
    if (unlockf)
        sleep = unlockf(&t->g, arg);
    arch_irq_restore(f);
    if (!sleep) {
        __atomic_store_n(&t->g.status, G_RUNNING, __ATOMIC_RELAXED);
        __atomic_add_fetch(&t->ncancel, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_add_fetch(&t->nsleep, 1, __ATOMIC_RELAXED);
    while (sem_wait(&t->wake) != 0 && errno == EINTR)
        ;
    __atomic_store_n(&t->g.status, G_RUNNING, __ATOMIC_RELAXED);
    if ((h = t->resume_hook)) {
        t->resume_hook = NULL;
        h(t);
    }
}

void goready(struct g *gp)
{
    int st = G_WAITING;

    if (!__atomic_compare_exchange_n(&gp->status, &st, G_RUNNABLE, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        panic("goready: goroutine %lu has status %d, not waiting",
              (unsigned long)gp->goid, st);
    __atomic_add_fetch(&nreadied, 1, __ATOMIC_RELAXED);
    sem_post(&((struct tg *)gp)->wake);
}

static void *g_main(void *arg)
{
    struct tg *t = arg;

    self = t;
    t->result = t->fn(t);
    sem_post(&t->done);
    return NULL;
}

#define MAXG 8
static struct tg *gs[MAXG];     /* this case's */
static int ngs;
static uint64_t goidgen;
static bool hung;               /* a G never finished: the rest is moot */

/* A G that will run fn on pd's direction mode once g_go starts it. */
static struct tg *g_new(int (*fn)(struct tg *), struct polldesc *pd,
                        int mode)
{
    struct tg *t = calloc(1, sizeof *t);

    if (!t || ngs == MAXG) {
        fprintf(stderr, "polldesc_test: out of Gs\n");
        abort();
    }
    t->g.goid = ++goidgen;
    t->seed = 0x2545f491u * (uint32_t)t->g.goid;
    t->g.status = G_RUNNING;
    t->fn = fn;
    t->pd = pd;
    t->mode = mode;
    sem_init(&t->wake, 0, 0);
    sem_init(&t->done, 0, 0);
    gs[ngs++] = t;
    return t;
}

static struct tg *g_go(struct tg *t)
{
    if (pthread_create(&t->th, NULL, g_main, t)) {
        fprintf(stderr, "polldesc_test: pthread_create failed\n");
        abort();
    }
    return t;
}

static struct tg *g_start(int (*fn)(struct tg *), struct polldesc *pd,
                          int mode)
{
    return g_go(g_new(fn, pd, mode));
}

static void deadline_in(struct timespec *ts, int s)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += s;
}

/* Waits for t to finish; false (and the case fails) if it hangs. */
static bool g_join(struct tg *t)
{
    struct timespec ts;
    int r;

    if (t->joined)
        return true;
    deadline_in(&ts, WATCHDOG_S);
    while ((r = sem_timedwait(&t->done, &ts)) != 0 && errno == EINTR)
        ;
    if (r != 0) {
        FAIL("goroutine %lu hung (a lost wakeup?)", (unsigned long)t->g.goid);
        hung = true;
        return false;
    }
    pthread_join(t->th, NULL);
    t->joined = true;
    return true;
}

static int nsleep(struct tg *t)
{
    return __atomic_load_n(&t->nsleep, __ATOMIC_RELAXED);
}

static int ncancel(struct tg *t)
{
    return __atomic_load_n(&t->ncancel, __ATOMIC_RELAXED);
}

static uintptr_t slot(uintptr_t *s)
{
    return __atomic_load_n(s, __ATOMIC_ACQUIRE);
}

/* Waits until *s holds want (a G that parked there); false on timeout. */
static bool wait_slot(uintptr_t *s, uintptr_t want)
{
    struct timespec end, now;

    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += PARK_WAIT_S;
    while (slot(s) != want) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > end.tv_sec ||
            (now.tv_sec == end.tv_sec && now.tv_nsec > end.tv_nsec))
            return false;
        sched_yield();
    }
    return true;
}

/* In a case body: waits for G t to sleep in slot s, or fails the case. */
#define PARKED(s, t)                                                    \
    do {                                                                \
        if (!CHECK(wait_slot((s), (uintptr_t)&(t)->g)))                 \
            return;                                                     \
    } while (0)

/* G bodies. */
static int g_wait(struct tg *t)
{
    return pd_wait(t->pd, t->mode);
}

/* ---- Cases -------------------------------------------------------------- */

static struct polldesc pd;

static void case_begin(void)
{
    if (hung) {
        FAIL("not run: an earlier case left a goroutine hung");
        return;
    }
    ngs = 0;
    clock_to_ns(T0_NS);
    __atomic_store_n(&nreadied, 0, __ATOMIC_RELAXED);
    CHECK(netpoll_waiters() == 0);
    pd_init(&pd);
}

static void case_end(void)
{
    jmp_buf jb;

    if (hung)
        return;                 /* its G may still use pd: leave it */
    /* A case that failed half-way may leave a G asleep: wake it. */
    if (h_failed() && !pd.closing)
        pd_close(&pd);
    for (int i = 0; i < ngs; i++)
        if (!g_join(gs[i]))
            return;
    CHECK(netpoll_waiters() == 0);
    CHECK(timers_inflight() == 0);
    CHECK(spin_depth() == 0);
    CHECK(arch_irqs_enabled());
    if (setjmp(jb) == 0) {
        panic_jmp = &jb;
        pd_fini(&pd);
        panic_jmp = NULL;
    } else {
        FAIL("pd_fini panicked: %s", panic_msg);
    }
    CHECK(timers_armed() == 0);
    for (int i = 0; i < ngs; i++) {
        sem_destroy(&gs[i]->wake);
        sem_destroy(&gs[i]->done);
        free(gs[i]);
    }
    ngs = 0;
}

/* One case: case_begin, the body, case_end. */
#define PD_CASE(name)                                                   \
    static void name##_body(void);                                      \
    TEST(name)                                                          \
    {                                                                   \
        case_begin();                                                   \
        if (!h_failed())                                                \
            name##_body();                                              \
        case_end();                                                     \
    }                                                                   \
    static void name##_body(void)

/* Readiness reported while nobody waits stays, and a wait takes it
   without parking. */
PD_CASE(ready_before_wait)
{
    struct tg *t;

    CHECK(pd_prepare(&pd, 'r') == PD_OK);
    CHECK(pd_ready(&pd, 'r') == NULL);
    CHECK(slot(&pd.rg) == PD_READY);
    CHECK(pd_ready(&pd, 'r') == NULL);          /* sticky, once */
    CHECK(slot(&pd.rg) == PD_READY);
    CHECK(slot(&pd.wg) == PD_NIL);
    t = g_start(g_wait, &pd, 'r');
    if (!g_join(t))
        return;
    CHECK(t->result == PD_OK);
    CHECK(nsleep(t) == 0 && ncancel(t) == 0);
    CHECK(slot(&pd.rg) == PD_NIL);              /* consumed */
}

/* pd_prepare forgets readiness from before: the wait that follows
   parks until the next report. */
PD_CASE(prepare_forgets_old_readiness)
{
    struct tg *t;
    struct g *gp;

    CHECK(pd_ready(&pd, 'w') == NULL);
    CHECK(pd_prepare(&pd, 'w') == PD_OK);
    CHECK(slot(&pd.wg) == PD_NIL);
    CHECK(pd_prepare(&pd, 'w') == PD_OK);       /* on PD_NIL too */
    t = g_start(g_wait, &pd, 'w');
    PARKED(&pd.wg, t);
    gp = pd_ready(&pd, 'w');
    if (!CHECK(gp == &t->g))
        return;
    goready(gp);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_OK);
    CHECK(nsleep(t) == 1);
}

/* A G parks, counted as waiting for the network; the report hands it
   back exactly once; the other direction is separate. */
PD_CASE(wait_then_ready)
{
    struct tg *t;
    struct g *gp;

    t = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, t);
    CHECK(netpoll_waiters() == 1);
    CHECK(t->g.waitreason == WAIT_IO);
    CHECK(pd_ready(&pd, 'w') == NULL);          /* not the reader's */
    CHECK(slot(&pd.rg) == (uintptr_t)&t->g);
    CHECK(slot(&pd.wg) == PD_READY);
    gp = pd_ready(&pd, 'r');
    if (!CHECK(gp == &t->g))
        return;
    CHECK(slot(&pd.rg) == PD_READY);
    CHECK(pd_ready(&pd, 'r') == NULL);          /* not handed out twice */
    goready(gp);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_OK);
    CHECK(nsleep(t) == 1 && ncancel(t) == 0);
    CHECK(slot(&pd.rg) == PD_NIL);
    CHECK(slot(&pd.wg) == PD_READY);
}

/* Hooks run by gopark between PD_WAIT and the commit. */
static void hook_ready(struct tg *t)
{
    t->hook_ran = true;
    t->hook_slot = slot(t->mode == 'r' ? &t->pd->rg : &t->pd->wg);
    t->hook_g = pd_ready(t->pd, t->mode);
}

static void hook_close(struct tg *t)
{
    t->hook_ran = true;
    t->hook_slot = slot(t->mode == 'r' ? &t->pd->rg : &t->pd->wg);
    pd_close(t->pd);
}

static void hook_past_deadline(struct tg *t)
{
    t->hook_ran = true;
    t->hook_slot = slot(t->mode == 'r' ? &t->pd->rg : &t->pd->wg);
    pd_set_deadline(t->pd, 1, t->mode);
}

/* Runs a G whose park hook is h; checks it ran in the window. */
static struct tg *run_hooked(void (*h)(struct tg *), int mode)
{
    struct tg *t = g_new(g_wait, &pd, mode);

    t->hook = h;
    g_go(t);
    if (!g_join(t))
        return NULL;
    CHECK(t->hook_ran);
    CHECK(t->hook_slot == PD_WAIT);
    return t;
}

/* Readiness between PD_WAIT and the commit cancels the park: the G does
   not sleep, and takes the readiness. */
PD_CASE(ready_in_park_window_not_lost)
{
    struct tg *t = run_hooked(hook_ready, 'r');

    if (!t)
        return;
    CHECK(t->hook_g == NULL);   /* nobody to wake: the G is not in yet */
    CHECK(t->result == PD_OK);
    CHECK(nsleep(t) == 0 && ncancel(t) == 1);
    CHECK(slot(&pd.rg) == PD_NIL);
}

/* So does a close, and a deadline that has passed. */
PD_CASE(close_in_park_window)
{
    struct tg *t = run_hooked(hook_close, 'w');

    if (!t)
        return;
    CHECK(t->result == PD_ECLOSED);
    CHECK(nsleep(t) == 0 && ncancel(t) == 1);
    CHECK(slot(&pd.wg) == PD_NIL);
}

PD_CASE(deadline_in_park_window)
{
    struct tg *t = run_hooked(hook_past_deadline, 'r');

    if (!t)
        return;
    CHECK(t->result == PD_ETIMEOUT);
    CHECK(nsleep(t) == 0 && ncancel(t) == 1);
}

/* A deadline not after now has passed: waits fail at once, in its
   direction only, until the deadline is set again. */
PD_CASE(past_deadline_fails_at_once)
{
    int64_t now = sp_nanotime();
    struct tg *t;

    CHECK(pd_ready(&pd, 'r') == NULL);          /* readiness, kept */
    pd_set_deadline(&pd, now, 'r');             /* now is not "later" */
    CHECK(timers_armed() == 0);
    CHECK(pd_prepare(&pd, 'r') == PD_ETIMEOUT);
    CHECK(pd_prepare(&pd, 'w') == PD_OK);
    t = g_start(g_wait, &pd, 'r');
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ETIMEOUT);
    CHECK(nsleep(t) == 0 && ncancel(t) == 0);
    pd_set_deadline(&pd, -5, 'w');              /* negative: passed */
    CHECK(pd_prepare(&pd, 'w') == PD_ETIMEOUT);
    pd_set_deadline(&pd, 0, 'r' + 'w');         /* none */
    CHECK(slot(&pd.rg) == PD_READY);    /* a timeout does not eat it */
    CHECK(pd_prepare(&pd, 'r') == PD_OK);
    CHECK(pd_prepare(&pd, 'w') == PD_OK);
    pd_set_deadline(&pd, now + 1, 'r');         /* to come */
    CHECK(pd_prepare(&pd, 'r') == PD_OK);
    CHECK(timers_armed() == 1);
}

/* A deadline that comes while a G waits wakes it with PD_ETIMEOUT, no
   sooner than sp_nanotime() reads the deadline; the writer stays. */
PD_CASE(deadline_fires_during_wait)
{
    int64_t d = T0_NS + 1001;   /* odd: its cycle count rounds up */
    struct tg *r, *w;
    struct g *gp;

    pd_set_deadline(&pd, d, 'r');
    CHECK(timers_armed() == 1);
    CHECK(armed_when() == cycles_at(d));
    r = g_start(g_wait, &pd, 'r');
    w = g_start(g_wait, &pd, 'w');
    PARKED(&pd.rg, r);
    PARKED(&pd.wg, w);
    clock_set(cycles_at(d) - 1);
    CHECK((int64_t)sp_nanotime() < d);
    CHECK(timers_fire() == 0);
    CHECK(slot(&pd.rg) == (uintptr_t)&r->g);
    clock_set(cycles_at(d));
    CHECK((int64_t)sp_nanotime() == d);
    CHECK(timers_fire() == 1);
    if (!g_join(r))
        return;
    CHECK(r->result == PD_ETIMEOUT);
    CHECK(nsleep(r) == 1);
    CHECK(slot(&pd.wg) == (uintptr_t)&w->g);
    CHECK(pd_prepare(&pd, 'r') == PD_ETIMEOUT);  /* stays passed */
    pd_set_deadline(&pd, 0, 'r');
    CHECK(pd_prepare(&pd, 'r') == PD_OK);
    gp = pd_ready(&pd, 'w');
    if (!CHECK(gp == &w->g))
        return;
    goready(gp);
    if (!g_join(w))
        return;
    CHECK(w->result == PD_OK);
    CHECK(pd.rd.firings == 0 && !pd.rd.armed);
}

/* Setting a deadline in the past wakes the Gs waiting now. */
PD_CASE(past_deadline_wakes_waiters)
{
    struct tg *r, *w;

    r = g_start(g_wait, &pd, 'r');
    w = g_start(g_wait, &pd, 'w');
    PARKED(&pd.rg, r);
    PARKED(&pd.wg, w);
    pd_set_deadline(&pd, T0_NS - 1, 'r' + 'w');
    if (!g_join(r) || !g_join(w))
        return;
    CHECK(r->result == PD_ETIMEOUT && w->result == PD_ETIMEOUT);
    CHECK(nsleep(r) == 1 && nsleep(w) == 1);
    CHECK(__atomic_load_n(&nreadied, __ATOMIC_RELAXED) == 2);
}

/* A deadline moved later (or removed) while a G waits does not fire at
   its old time. */
PD_CASE(moved_deadline_not_early)
{
    int64_t a = T0_NS + 1000, b = T0_NS + 5000;
    struct tg *t;
    struct g *gp;

    pd_set_deadline(&pd, a, 'r');
    t = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, t);
    pd_set_deadline(&pd, b, 'r');
    CHECK(timers_armed() == 1);
    clock_to_ns(a);
    CHECK(timers_fire() == 0);
    CHECK(slot(&pd.rg) == (uintptr_t)&t->g);
    clock_to_ns(b);
    CHECK(timers_fire() == 1);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ETIMEOUT);

    /* Removed: nothing fires at all. */
    pd_set_deadline(&pd, b + 1000, 'w');
    t = g_start(g_wait, &pd, 'w');
    PARKED(&pd.wg, t);
    pd_set_deadline(&pd, 0, 'w');
    CHECK(timers_armed() == 0);
    clock_to_ns(b + 2000);
    CHECK(timers_fire() == 0);
    CHECK(slot(&pd.wg) == (uintptr_t)&t->g);
    gp = pd_ready(&pd, 'w');
    if (!CHECK(gp == &t->g))
        return;
    goready(gp);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_OK);
    CHECK(pd.wd.firings == 0 && pd.rd.firings == 0);
}

/* A firing already off the timer heap when the deadline is moved comes
   late: it must do nothing, and the new deadline still works. */
PD_CASE(stale_firing_does_nothing)
{
    int64_t a = T0_NS + 1000, b = T0_NS + 5000;
    struct firing fa;
    struct tg *t;
    struct g *gp;

    pd_set_deadline(&pd, a, 'r');
    t = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, t);
    clock_to_ns(a);
    if (!CHECK(timer_pop(&fa)))
        return;
    pd_set_deadline(&pd, b, 'r');       /* while a's firing is on its way */
    CHECK(pd.rd.firings == 2);
    firing_run(&fa);
    CHECK(slot(&pd.rg) == (uintptr_t)&t->g);    /* not woken */
    CHECK(pd_prepare(&pd, 'w') == PD_OK);
    CHECK(pd.rd.firings == 1 && pd.rd.armed && pd.rd.ns == b);
    clock_to_ns(b);
    CHECK(timers_fire() == 1);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ETIMEOUT);
    CHECK(pd.rd.firings == 0);

    /* The same with the deadline removed. */
    pd_set_deadline(&pd, b + 1000, 'r');
    t = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, t);
    clock_to_ns(b + 1000);
    if (!CHECK(timer_pop(&fa)))
        return;
    pd_set_deadline(&pd, 0, 'r');
    firing_run(&fa);
    CHECK(slot(&pd.rg) == (uintptr_t)&t->g);
    CHECK(pd.rd.firings == 0 && !pd.rd.armed);
    gp = pd_ready(&pd, 'r');
    if (!CHECK(gp == &t->g))
        return;
    goready(gp);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_OK);
}

/* Two firings on their way (the old deadline's and the new one's), run
   in either order: the first does nothing, the second wakes the G. */
PD_CASE(late_firings_either_order)
{
    for (int order = 0; order < 2; order++) {
        int64_t a = sp_nanotime() + 1000, b = a + 2000;
        struct firing fa, fb;
        struct tg *t;

        pd_set_deadline(&pd, a, 'r');
        t = g_start(g_wait, &pd, 'r');
        PARKED(&pd.rg, t);
        clock_to_ns(a);
        if (!CHECK(timer_pop(&fa)))
            return;
        pd_set_deadline(&pd, b, 'r');
        clock_to_ns(b);
        if (!CHECK(timer_pop(&fb)))
            return;
        CHECK(pd.rd.firings == 2);
        firing_run(order ? &fa : &fb);
        CHECK(slot(&pd.rg) == (uintptr_t)&t->g);
        firing_run(order ? &fb : &fa);
        if (!g_join(t))
            return;
        CHECK(t->result == PD_ETIMEOUT);
        CHECK(pd.rd.firings == 0 && !pd.rd.armed);
        pd_set_deadline(&pd, 0, 'r');
    }
}

/* Woken by a deadline that is then removed before the G looks: it
   waits again (Go's "pretend it has not happened"). */
static void resume_clear_deadline(struct tg *t)
{
    pd_set_deadline(t->pd, 0, t->mode);
}

PD_CASE(deadline_removed_before_wakeup_waits_again)
{
    int64_t a = T0_NS + 1000;
    struct tg *t = g_new(g_wait, &pd, 'r');
    struct g *gp;

    t->resume_hook = resume_clear_deadline;
    pd_set_deadline(&pd, a, 'r');
    g_go(t);
    PARKED(&pd.rg, t);
    clock_to_ns(a);
    CHECK(timers_fire() == 1);
    PARKED(&pd.rg, t);          /* parked again */
    gp = pd_ready(&pd, 'r');
    if (!CHECK(gp == &t->g))
        return;
    goready(gp);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_OK);
    CHECK(nsleep(t) == 2);
}

/* Close wakes the reader and the writer, and stops the deadline timers. */
PD_CASE(close_wakes_both)
{
    struct tg *r, *w;

    pd_set_deadline(&pd, T0_NS + 10000, 'r');
    pd_set_deadline(&pd, T0_NS + 20000, 'w');
    CHECK(timers_armed() == 2);
    r = g_start(g_wait, &pd, 'r');
    w = g_start(g_wait, &pd, 'w');
    PARKED(&pd.rg, r);
    PARKED(&pd.wg, w);
    pd_close(&pd);
    if (!g_join(r) || !g_join(w))
        return;
    CHECK(r->result == PD_ECLOSED && w->result == PD_ECLOSED);
    CHECK(nsleep(r) == 1 && nsleep(w) == 1);
    CHECK(timers_armed() == 0);
    CHECK(pd.rd.firings == 0 && pd.wd.firings == 0);
}

/* After close every wait fails at once, readiness or not; deadlines and
   reports change nothing. */
PD_CASE(waits_after_close_fail)
{
    struct tg *t;

    CHECK(pd_ready(&pd, 'r') == NULL);          /* sticky before close */
    pd_close(&pd);
    CHECK(pd_prepare(&pd, 'r') == PD_ECLOSED);
    CHECK(pd_prepare(&pd, 'w') == PD_ECLOSED);
    t = g_start(g_wait, &pd, 'r');
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ECLOSED);
    CHECK(nsleep(t) == 0 && ncancel(t) == 0);
    t = g_start(g_wait, &pd, 'w');
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ECLOSED);
    CHECK(pd_ready(&pd, 'w') == NULL);
    pd_set_deadline(&pd, T0_NS - 1, 'r');       /* ignored: closed */
    pd_set_deadline(&pd, T0_NS + 1000, 'w');
    CHECK(timers_armed() == 0);
    CHECK(pd_prepare(&pd, 'r') == PD_ECLOSED);
}

/* A deadline firing on its way when the descriptor closes does nothing. */
PD_CASE(close_then_late_firing)
{
    struct firing fa;
    struct tg *t;
    long readied;

    pd_set_deadline(&pd, T0_NS + 1000, 'r');
    t = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, t);
    clock_to_ns(T0_NS + 1000);
    if (!CHECK(timer_pop(&fa)))
        return;
    pd_close(&pd);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ECLOSED);
    readied = __atomic_load_n(&nreadied, __ATOMIC_RELAXED);
    firing_run(&fa);
    CHECK(__atomic_load_n(&nreadied, __ATOMIC_RELAXED) == readied);
    CHECK(pd_prepare(&pd, 'r') == PD_ECLOSED);  /* not PD_ETIMEOUT */
    CHECK(pd.rd.firings == 0);
}

/* A second G in one direction is a panic ("double wait"), whether the
   first sleeps or is on its way to; the first is not disturbed. */
static void hook_second_wait(struct tg *t)
{
    jmp_buf jb;

    t->hook_ran = true;
    t->hook_slot = slot(t->mode == 'r' ? &t->pd->rg : &t->pd->wg);
    if (setjmp(jb) == 0) {
        panic_jmp = &jb;
        pd_wait(t->pd, t->mode);
        panic_jmp = NULL;
        strcpy(t->hook_msg, "(no panic)");
    } else {
        snprintf(t->hook_msg, sizeof t->hook_msg, "%s", panic_msg);
    }
}

PD_CASE(double_wait_panics)
{
    struct tg *r, *w;
    struct g *gp;

    r = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, r);
    EXPECT_PANIC(pd_wait(&pd, 'r'), "double wait");
    EXPECT_PANIC(pd_prepare(&pd, 'r'), "double wait");
    CHECK(slot(&pd.rg) == (uintptr_t)&r->g);
    CHECK(netpoll_waiters() == 1);

    w = g_new(g_wait, &pd, 'w');
    w->hook = hook_second_wait;
    g_go(w);
    PARKED(&pd.wg, w);
    gp = pd_ready_push(&pd, 'r' + 'w', NULL);
    if (!CHECK(gp == &w->g && gp->schedlink == &r->g))
        return;
    goready(&r->g);
    goready(&w->g);
    if (!g_join(r) || !g_join(w))
        return;
    CHECK(r->result == PD_OK && w->result == PD_OK);
    CHECK(w->hook_ran && w->hook_slot == PD_WAIT);
    CHECK(strstr(w->hook_msg, "double wait") != NULL);
}

/* pd_ready_push hands the Gs of both directions over as one list, and
   leaves readiness where nobody waits. */
PD_CASE(ready_push_list)
{
    struct tg *r;
    struct g *list;

    CHECK(pd_ready_push(&pd, 'r' + 'w', NULL) == NULL);
    CHECK(slot(&pd.rg) == PD_READY && slot(&pd.wg) == PD_READY);
    CHECK(pd_prepare(&pd, 'r') == PD_OK);
    r = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, r);
    list = pd_ready_push(&pd, 'w', NULL);
    CHECK(list == NULL);
    r->g.schedlink = (struct g *)&pd;          /* overwritten */
    list = pd_ready_push(&pd, 'r', list);
    if (!CHECK(list == &r->g && list->schedlink == NULL))
        return;
    goready(list);
    if (!g_join(r))
        return;
    CHECK(r->result == PD_OK);
}

/* Misuse that must panic, not corrupt. */
PD_CASE(misuse_panics)
{
    struct tg *t;
    struct spinlock stack = SPINLOCK_INIT(LOCK_STACK);
    unsigned long f;

    EXPECT_PANIC(pd_wait(&pd, 'x'), "neither 'r' nor 'w'");
    EXPECT_PANIC(pd_ready(&pd, 0), "neither 'r' nor 'w'");
    EXPECT_PANIC(pd_set_deadline(&pd, 0, 'x'), "not 'r', 'w'");
    EXPECT_PANIC(pd_ready_push(&pd, 'r' + 'r', NULL), "not 'r', 'w'");

    /* Waiting with the stack lock held would park holding it. */
    f = spin_lock(&stack);
    EXPECT_PANIC(pd_wait(&pd, 'r'), "holding 1 spinlocks");
    spin_unlock(&stack, f);
    CHECK(netpoll_waiters() == 0);

    /* pd_fini while a G waits. */
    t = g_start(g_wait, &pd, 'r');
    PARKED(&pd.rg, t);
    EXPECT_PANIC(pd_fini(&pd), "still waits to read");
    pd_close(&pd);
    if (!g_join(t))
        return;
    CHECK(t->result == PD_ECLOSED);

    /* Closing twice (the panic leaves pd->lock held: let it go). */
    EXPECT_PANIC(pd_close(&pd), "closed twice");
    spin_release(&pd.lock);
    arch_irq_restore(0);
}

/* A deadline too far for the cycle counter is parked far out, not
   wrapped into the past. */
PD_CASE(far_deadline_does_not_wrap)
{
    pd_set_deadline(&pd, INT64_MAX, 'r');
    CHECK(timers_armed() == 1);
    CHECK(armed_when() == (uint64_t)INT64_MAX);
    CHECK(pd_prepare(&pd, 'r') == PD_OK);
    clock_to_ns(T0_NS + 1000000000);
    CHECK(timers_fire() == 0);
}

/* ---- Stress ------------------------------------------------------------- */

static bool flag(bool *b)
{
    return __atomic_load_n(b, __ATOMIC_ACQUIRE);
}

static void set_flag(bool *b)
{
    __atomic_store_n(b, true, __ATOMIC_RELEASE);
}

/* What the stress cases share: a socket with a receive queue and room to
   send, both counted, under the stack lock. */
#define STRESS_N 20000
#define PARK_SPIN 20000

static struct {
    struct spinlock lock;       /* "the stack lock" */
    int avail[2];               /* items to read, room to write */
    long woken[2];              /* pd_ready returned the G (poller) */
    long spurious;              /* reports with nothing new */
    bool stop;                  /* helpers: finish */
    int step;                   /* close stress: G's round; atomic */
} st;

static void stress_reset(void)
{
    memset(&st, 0, sizeof st);
    st.lock = (struct spinlock)SPINLOCK_INIT(LOCK_STACK);
}

/* Takes one item (d 0) or slot of room (d 1) if there is one. */
static bool take(int d)
{
    unsigned long f = spin_lock(&st.lock);
    bool got = st.avail[d] > 0;

    if (got)
        st.avail[d]--;
    spin_unlock(&st.lock, f);
    return got;
}

/* A reader or writer: STRESS_N operations, each prepare / try / wait. */
static int stress_io(struct tg *t)
{
    int d = t->mode == 'w';
    uint32_t seed = 0x9e3779b9u + d;
    int err;

    for (int i = 0; i < STRESS_N; i++) {
        if ((err = pd_prepare(t->pd, t->mode)))
            return 100 + err;
        while (!take(d)) {
            spin_some(&seed, 64);   /* the gap before the wait */
            if ((err = pd_wait(t->pd, t->mode)))
                return 200 + err;
        }
        __atomic_store_n(&t->progress, i + 1, __ATOMIC_RELAXED);
    }
    return 0;
}

/*
 * The driver: makes one item (or one slot of room) appear whenever there
 * is none, and reports it, sometimes under the stack lock and sometimes
 * after it; now and then it reports while there is nothing (a spurious
 * report).  It never reports while an item waits to be taken, so a
 * report that is lost leaves the G asleep for good: the watchdog fails
 * the case.
 */
static void *stress_poller(void *arg)
{
    int left[2] = { STRESS_N, STRESS_N };
    uint32_t seed = 12345;

    (void)arg;
    while ((left[0] || left[1]) && !flag(&st.stop)) {
        int d = xorshift(&seed) & 1;
        uint32_t how = xorshift(&seed) % 8;
        struct g *gp = NULL;
        unsigned long f;
        bool empty, report;

        if (!left[d])
            d ^= 1;
        spin_some(&seed, 256);
        f = spin_lock(&st.lock);
        empty = st.avail[d] == 0;
        if (empty && how != 0) {
            st.avail[d]++;
            left[d]--;
        } else if (empty) {
            st.spurious++;
        }
        report = empty;
        if (report && how < 4)
            gp = pd_ready(&pd, d ? 'w' : 'r');
        spin_unlock(&st.lock, f);
        if (report && how >= 4)
            gp = pd_ready(&pd, d ? 'w' : 'r');
        if (gp) {
            st.woken[d]++;
            goready(gp);
        }
        if (!empty)
            sched_yield();
    }
    return NULL;
}

/* One reader and one writer against a poller: every operation ends,
   every sleep is ended by exactly one report. */
PD_CASE(stress_ready_vs_wait)
{
    struct tg *r, *w;
    pthread_t poller;
    bool ok;

    stress_reset();
    r = g_new(stress_io, &pd, 'r');
    w = g_new(stress_io, &pd, 'w');
    r->park_spin = w->park_spin = PARK_SPIN;
    g_go(r);
    g_go(w);
    pthread_create(&poller, NULL, stress_poller, NULL);
    ok = g_join(r) && g_join(w);
    if (!ok) {
        FAIL("stuck at read %d, write %d; slots %#lx %#lx",
             __atomic_load_n(&r->progress, __ATOMIC_RELAXED),
             __atomic_load_n(&w->progress, __ATOMIC_RELAXED),
             (unsigned long)slot(&pd.rg), (unsigned long)slot(&pd.wg));
        set_flag(&st.stop);
    }
    pthread_join(poller, NULL);
    if (!ok)
        return;
    CHECK(r->result == 0 && w->result == 0);
    CHECK(st.avail[0] == 0 && st.avail[1] == 0);
    CHECK(st.woken[0] == nsleep(r));
    CHECK(st.woken[1] == nsleep(w));
    CHECK(slot(&pd.rg) <= PD_READY && slot(&pd.wg) <= PD_READY);
    fprintf(stderr, "# stress_ready_vs_wait: %d ops each way; reader slept "
            "%d times, cancelled %d parks; writer %d, %d; %ld spurious "
            "reports\n", STRESS_N, nsleep(r), ncancel(r), nsleep(w),
            ncancel(w), st.spurious);
}

/* Reader with ever-changing deadlines, while a timer thread moves the
   clock and fires (sometimes late), and a poller reports. */
#define DEADLINE_N 10000

static struct {
    long ok, timeouts, early, none;
    int64_t early_by;
} dl;

static int stress_deadline_reader(struct tg *t)
{
    uint32_t seed = 777;
    int err;

    for (int i = 0; i < DEADLINE_N; i++) {
        uint32_t k = xorshift(&seed) % 3000;
        int64_t d = (xorshift(&seed) % 8) ? (int64_t)sp_nanotime() + k : 0;

        pd_set_deadline(t->pd, d, 'r');
        err = pd_prepare(t->pd, 'r');
        while (!err) {
            if (take(0)) {
                dl.ok++;
                break;
            }
            err = pd_wait(t->pd, 'r');
        }
        if (err == PD_ETIMEOUT) {
            int64_t now = sp_nanotime();

            dl.timeouts++;
            if (d == 0 || now < d) {    /* a stale firing acted */
                dl.early++;
                dl.early_by = d ? d - now : -1;
            }
        } else if (err) {
            return 100 + err;
        }
        __atomic_store_n(&t->progress, i + 1, __ATOMIC_RELAXED);
    }
    return 0;
}

static void *stress_timer_thread(void *arg)
{
    uint32_t seed = 4242;
    struct firing fi;

    (void)arg;
    while (!flag(&st.stop)) {
        clock_set(arch_cycles() + xorshift(&seed) % 500);
        while (timer_pop(&fi)) {
            if (xorshift(&seed) % 4 == 0)
                spin_some(&seed, 2000);     /* a late firing */
            firing_run(&fi);
        }
        spin_some(&seed, 200);
        if (xorshift(&seed) % 16 == 0)
            sched_yield();
    }
    return NULL;
}

static void *stress_slow_poller(void *arg)
{
    uint32_t seed = 99;

    (void)arg;
    while (!flag(&st.stop)) {
        struct g *gp = NULL;
        unsigned long f;

        spin_some(&seed, 3000);
        f = spin_lock(&st.lock);
        if (st.avail[0] < 1) {
            st.avail[0]++;
            gp = pd_ready(&pd, 'r');
        }
        spin_unlock(&st.lock, f);
        if (gp)
            goready(gp);
        sched_yield();
    }
    return NULL;
}

PD_CASE(stress_deadlines)
{
    pthread_t timer, poller;
    struct tg *r;
    bool ok;

    stress_reset();
    memset(&dl, 0, sizeof dl);
    r = g_new(stress_deadline_reader, &pd, 'r');
    r->park_spin = PARK_SPIN;
    g_go(r);
    pthread_create(&timer, NULL, stress_timer_thread, NULL);
    pthread_create(&poller, NULL, stress_slow_poller, NULL);
    ok = g_join(r);
    if (!ok)
        FAIL("stuck at round %d; slot %#lx, deadline %lld, clock %llu",
             __atomic_load_n(&r->progress, __ATOMIC_RELAXED),
             (unsigned long)slot(&pd.rg), (long long)pd.rd.ns,
             (unsigned long long)sp_nanotime());
    set_flag(&st.stop);
    pthread_join(timer, NULL);
    pthread_join(poller, NULL);
    if (!ok)
        return;
    CHECK(r->result == 0);
    if (!CHECK(dl.early == 0))
        FAIL("%ld timeouts before their deadline (last by %lld ns)",
             dl.early, (long long)dl.early_by);
    CHECK(dl.ok > 0 && dl.timeouts > 0);
    /* Quiet now: only the arming in force may be outstanding. */
    CHECK(timers_inflight() == 0);
    CHECK(pd.rd.firings == (pd.rd.armed ? 1u : 0u));
    CHECK(timers_armed() == (pd.rd.armed ? 1 : 0));
    fprintf(stderr, "# stress_deadlines: %d rounds: %ld read, %ld timed "
            "out; reader slept %d times, cancelled %d parks\n", DEADLINE_N,
            dl.ok, dl.timeouts, nsleep(r), ncancel(r));
}

/* A G waits on descriptor after descriptor while the main thread closes
   each one (or sets a passed deadline) at a random moment around the
   wait: it must always come back with the right error. */
#define CLOSE_N 10000

static struct polldesc cpds[CLOSE_N];

static int stress_close_waiter(struct tg *t)
{
    (void)t;
    for (int i = 0; i < CLOSE_N; i++) {
        int err, want = i % 2 ? PD_ETIMEOUT : PD_ECLOSED;

        __atomic_store_n(&st.step, i + 1, __ATOMIC_RELEASE);
        spin_some(&t->seed, 1000);
        while ((err = pd_wait(&cpds[i], 'r')) == PD_OK)
            ;                   /* nothing reports: never */
        if (err != want)
            return 1000 * (i + 1) + err;
        __atomic_store_n(&t->progress, i + 1, __ATOMIC_RELAXED);
    }
    return 0;
}

PD_CASE(stress_close_vs_wait)
{
    uint32_t seed = 31337;
    struct timespec end, now;
    struct tg *t;
    bool ok = true;

    stress_reset();
    for (int i = 0; i < CLOSE_N; i++)
        pd_init(&cpds[i]);
    t = g_new(stress_close_waiter, NULL, 'r');
    t->park_spin = PARK_SPIN;
    g_go(t);
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += WATCHDOG_S;
    for (int i = 0; i < CLOSE_N && ok; i++) {
        while (__atomic_load_n(&st.step, __ATOMIC_ACQUIRE) <= i) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec > end.tv_sec) {
                ok = false;
                break;
            }
            sched_yield();
        }
        spin_some(&seed, 1000);
        if (i % 2)
            pd_set_deadline(&cpds[i], 1, 'r');
        else
            pd_close(&cpds[i]);
    }
    if (!ok) {
        FAIL("the waiter stuck at round %d",
             __atomic_load_n(&t->progress, __ATOMIC_RELAXED));
        hung = true;
        return;
    }
    if (!g_join(t))
        return;
    CHECK(t->result == 0);
    for (int i = 0; i < CLOSE_N; i++)
        pd_fini(&cpds[i]);
    fprintf(stderr, "# stress_close_vs_wait: %d rounds; the waiter slept "
            "%d times, cancelled %d parks\n", CLOSE_N, nsleep(t),
            ncancel(t));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
