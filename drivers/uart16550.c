/*
 * uart16550.c - the 16550 UART (see uart16550.h), register by register
 * as the National Semiconductor PC16550D data sheet names them.
 */
#include "arch/arch.h"
#include "drivers/uart16550.h"

#define THR     0       /* transmit holding (DLAB=0) */
#define RBR     0       /* receive buffer (DLAB=0) */
#define IER     1
#define IER_ERBFI 0x01  /* received data available (and its timeout) */
#define DLL     0       /* divisor latch (DLAB=1) */
#define DLM     1
#define FCR     2
#define LCR     3
#define MCR     4
#define MCR_DTR_RTS 0x03
#define MCR_OUT2 0x08   /* a PC's gate of the interrupt line */
#define LSR     5
#define LSR_DR  0x01    /* received data ready */
#define LSR_THRE 0x20

#define THRE_SPINS 100000       /* bounded wait for the transmitter */

static uint8_t reg_read(const struct uart16550 *u, int reg)
{
    uintptr_t a = u->base + (uintptr_t)reg * (u->stride ? u->stride : 1);

    if (u->access == UART16550_PIO)
        return arch_pio_read8((uint16_t)a);
    if (u->access == UART16550_MMIO32)
        return (uint8_t)arch_mmio_read32(a);
    return arch_mmio_read8(a);
}

static void reg_write(const struct uart16550 *u, int reg, uint8_t v)
{
    uintptr_t a = u->base + (uintptr_t)reg * (u->stride ? u->stride : 1);

    if (u->access == UART16550_PIO)
        arch_pio_write8((uint16_t)a, v);
    else if (u->access == UART16550_MMIO32)
        arch_mmio_write32(a, v);
    else
        arch_mmio_write8(a, v);
}

bool uart16550_init(struct uart16550 *u)
{
    u->present = false;
    if (u->access == UART16550_PIO && !ARCH_HAS_PIO)
        return false;
    reg_write(u, IER, 0);
    reg_write(u, LCR, 0x80);    /* DLAB: divisor 1 = 115200 baud */
    reg_write(u, DLL, 1);
    reg_write(u, DLM, 0);
    reg_write(u, LCR, 0x03);    /* 8N1 */
    reg_write(u, FCR, 0x07);    /* FIFOs on and cleared */
    reg_write(u, MCR, MCR_DTR_RTS);
    /* A missing UART reads back 0xFF; then writes would spin forever. */
    u->present = reg_read(u, LSR) != 0xFF;
    return u->present;
}

static void putc_raw(const struct uart16550 *u, char c)
{
    int spins = THRE_SPINS;

    while (!(reg_read(u, LSR) & LSR_THRE) && --spins)
        arch_cpu_relax();
    reg_write(u, THR, (uint8_t)c);
}

void uart16550_write(const struct uart16550 *u, const char *s, size_t n)
{
    if (!u->present)
        return;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            putc_raw(u, '\r');
        putc_raw(u, s[i]);
    }
}

size_t uart16550_read(const struct uart16550 *u, char *buf, size_t n)
{
    size_t got = 0;

    if (!u->present)
        return 0;
    while (got < n && (reg_read(u, LSR) & LSR_DR))
        buf[got++] = (char)reg_read(u, RBR);
    return got;
}

void uart16550_rx_enable(const struct uart16550 *u)
{
    char junk[16];
    int rounds = 64;            /* a receiver that never empties: give up */

    if (!u->present)
        return;
    while (uart16550_read(u, junk, sizeof junk) && --rounds)
        ;
    reg_write(u, MCR, MCR_DTR_RTS | MCR_OUT2);
    reg_write(u, IER, IER_ERBFI);
}
