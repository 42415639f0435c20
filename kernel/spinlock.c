/*
 * spinlock.c - the slow paths of spinlock.h's locks: waiting for a lock
 * another core holds, the panics for misuse, and the lock-order checker
 * (lockrank.h).
 */
#include "kernel/spinlock.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"

void spin_lock_self(struct spinlock *l)
{
    panic("spin_lock: %s already held by this core",
          lockrank_name(l->rank));
}

/* Another core holds l: wait on a plain load, then try the CAS again. */
void spin_lock_wait(struct spinlock *l)
{
    for (;;) {
        int free = 0;

        while (spin_is_locked(l))
            arch_cpu_relax();
        if (__atomic_compare_exchange_n(&l->locked, &free, 1, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
    }
}

void spin_release_unheld(struct spinlock *l)
{
    panic("spin_unlock: %s not held by this core",
          lockrank_name(l->rank));
}

/* ---- Lock order (lockrank.h) ---------------------------------------- */

static const struct {
    const char *name;
    bool self;
} ranks[NLOCKRANKS] = {
#define LOCKRANK_ENTRY(rank, name, self) [rank] = { name, self },
    LOCKRANKS(LOCKRANK_ENTRY)
#undef LOCKRANK_ENTRY
};

const char *lockrank_name(enum lockrank r)
{
    return (unsigned)r < NLOCKRANKS ? ranks[r].name : "unranked lock";
}

bool lockrank_may_nest(enum lockrank held, enum lockrank r)
{
    return held < r || (held == r && ranks[r].self);
}

#ifdef SP_LOCKRANK
void lockrank_check(struct cpu *c, const struct spinlock *l)
{
    if (c->panicking)
        return;                 /* the panic path breaks locks as it must */
    if ((unsigned)l->rank >= NLOCKRANKS)
        panic("lock order: a lock of rank %d, not in lockrank.h", l->rank);
    for (int r = NLOCKRANKS - 1; r >= (int)l->rank; r--)
        if (c->held[r] && !lockrank_may_nest(r, l->rank))
            panic("lock order: %s (rank %d) taken while holding %s "
                  "(rank %d)", lockrank_name(l->rank), l->rank,
                  lockrank_name(r), r);
}

void lockrank_push(struct cpu *c, const struct spinlock *l)
{
    c->held[l->rank]++;
}

void lockrank_pop(struct cpu *c, const struct spinlock *l)
{
    if (c->held[l->rank]-- == 0)
        panic("lock order: %s released, but this core holds none",
              lockrank_name(l->rank));
}
#endif
