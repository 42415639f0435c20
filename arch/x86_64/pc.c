/*
 * pc.c - which of the PC's legacy devices stand behind arch.h: the
 * console is the 16550 UART at COM1 (port 0x3F8, ISA IRQ 4 for what it
 * receives), the wall clock the CMOS RTC at ports 0x70/0x71.  The
 * drivers are in drivers/.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "drivers/rtc_cmos.h"
#include "drivers/uart16550.h"
#include "kernel/console_in.h"
#include "kernel/cpu.h"
#include "kernel/irq.h"
#include "kernel/printk.h"

#define COM1        0x3F8
#define COM1_IRQ    4           /* ISA */
#define CMOS_INDEX  0x70
#define RX_ROUNDS   64          /* a receiver that never empties: give up */

/* Polled, so the console works in the panic path and before interrupts
   exist; arch_early_init calls serial_init first of all. */
static struct uart16550 com1 = {
    .base = COM1, .access = UART16550_PIO, .stride = 1,
};

void serial_init(void)
{
    uart16550_init(&com1);
}

void arch_console_write(const char *s, size_t n)
{
    uart16550_write(&com1, s, n);
}

/* COM1's receive interrupt, edge-triggered: reads until the receiver is
   empty, or no new edge would come. */
static void com1_rx(void *arg)
{
    char buf[16];
    size_t n;

    for (int i = 0; i < RX_ROUNDS &&
                    (n = uart16550_read(&com1, buf, sizeof buf)); i++)
        console_input(buf, n);
}

void arch_console_in_start(void)
{
    struct ioapic_pin pin;
    const char *why;
    int irq;

    if (!com1.present) {
        printk("console: input off: no UART at COM1\n");
        return;
    }
    if ((why = ioapic_isa_pin(COM1_IRQ, &pin))) {
        printk("console: input off: COM1's IRQ %d: %s\n", COM1_IRQ, why);
        return;
    }
    if ((irq = irq_alloc(com1_rx, NULL)) < 0) {
        printk("console: input off: no free device interrupt\n");
        return;
    }
    if ((why = ioapic_route(&pin, VEC_DEV0 + irq, cpus[0]->arch.apic_id))) {
        printk("console: input off: COM1's GSI %u: %s\n", pin.gsi, why);
        return;
    }
    uart16550_rx_enable(&com1);
}

uint64_t arch_wallclock(void)
{
    return rtc_cmos_read(CMOS_INDEX);
}
