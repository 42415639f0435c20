/*
 * lockorder - the lock-order checker (kernel/lockrank.h) catches an
 * acquisition out of order.  G 1 holds a lock ranked like the page
 * allocator's and then takes one ranked like a test's own, which comes
 * first in the order: the checker must panic, naming both, before it
 * waits for the second lock (see `test.conf`).  Only the builds that
 * check the order run it.
 */
#include "kernel/export_test.h"

static struct spinlock inner = SPINLOCK_INIT(LOCK_MEM);
static struct spinlock outer = SPINLOCK_INIT(LOCK_TEST);

int main(void)
{
    unsigned long f = spin_lock(&inner);

    spin_lock(&outer);                  /* panics */
    spin_release(&outer);
    spin_unlock(&inner, f);
    return 0;
}
