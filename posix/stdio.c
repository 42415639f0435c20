/*
 * stdio.c - POSIX.1-2008's getline and getdelim on newlib's own
 * (include/posix/stdio.h): *line is a malloc'd buffer of *cap bytes that
 * grows as needed; the length read, delimiter included, or -1 at end of
 * file or on error.
 */
#include <stdio.h>

ssize_t getdelim(char **restrict line, size_t *restrict cap, int delim, FILE *restrict fp)
{
    return __getdelim(line, cap, delim, fp);
}

ssize_t getline(char **restrict line, size_t *restrict cap, FILE *restrict fp)
{
    return __getline(line, cap, fp);
}
