/*
 * efitime.c - calendar date to Unix time (efitime.h).
 */
#include "boot/efi/efitime.h"

static uint32_t leap(uint32_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

uint64_t efitime_to_unix(uint32_t year, uint32_t month, uint32_t day,
                         uint32_t hour, uint32_t minute, uint32_t second)
{
    static const uint8_t mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    uint64_t days = 0;

    if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 ||
        day > mdays[month - 1] + (month == 2 ? leap(year) : 0) ||
        hour > 23 || minute > 59 || second > 59)
        return 0;
    for (uint32_t y = 1970; y < year; y++)
        days += 365 + leap(y);
    for (uint32_t m = 1; m < month; m++)
        days += mdays[m - 1] + (m == 2 ? leap(year) : 0);
    days += day - 1;
    return ((days * 24 + hour) * 60 + minute) * 60 + second;
}
