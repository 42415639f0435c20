/*
 * sys/stat.h - newlib's, plus lstat and mknod, which newlib declares
 * only for RTEMS, Cygwin and the SPU.  posix/nofs.c has them.
 */
#ifndef SPINDLE_SYS_STAT_H
#define SPINDLE_SYS_STAT_H

#include_next <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

int lstat(const char *__restrict path, struct stat *__restrict st);
int mknod(const char *path, mode_t mode, dev_t dev);

#ifdef __cplusplus
}
#endif

#endif
