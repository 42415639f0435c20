/*
 * sys/stat.h - newlib's, plus lstat and mknod, which newlib declares
 * only for RTEMS, Cygwin and the SPU, and utimensat's UTIME_NOW and
 * UTIME_OMIT (Linux's values).  posix/fscalls.c has them.
 */
#ifndef SPINDLE_SYS_STAT_H
#define SPINDLE_SYS_STAT_H

#include_next <sys/stat.h>

#ifndef UTIME_NOW
#define UTIME_NOW   ((1L << 30) - 1L)
#define UTIME_OMIT  ((1L << 30) - 2L)
#endif

#ifdef __cplusplus
extern "C" {
#endif

int lstat(const char *__restrict path, struct stat *__restrict st);
int mknod(const char *path, mode_t mode, dev_t dev);

#ifdef __cplusplus
}
#endif

#endif
