/*
 * fmt.c - the kernel's printf engine; see fmt.h for what it accepts.
 *
 * One pass over the format: literal text is copied, each %-spec is parsed
 * into a struct spec and rendered by emit_num or emit_str.  Output goes
 * through put/fill, which count every byte but store only those that fit,
 * so truncation needs no special case and the return value is exact.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "kernel/fmt.h"

#define INTMAX ((int)(~0u >> 1))

_Static_assert(sizeof(ptrdiff_t) == sizeof(size_t),
               "%zd is read as ptrdiff_t");

struct out {
    char *buf;
    size_t n;           /* buffer size: text goes in [0, n-1) */
    size_t len;         /* output length so far, stored or not */
};

enum { INT, LONG, LLONG, SIZE };

struct spec {
    bool left;          /* '-': pad on the right */
    bool zero;          /* '0': pad numbers with zeros */
    int width;
    int prec;           /* -1 when absent */
    int size;           /* INT, LONG, LLONG or SIZE */
    char conv;
};

/* Bytes that still fit, keeping one for the NUL. */
static size_t room(const struct out *o)
{
    return o->len + 1 < o->n ? o->n - 1 - o->len : 0;
}

static void put(struct out *o, char c)
{
    if (room(o) > 0)
        o->buf[o->len] = c;
    o->len++;
}

/* Appends k copies of c; a huge width costs no time past the buffer. */
static void fill(struct out *o, char c, size_t k)
{
    size_t r = room(o);

    if (r > 0)
        memset(o->buf + o->len, c, k < r ? k : r);
    o->len += k;
}

static void putstr(struct out *o, const char *s, size_t k)
{
    size_t r = room(o);

    if (r > 0)
        memcpy(o->buf + o->len, s, k < r ? k : r);
    o->len += k;
}

/* Emits k bytes of s (NULs included: %c of 0 is a byte), padded. */
static void emit_str(struct out *o, const struct spec *sp, const char *s,
                     size_t k)
{
    size_t pad = (size_t)sp->width > k ? sp->width - k : 0;

    if (!sp->left)
        fill(o, ' ', pad);
    putstr(o, s, k);
    if (sp->left)
        fill(o, ' ', pad);
}

/* Length of a %s argument; with a precision it need not be terminated. */
static size_t slen(const char *s, int prec)
{
    size_t k = 0;

    while ((prec < 0 || k < (size_t)prec) && s[k] != '\0')
        k++;
    return k;
}

static void emit_num(struct out *o, const struct spec *sp, uint64_t u,
                     bool neg)
{
    const char *xd = sp->conv == 'X' ? "0123456789ABCDEF"
                                     : "0123456789abcdef";
    unsigned base = sp->conv == 'o' ? 8 : 10;
    char d[24];         /* UINT64_MAX in octal is 22 digits */
    size_t nd = 0, zeros, body, pad;

    if (sp->conv == 'x' || sp->conv == 'X')
        base = 16;
    for (; u != 0; u /= base)
        d[nd++] = xd[u % base];
    /* C prints no digits at all for a zero value with precision 0. */
    if (nd == 0 && sp->prec != 0)
        d[nd++] = '0';
    zeros = sp->prec > 0 && (size_t)sp->prec > nd ? sp->prec - nd : 0;
    body = neg + zeros + nd;
    if (sp->zero && !sp->left && sp->prec < 0 && (size_t)sp->width > body) {
        zeros += sp->width - body;
        body = sp->width;
    }
    pad = (size_t)sp->width > body ? sp->width - body : 0;
    if (!sp->left)
        fill(o, ' ', pad);
    if (neg)
        put(o, '-');
    fill(o, '0', zeros);
    while (nd > 0)
        put(o, d[--nd]);
    if (sp->left)
        fill(o, ' ', pad);
}

/* Reads a decimal field, saturating so a silly width cannot wrap. */
static int number(const char **fp)
{
    const char *f = *fp;
    int v = 0;

    for (; *f >= '0' && *f <= '9'; f++) {
        int d = *f - '0';

        v = v > (INTMAX - d) / 10 ? INTMAX : v * 10 + d;
    }
    *fp = f;
    return v;
}

/* Parses flags, width, precision and length; f points past the '%'. */
static const char *parse(const char *f, struct spec *sp, va_list *ap)
{
    *sp = (struct spec){ .prec = -1, .size = INT };
    for (;; f++) {
        if (*f == '-')
            sp->left = true;
        else if (*f == '0')
            sp->zero = true;
        else
            break;
    }
    if (*f == '*') {
        int w = va_arg(*ap, int);

        f++;
        /* A negative '*' width means '-' (C99 7.19.6.1p5). */
        if (w < 0) {
            sp->left = true;
            w = w == -INTMAX - 1 ? INTMAX : -w;
        }
        sp->width = w;
    } else {
        sp->width = number(&f);
    }
    if (*f == '.') {
        f++;
        if (*f == '*') {
            f++;
            sp->prec = va_arg(*ap, int);
            if (sp->prec < 0)
                sp->prec = -1;
        } else {
            sp->prec = number(&f);
        }
    }
    while (*f == 'h')
        f++;
    if (*f == 'l') {
        sp->size = f[1] == 'l' ? LLONG : LONG;
        f += sp->size == LLONG ? 2 : 1;
    } else if (*f == 'z') {
        sp->size = SIZE;
        f++;
    }
    sp->conv = *f;
    return f;
}

static uint64_t uarg(int size, va_list *ap)
{
    switch (size) {
    case LONG:
        return va_arg(*ap, unsigned long);
    case LLONG:
        return va_arg(*ap, unsigned long long);
    case SIZE:
        return va_arg(*ap, size_t);
    default:
        return va_arg(*ap, unsigned int);
    }
}

static int64_t sarg(int size, va_list *ap)
{
    switch (size) {
    case LONG:
        return va_arg(*ap, long);
    case LLONG:
        return va_arg(*ap, long long);
    case SIZE:
        return va_arg(*ap, ptrdiff_t);
    default:
        return va_arg(*ap, int);
    }
}

/* Renders one conversion; returns false if sp->conv is not supported. */
static bool convert(struct out *o, const struct spec *sp, va_list *ap)
{
    const char *str;
    char p[2 + 16];
    uintptr_t v;
    int64_t s;

    switch (sp->conv) {
    case 'd':
    case 'i':
        s = sarg(sp->size, ap);
        /* Negate in unsigned arithmetic: -INT64_MIN does not fit. */
        emit_num(o, sp, s < 0 ? 0 - (uint64_t)s : (uint64_t)s, s < 0);
        return true;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
        emit_num(o, sp, uarg(sp->size, ap), false);
        return true;
    case 'c':
        p[0] = (char)va_arg(*ap, int);
        emit_str(o, sp, p, 1);
        return true;
    case 's':
        str = va_arg(*ap, const char *);
        if (str == NULL)
            str = "(null)";
        emit_str(o, sp, str, slen(str, sp->prec));
        return true;
    case 'p':
        v = (uintptr_t)va_arg(*ap, void *);
        p[0] = '0';
        p[1] = 'x';
        for (int i = 17; i >= 2; i--, v >>= 4)
            p[i] = "0123456789abcdef"[v & 15];
        emit_str(o, sp, p, sizeof(p));
        return true;
    case '%':
        put(o, '%');
        return true;
    default:
        return false;
    }
}

int fmt_vsnprintf(char *buf, size_t n, const char *f, va_list ap)
{
    struct out o = { buf, buf != NULL ? n : 0, 0 };
    struct spec sp;
    va_list aq;

    if (f == NULL)
        f = "(null)";
    /* A va_list parameter may be an array type; take a real object's
       address so the helpers can share the position. */
    va_copy(aq, ap);
    while (*f != '\0') {
        const char *start = f;
        const char *end;

        if (*f != '%') {
            put(&o, *f++);
            continue;
        }
        end = parse(f + 1, &sp, &aq);
        if (convert(&o, &sp, &aq)) {
            f = end + 1;
        } else {
            /* Unsupported: show the spec as written, up to the end. */
            f = *end != '\0' ? end + 1 : end;
            putstr(&o, start, f - start);
        }
    }
    va_end(aq);
    if (o.n > 0)
        o.buf[o.len < o.n ? o.len : o.n - 1] = '\0';
    return o.len > (size_t)INTMAX ? -1 : (int)o.len;
}

int fmt_snprintf(char *buf, size_t n, const char *f, ...)
{
    va_list ap;
    int r;

    va_start(ap, f);
    r = fmt_vsnprintf(buf, n, f, ap);
    va_end(ap);
    return r;
}
