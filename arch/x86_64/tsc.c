/*
 * tsc.c - the time-stamp counter as the arch cycle counter.
 *
 * Its rate comes from CPUID leaf 0x15 (crystal ratio) or 0x16 when the CPU
 * reports them, else it is measured against PIT channel 2 over 5 ms, the
 * gate-and-OUT2 method that works without interrupts (port 0x61).  QEMU's
 * qemu64 CPU has neither leaf, so the PIT is the usual path here.
 */
#include "arch.h"
#include "printk.h"
#include "x86.h"

#define PIT_HZ          1193182
#define CALIBRATE_MS    5

static uint64_t tsc_hz;

static uint64_t from_cpuid(void)
{
    uint32_t r[4];

    cpuid(0, 0, r);
    if (r[0] >= 0x15) {
        cpuid(0x15, 0, r);      /* eax/ebx = TSC/crystal ratio, ecx = Hz */
        if (r[0] && r[1] && r[2])
            return (uint64_t)r[2] * r[1] / r[0];
    }
    if (r[0] >= 0x16) {
        cpuid(0x16, 0, r);      /* eax = base MHz */
        if (r[0])
            return (uint64_t)r[0] * 1000000;
    }
    return 0;
}

static uint64_t from_pit(void)
{
    uint32_t latch = PIT_HZ * CALIBRATE_MS / 1000;
    uint64_t t0, t1;
    long spins = 0;

    outb(0x61, (inb(0x61) & ~0x02) | 0x01);    /* gate on, speaker off */
    outb(0x43, 0xB0);                          /* ch 2, lo/hi, mode 0 */
    outb(0x42, latch & 0xFF);
    outb(0x42, latch >> 8);
    t0 = arch_cycles();
    while (!(inb(0x61) & 0x20))                /* OUT2 goes high at 0 */
        if (++spins > 100000000)
            return 0;
    t1 = arch_cycles();
    return (t1 - t0) * 1000 / CALIBRATE_MS;
}

void tsc_calibrate(void)
{
    const char *how = "CPUID";

    tsc_hz = from_cpuid();
    if (!tsc_hz) {
        how = "PIT";
        tsc_hz = from_pit();
    }
    if (!tsc_hz) {
        how = "a guess (no PIT answered)";
        tsc_hz = 2000000000;
    }
    printk("tsc: %lu.%03lu MHz from %s, %s\n", tsc_hz / 1000000,
           tsc_hz / 1000 % 1000, how,
           arch_cycles_invariant() ? "invariant" :
           "not marked invariant (it may stop or drift in power states)");
}

bool arch_cycles_invariant(void)
{
    uint32_t r[4];

    cpuid(0x80000000, 0, r);
    if (r[0] < 0x80000007)
        return false;
    cpuid(0x80000007, 0, r);
    return r[3] & (1 << 8);     /* EDX[8]: invariant TSC */
}

uint64_t arch_cycles_hz(void)
{
    return tsc_hz;
}

void delay_us(uint64_t us)
{
    uint64_t end = arch_cycles() + tsc_hz / 1000000 * us;

    while (arch_cycles() < end)
        arch_cpu_relax();
}
