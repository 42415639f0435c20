/*
 * context.c (hosted) - arch_switch and new contexts, with what the host
 * adds to the bare-metal switch: errno, and the sanitizers' fibers.
 *
 * errno is thread-local in glibc, so it belongs to whichever G last ran
 * on the thread.  A switch saves the leaving context's errno on its own
 * stack and puts it back when the context resumes, on whatever thread
 * that is (each thread keeps its errno's address in its arch_cpu); a
 * preempted G's errno survives the same way, as the signal handler
 * switches through here too.
 *
 * ASan and TSan follow the thread's stack and its happens-before state;
 * a hand-written switch has to tell them (their fiber interfaces).  Each
 * context keeps a struct hosted_ctx on its stack while switched out; the
 * switch frame points to it (switch.S), so the switch to a context finds
 * that context's stack bounds (ASan) and fiber (TSan).  In a build
 * without sanitizers the hooks compile to nothing.
 */
#include <string.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/vm.h"

struct hosted_ctx {
    void *fiber;                /* TSan fiber of this context */
    void *fake_stack;           /* ASan's save area while switched out */
    const void *stack_lo;       /* this context's stack, for ASan */
    size_t stack_size;
};

/* Mirrors what hosted_swap pops; see switch.S. */
struct switch_frame {
    struct hosted_ctx *ctx;
    uint32_t mxcsr;
    uint16_t fcw, pad;
    uint64_t r15, r14, r13, r12, rbx, rbp, ret;
};
_Static_assert(sizeof(struct switch_frame) == 72, "switch.S layout");

void hosted_swap(void **save_sp, void *new_sp, struct hosted_ctx *me);
void hosted_context_start(void);
__attribute__((noreturn)) void hosted_jump_stack(uintptr_t top,
        void (*fn)(void *), void *arg,
        void (*entry)(void (*)(void *), void *));

/* Not const, unlike __errno_location (see libc.h): the empty asm keeps
   the compiler from finding out that it is. */
__attribute__((noinline)) int *hosted_errno(void)
{
    int *p = __errno_location();

    __asm__ volatile("" : "+r"(p));
    return p;
}

/* ---- Sanitizer fibers -------------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

static bool in_slot_area(uintptr_t va)
{
    return va >= VM_GSLOT_BASE && va < VM_GSLOT_BASE + VM_GSLOT_MAX;
}

/* The stack that sp lies on: its G slot, a big G stack, or this core's
   own stack. */
static void stack_bounds(uintptr_t sp, struct hosted_ctx *x)
{
    struct cpu *c = arch_this_cpu();
    uintptr_t lo, hi;

    if (vm_bigstack_bounds(sp, &lo, &hi)) {
        x->stack_lo = (void *)lo;
        x->stack_size = hi - lo;
    } else if (in_slot_area(sp)) {
        uintptr_t slot = vm_gslot_of(sp);

        x->stack_lo = (void *)(slot + PAGE_SIZE);
        x->stack_size = VM_GSLOT_SIZE - PAGE_SIZE;
    } else if (c && sp >= c->stack_lo && sp <= c->stack_hi) {
        x->stack_lo = (void *)c->stack_lo;
        x->stack_size = c->stack_hi - c->stack_lo;
    } else {
        x->stack_lo = NULL;     /* the thread's own: ASan knows it */
        x->stack_size = 0;
    }
}

#if defined(__SANITIZE_THREAD__)
/*
 * One TSan fiber per G slot, made when the slot first runs a G (the
 * first switch to it, on the core that runs it) and reused by every later
 * G in it: the slot's Gs follow one another.  Not when the G is made: a
 * fiber costs TSan about 5 ms of page faults where faults are slow, and
 * newproc also runs in timer functions, with interrupts off, where that
 * would make every later timer of the core as late.  Only the first
 * TSAN_FIBERS slots get one.  gcc 12's TSan dies past 8,128 threads and
 * fibers, and every acquire and release costs it work in proportion
 * to the fibers ever made (its vector clocks have an entry each), so the
 * cap sets the price of every lock, atomic and switch of the run: 2,000
 * fibers made a spawn storm of 100,000 Gs take 14 s where 256 take 4.
 * 256 slots cover what most tests keep alive at once (not the sieve's
 * chain or the spawn, park and timer storms).  A G of a later slot runs
 * in the fiber of the core's thread (g0's), which costs TSan its view of
 * races between that G and others on the same core, not correctness:
 * across cores the run queue's atomics carry the happens-before.  Such
 * switches leave TSan's shadow call stack unbalanced, so TSan builds do
 * not instrument function entry and exit (hosted.mk), and its reports
 * name only the racing functions.
 */
#define TSAN_FIBERS 256
static void **slot_fiber;

/* On a G's stack: its slot's, or a big one (which has no fiber of its
   own: its G runs in its core's). */
static bool on_g_stack(uintptr_t va)
{
    return in_slot_area(va) || vm_bigstack_of(va);
}

/* The fiber of the slot that holds va (in_slot_area), made on its first
   use; NULL past the first TSAN_FIBERS slots. */
static void *fiber_for(uintptr_t va)
{
    size_t i = (va - VM_GSLOT_BASE) / VM_GSLOT_SIZE;

    void **tab = __atomic_load_n(&slot_fiber, __ATOMIC_ACQUIRE);

    if (i >= TSAN_FIBERS)
        return NULL;
    /* The table, once: the first switches into slots may come on two
       cores at once (main runs on a big stack, not in a slot).  The
       loser's reservation stays, untouched, never backed. */
    if (!tab) {
        void **mine = hosted_reserve(TSAN_FIBERS * sizeof *slot_fiber);

        tab = __atomic_compare_exchange_n(&slot_fiber, &tab, mine, false,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
              ? mine : tab;
    }
    if (!tab[i])
        tab[i] = __tsan_create_fiber(0);
    return tab[i];
}
#endif

void *hosted_thread_fiber(void)
{
#if defined(__SANITIZE_THREAD__)
    return __tsan_get_current_fiber();
#else
    return NULL;
#endif
}

static inline void before_switch(struct hosted_ctx *me, struct hosted_ctx *to)
{
#if defined(__SANITIZE_THREAD__)
    /* A G without a fiber of its own runs in, and leaves, its core's:
       only a context that owns its fiber records one. */
    void *cur = __tsan_get_current_fiber();
    bool in_slot = on_g_stack((uintptr_t)__builtin_frame_address(0));
    void *target = to->fiber;

    /* A G's context lies in its slot; with no fiber recorded it has not
       run yet (or its slot has none), and its slot's fiber is looked up
       or made now. */
    if (!target && in_slot_area((uintptr_t)to))
        target = to->fiber = fiber_for((uintptr_t)to);
    me->fiber = in_slot && cur != hosted_arch()->tsan_fiber ? cur :
                in_slot ? NULL : cur;
    if (!target)
        target = hosted_arch()->tsan_fiber;
    if (target != cur)
        __tsan_switch_to_fiber(target, 0);      /* 0: the switch syncs */
#endif
#if defined(__SANITIZE_ADDRESS__)
    stack_bounds((uintptr_t)__builtin_frame_address(0), me);
    __sanitizer_start_switch_fiber(&me->fake_stack, to->stack_lo,
                                   to->stack_size);
#endif
}

static inline void after_switch(struct hosted_ctx *me)
{
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_finish_switch_fiber(me ? me->fake_stack : NULL, NULL, NULL);
#endif
}

/* ---- The interface ----------------------------------------------------- */

/* errno through the running thread's arch_cpu (hosted_arch, a fresh
   %fs-relative load each time): one load, not a call of hosted_errno. */
void arch_switch(void **save_sp, void *new_sp)
{
    struct hosted_ctx me = { 0 };
    int err = *hosted_arch()->errno_loc;

    before_switch(&me, ((struct switch_frame *)new_sp)->ctx);
    hosted_swap(save_sp, new_sp, &me);
    after_switch(&me);
    *hosted_arch()->errno_loc = err;
}

/* First C code of a new context, from hosted_context_start. */
__attribute__((noreturn)) void hosted_context_entry(void (*fn)(void *),
                                                    void *arg)
{
    after_switch(NULL);
    errno = 0;
    fn(arg);
    panic("hosted_context_entry: a context function returned");
}

void arch_switched_regs(const void *sp, uintptr_t *pc, uintptr_t *fp)
{
    const struct switch_frame *f = sp;

    *pc = f->ret;
    *fp = f->rbp;
}

void arch_context_init(void **sp, uintptr_t stack_top, void (*fn)(void *),
                       void *arg)
{
    /* hosted_swap pops the frame up to x, which is 16-aligned, as the
       call in hosted_context_start needs. */
    uintptr_t top = stack_top & ~15UL;
    struct hosted_ctx *x = (struct hosted_ctx *)(top - 64);
    struct switch_frame *f = (struct switch_frame *)((uintptr_t)x - sizeof *f);

    stack_bounds(stack_top - 1, x);
#if defined(__SANITIZE_ADDRESS__)
    /* The slot's last G may have died with frames still poisoned. */
    if (x->stack_lo)
        __asan_unpoison_memory_region(x->stack_lo, x->stack_size);
#endif
    x->fiber = NULL;            /* made on the first switch in */
    x->fake_stack = NULL;
    *f = (struct switch_frame){
        .ctx = x,
        .mxcsr = 0x1F80,        /* all SSE exceptions masked (reset value) */
        .fcw = 0x037F,          /* x87 reset value */
        .r12 = (uint64_t)fn,
        .r13 = (uint64_t)arg,
        .ret = (uint64_t)hosted_context_start,
    };
    *sp = f;
}

static __attribute__((noreturn)) void on_new_stack(void (*fn)(void *),
                                                   void *arg)
{
    after_switch(NULL);
    fn(arg);
    panic("arch_call_on_stack: the function returned");
}

void arch_call_on_stack(uintptr_t top, void (*fn)(void *), void *arg)
{
    struct hosted_ctx to;

    stack_bounds(top - 1, &to);
#if defined(__SANITIZE_ADDRESS__)
    /* NULL: the stack left behind is never used again. */
    __sanitizer_start_switch_fiber(NULL, to.stack_lo, to.stack_size);
#endif
    hosted_jump_stack(top, fn, arg, on_new_stack);
}

/* arch.h: the sites here always jump; nothing to patch. */
void arch_branch_enable(void)
{
}
