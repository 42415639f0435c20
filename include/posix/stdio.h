/*
 * stdio.h - newlib's <stdio.h>, plus POSIX.1-2008's getline and getdelim,
 * which newlib builds (as __getline and __getdelim) but declares only
 * under those names; posix/stdio.c gives them their POSIX names.
 */
#ifndef SPINDLE_STDIO_H
#define SPINDLE_STDIO_H

#include_next <stdio.h>

#if __POSIX_VISIBLE >= 200809
ssize_t getdelim(char **__restrict line, size_t *__restrict cap, int delim,
                 FILE *__restrict fp);
ssize_t getline(char **__restrict line, size_t *__restrict cap, FILE *__restrict fp);
#endif

#endif
