/*
 * cmdline.c - the kernel command line: split once into tokens, then looked
 * up by key.  See cmdline.h for the syntax and contract.
 *
 * The line is kept twice: raw[] as given (for cmdline_raw and messages) and
 * tok[] with every blank turned into NUL, so that each token is a ready C
 * string and app argv entries can point straight into it.  Lookups walk the
 * token list; the line is at most 1 KiB, so nothing cleverer pays off.
 */
#include <stddef.h>
#include <string.h>
#include "kernel/cmdline.h"

/* A token needs a character and a separator, hence the bound. */
#define MAXTOK (CMDLINE_MAX / 2)

static char raw[CMDLINE_MAX];
static char tok[CMDLINE_MAX];
static char *toks[MAXTOK];
static int ntok;            /* tokens in toks[] */
static int nkey;            /* toks[0..nkey) are keys; app args follow `--` */
static bool truncated;

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Copies s into raw[], cutting it back to a token boundary if too long. */
static void copy(const char *s)
{
    size_t n = 0;

    while (n < CMDLINE_MAX - 1 && s[n] != '\0')
        n++;
    truncated = s[n] != '\0';
    /* A cut token is worse than none: smp=128 must not turn into smp=12. */
    if (truncated && !blank(s[n])) {
        while (n > 0 && !blank(s[n - 1]))
            n--;
    }
    memcpy(raw, s, n);
    raw[n] = '\0';
}

static void split(void)
{
    char *p = tok;

    memcpy(tok, raw, sizeof(tok));
    while (*p != '\0') {
        if (blank(*p)) {
            *p++ = '\0';
            continue;
        }
        toks[ntok++] = p;
        while (*p != '\0' && !blank(*p))
            p++;
    }
    nkey = ntok;
    for (int i = 0; i < ntok; i++) {
        if (strncmp(toks[i], "--", 3) == 0) {
            nkey = i;
            break;
        }
    }
}

void cmdline_parse(const char *s)
{
    ntok = 0;
    nkey = 0;
    copy(s != NULL ? s : "");
    split();
}

bool cmdline_truncated(void)
{
    return truncated;
}

const char *cmdline_raw(void)
{
    return raw;
}

/* Length of a token's key: everything before the first '='. */
static size_t keylen(const char *t)
{
    size_t n = 0;

    while (t[n] != '\0' && t[n] != '=')
        n++;
    return n;
}

bool cmdline_get(const char *key, const char **val)
{
    size_t n;

    if (key == NULL || key[0] == '\0')
        return false;
    n = strlen(key);
    for (int i = nkey - 1; i >= 0; i--) {
        const char *t = toks[i];

        if (keylen(t) != n || strncmp(t, key, n) != 0)
            continue;
        if (val != NULL)
            *val = t[n] == '=' ? t + n + 1 : t + n;
        return true;
    }
    return false;
}

bool cmdline_next(const char *key, int *pos, const char **val)
{
    size_t n;

    if (key == NULL || key[0] == '\0' || *pos < 0)
        return false;
    n = strlen(key);
    while (*pos < nkey) {
        const char *t = toks[(*pos)++];

        if (keylen(t) == n && strncmp(t, key, n) == 0) {
            *val = t[n] == '=' ? t + n + 1 : t + n;
            return true;
        }
    }
    return false;
}

/* Value of a hex or decimal digit, or 16 if c is neither. */
static unsigned digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 16;
}

/* Strict strtol: the whole string must be one number that fits a long. */
static bool number(const char *s, long *v)
{
    const unsigned long lmax = (unsigned long)-1 >> 1;
    unsigned long lim, acc = 0;
    unsigned base = 10;
    bool neg = false;

    if (*s == '-') {
        neg = true;
        s++;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (*s == '\0')
        return false;
    lim = neg ? lmax + 1 : lmax;
    for (; *s != '\0'; s++) {
        unsigned d = digit(*s);

        if (d >= base || acc > (lim - d) / base)
            return false;
        acc = acc * base + d;
    }
    /* -(long)acc would overflow for LONG_MIN, so negate one short of it. */
    *v = neg && acc > 0 ? -(long)(acc - 1) - 1 : (long)acc;
    return true;
}

enum cmdline_status cmdline_long(const char *key, long min, long max,
                                 long *out)
{
    const char *s;
    long v;

    if (!cmdline_get(key, &s))
        return CMDLINE_ABSENT;
    if (min > max || !number(s, &v))
        return CMDLINE_BAD;
    if (v < min || v > max) {
        *out = v < min ? min : max;
        return CMDLINE_RANGE;
    }
    *out = v;
    return CMDLINE_OK;
}

int cmdline_argv(const char *name, char **argv, int max)
{
    int argc = 0;

    if (argv == NULL || max <= 0)
        return 0;
    if (max >= 2) {
        /* C's argv is char **; the app is trusted not to write argv[0]. */
        argv[argc++] = (char *)(name != NULL ? name : "");
        for (int i = nkey + 1; i < ntok && argc < max - 1; i++)
            argv[argc++] = toks[i];
    }
    argv[argc] = NULL;
    return argc;
}
