/*
 * smp.c - finding the cores (ACPI MADT, else the MP table) and starting them with
 * INIT-SIPI-SIPI (Intel SDM Vol. 3A §9.4.4, MP initialization).
 *
 * All APs are started at once: each one takes a ticket in the trampoline
 * to pick a boot stack, then finds its per-CPU block by APIC id.
 * kernel/smp.c waits for them and abandons those that do not check in
 * (smp_ap_wait); one that arrives later stops itself.
 */
#include <string.h>
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "firmware/acpi.h"
#include "firmware/mptable.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/vm.h"

#define AP_STACK_SIZE   (64 * 1024)
#define ICR_INIT        0x4500      /* INIT, level assert */
#define ICR_SIPI        0x4600      /* start-up, level assert */

extern const char ap_trampoline[], ap_trampoline_end[];
extern uint64_t tr_cr3, tr_stacks, tr_entry;
extern uint32_t tr_ticket;

static struct cpu **start_cpus;
static int nstart;
static uint64_t stack_tops[MAXCPU];

struct acpi_info acpi;             /* x86.h */

/*
 * Without ACPI's MADT, the MP specification's table (mptable.h), which
 * machines without ACPI (microvm with acpi=off, VMMs like Firecracker)
 * describe their cores in; `why` says why ACPI gave none.  Fills hwid
 * after the boot core's entry; returns the cores in all.
 */
static int cores_from_mptable(uint32_t *hwid, int max, const char *why)
{
    static struct mp_info mp;
    uint64_t pa = mp_find();
    int n = 1;

    if (!pa) {
        printk("acpi: %s, and no MP table; using the boot core only\n", why);
        return 1;
    }
    if (mp_parse(pa, &mp) < 0) {
        printk("acpi: %s; MP table: %s; using the boot core only\n", why,
               mp.error);
        return 1;
    }
    for (uint32_t i = 0; i < mp.ncpus && n < max; i++)
        if (mp.apic_ids[i] != hwid[0])
            hwid[n++] = mp.apic_ids[i];
    /* Its I/O APICs stand in for the MADT's, their GSIs numbered on in
       table order, as the MADT would number them. */
    _Static_assert(MP_MAX_IOAPIC <= ACPI_MAX_IOAPIC, "room for the I/O APICs");
    for (uint32_t i = 0, gsi = 0; i < mp.nioapic; i++) {
        acpi.ioapics[i] = (struct acpi_ioapic){
            .addr = mp.ioapics[i].addr, .gsi_base = gsi,
            .id = mp.ioapics[i].id };
        gsi += ioapic_pins(mp.ioapics[i].addr);
        acpi.nioapic = i + 1;
    }
    printk("acpi: %s; %d cores from the MP table\n", why, n);
    return n;
}

int arch_discover_cpus(uint32_t *hwid, int max)
{
    uint64_t rsdp = boot_info->rsdp ? boot_info->rsdp : acpi_find_rsdp_bios();
    uint32_t boot = lapic_id();
    const char *opt;
    int n = 1;

    hwid[0] = boot;
    if (cmdline_get("acpi", &opt) && !strcmp(opt, "off"))
        return cores_from_mptable(hwid, max, "off (acpi=off)");
    if (!rsdp)
        return cores_from_mptable(hwid, max, "no RSDP found");
    if (acpi_parse(rsdp, &acpi) < 0)
        return cores_from_mptable(hwid, max, acpi.error ? acpi.error
                                                        : "tables unusable");
    for (uint32_t i = 0; i < acpi.ncpus && n < max; i++)
        if (acpi.cpus[i].usable && acpi.cpus[i].apic_id != boot)
            hwid[n++] = acpi.cpus[i].apic_id;
    return n;
}

static uint32_t cpuid_apic_id(void)
{
    uint32_t r[4];

    x86_cpuid(0, 0, r);
    if (r[0] >= 0xB) {
        x86_cpuid(0xB, 0, r);
        if (r[1])               /* leaf 0xB valid: x2APIC id in edx */
            return r[3];
    }
    x86_cpuid(1, 0, r);
    return r[1] >> 24;
}

/* First C code of an AP, on the stack its ticket picked. */
void ap_entry(uint32_t ticket)
{
    uint32_t id = cpuid_apic_id();

    for (int i = 1; i < nstart; i++) {
        struct cpu *c = start_cpus[i];

        if (c->hwid != id)
            continue;
        if (!smp_ap_arrive(i))
            break;
        c->stack_hi = stack_tops[ticket];
        c->stack_lo = c->stack_hi - AP_STACK_SIZE;
        arch_cpu_init(c);
        cpu_main(c);
    }
    arch_stop_self();           /* abandoned, or not a core we know */
}

void arch_start_cpus(struct cpu **cpus, int n)
{
    if (n <= 1)
        return;
    start_cpus = cpus;
    nstart = n;
    for (int i = 0; i < n - 1; i++) {
        char *lo = vm_stack_alloc(AP_STACK_SIZE);

        if (!lo)
            panic("arch_start_cpus: no memory for AP stacks");
        stack_tops[i] = (uint64_t)lo + AP_STACK_SIZE;
    }
    memcpy((void *)TRAMPOLINE_PA, ap_trampoline,
           ap_trampoline_end - ap_trampoline);
    /* The parameters live in the copy, at the same offsets. */
#define TR(sym) (*(uint64_t *)(TRAMPOLINE_PA + ((char *)&sym - ap_trampoline)))
    TR(tr_cr3) = read_cr3();
    TR(tr_stacks) = (uint64_t)stack_tops;
    TR(tr_entry) = (uint64_t)ap_entry;
#undef TR

    /*
     * INIT, then two SIPIs 200 us apart.  The 10 ms wait after INIT that
     * the SDM's example uses is for pre-P6 parts; like Linux on modern
     * CPUs (and on every hypervisor) we skip it.
     */
    for (int i = 1; i < n; i++)
        lapic_send(cpus[i]->hwid, ICR_INIT);
    for (int k = 0; k < 2; k++) {
        for (int i = 1; i < n; i++)
            if (!smp_ap_arrived(i))
                lapic_send(cpus[i]->hwid, ICR_SIPI | TRAMPOLINE_PA >> 12);
        delay_us(200);
    }

    smp_ap_wait(cpus, n);
}
