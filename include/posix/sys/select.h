/*
 * sys/select.h - newlib's fd_set and select(), with room for every
 * descriptor of the table (posix/fd.h: 1024), not newlib's 64.  select
 * and pselect are posix/poll.c's, on poll().
 */
#ifndef SPINDLE_SYS_SELECT_H
#define SPINDLE_SYS_SELECT_H

#ifndef FD_SETSIZE
#define FD_SETSIZE 1024
#endif

#include_next <sys/select.h>

#endif
