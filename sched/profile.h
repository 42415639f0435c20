/*
 * profile.h - the sampling CPU profiler's hooks (profile=HZ,
 * <spindle/profile.h>; profile.c has the design).
 *
 * While a core samples, m->prof_due holds when its next sample is due;
 * 0 means it does not, and every hook below costs one load of it.  Only
 * the core itself reads or writes it, and its sample buffer.
 */
#ifndef SCHED_PROFILE_H
#define SCHED_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/cpu.h"
#include "sched/profbuf.h"
#include "sched/sched.h"
#include <spindle/profile.h>

struct trapframe;

/* Boot core, in sched_init once the Ms exist and before any core enters
   the scheduler: reads profile= and profile_buf=, and with a rate there
   readies the buffers for prof_core_start. */
void prof_init(void);

/* Each core as it enters the scheduler (sched_start), interrupts off:
   with profile= a rate, starts this core sampling. */
void prof_core_start(struct m *m);

/*
 * The timer interrupt's sample (preempt.c, with interrupts off): if this
 * core's sample is due, records what tf interrupted, weighted by the
 * periods since the last one.  A frame without registers (the hosted
 * build's interrupt taken at arch_irq_enable) samples the handler's own
 * stack: where interrupts came back on.
 */
void prof_timer(struct m *m, struct trapframe *tf);

static inline void prof_timer_tick(struct m *m, struct trapframe *tf)
{
    if (__builtin_expect(m->prof_due != 0, 0))
        prof_timer(m, tf);
}

/* A halted core is back (idle.c, after arch_halt): its sleep since the
   last sample is charged to idle. */
void prof_woken(struct m *m);

static inline void prof_halt_done(struct m *m)
{
    if (__builtin_expect(m->prof_due != 0, 0))
        prof_woken(m);
}

/*
 * Interrupt handlers (timer_interrupt after its own sample, ipi_handler,
 * irq_dispatch) bracket their work with these, interrupts off:
 * prof_irq_enter returns the core's M while it samples (else NULL) for
 * prof_irq_exit, which records a sample that came due meanwhile under
 * the interrupt pseudo-frame and `handler`.  Between them, a sample
 * taken where the handler was (the hosted build, whose handlers take
 * further signals with interrupts masked) is one of the interrupt too.
 */
void prof_irq_done(struct m *m, uintptr_t handler);

static inline struct m *prof_irq_enter(void)
{
    struct m *m = this_cpu()->m;

    if (!m || __builtin_expect(!m->prof_due, 1))
        return NULL;
    m->prof_irq++;
    return m;
}

static inline void prof_irq_exit(struct m *m, uintptr_t handler)
{
    if (__builtin_expect(m != NULL, 0))
        prof_irq_done(m, handler);
}

/*
 * Starts every core sampling hz times a second (1..PROF_HZ_MAX) and
 * stops them.  prof_stop dumps what they recorded as one segment
 * (profbuf.h) to the console or, hosted, the profile file; or, given a
 * writer w, writes it to w as a pprof profile instead (then returns 0,
 * -ENOENT if the cores did not sample, -ENOMEM, or w's error).  From a
 * G (prof_start also from the boot core in prof_init).  prof_start
 * returns 0, -EBUSY if the cores sample already, -EINVAL for a bad rate
 * or -ENOMEM.
 */
int prof_start(long hz);
int prof_stop(struct sp_profile_stats *s, sp_profile_writer w, void *arg);

struct pprof;
struct pprof_type;

/* A pprof builder (pprofenc.h) for this image: its code the mapping,
   named by the image's symbol table (kernel/ksym.c). */
struct pprof *prof_pprof_new(const struct pprof_type *types, int ntypes,
                             const struct pprof_type *period_type,
                             int64_t period);

/*
 * pcs[0] = pc (if not 0), then the return addresses of the frame chain
 * from fp, at most PROF_DEPTH in all; only words in [lo, hi), 8-byte
 * aligned and each frame above the last, are read, so a stack that is
 * not running and whose frames lie there is unwound without a fault.
 * Returns how many went into pcs.
 */
unsigned prof_unwind(uintptr_t pc, uintptr_t fp, uintptr_t lo, uintptr_t hi,
                     uint64_t *pcs);

/* For bench/profile.c: takes n samples of the caller's own stack, with
   interrupts off, into a scratch buffer; returns the frames of the
   last.  What one sample costs, less the interrupt that takes it. */
int prof_sample_bench(long n);

#endif
