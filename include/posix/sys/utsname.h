/*
 * sys/utsname.h - uname() (POSIX; newlib has none).  posix/proc.c fills
 * it: sysname "Spindle", the host name, and the arch as machine.
 */
#ifndef _SYS_UTSNAME_H
#define _SYS_UTSNAME_H

#include <sys/cdefs.h>

#define _UTSNAME_LENGTH 65

struct utsname {
    char sysname[_UTSNAME_LENGTH];
    char nodename[_UTSNAME_LENGTH];
    char release[_UTSNAME_LENGTH];
    char version[_UTSNAME_LENGTH];
    char machine[_UTSNAME_LENGTH];
    char domainname[_UTSNAME_LENGTH];   /* Linux's sixth: "(none)" */
};

__BEGIN_DECLS
int uname(struct utsname *u);
__END_DECLS

#endif
