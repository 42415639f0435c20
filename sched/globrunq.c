/*
 * globrunq.c - the global run queue (Go's sched.runq): a FIFO of Gs under
 * sched.lock, which runqput's overflow, injectglist and preemption fill
 * and take_global (proc.c) empties into a P's ring.
 *
 * Locks: sched.lock guards the queue (and the idle list, idle.c); the
 * page allocator's lock is taken under it when the queue grows.
 */
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "sched/exectrace.h"
#include "sched/schedimpl.h"

/*
 * A FIFO of chunks, each a page holding an array of G pointers: an
 * overflowing local queue appends its batch with one copy, and a P
 * refilling copies pointers out of one array.  (Go links the Gs through
 * g.schedlink; walking 128 Gs whose lines sit in other cores' caches held
 * sched.lock for microseconds while every spawning core spun on it.)
 * Chunks come from the page allocator, which any context may call, and
 * empty ones are kept for reuse; sched_init makes the first, so a queue
 * that never holds more than a chunk's worth never allocates.
 */
#define GCHUNK_SLOTS ((PAGE_SIZE - 2 * sizeof(void *)) / sizeof(struct g *))

struct gchunk {
    struct gchunk *next;
    uint32_t head, tail;        /* g[head..tail) are queued */
    struct g *g[GCHUNK_SLOTS];
};
_Static_assert(sizeof(struct gchunk) <= PAGE_SIZE, "a chunk is a page");

static struct gchunk *gchunk_new(void)
{
    struct gchunk *c = sched.chunkfree;
    uint64_t pa;

    if (c) {
        sched.chunkfree = c->next;
    } else {
        if (!(pa = mem_alloc_pages(1)))
            panic("globrunqput: out of memory for the global run queue "
                  "(%u Gs queued)", sched.runqsize);
        c = phys_to_virt(pa);
        __atomic_store_n(&sched.nchunks, sched.nchunks + 1,
                         __ATOMIC_RELAXED);
    }
    c->next = NULL;
    c->head = c->tail = 0;
    return c;
}

/* Appends gs[0..n) in order. */
void globrunqputbatch(struct g *const *gs, uint32_t n)
{
    assert(spin_holding(&sched.lock));
    __atomic_store_n(&sched.runqsize, sched.runqsize + n, __ATOMIC_RELAXED);
    while (n) {
        struct gchunk *c = sched.runqtail;
        uint32_t k;

        if (!c || c->tail == GCHUNK_SLOTS) {
            c = gchunk_new();
            if (sched.runqtail)
                sched.runqtail->next = c;
            else
                sched.runqhead = c;
            sched.runqtail = c;
        }
        k = GCHUNK_SLOTS - c->tail < n ? GCHUNK_SLOTS - c->tail : n;
        for (uint32_t i = 0; i < k; i++)
            c->g[c->tail + i] = gs[i];
        c->tail += k;
        gs += k;
        n -= k;
    }
}

long sched_runq_pages(void)
{
    return __atomic_load_n(&sched.nchunks, __ATOMIC_RELAXED);
}

void globrunqput(struct g *gp)
{
    globrunqputbatch(&gp, 1);
}

/*
 * Takes Go's batch for p, min(size/ncpu + 1, max if given, half a local
 * queue), into out[] (at most RUNQ_SIZE / 2); returns how many.  The
 * caller runs out[0] and puts the rest in p's queue once it has dropped
 * the lock.
 */
uint32_t globrunqget(struct p *p, uint32_t max, struct g **out)
{
    uint32_t n, got = 0;

    assert(spin_holding(&sched.lock));
    if (!sched.runqsize)
        return 0;
    n = sched.runqsize / (uint32_t)ncpu + 1;
    if (n > sched.runqsize)
        n = sched.runqsize;
    if (max && n > max)
        n = max;
    if (n > RUNQ_SIZE / 2)
        n = RUNQ_SIZE / 2;
    __atomic_store_n(&sched.runqsize, sched.runqsize - n, __ATOMIC_RELAXED);
    while (got < n) {
        struct gchunk *c = sched.runqhead;
        uint32_t k = c->tail - c->head < n - got ? c->tail - c->head
                                                 : n - got;

        for (uint32_t i = 0; i < k; i++)
            out[got + i] = c->g[c->head + i];
        c->head += k;
        got += k;
        if (c->head == c->tail) {
            sched.runqhead = c->next;
            if (!sched.runqhead)
                sched.runqtail = NULL;
            c->next = sched.chunkfree;
            sched.chunkfree = c;
        }
    }
    return got;
}

/*
 * Makes the Gs of a schedlink list (G_WAITING, from the network poller)
 * runnable on the global queue, and wakes an idle core for them (which
 * wakes the next if there is more: step 2 below).  Go's injectglist, for
 * callers that may be in an interrupt: the local queue's runnext belongs
 * to the interrupted G's hand-offs.  Interrupts off.
 */
void injectglist(struct g *list)
{
    unsigned long f = spin_lock(&sched.lock);

    while (list) {
        struct g *gp = list;

        list = gp->schedlink;
        __atomic_store_n(&gp->status, G_RUNNABLE, __ATOMIC_RELAXED);
        TRACE(TEV_READY_NET, gp->goid, 0);
        globrunqput(gp);
    }
    spin_unlock(&sched.lock, f);
    wakep();
}

/* Boot core, before any core enters the scheduler: the first chunk, so a
   queue that never outgrows it never allocates. */
void globrunq_init(void)
{
    sched.chunkfree = gchunk_new();
}
