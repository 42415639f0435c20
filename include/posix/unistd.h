/*
 * unistd.h - newlib's <unistd.h>, plus the GNU get_current_dir_name,
 * which newlib does not have (posix/proc.c).
 */
#ifndef SPINDLE_UNISTD_H
#define SPINDLE_UNISTD_H

#include_next <unistd.h>

#if __GNU_VISIBLE
char *get_current_dir_name(void);
#endif

#endif
