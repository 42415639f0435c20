/*
 * faultinject.c - injecting the faults of fault= (faultinject.h).
 *
 * The dice are one shared counter run through a mixer: taken only while
 * a fault is on, where a shared line costs nothing that matters.
 */
#include "arch/arch.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/faultinject.h"
#include "kernel/printk.h"
#include "sched/sched.h"

bool fault_armed;
struct faultcfg fault_cfg;

static uint64_t dice = 0x853c49e6748fea9bULL;
static struct fault_counts counts;

/* A uniform number in [0, n): splitmix64 over the shared counter. */
static uint32_t roll(uint32_t n)
{
    uint64_t z = __atomic_add_fetch(&dice, 0x9e3779b97f4a7c15ULL,
                                    __ATOMIC_RELAXED);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (uint32_t)(z % n);
}

void fault_init(void)
{
    const char *spec;
    char err[200];

    if (!cmdline_get("fault", &spec))
        return;
    faultcfg_parse(spec, &fault_cfg, err, sizeof err);
    if (err[0])
        printk("fault: %s; left out\n", err);
    if (!faultcfg_any(&fault_cfg))
        return;
    if (fault_cfg.alloc_permille || fault_cfg.ipi_pct || fault_cfg.timer_pct ||
        fault_cfg.stall_us)
        printk("fault: from main() on: alloc %u/1000, ipi %u%% for %u ms, "
               "timer %u%% by %u us, stall %u us\n", fault_cfg.alloc_permille,
               fault_cfg.ipi_pct, fault_cfg.ipi_ms, fault_cfg.timer_pct,
               fault_cfg.timer_us, fault_cfg.stall_us);
    if (faultcfg_link_any(&fault_cfg))
        printk("fault: from main() on, on the NIC's frames (in a thousand): "
               "rx drop %u dup %u corrupt %u reorder %u (held %u us at most), "
               "tx drop %u dup %u corrupt %u reorder %u (held %u us at "
               "most)\n",
               fault_cfg.rx.drop, fault_cfg.rx.dup, fault_cfg.rx.corrupt,
               fault_cfg.rx.reorder, fault_cfg.rx.hold_us, fault_cfg.tx.drop,
               fault_cfg.tx.dup, fault_cfg.tx.corrupt, fault_cfg.tx.reorder,
               fault_cfg.tx.hold_us);
}

void fault_arm(void)
{
    if (!faultcfg_any(&fault_cfg))
        return;
    if (fault_cfg.stall_us)
        sched_stall_set(fault_cfg.stall_us);
    if (faultcfg_link_any(&fault_cfg))
        __atomic_store_n(&fault_link_on, true, __ATOMIC_RELEASE);
    __atomic_store_n(&fault_armed, true, __ATOMIC_RELEASE);
}

bool fault_alloc_roll(void)
{
    if (this_cpu()->fault_held || roll(1000) >= fault_cfg.alloc_permille)
        return false;
    __atomic_add_fetch(&counts.allocs_failed, 1, __ATOMIC_RELAXED);
    return true;
}

void fault_ipi_roll(void)
{
    uint64_t end;

    if (roll(100) >= fault_cfg.ipi_pct)
        return;
    __atomic_add_fetch(&counts.ipis_deaf, 1, __ATOMIC_RELAXED);
    end = arch_cycles() + arch_cycles_hz() / 1000 * fault_cfg.ipi_ms;
    while (arch_cycles() < end)
        arch_cpu_relax();
}

uint64_t fault_timer_roll(void)
{
    if (roll(100) >= fault_cfg.timer_pct)
        return 0;
    __atomic_add_fetch(&counts.timers_delayed, 1, __ATOMIC_RELAXED);
    return arch_cycles_hz() / 1000000 * fault_cfg.timer_us;
}

void fault_hold(void)
{
    this_cpu()->fault_held++;
}

void fault_release(void)
{
    this_cpu()->fault_held--;
}

void fault_counts(struct fault_counts *c)
{
    c->allocs_failed = __atomic_load_n(&counts.allocs_failed, __ATOMIC_RELAXED);
    c->ipis_deaf = __atomic_load_n(&counts.ipis_deaf, __ATOMIC_RELAXED);
    c->timers_delayed = __atomic_load_n(&counts.timers_delayed,
                                        __ATOMIC_RELAXED);
    for (int k = 0; k < FK_KINDS; k++)
        c->rx[k] = c->tx[k] = 0;
    c->rx_data_lost = c->tx_data_lost = 0;
    fault_link_counts(c);
}
