/*
 * sys/random.h - getrandom() and getentropy() (Linux's names and flags;
 * posix/random.c says where the bytes come from).
 */
#ifndef _SYS_RANDOM_H
#define _SYS_RANDOM_H

#include <sys/cdefs.h>
#include <sys/types.h>

#define GRND_NONBLOCK   0x0001
#define GRND_RANDOM     0x0002
#define GRND_INSECURE   0x0004

__BEGIN_DECLS
ssize_t getrandom(void *buf, size_t len, unsigned flags);
int getentropy(void *buf, size_t len);
__END_DECLS

#endif
