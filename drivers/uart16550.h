/*
 * uart16550.h - a 16550-compatible UART: the console, transmitting by
 * polling, and receiving from its interrupt once the caller has routed
 * that.  The caller says where its registers are: in I/O space (the PC's
 * COM ports) or memory-mapped, registers `stride` bytes apart, as a
 * device tree's reg-shift and reg-io-width describe an MMIO one.
 *
 * Writing takes no interrupt, no lock and no memory, so it works from
 * the first instruction of the boot path and in the panic path.  Callers
 * serialize writes themselves (kernel/printk.c); reads are the receive
 * interrupt's handler's alone, and touch no register a write uses.
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

/*
 * Reads away what the receiver holds, then turns its interrupt on: IER's
 * received-data bit (the FIFO's trigger level is one byte, and a byte
 * left below it raises the character timeout), and MCR's OUT2, which on
 * a PC connects the UART's interrupt line to the bus.  The caller routes
 * the interrupt first: the line is edge-triggered on a PC, and an edge
 * raised before would be lost.  Nothing if the UART is not present.
 */
void uart16550_rx_enable(const struct uart16550 *u);

/*
 * Reads up to n received bytes into buf and returns how many (0: the
 * receiver is empty).  Emptying the receiver lowers its interrupt; a
 * handler of an edge-triggered line must read until 0, or the line stays
 * up and raises no new edge.  From that interrupt's handler.
 */
size_t uart16550_read(const struct uart16550 *u, char *buf, size_t n);

#endif
