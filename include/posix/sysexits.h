/*
 * sysexits.h - the BSD exit statuses (4.3BSD's sysexits(3)), which
 * daemons such as memcached exit with.  Values as on every BSD and Linux.
 */
#ifndef _SYSEXITS_H
#define _SYSEXITS_H

#define EX_OK           0       /* success */
#define EX__BASE        64
#define EX_USAGE        64      /* bad command line */
#define EX_DATAERR      65      /* bad input data */
#define EX_NOINPUT      66      /* an input file is missing or unreadable */
#define EX_NOUSER       67      /* no such user */
#define EX_NOHOST       68      /* no such host */
#define EX_UNAVAILABLE  69      /* a service is unavailable */
#define EX_SOFTWARE     70      /* an internal error */
#define EX_OSERR        71      /* a system error, such as fork failing */
#define EX_OSFILE       72      /* a system file is missing or bad */
#define EX_CANTCREAT    73      /* an output file cannot be created */
#define EX_IOERR        74      /* an I/O error */
#define EX_TEMPFAIL     75      /* a temporary failure: try again */
#define EX_PROTOCOL     76      /* a remote protocol error */
#define EX_NOPERM       77      /* permission denied */
#define EX_CONFIG       78      /* a configuration error */
#define EX__MAX         78

#endif
