/*
 * sys/stat.h - newlib's, plus lstat, which newlib declares only for
 * RTEMS, Cygwin and the SPU; until include/posix declares it
 * (ports/stopgap/README.md).
 */
#ifndef STOPGAP_SYS_STAT_H
#define STOPGAP_SYS_STAT_H

#include_next <sys/stat.h>

int lstat(const char *restrict path, struct stat *restrict st);

#endif
