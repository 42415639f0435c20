/*
 * tls - __thread variables in Gs started with tls (sp_go_attr): each
 * such G sees .tdata's initial values and .tbss's zeros, keeps its own
 * values while Gs of its kind run on every core at once and while it is
 * preempted and resumed elsewhere; Gs without TLS (sharing their core's
 * copy) neither see nor disturb them.  The hosted build has no TLS per G
 * (arch/hosted/arch_impl.h): there the cases only check that tls is
 * accepted.
 */
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "arch/export_test.h"
#include "sched/export_test.h"
#include "tests/lib/testutil.h"
#include "tests/lib/timeutil.h"

static __thread long tv = 42;
static __thread char tname[24] = "initial";
static __thread long tz;
static __thread long tzarr[64];

#define PER_G_TLS (ARCH_TLS_VARIANT != 0)

static long done, bad;

static void finish(bool ok)
{
    if (!ok)
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
}

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

static bool initial(void)
{
    bool ok = tv == 42 && !strcmp(tname, "initial") && tz == 0;

    for (int i = 0; i < 64; i++)
        ok &= tzarr[i] == 0;
    return ok;
}

static bool mine(long id)
{
    return tv == id && tz == 2 * id && tzarr[63] == 3 * id &&
           tname[0] == (char)('a' + id % 26);
}

static void set_mine(long id)
{
    tv = id;
    tz = 2 * id;
    tzarr[63] = 3 * id;
    tname[0] = (char)('a' + id % 26);
}

/* A G with TLS: its values hold across yields, sleeps, and busy spells
   long enough for the timer to preempt it and another core to take it:
   SPELL_MS of the clock, over the 10 ms quantum, so that every G is
   preempted within its first spells however fast the host runs the
   loop (a count of iterations was a spell of microseconds on a quick
   host, and the Gs that yield after each waited out the 20 s bound). */
#define SPELL_MS 15

static void tls_g(void *arg)
{
    long id = (long)(uintptr_t)arg;
    bool ok = !PER_G_TLS || initial();
    uint64_t end = sp_nanotime() + SP_MS(300);
    int cores = 0, last = -1;

    if (!PER_G_TLS) {
        finish(ok);
        return;
    }
    set_mine(id);
    while (sp_nanotime() < end || sp_preempted() < 2) {
        uint64_t spell = sp_nanotime() + SP_MS(SPELL_MS);

        while (sp_nanotime() < spell)
            ok &= mine(id);
        if (sp_cpu_id() != last) {
            last = sp_cpu_id();
            cores++;
        }
        if (id % 2)
            sp_yield();
        else if (id % 3 == 0)
            sp_sleep(SP_US(200));
        if (sp_nanotime() > end + SP_S(20))
            break;
    }
    finish(ok && mine(id));
}

/* A G without TLS writes its core's copy over and over. */
static void plain_g(void *arg)
{
    uint64_t end = sp_nanotime() + SP_MS(300);

    (void)arg;
    while (sp_nanotime() < end) {
        tv = -1;
        tz = -1;
        tzarr[63] = -1;
        sp_yield();
    }
    finish(true);
}

TEST(tls_isolated)
{
    struct sp_go_attr a = { .tls = true };
    int n = 3 * sp_ncpu(), m = sp_ncpu();

    done = bad = 0;
    for (long i = 0; i < n; i++)
        CHECK(sp_go_attr(tls_g, (void *)(uintptr_t)(100 + i), &a));
    for (int i = 0; i < m; i++)
        CHECK(sp_go(plain_g, NULL));
    CHECK(wait_done(n + m));
    CHECKF(!bad, "%ld Gs saw their TLS change", bad);
}

/* TLS and a big stack together. */
TEST(tls_big_stack)
{
    struct sp_go_attr a = { .tls = true, .stack_size = 1 << 20 };

    done = bad = 0;
    CHECK(sp_go_attr(tls_g, (void *)(uintptr_t)7, &a));
    CHECK(wait_done(1));
    CHECK(!bad);
}

static long *addr_of_tv(void)
{
    return &tv;
}

/* main has TLS of its own: its copy is not its core's. */
TEST(main_tls)
{
    if (!PER_G_TLS)
        return;
    tv = 1234;
    sp_sleep(SP_MS(5));
    CHECK(tv == 1234);
    CHECK((uintptr_t)addr_of_tv() != 0);
}

TEST(all_freed)
{
    CHECK_ALL_FREED();
}

int main(void)
{
    return sp_test_main();
}
