/*
 * pl011.h - the Arm PL011 UART (ARM DDI 0183), polled, transmit only
 * (the console).  The firmware (or QEMU) has set the baud rate; init
 * only makes sure the UART and its transmitter are on.
 *
 * It takes no interrupt, no lock and no memory, so it works from the
 * first instruction of the boot path and in the panic path.  Callers
 * serialize writes themselves (kernel/printk.c).
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

#endif
