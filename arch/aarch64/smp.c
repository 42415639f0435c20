/*
 * smp.c - finding the cores (device tree /cpus) and starting them with
 * PSCI CPU_ON (ARM DEN 0022 §5.6).
 *
 * Each core gets a start block (stack, struct cpu, the kernel's TTBR0
 * and its own TTBR1, for its core-local page) whose address is CPU_ON's
 * context id; it arrives in secondary_entry (entry.S) with the MMU off,
 * turns it on with those tables and calls ap_entry.  All cores are
 * started at once; kernel/smp.c waits for them and abandons those that
 * do not check in (smp_ap_wait).
 */
#include <string.h>
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/vm.h"

#define AP_STACK_SIZE   (64 * 1024)
#define PSCI_CPU_ON_64  0xC4000003

struct ap_start {
    uint64_t stack_top;
    struct cpu *cpu;
    uint64_t ttbr;              /* the kernel's tables */
    uint64_t ttbr1;             /* the core's own: its core-local page */
};
_Static_assert(offsetof(struct ap_start, stack_top) == AP_STACK_TOP, "");
_Static_assert(offsetof(struct ap_start, cpu) == AP_CPU, "");
_Static_assert(offsetof(struct ap_start, ttbr) == AP_TTBR, "");
_Static_assert(offsetof(struct ap_start, ttbr1) == AP_TTBR1, "");

void secondary_entry(void);

static struct ap_start starts[MAXCPU];
static uint64_t mpidr_of[MAXCPU];

int arch_discover_cpus(uint32_t *hwid, int max)
{
    const struct machine *m = boot_info->machine;
    uint64_t boot = mpidr_affinity();
    int n = 1;

    hwid[0] = mpidr_to_hwid(boot);
    mpidr_of[0] = boot;
    if (m->psci_conduit == MACH_CONDUIT_NONE) {
        printk("smp: no PSCI conduit in the firmware's tables; using the "
               "boot core only\n");
        return 1;
    }
    for (uint32_t i = 0; i < m->ncpus && n < max; i++) {
        const struct mach_cpu *c = &m->cpus[i];

        if (c->mpidr == boot)
            continue;
        if (c->enable != MACH_ENABLE_PSCI) {
            printk("smp: cpu with MPIDR 0x%lx has no PSCI enable-method; "
                   "not started\n", c->mpidr);
            continue;
        }
        mpidr_of[n] = c->mpidr;
        hwid[n++] = mpidr_to_hwid(c->mpidr);
    }
    return n;
}

/* First C code of a started core, on its own stack and page tables. */
void ap_entry(struct cpu *c)
{
    int i = c->id;

    if (!smp_ap_arrive(i))
        arch_stop_self();       /* abandoned: the boot core went on */
    c->stack_hi = starts[i].stack_top;
    c->stack_lo = c->stack_hi - AP_STACK_SIZE;
    arch_cpu_init(c);
    cpu_main(c);
}

static uint64_t mpidr_by_hwid(uint32_t hwid)
{
    for (int i = 0; i < MAXCPU; i++)
        if (mpidr_to_hwid(mpidr_of[i]) == hwid)
            return mpidr_of[i];
    return ~0UL;
}

void arch_start_cpus(struct cpu **cpus, int n)
{
    for (int i = 1; i < n; i++) {
        char *lo = vm_stack_alloc(AP_STACK_SIZE);
        uint64_t ttbr1 = mmu_local_ttbr();
        int64_t rc;

        if (!lo || !ttbr1)
            panic("arch_start_cpus: no memory for core stacks and tables");
        starts[i] = (struct ap_start){ (uint64_t)lo + AP_STACK_SIZE,
                                       cpus[i], mmu_kernel_ttbr(), ttbr1 };
        /* The core starts with its MMU and caches off: its start block
           (which may straddle two cache lines) must be in memory, not
           only in this core's cache.  Its code is: the boot loader
           cleaned the kernel image before jumping to it. */
        dcache_clean_poc(&starts[i], sizeof starts[i]);
        rc = psci_call(PSCI_CPU_ON_64, mpidr_by_hwid(cpus[i]->hwid),
                       (uint64_t)secondary_entry, (uint64_t)&starts[i]);
        if (rc)
            printk("smp: PSCI CPU_ON for MPIDR 0x%lx failed (%ld)\n",
                   mpidr_by_hwid(cpus[i]->hwid), (long)rc);
    }

    smp_ap_wait(cpus, n);
}
