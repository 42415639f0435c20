/*
 * acpi_env.c - what firmware/acpi.c needs from its user (acpi.h), for the
 * kernel on every arch: firmware tables are reached through the direct
 * map, which covers all RAM and the firmware's tables, and messages go
 * to the console.  (The host test supplies its own.)
 */
#include <stdarg.h>
#include "firmware/acpi.h"
#include "kernel/mem.h"
#include "kernel/printk.h"

void *acpi_map(uint64_t pa, size_t len)
{
    (void)len;
    /* Page 0 stays unmapped, the guard that makes a NULL dereference a
       fault: the BIOS data area's EBDA pointer there cannot be read, and
       the search for the RSDP goes on in the BIOS area alone. */
    if (pa < 4096)
        return NULL;
    return phys_to_virt(pa);
}

void acpi_log(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    printk("acpi: ");
    vprintk(fmt, ap);
    va_end(ap);
}
