/*
 * pl011.c - the PL011 UART (see pl011.h).
 */
#include "arch/arch.h"
#include "drivers/pl011.h"

#define UARTDR      0x000
#define UARTFR      0x018
#define UARTCR      0x030
#define FR_TXFF     (1 << 5)        /* transmit FIFO full */
#define CR_UARTEN   (1 << 0)
#define CR_TXE      (1 << 8)

#define TXFF_SPINS  100000          /* bounded wait for FIFO room */

void pl011_init(struct pl011 *u, uintptr_t base)
{
    u->base = base;
    arch_mmio_write32(base + UARTCR, arch_mmio_read32(base + UARTCR) |
                      CR_UARTEN | CR_TXE);
}

static void putc_raw(uintptr_t base, char c)
{
    int spins = TXFF_SPINS;

    while ((arch_mmio_read32(base + UARTFR) & FR_TXFF) && --spins)
        arch_cpu_relax();
    arch_mmio_write32(base + UARTDR, (uint8_t)c);
}

void pl011_write(const struct pl011 *u, const char *s, size_t n)
{
    if (!u->base)
        return;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            putc_raw(u->base, '\r');
        putc_raw(u->base, s[i]);
    }
}
