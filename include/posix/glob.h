/*
 * glob.h - newlib's <glob.h> (4.4BSD's glob_t and flags), plus the names
 * POSIX gives that it lacks: GLOB_NOESCAPE, GLOB_NOMATCH and
 * GLOB_ABORTED (newlib's GLOB_ABEND).  posix/glob.c gives their meaning.
 */
#ifndef SPINDLE_GLOB_H
#define SPINDLE_GLOB_H

#include_next <glob.h>

#define GLOB_NOESCAPE   0x2000  /* a backslash is an ordinary character */
#define GLOB_NOMATCH    (-3)    /* nothing matched, and no GLOB_NOCHECK */
#define GLOB_ABORTED    GLOB_ABEND  /* a directory could not be read */

#endif
