/*
 * park.c - what a parked G costs: N Gs each blocked in a receive on one
 * channel, the memory they hold from the page allocator while they wait,
 * and the time to spawn them and get every one to its receive.
 *
 * N is 1,000,000 where memory allows, else one G per two free pages (a
 * G holds a little over one); the figure is per G either way.
 * tools/bench/bench.sh gives the machine 9 GiB for it.
 *
 * The memory is the first repetition's, the one that makes the G slots:
 * a dead G keeps its slot and its mapped pages for the next G (gfree.c),
 * so later repetitions reuse them and report the first one's figure.
 * It counts every page the allocator handed out while the Gs were
 * parked, page tables included, less one page per G slot that existed
 * before (those the parked Gs reuse): right after they parked
 * (park_fresh_bytes_per_g), and once idle cores gave back the pages of
 * Gs parked for a while (park_bytes_per_g; sched/release.c), which the
 * benchmark waits for (park_release_ms, from the last park).  Where
 * pages are not given back (the hosted build, stackrelease=0) the two
 * are the same and the wait is skipped.
 */
#include <stdio.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include "bench.h"
#include "kernel/export_test.h"
#include "sched/export_test.h"

#define PARK_MAX    1000000L
#define PAGE        4096L

struct park {
    sp_chan *ch;                /* unbuffered; closed to let them go */
    struct countdown parked;    /* hit just before the receive */
    struct countdown done;      /* hit after it returned, closed */
    long bad;                   /* receives that got a value; atomic */
};

static void parker(void *arg)
{
    struct park *pk = arg;
    int v;

    countdown_hit(&pk->parked);
    if (sp_chan_recv(pk->ch, &v))
        __atomic_add_fetch(&pk->bad, 1, __ATOMIC_RELAXED);
    countdown_hit(&pk->done);
}

static long pages_in_use(void)
{
    return (long)(mem_total_count() - mem_free_count());
}

#define RELEASE_POLL_MS 20
#define RELEASE_STALL_MS 5000   /* no release for this long: give up */

static long park_n;             /* Gs per repetition, set by the first */
static double first[3];         /* the first repetition's out[0], [2], [3] */

/* Waits until n more G slots than `since` are released, or none was for
   RELEASE_STALL_MS; returns how many more are. */
static uint64_t wait_released(uint64_t since, long n)
{
    uint64_t got = 0, last = sp_nanotime();

    for (;;) {
        uint64_t now = vm_gslots_released() - since;

        if ((long)now >= n)
            return now;
        if (now != got) {
            got = now;
            last = sp_nanotime();
        } else if (sp_nanotime() - last > SP_MS(RELEASE_STALL_MS)) {
            return got;
        }
        sp_sleep(SP_MS(RELEASE_POLL_MS));
    }
}

/* out[0]: bytes per parked G once released; out[1]: ns per G to spawn
   and park it; out[2]: bytes per G just parked; out[3]: ms until the
   releases were done. */
bool bench_park(double out[NFIG])
{
    long n = park_n ? park_n : (long)mem_free_count() / 2, before, held,
         fresh;
    struct park pk = { .bad = 0 };
    uint64_t t0, rel0, released = 0;
    double ns, wait_ms = 0;

    if (n > PARK_MAX)
        n = PARK_MAX;
    park_n = n;
    if (n < 1000) {
        printf("# ERROR park: %ld free pages, too few to measure\n",
               (long)mem_free_count());
        return false;
    }
    pk.ch = sp_chan_make(sizeof(int), 0);
    countdown_init(&pk.parked, n);
    countdown_init(&pk.done, n);
    before = pages_in_use() - sched_all_gs();
    rel0 = vm_gslots_released();
    t0 = sp_nanotime();
    for (long i = 0; i < n; i++)
        sp_go(parker, &pk);
    countdown_wait(&pk.parked);
    ns = since(t0);
    /* The last ones hit the countdown before they reach the receive:
       let them get there before the count. */
    for (int i = 0; i < 100; i++)
        sp_yield();
    fresh = held = pages_in_use() - before;
    if (sched_stackrelease_ms()) {
        t0 = sp_nanotime();
        released = wait_released(rel0, n);
        wait_ms = since(t0) / 1e6;
        held = pages_in_use() - before;
    }
    sp_chan_close(pk.ch);
    countdown_wait(&pk.done);
    sp_chan_free(pk.ch);
    printf("# park: %ld Gs, %ld pages in use for them just parked, %ld "
           "once %ld of them gave theirs back (%.0f ms)\n", n, fresh, held,
           (long)released, wait_ms);
    if (__atomic_load_n(&pk.bad, __ATOMIC_RELAXED)) {
        printf("# ERROR park: %ld receives on the closed channel got a "
               "value\n", pk.bad);
        return false;
    }
    if (first[0] == 0) {
        first[0] = (double)held * PAGE / (double)n;
        first[1] = (double)fresh * PAGE / (double)n;
        first[2] = wait_ms;
    }
    out[0] = first[0];
    out[1] = ns / (double)n;
    out[2] = first[1];
    out[3] = first[2];
    return true;
}
