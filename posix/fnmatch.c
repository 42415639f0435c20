/*
 * fnmatch.c - POSIX's fnmatch (<fnmatch.h>, which newlib declares but
 * does not build for these targets): 0 when string matches pattern,
 * FNM_NOMATCH otherwise.
 *
 * The pattern: `*` any run of characters, `?` any one, `[...]` one of a
 * set (`[!...]` or `[^...]` one not in it; ranges `a-z`; the classes
 * `[:alpha:]` and the others of <ctype.h>; a `]` first is a member), and
 * `\c` the character c itself unless FNM_NOESCAPE.  A `[` with no closing
 * `]` is an ordinary character.  Bytes are characters (the C locale).
 * The flags:
 *   FNM_PATHNAME     a `/` in string is matched only by a `/` in pattern
 *   FNM_PERIOD       a leading `.` (after a `/` too, with FNM_PATHNAME) is
 *                    matched only by a `.` in pattern
 *   FNM_CASEFOLD     letters match either case
 *   FNM_LEADING_DIR  pattern may match string up to a `/`
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

static int fold(int c, int flags)
{
    return flags & FNM_CASEFOLD ? tolower(c) : c;
}

static bool in_class(const char *name, size_t len, int c)
{
    static const struct { const char *name; int (*is)(int); } classes[] = {
        { "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
        { "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
        { "lower", islower }, { "print", isprint }, { "punct", ispunct },
        { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
    };

    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (strlen(classes[i].name) == len && !memcmp(classes[i].name, name, len))
            return classes[i].is(c);
    return false;
}

/*
 * The bracket expression at p (just past its `[`) against c: 1 or 0,
 * with *end past its `]`; -1 when it has no `]` (then `[` is literal).
 */
static int bracket(const char *p, int c, int flags, const char **end)
{
    bool neg = false, found = false, first = true;

    if (*p == '!' || *p == '^') {
        neg = true;
        p++;
    }
    for (;; first = false) {
        int lo, hi;

        if (!*p)
            return -1;
        if (*p == ']' && !first)
            break;
        if (*p == '[' && p[1] == ':') {
            const char *q = strstr(p + 2, ":]");

            if (q) {
                found |= in_class(p + 2, (size_t)(q - p - 2), c);
                p = q + 2;
                continue;
            }
        }
        if (*p == '\\' && !(flags & FNM_NOESCAPE) && p[1])
            p++;
        lo = (unsigned char)*p++;
        hi = lo;
        if (*p == '-' && p[1] && p[1] != ']') {
            p++;
            if (*p == '\\' && !(flags & FNM_NOESCAPE) && p[1])
                p++;
            hi = (unsigned char)*p++;
        }
        if (flags & FNM_CASEFOLD) {
            int l = tolower(c), u = toupper(c);

            found |= (l >= lo && l <= hi) || (u >= lo && u <= hi);
        } else {
            found |= c >= lo && c <= hi;
        }
    }
    *end = p + 1;
    return found != neg;
}

/* Whether s, at the start of string or just past a `/` (with
   FNM_PATHNAME), is a leading period that only a `.` may match. */
static bool leading_period(const char *s, const char *string, int flags)
{
    return *s == '.' && (flags & FNM_PERIOD) &&
           (s == string || ((flags & FNM_PATHNAME) && s[-1] == '/'));
}

static int match(const char *p, const char *s, const char *string, int flags)
{
    for (;;) {
        int c = (unsigned char)*p;

        switch (c) {
        case 0:
            if (!*s || ((flags & FNM_LEADING_DIR) && *s == '/'))
                return 0;
            return FNM_NOMATCH;
        case '?':
            if (!*s || (*s == '/' && (flags & FNM_PATHNAME)) ||
                leading_period(s, string, flags))
                return FNM_NOMATCH;
            p++;
            s++;
            continue;
        case '*':
            while (*p == '*')
                p++;
            if (leading_period(s, string, flags))
                return FNM_NOMATCH;
            /* Each place the rest could start, up to the next `/` when
               slashes must be matched by slashes. */
            for (;; s++) {
                if (!match(p, s, string, flags))
                    return 0;
                if (!*s || (*s == '/' && (flags & FNM_PATHNAME)))
                    return FNM_NOMATCH;
            }
        case '[': {
            const char *end;
            int r;

            if (!*s || (*s == '/' && (flags & FNM_PATHNAME)) ||
                leading_period(s, string, flags))
                return FNM_NOMATCH;
            r = bracket(p + 1, (unsigned char)*s, flags, &end);
            if (r >= 0) {
                if (!r)
                    return FNM_NOMATCH;
                p = end;
                s++;
                continue;
            }
            break;                      /* no `]`: a literal `[` */
        }
        case '\\':
            if (!(flags & FNM_NOESCAPE) && p[1]) {
                p++;
                c = (unsigned char)*p;
            }
            break;
        }
        if (fold(c, flags) != fold((unsigned char)*s, flags) || !*s)
            return FNM_NOMATCH;
        p++;
        s++;
    }
}

int fnmatch(const char *pattern, const char *string, int flags)
{
    return match(pattern, string, string, flags);
}
