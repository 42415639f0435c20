/*
 * rtc_cmos.c - the wall clock from the CMOS RTC (see rtc_cmos.h).  Read
 * until two reads agree, so an update in the middle of a read is not
 * taken; BCD and 12-hour modes are decoded (status register B, bits 2
 * and 1), and the century comes from register 0x32 where it is sane.
 */
#include <stdbool.h>
#include "arch/arch.h"
#include "drivers/rtc_cmos.h"

#define REG_SEC         0x00
#define REG_MIN         0x02
#define REG_HOUR        0x04
#define REG_DAY         0x07
#define REG_MON         0x08
#define REG_YEAR        0x09
#define REG_A           0x0A
#define REG_B           0x0B
#define REG_CENTURY     0x32
#define A_UIP           0x80    /* update in progress */
#define B_BINARY        0x04    /* else BCD */
#define B_24H           0x02    /* else 12-hour, bit 7 of the hour = PM */
#define HOUR_PM         0x80

#define UIP_SPINS       1000000 /* bounded wait for an update to end */
#define AGREE_TRIES     100     /* reads until two agree, at most */

struct rtc_time {
    uint8_t sec, min, hour, day, mon, year, century;
};

static uint8_t cmos(uint16_t port, uint8_t reg)
{
    arch_pio_write8(port, reg); /* bit 7 clear: legacy NMIs stay enabled */
    return arch_pio_read8(port + 1);
}

static void read_once(uint16_t port, struct rtc_time *t)
{
    int spins = UIP_SPINS;

    while ((cmos(port, REG_A) & A_UIP) && --spins)
        ;
    t->sec = cmos(port, REG_SEC);
    t->min = cmos(port, REG_MIN);
    t->hour = cmos(port, REG_HOUR);
    t->day = cmos(port, REG_DAY);
    t->mon = cmos(port, REG_MON);
    t->year = cmos(port, REG_YEAR);
    t->century = cmos(port, REG_CENTURY);
}

static bool same(const struct rtc_time *a, const struct rtc_time *b)
{
    return a->sec == b->sec && a->min == b->min && a->hour == b->hour &&
           a->day == b->day && a->mon == b->mon && a->year == b->year;
}

static int bcd(uint8_t v)
{
    return (v & 0x0F) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, Howard Hinnant's
   days_from_civil). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
    long era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

uint64_t rtc_cmos_read(uint16_t port)
{
    struct rtc_time a, b;
    uint8_t regb;
    int hour, year, tries = AGREE_TRIES;
    bool pm;

    if (!ARCH_HAS_PIO)
        return 0;
    regb = cmos(port, REG_B);
    read_once(port, &b);
    do {
        a = b;
        read_once(port, &b);
    } while (!same(&a, &b) && --tries);
    if (!tries)
        return 0;               /* never read the same twice: garbage */
    pm = b.hour & HOUR_PM;
    b.hour &= ~HOUR_PM;
    if (!(regb & B_BINARY)) {
        b.sec = bcd(b.sec);
        b.min = bcd(b.min);
        b.hour = bcd(b.hour);
        b.day = bcd(b.day);
        b.mon = bcd(b.mon);
        b.year = bcd(b.year);
        b.century = bcd(b.century);
    }
    hour = b.hour;
    if (!(regb & B_24H))
        hour = hour % 12 + (pm ? 12 : 0);
    year = (b.century >= 19 && b.century <= 30 ? b.century : 20) * 100 +
           b.year;
    if (b.mon < 1 || b.mon > 12 || b.day < 1 || b.day > 31)
        return 0;               /* no RTC, or garbage */
    return (uint64_t)days_from_civil(year, b.mon, b.day) * 86400 +
           hour * 3600 + b.min * 60 + b.sec;
}
