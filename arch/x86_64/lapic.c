/*
 * lapic.c - the local APIC: identification, end of interrupt, IPIs.
 *
 * x2APIC mode (registers are MSRs 0x800 + offset/16, SDM Vol. 3A §11.12) is
 * used when CPUID offers it; otherwise xAPIC mode through the MMIO page at
 * the address in IA32_APIC_BASE.  QEMU's TCG offers only xAPIC.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"

#define APIC_ID     0x020
#define APIC_TPR    0x080
#define APIC_EOI    0x0B0
#define APIC_ISR    0x100     /* 8 registers, 0x10 apart: vectors 32 each */
#define APIC_SVR    0x0F0
#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define APIC_LVT_TIMER  0x320
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR  0x390
#define APIC_TIMER_DIV  0x3E0

#define LVT_MASKED          (1 << 16)
#define LVT_TSC_DEADLINE    (2 << 17)
#define MSR_TSC_DEADLINE    0x6E0
#define TIMER_DIV_1         0xB
#define CALIBRATE_US        1000
#define CALIBRATE_TRIES     8
/* Brackets within 1/250 of the interval: each spans an MMIO access, an
   exit to the emulator under QEMU (~1 us, 1,000 ppm of 1 ms); a host
   stall is milliseconds.  The rate only converts a deadline on the TSC
   into the one-shot count, so 0.4% is a 10 ms slice 40 us off; the
   clock itself is the TSC. */
#define CALIBRATE_ERR       250

#define APIC_BASE_ENABLE (1 << 11)
#define APIC_BASE_X2APIC (1 << 10)
#define ICR_PENDING      (1 << 12)
#define ICR_ASSERT       (1 << 14)
#define ICR_SELF         (1 << 18)
#define ICR_OTHERS       (3 << 18)
#define ICR_FIXED        0x000
#define ICR_NMI          0x400

static bool x2apic;
static bool tsc_deadline;       /* CPUID.1:ECX[24]: arm by TSC value */
static uint64_t lapic_hz;       /* LAPIC timer ticks per second, div 1 */
static volatile uint32_t *xapic;

static uint32_t apic_read(uint32_t reg)
{
    if (x2apic)
        return rdmsr(0x800 + (reg >> 4));
    return xapic[reg / 4];
}

static void apic_write(uint32_t reg, uint32_t v)
{
    if (x2apic)
        wrmsr(0x800 + (reg >> 4), v);
    else
        xapic[reg / 4] = v;
}

/*
 * The timer's rate: it counts down from the top for ~2 ms of TSC.  Start
 * and end are bracketed by TSC reads and a try the host stalled in is
 * retried, as tsc.c's PIT measurement is.
 */
static uint64_t lapic_measure(void)
{
    uint64_t span = arch_cycles_hz() / 1000000 * CALIBRATE_US;
    uint64_t best_hz = 0, best_err = UINT64_MAX;

    for (int i = 0; i < CALIBRATE_TRIES; i++) {
        uint64_t a0, b0, a1, b1, cycles, err;
        uint32_t left;

        a0 = arch_cycles();
        apic_write(APIC_TIMER_INIT, 0xFFFFFFFF);
        b0 = arch_cycles();
        while (arch_cycles() < b0 + span)
            arch_cpu_relax();
        a1 = arch_cycles();
        left = apic_read(APIC_TIMER_CUR);
        b1 = arch_cycles();
        apic_write(APIC_TIMER_INIT, 0);
        cycles = (a1 + b1) / 2 - (a0 + b0) / 2;
        err = (b0 - a0) + (b1 - a1);
        if (err < best_err) {
            best_err = err;
            best_hz = (__uint128_t)(0xFFFFFFFF - left) * arch_cycles_hz() /
                      cycles;
        }
        if (best_err <= span / CALIBRATE_ERR)
            break;
    }
    if (best_err > span / CALIBRATE_ERR)
        printk("lapic: timer rate uncertain by %lu ppm (the host kept "
               "stalling this CPU)\n", best_err * 1000000 / span);
    return best_hz;
}

void lapic_init(void)
{
    uint32_t r[4];
    uint64_t base = rdmsr(MSR_APIC_BASE);

    x86_cpuid(1, 0, r);
    x2apic = r[2] & (1 << 21);
    base |= APIC_BASE_ENABLE;
    if (x2apic)
        base |= APIC_BASE_X2APIC;
    wrmsr(MSR_APIC_BASE, base);
    xapic = (volatile uint32_t *)(base & 0xFFFFFF000UL);
    apic_write(APIC_TPR, 0);
    apic_write(APIC_SVR, 0x100 | VEC_SPURIOUS);
    tsc_deadline = r[2] & (1 << 24);
    apic_write(APIC_TIMER_DIV, TIMER_DIV_1);
    if (tsc_deadline) {
        apic_write(APIC_LVT_TIMER, LVT_TSC_DEADLINE | VEC_TIMER);
        return;
    }
    apic_write(APIC_LVT_TIMER, VEC_TIMER);      /* one-shot */
    if (!lapic_hz) {
        /* The boot core measures the rate once; it is the same bus clock
           on every core. */
        lapic_hz = lapic_measure();
        printk("lapic: timer %lu.%03lu MHz, one-shot mode\n",
               lapic_hz / 1000000, lapic_hz / 1000 % 1000);
    }
}

/*
 * One shot at TSC value `deadline`: written straight to the TSC-deadline
 * MSR when the CPU has it, else converted to LAPIC ticks from now.  A
 * deadline already past fires at once (1 tick).
 */
void arch_timer_arm(uint64_t deadline)
{
    uint64_t now, ticks;

    if (tsc_deadline) {
        wrmsr(MSR_TSC_DEADLINE, deadline);
        return;
    }
    if (!deadline) {
        apic_write(APIC_TIMER_INIT, 0);
        return;
    }
    now = arch_cycles();
    ticks = deadline > now ?
            (__uint128_t)(deadline - now) * lapic_hz / arch_cycles_hz() : 0;
    if (ticks > 0xFFFFFFFF)
        ticks = 0xFFFFFFFF;     /* fires early; the handler re-arms */
    apic_write(APIC_TIMER_INIT, ticks ? ticks : 1);
}

uint32_t lapic_id(void)
{
    uint32_t id = apic_read(APIC_ID);

    return x2apic ? id : id >> 24;
}

void lapic_eoi(void)
{
    apic_write(APIC_EOI, 0);
}

/*
 * Sends one interprocessor interrupt.  The mfence orders the caller's
 * prior stores before the IPI: a WRMSR to the x2APIC ICR is not
 * serializing (SDM Vol. 3A §11.12.3).
 */
void lapic_send(uint32_t apic_id, uint32_t icr_low)
{
    unsigned long f = arch_irq_save();

    __asm__ volatile("mfence" : : : "memory");
    if (x2apic) {
        wrmsr(0x830, (uint64_t)apic_id << 32 | icr_low);
    } else {
        /* Wait for the previous IPI to leave before writing a new one
           (as Linux does), not for this one after: the sender goes on
           at once, and the wait is almost always already over. */
        while (apic_read(APIC_ICR_LO) & ICR_PENDING)
            arch_cpu_relax();
        apic_write(APIC_ICR_HI, apic_id << 24);
        apic_write(APIC_ICR_LO, icr_low);
    }
    arch_irq_restore(f);
}

/* Raises vector on this core again (an interrupt trap() held while they
   were masked). */
void lapic_self(uint8_t vector)
{
    lapic_send(0, ICR_SELF | ICR_ASSERT | ICR_FIXED | vector);
}

void lapic_resend_in_service(void)
{
    /* Highest vector first: an EOI ends the highest one in service. */
    for (int r = 7; r >= 0; r--) {
        uint32_t isr = apic_read(APIC_ISR + 0x10 * r);

        while (isr) {
            int bit = 31 - __builtin_clz(isr);

            isr &= ~(1u << bit);
            lapic_eoi();
            lapic_self(32 * r + bit);
        }
    }
}

void arch_send_ipi(const struct cpu *c)
{
    lapic_send(c->arch.apic_id, ICR_ASSERT | ICR_FIXED | VEC_IPI);
}

void arch_send_ipi_others(void)
{
    lapic_send(0, ICR_OTHERS | ICR_ASSERT | ICR_FIXED | VEC_IPI);
}

void arch_stop_others(void)
{
    lapic_send(0, ICR_OTHERS | ICR_ASSERT | ICR_NMI);
}
