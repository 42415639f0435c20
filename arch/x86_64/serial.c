/*
 * serial.c - the 16550 UART at COM1, polled.  This is the console: the
 * kernel never takes an interrupt from it, so it works in the panic path
 * and before interrupts exist.
 */
#include "arch.h"
#include "x86.h"

#define COM1    0x3F8
#define THR     0       /* transmit holding (DLAB=0) */
#define IER     1
#define DLL     0       /* divisor latch (DLAB=1) */
#define DLM     1
#define FCR     2
#define LCR     3
#define MCR     4
#define LSR     5
#define LSR_THRE 0x20

static int present;

void serial_init(void)
{
    outb(COM1 + IER, 0);
    outb(COM1 + LCR, 0x80);     /* DLAB: divisor 1 = 115200 baud */
    outb(COM1 + DLL, 1);
    outb(COM1 + DLM, 0);
    outb(COM1 + LCR, 0x03);     /* 8N1 */
    outb(COM1 + FCR, 0x07);     /* FIFOs on and cleared */
    outb(COM1 + MCR, 0x03);
    /* A missing UART reads back 0xFF; then writes would spin forever. */
    present = inb(COM1 + LSR) != 0xFF;
}

static void putc_raw(char c)
{
    int spins = 100000;

    while (!(inb(COM1 + LSR) & LSR_THRE) && --spins)
        __asm__ volatile("pause");
    outb(COM1 + THR, c);
}

void arch_console_write(const char *s, size_t n)
{
    if (!present)
        return;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            putc_raw('\r');
        putc_raw(s[i]);
    }
}
