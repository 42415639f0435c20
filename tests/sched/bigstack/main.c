/*
 * bigstack - Gs on big stacks (sp_go_attr): a 1 MiB and an 8 MiB stack
 * used nearly whole, by a local array touched at both ends and by deep
 * recursion; big-stack Gs alive together on every core, moving between
 * cores; main's own 8 MiB stack; the limits; and no page kept after many
 * such Gs came and went.
 */
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "arch/export_test.h"
#include "kernel/export_test.h"
#include "sched/export_test.h"
#include "tests/lib/testutil.h"
#include "tests/lib/timeutil.h"

/* Recursion depths are for 1 KiB frames and more; ASan's frames, with
   their redzones, are over twice that. */
#define DEPTH(n) (SP_ASAN ? (n) * 2 / 5 : (n))

#define KIB 1024UL
#define MIB (1024 * KIB)

static long done, bad;

/* Waits until done reaches want, for up to 30 s. */
static bool wait_done(long want)
{
    uint64_t end = sp_nanotime() + SP_S(30);

    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < want) {
        if (sp_nanotime() > end)
            return false;
        sp_sleep(SP_MS(1));
    }
    return true;
}

static void finish(long why)
{
    if (why)
        __atomic_or_fetch(&bad, why, __ATOMIC_RELAXED);
    __atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
}

/* A local array of `bytes`, touched at both ends and every page. */
static __attribute__((noinline)) bool big_array(size_t bytes)
{
    volatile char a[bytes];
    bool ok = true;

    for (size_t i = 0; i < bytes; i += 4096)
        a[i] = (char)(i >> 12);
    a[bytes - 1] = 0x5a;
    for (size_t i = 0; i < bytes; i += 4096)
        ok &= a[i] == (char)(i >> 12);
    return ok && a[bytes - 1] == 0x5a;
}

/* Recursion n deep with 1 KiB frames; the sum proves every frame kept. */
static __attribute__((noinline)) uint64_t recurse(uint64_t n)
{
    volatile uint64_t pad[128];

    pad[0] = n;
    pad[127] = n * 3;
    if (!n)
        return 0;
    return recurse(n - 1) + pad[127] - 3 * pad[0];
}

static __attribute__((noinline)) uintptr_t here(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

struct job {
    size_t array;               /* bytes of the local array */
    uint64_t depth;             /* recursion, 1 KiB frames */
    bool sleep;                 /* sleep between the two, to move */
    uint64_t goid;
};

static void use_stack(void *arg)
{
    struct job *j = arg;
    long why = sp_goid() == __atomic_load_n(&j->goid, __ATOMIC_ACQUIRE) ||
               !__atomic_load_n(&j->goid, __ATOMIC_ACQUIRE) ? 0 : 1;

    why |= vm_bigstack_of(here()) ? 0 : 2;
    if (j->array)
        why |= big_array(j->array) ? 0 : 4;
    if (j->sleep)
        sp_sleep(SP_MS(2));
    if (j->depth)
        why |= recurse(j->depth) == 0 ? 0 : 8;
    finish(why);
}

/* Runs one G with a stack of `stack` bytes: 0 if all went well, -1 if
   none was made, -2 if it did not end in 30 s, else use_stack's bits. */
static long run_one(size_t stack, size_t array, uint64_t depth)
{
    struct sp_go_attr a = { .stack_size = stack };
    struct job j = { .array = array, .depth = depth };
    uint64_t id;

    done = bad = 0;
    id = sp_go_attr(use_stack, &j, &a);
    __atomic_store_n(&j.goid, id, __ATOMIC_RELEASE);
    if (!id)
        return -1;
    return wait_done(1) ? bad : -2;
}

#define RUN_ONE(stack, array, depth) do {                                 \
        long r_ = run_one(stack, array, depth);                           \
        CHECKF(r_ == 0, "run_one(%s, %s, %s): %ld (-1 no G, -2 no end, "  \
               "1 goid, 2 not a big stack, 4 array, 8 recursion)",       \
               #stack, #array, #depth, r_);                               \
    } while (0)

TEST(stack_1mib)
{
    RUN_ONE(1 * MIB, 900 * KIB, 0);
    RUN_ONE(1 * MIB, 0, DEPTH(900));
}

TEST(stack_8mib)
{
    RUN_ONE(8 * MIB, 7 * MIB + 512 * KIB, 0);
    RUN_ONE(8 * MIB, 0, DEPTH(7 * 1024 + 512));
}

/* 4 per core, alive together, sleeping in the middle: they wake on
   whatever core and go on with their frames. */
TEST(many_at_once)
{
    static struct job j[64];
    struct sp_go_attr a = { .stack_size = 1 * MIB };
    int n = 4 * sp_ncpu();

    if (n > 64)
        n = 64;
    done = bad = 0;
    for (int i = 0; i < n; i++) {
        j[i] = (struct job){ .array = 256 * KIB, .depth = DEPTH(500), .sleep = true };
        CHECK(sp_go_attr(use_stack, &j[i], &a));
    }
    CHECK(wait_done(n));
    CHECKF(!bad, "use_stack's bits %ld (1 goid, 2 not a big stack, 4 "
           "array, 8 recursion)", bad);
}

static void plain(void *arg)
{
    (void)arg;
    finish(vm_bigstack_of(here()) ? 2 : 0);
}

TEST(limits)
{
    struct sp_go_attr small = { .stack_size = 16 * KIB };
    struct sp_go_attr huge = { .stack_size = SP_GO_STACK_MAX + 1 };

    done = bad = 0;
    CHECK(sp_go_attr(plain, NULL, NULL));
    CHECK(sp_go_attr(plain, NULL, &small));
    CHECK(wait_done(2));
    CHECK(!bad);
    CHECK(sp_go_attr(plain, NULL, &huge) == 0);
}

TEST(main_8mib)
{
    CHECK(vm_bigstack_of(here()) != NULL);
    CHECK(big_array(6 * MIB));
}

/* Pages of the big stacks, and the page allocator's free ones with the
   G slots' and the page tables' (which stay, for regions used again),
   after everything exited and was given back. */
static size_t pages_now(size_t *big)
{
    size_t mem, gslot;

    while (vm_bigstacks_dead())
        if (!vm_bigstack_reap())
            sp_sleep(SP_MS(1));     /* another core's reap runs */
    vm_page_accounts(&mem, &gslot);
    *big = vm_bigstack_pages();
    return mem + gslot + arch_page_table_pages();
}

static void round_of(int n)
{
    static struct job j = { .array = 512 * KIB };
    struct sp_go_attr a = { .stack_size = 1 * MIB };

    done = bad = 0;
    for (int i = 0; i < n; i++)
        while (!sp_go_attr(use_stack, &j, &a))
            sp_sleep(SP_MS(1));
    wait_done(n);
    /* Until every G is back on a free list. */
    while (sched_live_gs() > 1)
        sp_sleep(SP_MS(1));
}

TEST(no_leak)
{
    size_t big0, big1, before, after;

    round_of(50);               /* the G slots and tables it needs */
    before = pages_now(&big0);
    round_of(200);
    CHECK(!bad);
    after = pages_now(&big1);
    CHECKF(big1 == big0, "big stack pages %zu, were %zu", big1, big0);
    CHECKF(after + 4 >= before, "%zu pages, were %zu", after, before);
}

TEST(all_freed)
{
    uint64_t end = sp_nanotime() + SP_S(5);

    /* The free count is a sum read without a lock: a P moving a batch
       between its list and the global one is missing it for a moment. */
    while (sched_free_gs() != sched_all_gs() - 1 && sp_nanotime() < end)
        sp_sleep(SP_MS(1));
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
