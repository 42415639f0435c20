/*
 * pl011.c - the PL011 UART (see pl011.h).
 */
#include "arch/arch.h"
#include "drivers/pl011.h"

#define UARTDR      0x000
#define UARTFR      0x018
#define UARTCR      0x030
#define UARTIFLS    0x034
#define UARTIMSC    0x038
#define UARTICR     0x044
#define FR_RXFE     (1 << 4)        /* receive FIFO empty */
#define FR_TXFF     (1 << 5)        /* transmit FIFO full */
#define CR_UARTEN   (1 << 0)
#define CR_TXE      (1 << 8)
#define CR_RXE      (1 << 9)
#define IFLS_RX_MASK (7 << 3)       /* RXIFLSEL; 0: 1/8 full */
#define INT_RX      (1 << 4)        /* RXIM, RXIC */
#define INT_RT      (1 << 6)        /* RTIM, RTIC */
#define RX_DRAIN    64              /* bytes read away before enabling */

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

size_t pl011_read(const struct pl011 *u, char *buf, size_t n)
{
    size_t got = 0;

    if (!u->base)
        return 0;
    while (got < n && !(arch_mmio_read32(u->base + UARTFR) & FR_RXFE))
        buf[got++] = (char)arch_mmio_read32(u->base + UARTDR);
    return got;
}

void pl011_rx_enable(const struct pl011 *u)
{
    char junk[RX_DRAIN];

    if (!u->base)
        return;
    arch_mmio_write32(u->base + UARTCR, arch_mmio_read32(u->base + UARTCR) |
                      CR_RXE);
    pl011_read(u, junk, sizeof junk);
    arch_mmio_write32(u->base + UARTIFLS,
                      arch_mmio_read32(u->base + UARTIFLS) & ~IFLS_RX_MASK);
    arch_mmio_write32(u->base + UARTICR, INT_RX | INT_RT);
    arch_mmio_write32(u->base + UARTIMSC, arch_mmio_read32(u->base + UARTIMSC) |
                      INT_RX | INT_RT);
}
