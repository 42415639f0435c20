/*
 * rtc_cmos.h - the PC's CMOS real-time clock (MC146818 and its
 * successors in the chipset), read through its index and data ports.
 */
#ifndef DRIVERS_RTC_CMOS_H
#define DRIVERS_RTC_CMOS_H

#include <stdint.h>

/*
 * The RTC's date and time as seconds since 1970 (UTC if, as under QEMU,
 * the RTC keeps UTC), or 0 if there is no RTC at index port `port`
 * (data port port + 1; 0x70 on a PC), it reads as garbage, or the
 * platform has no port I/O.  Slow (it waits out an update in progress,
 * up to about a second, and reads until two reads agree); every wait is
 * bounded.  Leaves NMIs enabled (index bit 7 clear).
 */
uint64_t rtc_cmos_read(uint16_t port);

#endif
