/*
 * pl031.h - the Arm PL031 real-time clock (ARM DDI 0224): its data
 * register counts seconds, which QEMU (and firmware on boards) keep as
 * seconds since 1970, UTC.
 */
#ifndef DRIVERS_PL031_H
#define DRIVERS_PL031_H

#include <stdint.h>

/*
 * The RTC's count at `base` (its registers, mapped as device memory),
 * in seconds since 1970; 0 if base is 0 (no RTC).  One 32-bit read:
 * callable from any context.
 */
uint64_t pl031_read(uintptr_t base);

#endif
