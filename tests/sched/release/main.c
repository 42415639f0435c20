/*
 * release - parked Gs give back their stack pages (sched/release.c,
 * kernel/vm.c), booted with stackrelease=20 (a pass every 20 ms), and
 * get them back, bytes intact, when anything touches them: the G itself
 * when it runs again, or a partner that reaches into its stack (the
 * sudog and element of a channel operation, the cases of a select).
 *
 * Each G fills a local array with a pattern of its own before it parks
 * and checks it after; the pages in use must fall by most of a page per
 * parked G while they wait, and every page must come back into the
 * accounts once they are gone.  Dead Gs give theirs back too, and the
 * Gs that reuse their slots start with errno 0.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "sched/export_test.h"

#define NGS         200
#define WORDS       40          /* the pattern: 320 bytes of stack */
#define WAIT_NS     SP_MS(5000) /* for the releases, on a slow host */

enum how { RECV, SEND, SELECT, SLEEP, LIBC };

struct parkers {
    enum how how;
    sp_chan *ch, *other;
    sp_waitgroup parked, done;
    long bad;                   /* Gs that found something wrong; atomic */
};

static uint64_t pattern(uint64_t goid, int i)
{
    return goid * 0x9E3779B97F4A7C15ULL ^ (uint64_t)i * 0xBF58476D1CE4E5B9ULL;
}

static void parker(void *arg)
{
    struct parkers *pk = arg;
    volatile uint64_t pat[WORDS];
    uint64_t goid = sp_goid();
    int v = (int)goid, got = -1;
    bool ok = true;

    for (int i = 0; i < WORDS; i++)
        pat[i] = pattern(goid, i);
    if (pk->how == LIBC)
        errno = (int)(goid % 1000) + 1;
    sp_waitgroup_done(&pk->parked);
    switch (pk->how) {
    case RECV:
        ok = sp_chan_recv(pk->ch, &got) && got == 7;
        break;
    case SEND:
        sp_chan_send(pk->ch, &v);
        break;
    case SELECT: {
        struct sp_case cs[2] = {
            { .ch = pk->other, .dir = SP_RECV, .elem = &got },
            { .ch = pk->ch, .dir = SP_RECV, .elem = &got },
        };

        ok = sp_select(cs, 2, true) == 1 && got == 7;
        break;
    }
    case SLEEP:
    case LIBC:
        sp_sleep(SP_MS(300));
        break;
    }
    for (int i = 0; i < WORDS; i++)
        ok &= pat[i] == pattern(goid, i);
    if (pk->how == LIBC)
        ok &= errno == (int)(goid % 1000) + 1;
    if (!ok)
        __atomic_add_fetch(&pk->bad, 1, __ATOMIC_RELAXED);
    sp_waitgroup_done(&pk->done);
}

static long pages_in_use(void)
{
    return (long)(mem_total_count() - mem_free_count());
}

/* Waits until n more releases than `since` have finished (their pages
   are free, not only unmapped); false if not within WAIT_NS. */
static bool released(uint64_t since, long n)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    while ((long)(vm_gslot_releases() - since) < n) {
        if (sp_nanotime() > end)
            return false;
        sp_sleep(SP_MS(5));
    }
    return true;
}

/*
 * Parks NGS Gs the given way, waits for their pages to go, checks the
 * pages in use fell, then lets them go and checks what they found.
 */
static void run(enum how how, const char *name)
{
    struct parkers pk = { .how = how, .bad = 0 };
    uint64_t since = vm_gslots_released(), done = vm_gslot_releases();
    long parked, during;

    /* The boot log says why when it is off (a hosted build on a Linux
       host without guard regions in shared memory). */
    CHECKF(sched_stackrelease_ms() > 0, "%s: stackrelease is off", name);
    if (!sched_stackrelease_ms())
        return;
    pk.ch = sp_chan_make(sizeof(int), 0);
    pk.other = sp_chan_make(sizeof(int), 0);
    sp_waitgroup_add(&pk.parked, NGS);
    sp_waitgroup_add(&pk.done, NGS);
    for (int i = 0; i < NGS; i++)
        sp_go(parker, &pk);
    sp_waitgroup_wait(&pk.parked);
    parked = pages_in_use();
    if (how == SLEEP || how == LIBC) {
        /* They wake by themselves: at least half must be released
           before that, and their pages given back at once. */
        CHECKF(released(done, NGS / 2), "%s: %ld of %d parked Gs "
               "released within 5 s", name,
               (long)(vm_gslot_releases() - done), NGS);
    } else {
        CHECKF(released(done, NGS), "%s: %ld of %d parked Gs released "
               "within 5 s", name,
               (long)(vm_gslot_releases() - done), NGS);
        during = pages_in_use();
        printf("# %s: %ld released, pages in use %ld -> %ld\n", name,
               (long)(vm_gslots_released() - since), parked,
               during);
        /* Each G held its slot's top page; a release keeps the bytes of
           its frames that are not zero: about 1 KiB parked in a channel
           operation, about 2 KiB in a select, whose frame holds room for
           8 cases (8 sudogs, their channels and ring positions). */
        CHECKF(parked - during >= (how == SELECT ? NGS / 3 : NGS / 2),
               "%s: pages in use %ld with %d Gs parked, %ld after their "
               "release", name, parked, NGS, during);
        for (int i = 0; i < NGS; i++) {
            int v = 7;

            if (how == SEND)
                CHECK(sp_chan_recv(pk.ch, &v) && v > 0);
            else
                sp_chan_send(pk.ch, &v);
        }
    }
    sp_waitgroup_wait(&pk.done);
    CHECKF(pk.bad == 0, "%s: %ld of %d Gs found their stack or value "
           "wrong after the release", name, pk.bad, NGS);
    sp_chan_free(pk.ch);
    sp_chan_free(pk.other);
}

TEST(recv_parked) { run(RECV, "receivers"); }
TEST(send_parked) { run(SEND, "senders"); }
TEST(select_parked) { run(SELECT, "selects"); }
TEST(sleepers) { run(SLEEP, "sleepers"); }
TEST(libc_state_kept) { run(LIBC, "errno users"); }

/* A G that exits on a clean slot: errno starts at 0, and its stack and
   errno hold what it puts there. */
static void reuser(void *arg)
{
    struct parkers *pk = arg;
    volatile uint64_t pat[WORDS];
    uint64_t goid = sp_goid();
    bool ok = errno == 0;

    for (int i = 0; i < WORDS; i++)
        pat[i] = pattern(goid, i);
    errno = (int)(goid % 1000) + 1;
    sp_yield();
    for (int i = 0; i < WORDS; i++)
        ok &= pat[i] == pattern(goid, i);
    ok &= errno == (int)(goid % 1000) + 1;
    if (!ok)
        __atomic_add_fetch(&pk->bad, 1, __ATOMIC_RELAXED);
    sp_waitgroup_done(&pk->done);
}

/* Dead Gs give their slots' pages back too, and new Gs in those slots
   (the free lists hand them out first) run as in fresh ones. */
TEST(dead_gs)
{
    struct parkers pk = { .bad = 0 };
    uint64_t end;
    long dead;

    sp_waitgroup_add(&pk.done, NGS);
    for (int i = 0; i < NGS; i++)
        sp_go(reuser, &pk);
    sp_waitgroup_wait(&pk.done);
    CHECKF(pk.bad == 0, "%ld of %d Gs found errno or their stack wrong",
           pk.bad, NGS);
    dead = pages_in_use();
    end = sp_nanotime() + WAIT_NS;
    while (dead - pages_in_use() < NGS * 3 / 4 && sp_nanotime() < end)
        sp_sleep(SP_MS(5));
    printf("# dead Gs: pages in use %ld -> %ld\n", dead, pages_in_use());
    CHECKF(dead - pages_in_use() >= NGS * 3 / 4, "pages in use %ld with "
           "%d dead Gs, %ld 5 s later", dead, NGS, pages_in_use());
    sp_waitgroup_add(&pk.done, NGS);
    for (int i = 0; i < NGS; i++)
        sp_go(reuser, &pk);
    sp_waitgroup_wait(&pk.done);
    CHECKF(pk.bad == 0, "%ld of %d Gs in released slots found errno or "
           "their stack wrong", pk.bad, NGS);
}

/* Every page a release freed came back or is accounted for: pages in use
   match the G slots' account (vm_gslot_pages) since the first case. */
static size_t free_at_start, gslot_at_start;
static long heap_at_start, tables_at_start, runq_at_start;

TEST(accounts)
{
    size_t mem_free, gslot;
    long used, grown;

    /* Together: idle cores may be releasing Gs' pages meanwhile. */
    vm_page_accounts(&mem_free, &gslot);
    used = (long)(free_at_start - mem_free);
    grown = (long)(gslot - gslot_at_start) +
            (long)(vm_heap_pages() - heap_at_start) +
            (long)(arch_page_table_pages() - tables_at_start) +
            (sched_runq_pages() - runq_at_start);
    CHECKF(used == grown, "%ld pages in use since main started, %ld "
           "accounted for by G slots, heap, page tables and run queue",
           used, grown);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    vm_page_accounts(&free_at_start, &gslot_at_start);
    heap_at_start = (long)vm_heap_pages();
    tables_at_start = (long)arch_page_table_pages();
    runq_at_start = sched_runq_pages();
    return sp_test_main();
}
