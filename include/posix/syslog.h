/*
 * syslog.h - the system log (POSIX).  Spindle has no log daemon:
 * posix/syslog.c writes each message that setlogmask lets through as
 * one line on the console (stderr), "ident: message", with the
 * LOG_PID and LOG_CONS options accepted and ignored.
 */
#ifndef _SYSLOG_H
#define _SYSLOG_H

#include <stdarg.h>
#include <sys/cdefs.h>

/* Priorities, in order of decreasing urgency. */
#define LOG_EMERG       0
#define LOG_ALERT       1
#define LOG_CRIT        2
#define LOG_ERR         3
#define LOG_WARNING     4
#define LOG_NOTICE      5
#define LOG_INFO        6
#define LOG_DEBUG       7
#define LOG_PRIMASK     0x07
#define LOG_PRI(p)      ((p) & LOG_PRIMASK)

/* Facilities: Linux's values; only passed through. */
#define LOG_KERN        (0 << 3)
#define LOG_USER        (1 << 3)
#define LOG_MAIL        (2 << 3)
#define LOG_DAEMON      (3 << 3)
#define LOG_AUTH        (4 << 3)
#define LOG_SYSLOG      (5 << 3)
#define LOG_LPR         (6 << 3)
#define LOG_NEWS        (7 << 3)
#define LOG_UUCP        (8 << 3)
#define LOG_CRON        (9 << 3)
#define LOG_AUTHPRIV    (10 << 3)
#define LOG_FTP         (11 << 3)
#define LOG_LOCAL0      (16 << 3)
#define LOG_LOCAL1      (17 << 3)
#define LOG_LOCAL2      (18 << 3)
#define LOG_LOCAL3      (19 << 3)
#define LOG_LOCAL4      (20 << 3)
#define LOG_LOCAL5      (21 << 3)
#define LOG_LOCAL6      (22 << 3)
#define LOG_LOCAL7      (23 << 3)

/* openlog's options. */
#define LOG_PID         0x01
#define LOG_CONS        0x02
#define LOG_ODELAY      0x04
#define LOG_NDELAY      0x08
#define LOG_NOWAIT      0x10
#define LOG_PERROR      0x20

#define LOG_MASK(p)     (1 << (p))
#define LOG_UPTO(p)     ((1 << ((p) + 1)) - 1)

__BEGIN_DECLS
void openlog(const char *ident, int option, int facility);
void syslog(int priority, const char *format, ...)
    __attribute__((__format__(__printf__, 2, 3)));
void vsyslog(int priority, const char *format, va_list ap);
void closelog(void);
/* The previous mask; a mask of 0 changes nothing. */
int setlogmask(int mask);
__END_DECLS

#endif
