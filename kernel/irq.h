/*
 * irq.h - device interrupts: a small table from interrupt number to
 * handler, filled by drivers at start-up and read by the arch's trap path.
 *
 * A handler runs on the core the interrupt was aimed at, with interrupts
 * off, on the stack of whatever that core was running (a G, or the
 * scheduler).  It must not block, park or allocate; it may take
 * spinlocks, poll its device and hand Gs to the scheduler
 * (injectglist).  It must quiet a level-triggered source before it
 * returns.
 */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include <stdint.h>

/*
 * Takes a free interrupt number and installs fn(arg) as its handler;
 * returns the number, or -1 when all ARCH_NIRQ are taken.  From a G or
 * the boot path, before the device can raise it.
 */
int irq_alloc(void (*fn)(void *), void *arg);

/* Interrupts handled so far on number irq, on every core. */
uint64_t irq_count(int irq);

#endif
