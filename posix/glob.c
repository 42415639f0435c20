/*
 * glob.c - POSIX's glob and globfree (<glob.h>: newlib's header, the
 * 4.4BSD glob_t; include/posix/glob.h adds POSIX's names), on the
 * directory calls (opendir, readdir, closedir) and lstat/stat of the
 * file system, or on the glob_t's own with GLOB_ALTDIRFUNC.
 *
 * The pattern is matched a path component at a time: a component with
 * no `*`, `?` or `[` is taken as it is (a backslash before a character
 * quotes it unless GLOB_NOESCAPE), one with them is matched by fnmatch
 * (FNM_PERIOD: a leading `.` only by a `.`) against each name its
 * directory holds; a path found is one that exists (lstat).  Matches
 * are sorted by strcmp unless GLOB_NOSORT; GLOB_MARK adds `/` to those
 * that are directories; GLOB_APPEND adds to gl_pathv, GLOB_DOOFFS keeps
 * gl_offs NULL slots in front of it, and gl_pathv ends in a NULL.
 * Nothing matched: the pattern itself with GLOB_NOCHECK, else
 * GLOB_NOMATCH.  A directory that cannot be read is passed to errfunc
 * (path, errno); a non-zero answer, or GLOB_ERR, stops the search with
 * GLOB_ABORTED (newlib's GLOB_ABEND); what was matched so far is kept.
 * GLOB_NOSPACE when memory runs out.  Not done: GLOB_BRACE, GLOB_TILDE,
 * GLOB_LIMIT (accepted, no effect).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct search {
    glob_t *g;
    int flags;
    int (*errfunc)(const char *, int);
    char **found;               /* this call's matches */
    size_t n, cap;
    int err;                    /* GLOB_NOSPACE, GLOB_ABORTED, or 0 */
    void *(*opendir)(const char *);
    struct dirent *(*readdir)(void *);
    void (*closedir)(void *);
    int (*lstat)(const char *, struct stat *);
    int (*stat)(const char *, struct stat *);
};

static void *sys_opendir(const char *path) { return opendir(path); }
static struct dirent *sys_readdir(void *d) { return readdir(d); }
static void sys_closedir(void *d) { closedir(d); }

static bool magic(const char *s, size_t len, int flags)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && !(flags & GLOB_NOESCAPE) && i + 1 < len)
            i++;
        else if (s[i] == '*' || s[i] == '?' || s[i] == '[')
            return true;
    }
    return false;
}

/* Appends path (len bytes) to the matches; GLOB_MARK's slash if asked. */
static void add(struct search *se, const char *path, size_t len)
{
    struct stat st;
    bool mark = (se->flags & GLOB_MARK) && len && path[len - 1] != '/' &&
                !se->stat(path, &st) && S_ISDIR(st.st_mode);
    char *s;

    if (se->n == se->cap) {
        size_t cap = se->cap ? se->cap * 2 : 16;
        char **f = realloc(se->found, cap * sizeof *f);

        if (!f) {
            se->err = GLOB_NOSPACE;
            return;
        }
        se->found = f;
        se->cap = cap;
    }
    if (!(s = malloc(len + mark + 1))) {
        se->err = GLOB_NOSPACE;
        return;
    }
    memcpy(s, path, len);
    if (mark)
        s[len++] = '/';
    s[len] = 0;
    se->found[se->n++] = s;
}

/* A component without magic, its quotes removed, onto path at len. */
static size_t literal(char *path, size_t len, const char *c, size_t clen, int flags)
{
    for (size_t i = 0; i < clen; i++) {
        if (c[i] == '\\' && !(flags & GLOB_NOESCAPE) && i + 1 < clen)
            i++;
        path[len++] = c[i];
    }
    path[len] = 0;
    return len;
}

/*
 * path[0..len) is a directory reached so far (empty: the current one);
 * pat what is left of the pattern.  Adds what matches.
 */
static void expand(struct search *se, char *path, size_t len, const char *pat)
{
    const char *slash;
    size_t clen;
    struct stat st;

    while (*pat == '/') {               /* slashes as they are */
        if (len + 1 >= PATH_MAX)
            return;
        path[len++] = *pat++;
        path[len] = 0;
    }
    if (!*pat) {
        if (len && !se->lstat(path, &st))
            add(se, path, len);
        return;
    }
    slash = strchr(pat, '/');
    clen = slash ? (size_t)(slash - pat) : strlen(pat);
    if (len + clen + 1 >= PATH_MAX)
        return;
    if (!magic(pat, clen, se->flags)) {
        expand(se, path, literal(path, len, pat, clen, se->flags), pat + clen);
        return;
    }

    char comp[NAME_MAX + 1];
    void *d;
    struct dirent *e;
    int fnflags = FNM_PERIOD | (se->flags & GLOB_NOESCAPE ? FNM_NOESCAPE : 0);

    if (clen > NAME_MAX)
        return;
    memcpy(comp, pat, clen);
    comp[clen] = 0;
    if (!(d = se->opendir(len ? path : "."))) {
        if ((se->errfunc && se->errfunc(len ? path : ".", errno)) ||
            (se->flags & GLOB_ERR))
            se->err = GLOB_ABORTED;
        return;
    }
    while (!se->err && (e = se->readdir(d))) {
        size_t nlen = strlen(e->d_name);

        if ((!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) && comp[0] != '.')
            continue;
        if (len + nlen + 1 >= PATH_MAX || fnmatch(comp, e->d_name, fnflags))
            continue;
        memcpy(path + len, e->d_name, nlen + 1);
        expand(se, path, len + nlen, pat + clen);
        path[len] = 0;
    }
    se->closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int glob(const char *restrict pattern, int flags, int (*errfunc)(const char *, int),
         glob_t *restrict g)
{
    struct search se = { .g = g, .flags = flags, .errfunc = errfunc };
    char path[PATH_MAX];
    size_t offs, old;
    char **v;

    if (!(flags & GLOB_APPEND)) {
        g->gl_pathc = 0;
        g->gl_matchc = 0;
        g->gl_pathv = NULL;
        if (!(flags & GLOB_DOOFFS))
            g->gl_offs = 0;
    }
    g->gl_flags = flags;
    g->gl_errfunc = errfunc;
    if (flags & GLOB_ALTDIRFUNC) {
        se.opendir = g->gl_opendir;
        se.readdir = g->gl_readdir;
        se.closedir = g->gl_closedir;
        se.lstat = g->gl_lstat;
        se.stat = g->gl_stat;
    } else {
        se.opendir = sys_opendir;
        se.readdir = sys_readdir;
        se.closedir = sys_closedir;
        se.lstat = lstat;
        se.stat = stat;
    }
    path[0] = 0;
    expand(&se, path, 0, pattern);
    if (!se.err && !se.n && (flags & GLOB_NOCHECK))
        add(&se, pattern, strlen(pattern));
    if (se.err == GLOB_NOSPACE)
        goto out;
    if (!(flags & GLOB_NOSORT) && se.n)
        qsort(se.found, se.n, sizeof *se.found, by_name);
    offs = flags & GLOB_DOOFFS ? (size_t)g->gl_offs : 0;
    old = g->gl_pathv ? (size_t)g->gl_pathc : 0;
    if (!(v = realloc(g->gl_pathv, (offs + old + se.n + 1) * sizeof *v))) {
        se.err = GLOB_NOSPACE;
        goto out;
    }
    if (!g->gl_pathv)
        for (size_t i = 0; i < offs; i++)
            v[i] = NULL;
    memcpy(v + offs + old, se.found, se.n * sizeof *v);
    v[offs + old + se.n] = NULL;
    g->gl_pathv = v;
    g->gl_pathc = (int)(old + se.n);
    g->gl_matchc = (int)se.n;
    free(se.found);
    if (se.err)
        return se.err;
    return se.n ? 0 : GLOB_NOMATCH;
out:
    for (size_t i = 0; i < se.n; i++)
        free(se.found[i]);
    free(se.found);
    return se.err;
}

void globfree(glob_t *g)
{
    size_t offs = g->gl_flags & GLOB_DOOFFS ? (size_t)g->gl_offs : 0;

    if (!g->gl_pathv)
        return;
    for (size_t i = 0; i < (size_t)g->gl_pathc; i++)
        free(g->gl_pathv[offs + i]);
    free(g->gl_pathv);
    g->gl_pathv = NULL;
    g->gl_pathc = 0;
}
