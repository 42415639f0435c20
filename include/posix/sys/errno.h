/*
 * sys/errno.h - newlib's error numbers (which its <errno.h> includes),
 * plus those of the socket calls that newlib gives only with its Linux
 * extensions: a program tests for them beside EAFNOSUPPORT when a
 * socket of a kind the system lacks is refused.  newlib's numbers.
 */
#ifndef SPINDLE_SYS_ERRNO_H
#define SPINDLE_SYS_ERRNO_H

#include_next <sys/errno.h>

#ifndef ESOCKTNOSUPPORT
#define ESOCKTNOSUPPORT 124     /* socket type not supported */
#endif
#ifndef ESHUTDOWN
#define ESHUTDOWN       110     /* cannot send after socket shutdown */
#endif

#endif
