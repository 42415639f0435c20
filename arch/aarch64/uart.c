/*
 * uart.c - the PL011 UART (ARM DDI 0183), polled.  This is the console:
 * the kernel never takes an interrupt from it, so it works in the panic
 * path and before interrupts exist.  The firmware (or QEMU) has set the
 * baud rate; we only make sure the transmitter is on.
 */
#include "arch.h"
#include "aarch64.h"

#define UARTDR      0x000
#define UARTFR      0x018
#define UARTCR      0x030
#define FR_TXFF     (1 << 5)        /* transmit FIFO full */
#define CR_UARTEN   (1 << 0)
#define CR_TXE      (1 << 8)

static uintptr_t uart;

void uart_init(uint64_t base)
{
    uart = base;
    mmio_write32(uart + UARTCR, mmio_read32(uart + UARTCR) | CR_UARTEN |
                 CR_TXE);
}

static void putc_raw(char c)
{
    int spins = 100000;

    while ((mmio_read32(uart + UARTFR) & FR_TXFF) && --spins)
        arch_cpu_relax();
    mmio_write32(uart + UARTDR, (uint8_t)c);
}

void arch_console_write(const char *s, size_t n)
{
    if (!uart)
        return;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            putc_raw('\r');
        putc_raw(s[i]);
    }
}
