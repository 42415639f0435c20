/*
 * pl011.h - the Arm PL011 UART (ARM DDI 0183): the console, transmitting
 * by polling, and receiving from its interrupt once the caller has
 * routed that.  The firmware (or QEMU) has set the baud rate; init only
 * makes sure the UART and its transmitter are on.
 *
 * Writing takes no interrupt, no lock and no memory, so it works from
 * the first instruction of the boot path and in the panic path.  Callers
 * serialize writes themselves (kernel/printk.c); reads are the receive
 * interrupt's handler's alone.
 */
#ifndef DRIVERS_PL011_H
#define DRIVERS_PL011_H

#include <stddef.h>
#include <stdint.h>

struct pl011 {
    uintptr_t base;             /* its registers, mapped as device memory;
                                   0: none (writes are dropped) */
};

/* Records base in *u and turns the UART and its transmitter on. */
void pl011_init(struct pl011 *u, uintptr_t base);

/*
 * Writes n bytes, each '\n' as "\r\n", waiting while the transmit FIFO
 * is full before each byte, but only so long (a stuck UART then loses
 * bytes rather than hanging the caller).  Nothing before pl011_init.
 * Any context.
 */
void pl011_write(const struct pl011 *u, const char *s, size_t n);

/*
 * Turns the receiver on, reads away what it holds, and unmasks its
 * interrupts: receive (the FIFO at its lowest trigger level) and receive
 * timeout (bytes left below the level).  The interrupt line is level:
 * it stays up while received bytes wait.  Nothing before pl011_init.
 */
void pl011_rx_enable(const struct pl011 *u);

/*
 * Reads up to n received bytes into buf and returns how many (0: the
 * receive FIFO is empty); an empty FIFO lowers the receive interrupts.
 * From that interrupt's handler.
 */
size_t pl011_read(const struct pl011 *u, char *buf, size_t n);

#endif
