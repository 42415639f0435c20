/*
 * cpu.c - per-core bring-up for aarch64: the per-CPU pointer, exception
 * vectors, the emergency stack, the GIC's CPU side and the timer; and
 * the initial context of a new G.
 */
#include <stddef.h>
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/fdt.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

_Static_assert(offsetof(struct cpu, arch.estack_top) == CPU_ESTACK,
               "vectors.S finds the emergency stack at CPU_ESTACK");
_Static_assert(offsetof(struct cpu, arch.entry_save) == CPU_ENTRY_SAVE,
               "vectors.S finds the entry save areas at CPU_ENTRY_SAVE");
_Static_assert(KIND_BAD < ENTRY_KINDS &&
               sizeof(((struct cpu *)0)->arch.entry_save) ==
                   ENTRY_KINDS * ENTRY_SAVE_SIZE,
               "an entry save area per exception kind");

static struct cpu boot_cpu;
static uint64_t boot_estack[ESTACK_SIZE / 8] __attribute__((aligned(16)));

uint64_t mpidr_affinity(void)
{
    /* Aff3 (bits 32-39) and Aff2..Aff0 (bits 0-23), as DT cpu reg. */
    return sysreg_read(mpidr_el1) & 0xFF00FFFFFFUL;
}

uint32_t mpidr_to_hwid(uint64_t mpidr)
{
    return (uint32_t)((mpidr & 0xFFFFFF) | (mpidr >> 32 & 0xFF) << 24);
}

uint32_t arch_cpu_hwid(void)
{
    return mpidr_to_hwid(mpidr_affinity());
}

static void set_this_cpu(struct cpu *c)
{
    c->self = c;
    sysreg_write(tpidr_el1, c);
}

/*
 * The boot core's per-CPU pointer and exception vectors, first thing in
 * C: even reading the device tree may fault (a bad blob address), and a
 * fault must reach the panic path, not an unset VBAR.
 */
void cpu_boot_early(void)
{
    cpus[0] = &boot_cpu;
    boot_cpu.arch.estack_top = (uint64_t)boot_estack + sizeof boot_estack;
    boot_cpu.arch.mpidr = mpidr_affinity();
    set_this_cpu(&boot_cpu);
    vectors_install();
}

/* The console is up (boot.c); the rest of the boot core's early state. */
void arch_early_init(struct bootinfo *bi)
{
    (void)bi;
    gtimer_init();
}

void arch_cpu_init(struct cpu *c)
{
    static bool dist_done;

    set_this_cpu(c);
    vectors_install();
    c->arch.mpidr = mpidr_affinity();
    if (c != &boot_cpu) {
        void *lo = vm_stack_alloc(ESTACK_SIZE);

        if (!lo)
            panic("arch_cpu_init: no memory for an emergency stack");
        c->arch.estack_top = (uint64_t)lo + ESTACK_SIZE;
    }
    if (!dist_done) {
        gic_init_dist();        /* boot core, before any other starts */
        dist_done = true;
    }
    gic_init_cpu();
    /* FIQs (the panic's stop) are never masked outside the vectors. */
    __asm__ volatile("msr daifclr, #1" : : : "memory");
}

/* Mirrors the frame arch_switch pops; see switch.S. */
struct switch_frame {
    uint64_t x19_28[10];
    uint64_t fp, lr;
    uint64_t d8_15[8];
    uint64_t fpcr, fpsr;
};

void arch_context_start(void);

void arch_switched_regs(const void *sp, uintptr_t *pc, uintptr_t *fp)
{
    const struct switch_frame *f = sp;

    *pc = f->lr;
    *fp = f->fp;
}

void arch_context_init(void **sp, uintptr_t stack_top, void (*fn)(void *),
                       void *arg)
{
    uintptr_t top = stack_top & ~15UL;
    struct switch_frame *f = (struct switch_frame *)(top - sizeof *f);

    _Static_assert(sizeof(struct switch_frame) == 176, "switch.S layout");
    /* FPCR 0: round to nearest, no traps, no flush-to-zero (reset). */
    *f = (struct switch_frame){
        .x19_28 = { (uint64_t)fn, (uint64_t)arg },
        .lr = (uint64_t)arch_context_start,
    };
    *sp = f;
}

/* The kernel's text is in the direct map, writable: each site's NOP
   becomes a B (imm26, +-128 MiB), cleaned to the point of unification
   and dropped from the instruction caches of the inner shareable domain
   (ARM ARM B2.2.5, "Concurrent modification and execution of
   instructions"); this core's ISB, and the other cores' exception that
   arch.h names, then fetch it anew. */
void arch_branch_enable(void)
{
    for (const struct arch_branch *b = __start_branch_sites;
         b < __stop_branch_sites; b++) {
        uint32_t *p = (uint32_t *)b->site;

        *p = 0x14000000u | ((uint32_t)((b->target - b->site) >> 2) &
                            0x03ffffffu);
        __asm__ volatile("dc cvau, %0" : : "r"(p) : "memory");
    }
    __asm__ volatile("dsb ish" : : : "memory");
    for (const struct arch_branch *b = __start_branch_sites;
         b < __stop_branch_sites; b++)
        __asm__ volatile("ic ivau, %0" : : "r"(b->site) : "memory");
    __asm__ volatile("dsb ish\n\tisb" : : : "memory");
}
