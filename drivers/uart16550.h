/*
 * uart16550.h - a 16550-compatible UART, polled, transmit only (the
 * console).  The caller says where its registers are: in I/O space (the
 * PC's COM ports) or memory-mapped, registers `stride` bytes apart, as a
 * device tree's reg-shift and reg-io-width describe an MMIO one.
 *
 * It takes no interrupt, no lock and no memory, so it works from the
 * first instruction of the boot path and in the panic path.  Callers
 * serialize writes themselves (kernel/printk.c).
 */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum uart16550_access {
    UART16550_PIO,              /* port I/O (needs ARCH_HAS_PIO) */
    UART16550_MMIO8,            /* byte accesses to device memory */
    UART16550_MMIO32,           /* 32-bit accesses (reg-io-width 4) */
};

struct uart16550 {
    /* Filled by the caller: */
    uintptr_t base;             /* first register: a port, or an address
                                   mapped as device memory */
    enum uart16550_access access;
    uint8_t stride;             /* bytes between registers; 0 means 1 */
    /* Set by uart16550_init: */
    bool present;
};

/*
 * Programs the UART for 115200 baud 8N1 (divisor 1: the PC's 1.8432 MHz
 * clock), interrupts off, FIFOs on and cleared, DTR and RTS set, and
 * checks it is there: a missing UART reads its line status as 0xFF.
 * Returns (and records in u->present) whether it is; a port-I/O UART on
 * a platform without port I/O is missing.
 */
bool uart16550_init(struct uart16550 *u);

/*
 * Writes n bytes, each '\n' as "\r\n", waiting for room in the
 * transmitter before each byte, but only so long (a stuck UART then
 * loses bytes rather than hanging the caller).  Nothing if the UART is
 * not present.  Any context.
 */
void uart16550_write(const struct uart16550 *u, const char *s, size_t n);

#endif
