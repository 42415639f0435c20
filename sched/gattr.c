/*
 * gattr.c - Gs with a big stack or TLS of their own (sp_go_attr), as C
 * programs ported from threads want them.
 *
 * A big stack is a region of kernel/vm.h's big stack area, demand-paged,
 * with its guard page below (kernel/vmbig.c); the G keeps its slot,
 * whose struct g and newlib state stay where they are, and runs on the
 * region instead of the slot's stack.  getg finds it through the
 * region's owner.  When the G exits, g0 hands the region back
 * (gattr_exit) and the slot returns to the free list as a plain one; the
 * region's pages are given back by the next reap (vm_bigstack_reap),
 * from the next sp_go_attr that wants a big stack or from an idle core.
 *
 * TLS: the G's copy of the image's TLS block (.tdata's values, then
 * .tbss's zeros: linker/<arch>.ld) lies at the top of its stack, as
 * glibc puts a thread's at the top of its stack, and its thread pointer
 * is installed by the switch (proc.c: setcurg).  Every core has a copy
 * too (gattr_core_tp), which its scheduler and the Gs without TLS use:
 * a __thread variable is then per core for them, never a fault.  The block's place
 * around the thread pointer is the ELF TLS ABI's (arch.h's
 * ARCH_TLS_VARIANT); the compiler's local-exec offsets assume it.
 */
#include <stdlib.h>
#include <string.h>
#include <spindle/sched.h>
#include "arch/arch.h"
#include "kernel/panic.h"
#include "kernel/vm.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"

/* The linker script's (weak: the hosted build links no TLS image). */
extern char __tls_start[] __attribute__((weak));
extern char __tdata_end[] __attribute__((weak));
extern char __tls_end[] __attribute__((weak));
extern char __tls_align[] __attribute__((weak));

#define TCB_BYTES 16            /* variant I's; variant II's self word */

static inline uintptr_t round_up(uintptr_t v, uintptr_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* The TLS image's size and alignment (a power of two, 16 or more). */
static inline size_t tls_size(void)
{
    return (size_t)(__tls_end - __tls_start);
}

static inline uintptr_t tls_align(void)
{
    uintptr_t a = (uintptr_t)__tls_align;

    return a < 16 ? 16 : a;
}

/* Bytes the TLS block takes at the top of a stack, at most. */
static size_t tls_reserve(void)
{
    return round_up(tls_size(), tls_align()) + TCB_BYTES + tls_align();
}

/*
 * Lays a TLS block out in the bytes below top: copies .tdata, zeroes the
 * rest.  Returns its thread pointer; *lo is the lowest byte it took.
 */
static uintptr_t tls_lay(uintptr_t top, uintptr_t *lo)
{
    size_t size = tls_size(), init = (size_t)(__tdata_end - __tls_start);
    uintptr_t align = tls_align(), tp, block;

    if (ARCH_TLS_VARIANT == 2) {
        tp = (top - TCB_BYTES) & ~(align - 1);
        block = tp - round_up(size, (uintptr_t)__tls_align ?: 1);
        memset((void *)tp, 0, TCB_BYTES);
        *(uintptr_t *)tp = tp;          /* %fs:0 reads the pointer */
        *lo = block;
    } else {
        uintptr_t off = round_up(TCB_BYTES, (uintptr_t)__tls_align ?: 1);

        tp = (top - off - size) & ~(align - 1);
        block = tp + off;
        memset((void *)tp, 0, off);
        *lo = tp;
    }
    memcpy((void *)block, __tls_start, init);
    memset((void *)(block + init), 0, size - init);
    return tp;
}

/* gp's TLS block at the top of its stack, the stack below it. */
static void tls_init(struct g *gp)
{
    uintptr_t lo;

    gp->tp = tls_lay(gp->stack_hi, &lo);
    gp->stack_hi = lo & ~15UL;
}

uintptr_t gattr_core_tp(void)
{
    uintptr_t lo;
    char *b;

    if (ARCH_TLS_VARIANT == 0)
        return 0;
    if (!(b = malloc(tls_reserve())))
        panic("sched_init: out of memory for a core's TLS block");
    return tls_lay((uintptr_t)b + tls_reserve(), &lo);
}

/*
 * Gives gp (fresh from gfget, dead) a big stack of `stack` bytes if not
 * 0, and TLS if tls; false if no big stack was to be had.  Interrupts
 * off.
 */
bool gattr_setup(struct g *gp, size_t stack, bool tls)
{
    uintptr_t lo, hi;

    if (stack) {
        if (!vm_bigstack_alloc(stack, gp, &lo, &hi))
            return false;
        gp->stack_lo = lo;
        gp->stack_hi = hi;
    }
    if (tls)
        tls_init(gp);
    gp->attrs = true;
    return true;
}

/* gp, dead, goes back to being a plain G of its slot (g0, interrupts
   off). */
void gattr_exit(struct g *gp)
{
    uintptr_t slot = g_slot(gp);

    if (g_bigstack(gp))
        vm_bigstack_free(gp->stack_lo);
    gp->stack_lo = slot + PAGE_SIZE;
    gp->stack_hi = (uintptr_t)gslot_reent(slot) & ~15UL;
    gp->tp = 0;
    gp->attrs = false;
}

/* The stack bytes a plain G has in its slot. */
static size_t slot_stack(void)
{
    return (((uintptr_t)gslot_reent(0) & ~15UL) - PAGE_SIZE);
}

/*
 * The stack a G asking for `want` bytes, with TLS or not, gets: 0 for
 * its slot's, else the big stack's size; (size_t)-1 if too big.
 */
size_t gattr_stack(size_t want, bool tls)
{
    size_t extra = tls ? tls_reserve() : 0;

    if (want > SP_GO_STACK_MAX)
        return (size_t)-1;
    if (want + extra <= slot_stack())
        return 0;
    return round_up(want + extra, PAGE_SIZE);
}

uint64_t sp_go_attr(void (*fn)(void *), void *arg, const struct sp_go_attr *a)
{
    size_t stack;
    bool tls;

    if (!fn)
        panic("go of nil func value");
    if (!a)
        return go(fn, arg);
    tls = a->tls && ARCH_TLS_VARIANT != 0;
    stack = gattr_stack(a->stack_size, tls);
    if (stack == (size_t)-1)
        return 0;
    /* Dead big stacks' pages first: they may be what this one needs. */
    if (stack && vm_bigstacks_dead())
        vm_bigstack_reap();
    return go_attr(fn, arg, stack, tls);
}

/* The G that runs on this core from now has TLS, or the one before did:
   its thread pointer, or the core's (proc.c, setcurg). */
void gattr_switch_tp(struct m *m, struct g *gp)
{
    uintptr_t tp = gp ? gp->tp : 0;

    arch_tp_set(tp ? tp : m->core_tp);
    m->tp = tp;
}
