/*
 * tsc.c - the time-stamp counter as the arch cycle counter.
 *
 * Its rate comes from CPUID leaf 0x15 (crystal ratio) or 0x16 when the CPU
 * reports them, else it is measured against PIT channel 2 over 5 ms, the
 * gate-and-OUT2 method that works without interrupts (port 0x61).  QEMU's
 * qemu64 CPU has neither leaf, so the PIT is the usual path here.  A
 * machine without port 0x61 (QEMU's microvm has a PIT but no port B, and
 * a PC may gate channel 2 off) is measured against channel 0 instead,
 * whose gate is always on: its count is latched and read until 5 ms of
 * it have passed.
 *
 * A measurement is only as good as the two instants it brackets: under
 * QEMU the host may deschedule the vCPU for milliseconds between starting
 * the PIT and reading the TSC, or between OUT2 going high and the loop
 * seeing it (one such stall read 4836 MHz off a 2606 MHz TSC).  So each
 * instant is bracketed by TSC reads, a try whose brackets are wider than
 * CALIBRATE_ERR of the interval is retried, and the tightest of
 * CALIBRATE_TRIES wins.  Linux's quick_pit_calibrate checks its reads the
 * same way.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/printk.h"

#define PIT_HZ          1193182
#define CALIBRATE_MS    5
#define CALIBRATE_TRIES 8
#define CALIBRATE_ERR   1000    /* brackets within 1/1000 of the interval */

static uint64_t tsc_hz;

static uint64_t from_cpuid(void)
{
    uint32_t r[4];

    x86_cpuid(0, 0, r);
    if (r[0] >= 0x15) {
        x86_cpuid(0x15, 0, r);      /* eax/ebx = TSC/crystal ratio, ecx = Hz */
        if (r[0] && r[1] && r[2])
            return (uint64_t)r[2] * r[1] / r[0];
    }
    if (r[0] >= 0x16) {
        x86_cpuid(0x16, 0, r);      /* eax = base MHz */
        if (r[0])
            return (uint64_t)r[0] * 1000000;
    }
    return 0;
}

/*
 * One PIT measurement: TSC cycles in CALIBRATE_MS, in *cycles, give or
 * take *err; false if OUT2 never went high.
 */
static bool pit_once(uint64_t *cycles, uint64_t *err)
{
    uint32_t latch = PIT_HZ * CALIBRATE_MS / 1000;
    uint64_t a0, b0, low = 0, t, after;
    long spins = 0;

    /* Gate on, speaker off; channel 2, lo/hi byte, mode 0. */
    arch_pio_write8(0x61, (arch_pio_read8(0x61) & ~0x02) | 0x01);
    arch_pio_write8(0x43, 0xB0);
    arch_pio_write8(0x42, latch & 0xFF);
    a0 = arch_cycles();
    arch_pio_write8(0x42, latch >> 8);          /* counting starts */
    b0 = arch_cycles();
    for (;;) {
        t = arch_cycles();
        bool high = arch_pio_read8(0x61) & 0x20;    /* OUT2 high at 0 */

        after = arch_cycles();
        if (high)
            break;
        low = t;                /* still counting when this read began */
        if (++spins > 100000000)
            return false;
    }
    if (!low)
        low = b0;
    /* Start in [a0, b0], end in [low, after]. */
    *cycles = (low + after) / 2 - (a0 + b0) / 2;
    *err = (b0 - a0) + (after - low);
    return true;
}

/* Channel 0's count, latched. */
static uint16_t pit0_count(void)
{
    uint8_t lo;

    arch_pio_write8(0x43, 0x00);
    lo = arch_pio_read8(0x40);
    return lo | arch_pio_read8(0x40) << 8;
}

/*
 * pit_once against channel 0, counting down from 65536 in mode 2: the
 * ticks between two reads are their counts' difference (a period is
 * 55 ms, 11 times the interval).  False if the count does not move.
 */
static bool pit0_once(uint64_t *cycles, uint64_t *err)
{
    uint32_t want = PIT_HZ * CALIBRATE_MS / 1000, ticks = 0;
    uint64_t a0, b0, a, b;
    uint16_t c0;
    long spins = 0;

    arch_pio_write8(0x43, 0x34);                /* channel 0, lo/hi, mode 2 */
    arch_pio_write8(0x40, 0);
    arch_pio_write8(0x40, 0);                   /* 65536 */
    a0 = arch_cycles();
    c0 = pit0_count();
    b0 = arch_cycles();
    do {
        if (++spins > 10000000)
            return false;
        a = arch_cycles();
        ticks = (uint16_t)(c0 - pit0_count());
        b = arch_cycles();
    } while (ticks < want);
    /* Mode 0 with no count written: the counter waits, raising no IRQ 0. */
    arch_pio_write8(0x43, 0x30);
    /* Both reads are in their brackets; the ticks between them are exact
       to one tick either way. */
    *cycles = ((a + b) / 2 - (a0 + b0) / 2) * want / ticks;
    *err = (b0 - a0) + (b - a) + *cycles / want;
    return true;
}

/* Whether channel 2 can be gated and its OUT2 read: port B answers, and
   OUT2 is low once a mode 0 count is being loaded. */
static bool pit2_usable(void)
{
    if (arch_pio_read8(0x61) == 0xFF)
        return false;
    arch_pio_write8(0x61, (arch_pio_read8(0x61) & ~0x02) | 0x01);
    arch_pio_write8(0x43, 0xB0);
    return !(arch_pio_read8(0x61) & 0x20);
}

static uint64_t from_pit(void)
{
    uint64_t best = 0, best_err = UINT64_MAX, c, e;
    bool (*once)(uint64_t *, uint64_t *) = pit2_usable() ? pit_once
                                                          : pit0_once;

    for (int i = 0; i < CALIBRATE_TRIES; i++) {
        if (!once(&c, &e))
            return 0;
        if (e < best_err) {
            best = c;
            best_err = e;
        }
        if (best_err <= best / CALIBRATE_ERR)
            break;
    }
    if (best_err > best / CALIBRATE_ERR)
        printk("tsc: calibration uncertain by %lu ppm (the host kept "
               "stalling this CPU)\n", best_err * 1000000 / best);
    return best * 1000 / CALIBRATE_MS;
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

    x86_cpuid(0x80000000, 0, r);
    if (r[0] < 0x80000007)
        return false;
    x86_cpuid(0x80000007, 0, r);
    return r[3] & (1 << 8);     /* EDX[8]: invariant TSC */
}

uint64_t arch_cycles_hz(void)
{
    return tsc_hz;
}

uint64_t arch_run_clock(void)
{
    return arch_cycles();
}

void delay_us(uint64_t us)
{
    uint64_t end = arch_cycles() + tsc_hz / 1000000 * us;

    while (arch_cycles() < end)
        arch_cpu_relax();
}
