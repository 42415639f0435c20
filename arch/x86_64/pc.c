/*
 * pc.c - which of the PC's legacy devices stand behind arch.h: the
 * console is the 16550 UART at COM1 (port 0x3F8), the wall clock the
 * CMOS RTC at ports 0x70/0x71.  The drivers are in drivers/.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "drivers/rtc_cmos.h"
#include "drivers/uart16550.h"

#define COM1        0x3F8
#define CMOS_INDEX  0x70

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

uint64_t arch_wallclock(void)
{
    return rtc_cmos_read(CMOS_INDEX);
}
