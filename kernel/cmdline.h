/*
 * cmdline.h - the kernel command line, parsed once at boot.
 *
 * Syntax: tokens separated by blanks (space, tab, newline), each either
 * `key=value` or a bare `key`.  Everything after the first standalone `--`
 * token belongs to the app and becomes its argv.  There is no quoting.
 *
 * cmdline_parse copies the line into a static buffer, so the caller's
 * string may go away afterwards; all returned strings point into that
 * buffer and stay valid until the next cmdline_parse.  Not thread-safe:
 * parse once on the boot core before anything else reads it.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>

/* Buffer size, NUL included: at most CMDLINE_MAX - 1 characters are kept. */
#define CMDLINE_MAX 1024

enum cmdline_status {
    CMDLINE_ABSENT,     /* key not on the command line */
    CMDLINE_OK,         /* *out holds the value */
    CMDLINE_BAD,        /* not a number (or overflows long); *out untouched */
    CMDLINE_RANGE,      /* a number outside [min,max]; *out clamped into it */
};

/*
 * Parses s, replacing whatever was parsed before.  NULL is an empty line.
 * A line longer than CMDLINE_MAX - 1 is cut, and the token the cut lands
 * in is dropped whole (so `smp=128` cannot become `smp=12`).
 */
void cmdline_parse(const char *s);

/* True if the last cmdline_parse had to cut its input. */
bool cmdline_truncated(void);

/* The (possibly cut) line as given; "" before any parse. */
const char *cmdline_raw(void);

/*
 * Looks key up among the tokens before `--`.  The last occurrence wins; a
 * bare key has the value "".  val may be NULL to test presence only.
 * Returns false (and leaves *val alone) if key is absent, NULL or "".
 */
bool cmdline_get(const char *key, const char **val);

/*
 * Every occurrence of key before `--`, first to last, for keys that may
 * come several times: start with *pos = 0; each call stores the next
 * occurrence's value in *val (a bare key: "") and returns true, and
 * false once there are no more (or key is NULL or "").
 */
bool cmdline_next(const char *key, int *pos, const char **val);

/*
 * Reads key as a long: optional '-', then decimal digits or 0x/0X and hex
 * digits, nothing else (no blanks, no suffixes).  Requires min <= max;
 * otherwise returns CMDLINE_BAD.  The caller reports problems, e.g.
 * "smp=abc is not a number; using 4".
 */
enum cmdline_status cmdline_long(const char *key, long min, long max,
                                 long *out);

/*
 * Fills argv with name (argv[0]) and the tokens after `--`, then a NULL.
 * max counts the NULL; extra tokens are dropped.  Returns argc, the number
 * of non-NULL entries (0 if max < 2, with argv[0] = NULL when max == 1).
 * The strings live in the cmdline buffer; a NULL name becomes "".
 */
int cmdline_argv(const char *name, char **argv, int max);

#endif
