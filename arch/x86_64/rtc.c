/*
 * rtc.c - the wall clock at boot, from the CMOS real-time clock (MC146818,
 * ports 0x70/0x71).  Read twice until two reads agree, so an update in
 * the middle of a read is not taken; BCD and 12-hour modes are decoded
 * (status register B, bits 2 and 1).
 */
#include "arch.h"
#include "x86.h"

#define CMOS_ADDR 0x70
#define CMOS_DATA 0x71

static uint8_t cmos(uint8_t reg)
{
    outb(CMOS_ADDR, reg);       /* bit 7 clear: legacy NMIs stay enabled */
    return inb(CMOS_DATA);
}

struct rtc_time {
    uint8_t sec, min, hour, day, mon, year, century;
};

static void read_once(struct rtc_time *t)
{
    int spins = 1000000;

    while ((cmos(0x0A) & 0x80) && --spins)  /* update in progress */
        ;
    t->sec = cmos(0x00);
    t->min = cmos(0x02);
    t->hour = cmos(0x04);
    t->day = cmos(0x07);
    t->mon = cmos(0x08);
    t->year = cmos(0x09);
    t->century = cmos(0x32);
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

uint64_t arch_wallclock(void)
{
    struct rtc_time a, b;
    uint8_t regb = cmos(0x0B);
    int hour, year;
    bool pm;

    read_once(&b);
    do {
        a = b;
        read_once(&b);
    } while (a.sec != b.sec || a.min != b.min || a.hour != b.hour ||
             a.day != b.day || a.mon != b.mon || a.year != b.year);
    pm = b.hour & 0x80;
    b.hour &= 0x7F;
    if (!(regb & 0x04)) {
        b.sec = bcd(b.sec);
        b.min = bcd(b.min);
        b.hour = bcd(b.hour);
        b.day = bcd(b.day);
        b.mon = bcd(b.mon);
        b.year = bcd(b.year);
        b.century = bcd(b.century);
    }
    hour = b.hour;
    if (!(regb & 0x02))
        hour = hour % 12 + (pm ? 12 : 0);
    year = (b.century >= 19 && b.century <= 30 ? b.century : 20) * 100 +
           b.year;
    if (b.mon < 1 || b.mon > 12 || b.day < 1 || b.day > 31)
        return 0;               /* no RTC, or garbage */
    return (uint64_t)days_from_civil(year, b.mon, b.day) * 86400 +
           hour * 3600 + b.min * 60 + b.sec;
}
