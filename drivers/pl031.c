/*
 * pl031.c - the PL031 RTC (see pl031.h).
 */
#include "arch/arch.h"
#include "drivers/pl031.h"

#define RTCDR       0x000           /* data register: seconds */

uint64_t pl031_read(uintptr_t base)
{
    if (!base)
        return 0;
    return arch_mmio_read32(base + RTCDR);
}
