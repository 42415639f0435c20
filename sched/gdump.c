/*
 * gdump.c - the goroutine dump (sp_goroutine_profile, gdump.h): every G,
 * its state, the core that runs or last ran it, and its stack.
 *
 * The snapshot.  Go stops the world for its goroutine profile; so does
 * this: the dumping G calls every other core (smp_call_all), and each
 * answers between Gs, then waits in the call until the stacks are read.
 * The dumping core reads them once all have arrived, under the list of
 * all Gs' lock.  Then no G runs but the dumper (interrupt handlers still
 * may ready a parked G, which changes its state, not its stack), so every
 * other G's stack lies still and is read without a fault:
 *   - one the timer preempted: from its trap frame (g->preempt_tf), the
 *     interrupted pc first;
 *   - one switched out (parked, yielded, not started): from the frame
 *     arch_switch saved at g->sp (arch_switched_regs), its return
 *     address first;
 *   - the dumper: from its own frame;
 *   - a G still running elsewhere (a core that answered the call while
 *     it waited in a cross-core call of its own): no stack.
 * prof_unwind follows each frame chain within [stack pointer, top of the
 * G's stack).  Everything the walk needs is allocated before it: the
 * world stands still only while the walk copies.  Symbols, grouping and
 * text come after, with the machine running again.
 *
 * The console's dump.  A key press (kernel/console_in.h) or a hosted
 * SIGQUIT arrives as an interrupt, which can neither stop the world nor
 * allocate: gdump_request sets gdump_wanted, and the scheduler, the next
 * time a core looks for work (findrunnable, or an idle core woken by the
 * interrupt), starts a G that writes the dump on the console.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "kernel/fmt.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "sched/gdump.h"
#include "sched/pprofenc.h"
#include "sched/profile.h"
#include "sched/schedimpl.h"
#include <spindle/profile.h>
#include <spindle/time.h>

/* One G as the walk found it. */
struct gsnap {
    uint64_t goid;
    uintptr_t fn;               /* its start function */
    int core;                   /* runs or last ran it; -1: never ran */
    int status;                 /* enum gstatus */
    enum waitreason why;
    bool leaf;                  /* pcs[0] is where it was stopped, not a
                                   return address */
    bool elsewhere;             /* running on another core: no stack */
    unsigned depth;
    uint64_t pcs[PROF_DEPTH];
};

struct snap {
    struct gsnap *gs;
    long n, cap;
    long more;                  /* Gs the array had no room for */
    struct g *self;
    uintptr_t self_fp;          /* the dumper's frame, above the walk */
    struct cpu *caller;
    int arrived, released;      /* the other cores in the call; atomic */
};

/* Copies gp's state and stack into s (for_each_g, world stopped). */
static void copy(struct g *gp, void *arg)
{
    struct snap *s = arg;
    struct gsnap *o;
    struct trapframe *tf;
    uintptr_t pc = 0, fp = 0, sp;
    int status = __atomic_load_n(&gp->status, __ATOMIC_RELAXED);
    struct m *m = __atomic_load_n(&gp->lastm, __ATOMIC_RELAXED);

    if (status == G_DEAD)
        return;
    if (s->n == s->cap) {
        s->more++;
        return;
    }
    o = &s->gs[s->n++];
    *o = (struct gsnap){ .goid = gp->goid, .fn = (uintptr_t)gp->fn,
                         .core = m ? m->cpu->id : -1, .status = status,
                         .why = gp->waitreason };
    if (gp == s->self) {
        sp = fp = s->self_fp;
    } else if (status == G_RUNNING) {
        o->elsewhere = true;
        return;
    } else if ((tf = gp->preempt_tf) && (pc = arch_trapframe_pc(tf))) {
        fp = arch_trapframe_fp(tf);
        sp = arch_trapframe_sp(tf);
        o->leaf = true;
    } else {
        sp = (uintptr_t)gp->sp;
        arch_switched_regs(gp->sp, &pc, &fp);
    }
    if (sp >= gp->stack_lo && sp < gp->stack_hi)
        o->depth = prof_unwind(pc, fp, sp, gp->stack_hi, o->pcs);
}

/* Every core runs this in the cross-core call: the others wait in it,
   the dumper's core walks once they all do. */
static void stop_and_walk(void *arg)
{
    struct snap *s = arg;

    if (this_cpu() != s->caller) {
        __atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL);
        while (!__atomic_load_n(&s->released, __ATOMIC_ACQUIRE))
            arch_cpu_relax();
        return;
    }
    while (__atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) != ncpu - 1)
        arch_cpu_relax();
    for_each_g(copy, s);
    __atomic_store_n(&s->released, 1, __ATOMIC_RELEASE);
}

/* Fills s with every G that is not dead; false without memory. */
static __attribute__((noinline)) bool snapshot(struct snap *s)
{
    struct g *gp = getg();

    *s = (struct snap){ .self = gp, .self_fp = arch_frame_address() };
    /* Room for the Gs there are and some made before the walk; any more
       are counted in s->more. */
    s->cap = sched_all_gs() + 64;
    if (!(s->gs = malloc(s->cap * sizeof *s->gs)))
        return false;
    gp->preemptoff++;           /* caller stays this core */
    s->caller = this_cpu();
    smp_call_all(stop_and_walk, s);
    gp->preemptoff--;
    return true;
}

/* ---- Naming ------------------------------------------------------------ */

static const char *state(const struct gsnap *g)
{
    switch (g->status) {
    case G_RUNNING:  return "running";
    case G_RUNNABLE: return "runnable";
    case G_WAITING:  return waitreason_string(g->why);
    }
    return "?";
}

/* "name+0xoff" of frame i of g into buf. */
static void frame_name(const struct gsnap *g, unsigned i, char *buf,
                       size_t n)
{
    uintptr_t at = g->pcs[i] - (i > 0 || !g->leaf), off;
    const char *name = ksym_lookup(at, &off);

    if (name)
        fmt_snprintf(buf, n, "%s+0x%lx", name, (unsigned long)(off +
                     (g->pcs[i] - at)));
    else
        fmt_snprintf(buf, n, "0x%lx", (unsigned long)g->pcs[i]);
}

static const char *fn_name(uintptr_t fn)
{
    uintptr_t off;
    const char *name = fn ? ksym_lookup(fn, &off) : NULL;

    return name ? name : "?";
}

/* ---- Writing ----------------------------------------------------------- */

struct out {
    sp_profile_writer w;
    void *arg;
    int err;
    char line[512];
};

static __attribute__((format(printf, 2, 3))) void say(struct out *o,
                                                      const char *f, ...)
{
    va_list ap;
    int n;

    if (o->err)
        return;
    va_start(ap, f);
    n = fmt_vsnprintf(o->line, sizeof o->line, f, ap);
    va_end(ap);
    if (n >= (int)sizeof o->line)
        n = sizeof o->line - 1;
    o->err = o->w(o->arg, o->line, (size_t)n);
}

/* debug=2: each G on its own. */
static void write_each(struct out *o, const struct snap *s)
{
    char name[160];

    say(o, "goroutine dump: %ld goroutines\n", s->n + s->more);
    for (long i = 0; i < s->n; i++) {
        const struct gsnap *g = &s->gs[i];

        if (g->core >= 0)
            say(o, "\ngoroutine %lu [%s, core %d]:\n",
                (unsigned long)g->goid, state(g), g->core);
        else
            say(o, "\ngoroutine %lu [%s]:\n", (unsigned long)g->goid,
                state(g));
        if (g->elsewhere)
            say(o, "\tstack unavailable: running on core %d\n", g->core);
        for (unsigned k = 0; k < g->depth; k++) {
            frame_name(g, k, name, sizeof name);
            say(o, "\t%s\t0x%lx\n", name, (unsigned long)g->pcs[k]);
        }
        say(o, "\tstarted at %s\n", fn_name(g->fn));
    }
    if (s->more)
        say(o, "\n%ld more goroutines made during the dump: not shown\n",
            s->more);
    say(o, "\nend of goroutine dump\n");
}

/* Order of Gs for grouping: by state, then stack (then id). */
static int cmp(const void *a, const void *b)
{
    const struct gsnap *x = *(struct gsnap *const *)a;
    const struct gsnap *y = *(struct gsnap *const *)b;
    int c = strcmp(state(x), state(y));

    if (c)
        return c;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    for (unsigned i = 0; i < x->depth; i++)
        if (x->pcs[i] != y->pcs[i])
            return x->pcs[i] < y->pcs[i] ? -1 : 1;
    return x->goid < y->goid ? -1 : x->goid > y->goid;
}

static bool same(const struct gsnap *x, const struct gsnap *y)
{
    return x->depth == y->depth && !strcmp(state(x), state(y)) &&
           !memcmp(x->pcs, y->pcs, x->depth * sizeof x->pcs[0]) &&
           (x->depth || x->fn == y->fn);
}

/* The Gs of s in groups of equal state and stack; NULL without memory. */
static struct gsnap **grouped(const struct snap *s)
{
    struct gsnap **v = malloc((s->n ? s->n : 1) * sizeof *v);

    if (!v)
        return NULL;
    for (long i = 0; i < s->n; i++)
        v[i] = &s->gs[i];
    qsort(v, s->n, sizeof *v, cmp);
    return v;
}

/* debug=1: per group, "N @ pcs" and comments (pprof's legacy reader
   skips them).  A group without a stack gives its start function as its
   one address: the format wants one. */
static void write_groups(struct out *o, const struct snap *s,
                         struct gsnap **v)
{
    char name[160];

    say(o, "goroutine profile: total %ld\n", s->n);
    for (long i = 0, j; i < s->n; i = j) {
        const struct gsnap *g = v[i];

        for (j = i + 1; j < s->n && same(v[j], g); j++)
            ;
        say(o, "%ld @", j - i);
        for (unsigned k = 0; k < g->depth; k++)
            say(o, " 0x%lx", (unsigned long)g->pcs[k]);
        if (!g->depth)
            say(o, " 0x%lx", (unsigned long)g->fn);
        say(o, "\n# state: %s; goroutines:", state(g));
        for (long k = i; k < j; k++)
            say(o, " %lu", (unsigned long)v[k]->goid);
        say(o, "\n");
        if (g->elsewhere)
            say(o, "#\tstack unavailable: running on another core\n");
        for (unsigned k = 0; k < g->depth; k++) {
            frame_name(g, k, name, sizeof name);
            say(o, "#\t0x%lx\t%s\n", (unsigned long)g->pcs[k], name);
        }
        say(o, "#\tstarted at %s\n\n", fn_name(g->fn));
    }
}

/* debug=0: the pprof profile, one sample per group. */
static int write_pprof(struct out *o, const struct snap *s,
                       struct gsnap **v, uint64_t t0)
{
    static const struct pprof_type type = { "goroutine", "count" };
    struct pprof *p = prof_pprof_new(&type, 1, &type, 1);
    uint64_t locs[PROF_DEPTH];
    int rc;

    if (!p)
        return -ENOMEM;
    for (long i = 0, j; i < s->n; i = j) {
        const struct gsnap *g = v[i];
        struct pprof_label l = { .key = "state", .str = state(g) };
        int64_t count;
        unsigned n = 0;

        for (j = i + 1; j < s->n && same(v[j], g); j++)
            ;
        count = j - i;
        for (unsigned k = 0; k < g->depth; k++)
            locs[n++] = pprof_pc(p, g->pcs[k], k == 0 && g->leaf);
        if (!n)
            locs[n++] = pprof_pseudo(p, g->elsewhere
                                     ? "[running elsewhere]" : "[no stack]");
        pprof_sample(p, locs, (int)n, &count, &l, 1);
    }
    rc = pprof_finish(p, (int64_t)t0, 0, o->w, o->arg);
    pprof_free(p);
    return rc;
}

int sp_goroutine_profile(int debug, sp_profile_writer w, void *arg)
{
    struct out o = { .w = w, .arg = arg };
    struct gsnap **v = NULL;
    uint64_t t0 = sp_walltime();
    struct snap s;

    if (debug < 0 || debug > 2 || !w)
        return -EINVAL;
    if (!getg())
        return -EINVAL;
    if (!snapshot(&s))
        return -ENOMEM;
    if (debug == 2)
        write_each(&o, &s);
    else if (!(v = grouped(&s)))
        o.err = -ENOMEM;
    else if (debug == 1)
        write_groups(&o, &s, v);
    else
        o.err = write_pprof(&o, &s, v, t0);
    free(v);
    free(s.gs);
    return o.err;
}

/* ---- The console's dump ------------------------------------------------ */

int gdump_wanted;

void gdump_request(void)
{
    __atomic_store_n(&gdump_wanted, 1, __ATOMIC_RELAXED);
}

static int to_console(void *arg, const void *buf, size_t n)
{
    console_write(buf, n);
    return 0;
}

static void console_dump(void *arg)
{
    int rc = sp_goroutine_profile(2, to_console, NULL);

    if (rc < 0)
        printk("goroutine dump: failed (%d)\n", rc);
}

void gdump_start(void)
{
    if (__atomic_exchange_n(&gdump_wanted, 0, __ATOMIC_RELAXED))
        newproc(console_dump, NULL);
}
