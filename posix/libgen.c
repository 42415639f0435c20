/*
 * libgen.c - POSIX's dirname and basename (<libgen.h>; newlib names the
 * latter __xpg_basename), which newlib declares but does not build for
 * these targets.  Both work on the path's characters alone, touch no
 * file, and may write into path: dirname("a/b/") is "a", basename is
 * "b", a path of slashes alone gives "/", and NULL or "" gives ".".
 * What they return is path itself or a static string, as POSIX allows.
 */
#include <libgen.h>
#include <string.h>

/* The end of path with trailing slashes dropped (one kept if all). */
static size_t trimmed(const char *path)
{
    size_t n = strlen(path);

    while (n > 1 && path[n - 1] == '/')
        n--;
    return n;
}

char *dirname(char *path)
{
    static char dot[] = ".", slash[] = "/";
    size_t n;

    if (!path || !*path)
        return dot;
    n = trimmed(path);
    while (n > 0 && path[n - 1] != '/')     /* the last component */
        n--;
    if (n == 0)
        return dot;
    while (n > 1 && path[n - 1] == '/')     /* the slashes before it */
        n--;
    if (n == 1 && path[0] == '/')
        return slash;
    path[n] = 0;
    return path;
}

char *__xpg_basename(char *path)
{
    static char dot[] = ".";
    size_t n, start;

    if (!path || !*path)
        return dot;
    n = trimmed(path);
    path[n] = 0;
    if (n == 1 && path[0] == '/')
        return path;
    for (start = n; start > 0 && path[start - 1] != '/'; start--)
        ;
    return path + start;
}
