/*
 * efitime.h - a calendar date and time (the fields of UEFI's EFI_TIME)
 * as seconds since 1970-01-01 00:00:00 UTC.  Pure C: the loader calls it
 * on the firmware clock's reading, tests/host/efitime_test.c on dates of
 * its own.
 */
#ifndef BOOT_EFI_EFITIME_H
#define BOOT_EFI_EFITIME_H

#include <stdint.h>

/*
 * The Unix time of year-month-day hour:minute:second in the proleptic
 * Gregorian calendar, read as UTC.  0 for a date before 1970 or a field
 * out of range (month 1-12, day 1 to the month's length, hour 0-23,
 * minute 0-59, second 0-59), so that a firmware clock that was never set
 * reads as "unknown".
 */
uint64_t efitime_to_unix(uint32_t year, uint32_t month, uint32_t day,
                         uint32_t hour, uint32_t minute, uint32_t second);

#endif
