/*
 * steal.c - work stealing (Go's stealWork and randomOrder).
 *
 * An idle P visits the other Ps in a random order: a random start and a
 * stride coprime with ncpu, so every P is visited exactly once per round
 * and no two thieves walk the same sequence in lockstep.  It takes half of
 * a victim's ring (runq_steal).  Only in the last of four rounds does it
 * also take a victim's runnext, after a pause (steal_pause, below) that
 * lets an owner about to run that G do so: snatching it would move a G
 * that shares its readier's time slice to a cold core.
 * In the last round it also runs a busy victim's due timers.  In every
 * round it takes from a victim's wake queue (wakeq.c) before its ring.
 */
#include "sched/exectrace.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

#define STEAL_TRIES 4

/*
 * The thief's pause before taking a victim's runnext.  Go sleeps 3 us,
 * the time an owner on hardware needs from readying a G to running it;
 * under emulation (QEMU's TCG, where Spindle is tested) that path takes
 * several times longer, and a pause that short splits hand-off pairs
 * across cores with an IPI per message (docs/benchmarks.md has what the
 * longer pause is worth).  On hardware it only delays the last steal
 * round of an idle core.  True if the victim did not switch meanwhile
 * (its nsched, which setcurg bumps, is unchanged): its runnext is still
 * waiting, and the thief may take it.
 */
#define STEAL_PAUSE_US 20

bool steal_pause(struct runq *q)
{
    struct p *p = (struct p *)((char *)q - offsetof(struct p, runq));
    uint64_t nsched = __atomic_load_n(&p->nsched, __ATOMIC_RELAXED);

    relax_for(us_cycles(STEAL_PAUSE_US));
    return __atomic_load_n(&p->nsched, __ATOMIC_RELAXED) == nsched;
}

static uint32_t coprimes[MAXCPU];
static int ncoprimes;

static uint32_t gcd(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

void steal_init(int n)
{
    ncoprimes = 0;
    for (int i = 1; i <= n; i++)
        if (gcd(i, n) == 1)
            coprimes[ncoprimes++] = i;
}

/*
 * One round over the other Ps in a random order; the first G taken, or
 * NULL.  `last` is stealwork's last round: it also runs a busy victim's
 * due timers and takes runnext.  A victim's ring is taken from only when
 * it holds at least `min` Gs.
 */
/* The tracer's event of a steal, out of line (the loop over victims
   carries only tracing's test); returns gp, so that the caller keeps
   nothing live across the call.  Our ring was empty (both callers'
   contract), so it now holds the rest of what we took, unless a thief
   of ours was quick. */
static __attribute__((cold, noinline)) struct g *
trace_steal(struct p *p, struct p *victim, struct g *gp)
{
    trace_event(TEV_STEAL, gp->goid,
                (uint32_t)victim->id << 16 | (runq_len(&p->runq) + 1));
    return gp;
}

static struct g *steal_round(struct p *p, bool last, uint32_t min)
{
    uint32_t n = ncpu, pos = fastrandn(n);
    uint32_t inc = coprimes[fastrandn(ncoprimes)];

    for (uint32_t k = 0; k < n; k++, pos = (pos + inc) % n) {
        struct p *victim = sched.allp[pos];
        struct g *gp;

        if (victim == p)
            continue;
        /* A busy victim's due timers would wait for its G's slice to
           end: run them here; what they ready lands on our P. */
        if (last && timers_next(victim) &&
            timers_next(victim) <= arch_cycles()) {
            bool inherit;

            timers_run(victim, arch_cycles());
            if ((gp = wakeq_get(p)) || (gp = runq_get(&p->runq, &inherit)))
                return gp;
        }
        /* Gs woken by timers first: they are already late. */
        if ((gp = wakeq_steal(p, victim)))
            return gp;
        if ((min <= 1 || runq_len(&victim->runq) >= min) &&
            (gp = runq_steal(&p->runq, &victim->runq, last))) {
            if (tracing())
                gp = trace_steal(p, victim, gp);
            return gp;
        }
    }
    return NULL;
}

struct g *stealwork(struct m *m)
{
    for (int i = 0; i < STEAL_TRIES; i++) {
        struct g *gp = steal_round(m->p, i == STEAL_TRIES - 1, 1);

        if (gp)
            return gp;
    }
    return NULL;
}

struct g *steal_once(struct p *p)
{
    /* A victim with one G queued keeps it: it has a G running too, so
       taking it would only move the imbalance over here, and two lone
       yielders would pass one G back and forth. */
    return steal_round(p, false, 2);
}
