/*
 * smp.c - bringing every core online, and running a function on all of
 * them (the way tests and the boot path reach every core before the
 * scheduler owns them).
 *
 * A core that is online and has nothing to do waits in idle_loop with
 * interrupts off, halting between checks; arch_halt enables interrupts
 * and halts atomically, so an IPI sent after the check still wakes it.
 */
#include "arch/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "sched/profile.h"
#include "sched/sched.h"

struct cpu *cpus[MAXCPU];
int ncpu = 1;

static int call_busy;           /* one smp_call_all at a time */

static void run_call(struct cpu *c)
{
    c->call_fn(c->call_arg);
    /* Pairs with the load-acquire of call_done in smp_call_all. */
    __atomic_store_n(&c->call_done, c->call_seq, __ATOMIC_RELEASE);
}

void ipi_handler(void)
{
    struct cpu *c = this_cpu();
    struct m *pm = prof_irq_enter();

    fault_ipi();
    /* Tests read the count from other cores. */
    __atomic_store_n(&c->nipi, c->nipi + 1, __ATOMIC_RELEASE);
    /* Acquire: pairs with the store-release of call_seq, which follows
       the caller's store of call_irq. */
    if (__atomic_load_n(&c->call_seq, __ATOMIC_ACQUIRE) != c->call_done &&
        c->call_irq)
        run_call(c);
    prof_irq_exit(pm, (uintptr_t)ipi_handler);
}

/*
 * Runs c's pending smp_call_all request (smp.h); smp_poll_calls saw one.
 */
void smp_run_call(struct cpu *c)
{
    if (c->call_irq) {
        run_call(c);            /* as in the IPI handler, which must not
                                   run it again meanwhile */
        return;
    }
    arch_irq_enable();
    run_call(c);
    arch_irq_save();
}

/* Until the boot core starts the scheduler, a started core waits here. */
void cpu_main(struct cpu *c)
{
    printk("cpu %d online (" ARCH_HWID_NAME " %u)\n", c->id, c->hwid);
    __atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
    sched_start(NULL);
}

/* While smp_call_all waits: a core that waits for this one may have a
   request for it too (two callers at once), so run it meanwhile. */
static void poll_calls_waiting(void)
{
    unsigned long f = arch_irq_save();

    smp_poll_calls();
    arch_irq_restore(f);
    arch_cpu_relax();
}

static void call_all(void (*fn)(void *), void *arg, bool in_irq)
{
    struct g *gp = getg();
    struct cpu *me;

    /* The caller must stay on this core until every call is done. */
    if (gp)
        gp->preemptoff++;
    me = this_cpu();
    while (__atomic_exchange_n(&call_busy, 1, __ATOMIC_ACQUIRE))
        poll_calls_waiting();
    for (int i = 0; i < ncpu; i++) {
        struct cpu *c = cpus[i];

        if (c == me)
            continue;
        c->call_fn = fn;
        c->call_arg = arg;
        c->call_irq = in_irq;
        __atomic_store_n(&c->call_seq, c->call_seq + 1, __ATOMIC_RELEASE);
        arch_send_ipi(c);
    }
    fn(arg);
    for (int i = 0; i < ncpu; i++)
        while (cpus[i] != me &&
               __atomic_load_n(&cpus[i]->call_done, __ATOMIC_ACQUIRE) !=
               cpus[i]->call_seq)
            poll_calls_waiting();
    __atomic_store_n(&call_busy, 0, __ATOMIC_RELEASE);
    if (gp)
        gp->preemptoff--;
}

void smp_call_all(void (*fn)(void *), void *arg)
{
    call_all(fn, arg, false);
}

void smp_call_all_irq(void (*fn)(void *), void *arg)
{
    call_all(fn, arg, true);
}

/* How many cores to use: all that were found, unless smp= says fewer. */
static int cores_wanted(int found)
{
    const char *raw;
    long want;

    switch (cmdline_long("smp", 1, found, &want)) {
    case CMDLINE_ABSENT:
        return found;
    case CMDLINE_OK:
        return want;
    case CMDLINE_RANGE:
        cmdline_get("smp", &raw);
        if (want == found) {
            printk("smp: smp=%s is more than the %d cores present; using "
                   "%d\n", raw, found, found);
            return found;
        }
        printk("smp: smp=%s is not a core count (1..%d); using all %d\n",
               raw, found, found);
        return found;
    default:
        cmdline_get("smp", &raw);
        printk("smp: smp=%s is not a number; using all %d cores\n", raw,
               found);
        return found;
    }
}

static struct cpu *new_cpu(int id, uint32_t hwid)
{
    size_t pages = (sizeof(struct cpu) + PAGE_SIZE - 1) / PAGE_SIZE;
    uint64_t pa = mem_alloc_pages(pages);
    struct cpu *c;

    if (!pa)
        panic("smp_init: no memory for per-CPU blocks");
    c = phys_to_virt(pa);
    c->id = id;
    c->hwid = hwid;
    return c;
}

/*
 * Do the cores' counters agree?  Every core reads its counter under one
 * lock, over and over, and compares it with the last value any core read:
 * with counters in step it never goes backwards (Linux's tsc_sync check).
 * sp_nanotime relies on it when a G moves between cores.
 */
#define SYNC_ROUNDS 2000

static struct spinlock sync_lock = SPINLOCK_INIT(LOCK_CYCLE_SYNC);
static uint64_t sync_last, sync_warp;

static void cycles_sync_check(void *arg)
{
    for (int i = 0; i < SYNC_ROUNDS; i++) {
        unsigned long f = spin_lock(&sync_lock);
        uint64_t now = arch_cycles();

        if (now < sync_last && sync_last - now > sync_warp)
            sync_warp = sync_last - now;
        sync_last = now;
        spin_unlock(&sync_lock, f);
    }
}

void smp_check_cycles(void)
{
    if (ncpu < 2)
        return;
    smp_call_all(cycles_sync_check, NULL);
    if (sync_warp)
        printk("smp: WARNING: the cores' cycle counters disagree by up to "
               "%lu cycles; time may step back when a G changes cores\n",
               (unsigned long)sync_warp);
    else
        printk("smp: cycle counters agree on all %d cores\n", ncpu);
}

/*
 * A core that has not checked in by the deadline is abandoned: its state
 * word is CAS'd from WAITING to ABANDONED, and if it arrives later it
 * loses the CAS in smp_ap_arrive and stops itself instead of joining.
 */
enum { AP_WAITING, AP_ARRIVED, AP_ABANDONED };

static int ap_state[MAXCPU];

bool smp_ap_arrive(int i)
{
    int waiting = AP_WAITING;

    /* Pairs with the CAS in smp_ap_wait: exactly one of them wins. */
    return __atomic_compare_exchange_n(&ap_state[i], &waiting, AP_ARRIVED,
                                       false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

bool smp_ap_arrived(int i)
{
    return __atomic_load_n(&ap_state[i], __ATOMIC_ACQUIRE) != AP_WAITING;
}

void smp_ap_wait(struct cpu **cpus, int n)
{
    uint64_t deadline = arch_cycles() +
                        arch_cycles_hz() / 1000 * SMP_AP_TIMEOUT_MS;

    for (int i = 1; i < n; i++) {
        int waiting = AP_WAITING;

        /* Pairs with the store-release of online in cpu_main. */
        while (!__atomic_load_n(&cpus[i]->online, __ATOMIC_ACQUIRE) &&
               arch_cycles() < deadline)
            arch_cpu_relax();
        if (__atomic_load_n(&cpus[i]->online, __ATOMIC_ACQUIRE))
            continue;
        if (__atomic_compare_exchange_n(&ap_state[i], &waiting, AP_ABANDONED,
                                        false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            printk("smp: cpu %d (" ARCH_HWID_NAME " %u) did not start "
                   "within %d ms; going on without it\n", i, cpus[i]->hwid,
                   SMP_AP_TIMEOUT_MS);
        else
            panic("arch_start_cpus: cpu %d (" ARCH_HWID_NAME " %u) started "
                  "but never came online", i, cpus[i]->hwid);
    }
}

int smp_init(void)
{
    uint32_t hwid[MAXCPU];
    int found = arch_discover_cpus(hwid, MAXCPU);
    int n = cores_wanted(found);
    int online = 1;

    cpus[0]->hwid = hwid[0];
    for (int i = 1; i < n; i++)
        cpus[i] = new_cpu(i, hwid[i]);
    arch_start_cpus(cpus, n);
    /* Close the gaps left by cores that did not start; they are idle. */
    for (int i = 1; i < n; i++) {
        if (!cpus[i]->online)
            continue;
        cpus[online] = cpus[i];
        cpus[online]->id = online;
        online++;
    }
    __atomic_store_n(&ncpu, online, __ATOMIC_RELEASE);
    return online;
}
