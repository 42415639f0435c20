/*
 * sched.h - the G/M/P scheduler's internal interface (Go's runtime2.go).
 *
 * G: a goroutine-like task with its own stack.  M: a core (struct cpu),
 * running Gs one at a time, and between them its own scheduler context
 * ("g0": the core's boot stack).  P: the per-core scheduling state (run
 * queue, free Gs); every M owns exactly one P for good.
 *
 * Status of a G and who may change it (Go's _G* states):
 *   G_DEAD      on a free list, or never used; owned by the list's owner.
 *   G_RUNNABLE  on a run queue (or in a runnext slot, or in transit to
 *               one); owned by whoever dequeues it.
 *   G_RUNNING   running on exactly one M (m->curg); only that M changes it.
 *   G_WAITING   parked (gopark); the waker that finds it in a wait queue,
 *               under that queue's lock, makes it G_RUNNABLE (goready).
 *
 * Blocking primitives (chan.c, sync.c) follow one pattern, as in Go:
 *   lock the object; if the operation cannot complete, put getg() on the
 *   object's wait queue and gopark_unlock(&lock, reason).  The lock is
 *   released only after the G is off its stack (on the M's g0), so a waker
 *   that takes the lock and finds the G cannot goready it before it has
 *   stopped running.  The waker: lock; dequeue gp; set gp->param; unlock;
 *   goready(gp).
 *
 * Names.  Operations on Gs, Ms and Ps keep Go's runtime names, run
 * together (runqput, findrunnable, goready, gopark, wakep, injectglist),
 * so a reader can hold proc.c beside proc.go.  Operations on a data
 * structure are object_verb (runq_push, wakeq_get, timer_start,
 * pd_wait for a polldesc).  No two functions differ only by an underscore or by a
 * suffix that does not say how they differ: runqput is the P's
 * operation (ring, then the global queue), runq_push the ring's alone.
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <reent.h>
#include "kernel/spinlock.h"
#include "kernel/vm.h"
#include "sched/runq.h"

enum gstatus {
    G_DEAD,
    G_RUNNABLE,
    G_RUNNING,
    G_WAITING,
};

/* Why a G is parked; printed by the deadlock report and schedtrace. */
enum waitreason {
    WAIT_NONE,
    WAIT_CHAN_SEND,         /* "chan send" */
    WAIT_CHAN_RECV,         /* "chan receive" */
    WAIT_CHAN_SEND_NIL,     /* "chan send (nil chan)" */
    WAIT_CHAN_RECV_NIL,     /* "chan receive (nil chan)" */
    WAIT_SELECT,            /* "select" */
    WAIT_SELECT_NO_CASES,   /* "select (no cases)" */
    WAIT_MUTEX,             /* "sync.Mutex.Lock" */
    WAIT_RWMUTEX_R,         /* "sync.RWMutex.RLock" */
    WAIT_RWMUTEX_W,         /* "sync.RWMutex.Lock" */
    WAIT_WAITGROUP,         /* "sync.WaitGroup.Wait" */
    WAIT_SEMA,              /* "semacquire" */
    WAIT_SLEEP,             /* "sleep" */
    WAIT_IO,                /* "IO wait": the network (netpoll.h) */
    WAIT_TEST,              /* "test park" */
    WAIT_MOVE,              /* "moving to another core" (gomoveto) */
    WAIT_COND,              /* "sync.Cond.Wait" (notify.c) */
    WAIT_NREASONS,
};

const char *waitreason_string(enum waitreason r);

struct trapframe;

struct g {
    void *sp;                   /* saved stack pointer while not running */
    uint64_t goid;              /* 1 = main */
    int status;                 /* enum gstatus; atomic loads/stores */
    enum waitreason waitreason; /* valid while G_WAITING */
    struct g *schedlink;        /* global run queue / free list link */
    struct g *batchlink;        /* next batch of the global free list */
    void *param;                /* waker -> parked G (e.g. the sudog that
                                   completed a select); cleared by gopark */
    void (*fn)(void *);         /* entry, and its argument */
    void *arg;
    uintptr_t stack_lo;         /* lowest byte; guard page below: the
                                   slot's, or a big stack's (gattr.c) */
    uintptr_t stack_hi;         /* its top, below the TLS block if any */
    uintptr_t tp;               /* thread pointer of a G with TLS, else 0
                                   (gattr.c) */
    bool attrs;                 /* big stack or TLS: gattr_exit undoes */
    struct g *allnext;          /* allgs list (deadlock report, leak check) */
    int preemptoff;             /* > 0: the timer must not preempt it */
    struct m *lastm;            /* the M that runs or last ran it, stale
                                   (or NULL) before it first runs: one
                                   store per switch (for debuggers:
                                   tools/run/gdb/spindle.py) */
    uint64_t npreempt;          /* times the timer preempted it */
    uint64_t netready;          /* arch_cycles() when the network last put
                                   it on a wake queue (netpoll.c), which
                                   thieves respect for a while (wakeq.c) */
    struct trapframe *preempt_tf;   /* while the timer has it switched
                                   out: the interrupt's frame on its stack,
                                   its registers where it was stopped;
                                   NULL otherwise (for debuggers, and the
                                   tracer's preemption events) */
    uint32_t parkepoch;         /* release_epoch when it last parked
                                   (release.c) */
    struct _reent *reent;       /* newlib state (errno, rand, strtok...)
                                   at the top of the slot, above the
                                   stack; NULL until the G first asks for
                                   it (__getreent), kept by later Gs of
                                   the slot */
    uint64_t cputime;           /* arch_cycles() it ran, up to its last
                                   switch out; written only by the M
                                   running it (cputime.c) */
} __attribute__((aligned(64)));

struct p {
    int id;
    struct runq runq;           /* lock-free, see runq.h */
    uint32_t schedtick;         /* incremented by every schedule() */
    uint64_t wakefirst;         /* cycles: since when the wake queue has
                                   gone ahead of a waiting run queue, 0
                                   if it has not (proc.c); owner only,
                                   beside schedtick: off the lines other
                                   cores read */
    bool idle;                  /* on the idle list; under sched.lock */
    struct p *idlelink;         /* idle list link; under sched.lock */
    struct g *gfree;            /* dead Gs kept for reuse; owner only */
    int ngfree;
    uint64_t rand;              /* fastrand state; owner only */
    uint64_t nsched;            /* Gs run by this P (stats, tests,
                                   steal_pause); atomic stores */
    uint64_t goidnext, goidend; /* G ids [next, end) taken from goidgen */
    uint64_t ncreated;          /* Gs newproc made on this P, and Gs */
    uint64_t nexited;           /* that exited on it; owner only, atomic
                                   stores (sched_census sums them) */

    /* Gs readied by timers, run first (wakeq.c); under wakelock: */
    struct spinlock wakelock;
    struct g *wakehead, *waketail;
    uint32_t nwake;             /* also read without the lock; seq-cst */

    /* Timers started on this P (timers.c); under timerlock: */
    struct spinlock timerlock;
    struct timerslot *timers;   /* 4-ary min-heap by when */
    uint32_t *slot_h, *h_slot;  /* handle of each slot, slot of each */
    int ntimers, timercap;
    int ndeleted;               /* stopped but still in the heap */
    uint64_t timer0;            /* earliest when, 0 if none; atomic */
};

struct m {
    struct cpu *cpu;
    struct p *p;                /* fixed for the life of the machine */
    struct g *curg;             /* running G, NULL on g0 */
    uint64_t slice_end;         /* arch_cycles() when curg's slice ends */
    uint64_t armed;             /* deadline the core timer is set to, 0 */
    uint64_t irq_at;            /* when its last timer interrupt came */
    uint64_t nirq;              /* timer interrupts taken (tests) */
    uint64_t npreempt;          /* Gs preempted on this M (stats, tests) */
    uint64_t nlateirq;          /* core timer interrupts that came over
                                   LATE_IRQ_MS after their deadline */
    bool woken;                 /* a timer readied a G during curg's slice */
    struct timer *running;      /* whose function this core runs now, of
                                   any P's heap, else NULL; atomic
                                   (timers.c) */
    bool halted;                /* idle in arch_halt; atomic (timers.c) */
    void *g0sp;                 /* the scheduler context while a G runs */
    bool spinning;              /* looking for work; counted in nmspinning */
    void (*mcall_fn)(struct g *);   /* what g0 does after a G switches out */
    bool (*park_unlock)(struct g *, void *);
    void *park_arg;
    struct g *handoff;          /* a G that switched straight to curg and
                                   whose park or yield (mcall_fn says
                                   which) curg finishes (proc.c) */
    struct g *polled;           /* Gs a device interrupt readied while
                                   this core idled, for it to run; only
                                   this core touches it (netpoll.c) */
    uint64_t runstart;          /* arch_cycles() when curg started */
    uint64_t busy;              /* cycles spent running Gs, up to the
                                   last switch out; owner only, atomic
                                   stores (cputime.c) */
    uintptr_t tp;               /* the thread pointer of the G with TLS
                                   that runs or ran last here, 0 if the
                                   core's own is installed (gattr.c) */
    uintptr_t core_tp;          /* the core's own (sched_init) */
    uint64_t prof_due;          /* arch_cycles() when the CPU profiler's
                                   next sample is due on this core, 0
                                   while it does not sample; owner only
                                   (profile.c) */
    int prof_irq;               /* interrupt handlers this core is in
                                   while it samples; owner only
                                   (profile.h) */
};

/* ---- Running Gs ------------------------------------------------------ */

/* The G table (kernel/vm.h): slot i's struct g is entry i.  It stays
   mapped while the slot's pages are given back (release.c). */
#define GTAB ((struct g *)VM_GTAB_BASE)

/* The G of the slot that holds va. */
static inline struct g *gslot_g(uintptr_t va)
{
    return GTAB + vm_gslot_index(va);
}

/* The base of gp's slot (its guard page). */
static inline uintptr_t g_slot(const struct g *gp)
{
    return VM_GSLOT_BASE + (uintptr_t)(gp - GTAB) * VM_GSLOT_SIZE;
}

/* Where the slot keeps its G's newlib state: its top bytes. */
static inline struct _reent *gslot_reent(uintptr_t slot)
{
    return (struct _reent *)((slot + VM_GSLOT_SIZE -
                              sizeof(struct _reent)) & ~63UL);
}

/*
 * The running G, or NULL off any G (an M's scheduler context, the boot
 * stack, a fault handler's own stack).  A G runs only on the stack in its
 * own slot, or on its big stack (sp_go_attr), whose region names its
 * owner; so the current frame names the G: no need to stop interrupts
 * while reading this core's M (the G may be preempted and move anywhere,
 * and the answer stays right).  Linux found `current` from the stack
 * pointer the same way for years.  A plain G pays one comparison.
 */
static inline struct g *getg(void)
{
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);

    if (fp - VM_GSLOT_BASE >= VM_GSLOT_MAX)
        return vm_bigstack_of(fp);
    return gslot_g(fp);
}

/* True if gp runs on a stack other than its slot's (a big stack). */
static inline bool g_bigstack(const struct g *gp)
{
    return gp->stack_lo - VM_BIGSTACK_BASE < VM_BIGSTACK_AREA;
}

/* The G this core's M runs (m->curg), NULL if none: right from any stack,
   a fault handler's included.  Interrupts off, or the answer may be
   stale at once. */
struct g *running_g(void);

/* Prints one line per P and per M (Go's scheddetail; trace.c). */
void sched_detail(void);

/*
 * Parks the calling G with the given wait reason.  After the G is off its
 * stack, the M calls unlockf(gp, arg), on g0 or on the stack of the G it
 * switched to directly, with interrupts off; if it returns false the G is
 * made runnable again at once (Go's gopark semantics).  Returns when a
 * goready() has run the G again.  Caller: a G, interrupts in any state.
 */
void gopark(bool (*unlockf)(struct g *gp, void *arg), void *arg,
            enum waitreason reason);

/*
 * The calling G goes on running on core cpu (whose P's wake queue it
 * joins, ahead of that P's run queue), which a thief may still take it
 * from later as from any P.  No-op if it runs there already.  From a G,
 * holding no spinlock.
 */
void gomoveto(int cpu);

/*
 * gopark that releases spinlock l (taken with spin_lock, and the only lock
 * the caller holds) once parked.  Returns with interrupts off, as they
 * were at the call; the caller hands spin_lock's saved state to
 * arch_irq_restore.
 */
void gopark_unlock(struct spinlock *l, enum waitreason reason);

/*
 * Makes a G_WAITING G runnable: it goes to this P's runnext (so a woken
 * partner runs next, as in Go), and an idle core is woken if nobody is
 * spinning.  Any context except interrupt handlers.
 */
void goready(struct g *gp);

/* Puts the caller at the back of the global queue and runs something else. */
void gosched(void);
/* Yield to this P's other Gs: to the tail of the local queue. */
void goyield(void);

/* A fast per-P random number (Go's cheaprand); any G or g0. */
uint32_t fastrand(void);
uint32_t fastrandn(uint32_t n);

/* ---- Spawning and the machine ---------------------------------------- */

/*
 * Creates a G running fn(arg) and makes it runnable; returns its id (the
 * G itself may have run, finished and been reused by then).
 */
uint64_t newproc(void (*fn)(void *), void *arg);
/* newproc from a G (sp_go): yields when the G has filled its P's queue. */
uint64_t go(void (*fn)(void *), void *arg);

/*
 * newproc and go for a G with a big stack of `stack` bytes (a multiple
 * of PAGE_SIZE, at most VM_BIGSTACK_MAXSIZE; 0: its slot) and with a
 * TLS block of its own if tls; 0 if no big stack was to be had.
 */
uint64_t newproc_attr(void (*fn)(void *), void *arg, size_t stack, bool tls);
uint64_t go_attr(void (*fn)(void *), void *arg, size_t stack, bool tls);
/* Ends the calling G (sp_goexit, and a G's function returning). */
__attribute__((noreturn)) void goexit(void);

/*
 * Called on every core once the machine is up: becomes this core's M and
 * never returns.  The boot core passes main_fn, which runs as G 1.
 */
__attribute__((noreturn)) void sched_start(void (*main_fn)(void *));

/* Gs that exist and are not dead (the leak check wants 1: main). */
long sched_live_gs(void);

/* Dead Gs on the free lists (per-P and global) and all Gs ever made. */
long sched_free_gs(void);
long sched_all_gs(void);
/* The interval of the passes that look for Gs whose pages to give back
   (release.c; vm_gslots_released counts them), 0 if none do. */
long sched_stackrelease_ms(void);

/*
 * Every G by state (Go's allgs walked), for the soak's conservation check.
 * The status counts come from one walk of all Gs under allg.lock; the
 * other fields are read without stopping anything, so they agree with the
 * counts exactly only while no G is created, exits or changes state (the
 * soak's quiescent points):
 *   all == running + runnable + waiting + dead
 *   dead == free   (a dead G is on a free list)
 *   created - exited == running + runnable + waiting
 */
struct gcensus {
    long all;                   /* Gs ever made (G slots in use) */
    long running, runnable, waiting, dead;
    long free;                  /* on the per-P and global free lists */
    uint64_t created, exited;   /* newproc and goexit calls since boot */
    uint64_t switches;          /* Gs started by schedule, all Ps */
};
void sched_census(struct gcensus *c);

/*
 * CPU time in nanoseconds (cputime.c): the calling G's, counted from its
 * creation to now (0 off any G); and the machine's, every core's time
 * running Gs summed, up to each other core's last switch and to now on
 * this one.  A G is charged from the moment its M starts it to the moment
 * it switches out, interrupts that came meanwhile included.
 */
uint64_t g_cputime_ns(void);
uint64_t sched_cputime_ns(void);

/* Switch accounting for cputime.c: gp, which m ran, switches out at now.
   Interrupts off. */
static inline void cputime_stop(struct m *m, struct g *gp, uint64_t now)
{
    uint64_t d = now - m->runstart;

    gp->cputime += d;
    __atomic_store_n(&m->busy, m->busy + d, __ATOMIC_RELAXED);
}

/* Pages the global run queue's chunks take (kept once made). */
long sched_runq_pages(void);

/*
 * For the spinning protocol's tests.  sched_stall_set(us) makes every
 * waker stall for us microseconds between winning nmspinning's 0 -> 1 and
 * taking an idle P, and every spinner that gives up its P stall twice as
 * long before it uncounts itself (0: off, the default).
 * sched_stall_hits counts the spinners that gave up their P while a waker
 * stalled: the interleaving the stalls are there to provoke.
 * sched_nmspinning and sched_spinning_ms read the count and the number of
 * Ms whose flag is set; they agree whenever every core is between steps.
 */
void sched_stall_set(uint32_t us);
long sched_stall_hits(void);
int sched_nmspinning(void);
int sched_spinning_ms(void);

/* How long a spinner that found nothing keeps looking (idlespin=), us. */
long sched_idlespin_us(void);

/*
 * For select's tests.  sched_select_gap_set(us) makes every select wait
 * us microseconds after each case it finds not ready, with its channels'
 * locks held, before it polls the next (0: off, the default): the window
 * in which a buffered channel's lock-free send or receive could make a
 * non-blocking select's answer no single instant's (select.c).
 * sched_select_repolls counts the polls done again because a position
 * moved in such a window.
 */
void sched_select_gap_set(uint32_t us);
long sched_select_repolls(void);

#endif
