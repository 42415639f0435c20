/*
 * cpio.c - the newc archive reader (cpio.h).
 *
 * An entry is a 110-byte header ("070701" and thirteen 8-digit hex
 * fields: ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
 * devminor, rdevmajor, rdevminor, namesize, check), the name of
 * namesize bytes with its NUL, padding to a multiple of 4 from the
 * header's start, then filesize bytes of data padded to 4.
 */
#include <stdbool.h>
#include <string.h>
#include "posix/cpio.h"

#define HDR_LEN     110
#define FIELD_LEN   8
enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE,
       F_DEVMAJOR, F_DEVMINOR, F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE,
       F_CHECK, NFIELDS };

static const char trailer[] = "TRAILER!!!";

void cpio_begin(struct cpio_reader *r, const void *base, size_t len)
{
    r->base = base;
    r->len = len;
    r->off = 0;
    r->end = 1;
    r->err = NULL;
}

static int bad(struct cpio_reader *r, const char *why)
{
    r->err = why;
    return r->end = -1;
}

/* The 8 hex digits at p as a number; false if one is not a digit. */
static bool hex8(const unsigned char *p, uint32_t *out)
{
    uint32_t v = 0;

    for (int i = 0; i < FIELD_LEN; i++) {
        unsigned c = p[i], d;

        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

static size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

int cpio_next(struct cpio_reader *r, struct cpio_entry *e)
{
    const unsigned char *h = r->base + r->off;
    uint32_t f[NFIELDS];
    size_t left = r->len - r->off, name_end, data_off;

    if (r->end != 1)
        return r->end;
    if (left < HDR_LEN)
        return bad(r, left ? "a header cut short" : "no trailer entry");
    if (memcmp(h, "07070", 5) != 0 || (h[5] != '1' && h[5] != '2'))
        return bad(r, "not a newc header (magic 070701)");
    for (int i = 0; i < NFIELDS; i++)
        if (!hex8(h + 6 + i * FIELD_LEN, &f[i]))
            return bad(r, "a header field that is not hexadecimal");
    if (f[F_NAMESIZE] < 1)
        return bad(r, "an empty name");
    if (f[F_NAMESIZE] > left - HDR_LEN)
        return bad(r, "a name past the archive's end");
    if (h[HDR_LEN + f[F_NAMESIZE] - 1] != '\0')
        return bad(r, "a name without its NUL");
    e->name = (const char *)h + HDR_LEN;
    e->namelen = strlen(e->name);
    if (e->namelen != f[F_NAMESIZE] - 1)
        return bad(r, "a NUL inside a name");
    name_end = pad4(HDR_LEN + (size_t)f[F_NAMESIZE]);
    if (name_end > left)
        return bad(r, "a name's padding past the archive's end");
    data_off = name_end;
    if (f[F_FILESIZE] > left - data_off)
        return bad(r, "data past the archive's end");
    e->mode = f[F_MODE];
    e->mtime = f[F_MTIME];
    e->data = h + data_off;
    e->size = f[F_FILESIZE];
    if (strcmp(e->name, trailer) == 0)
        return r->end = 0;
    /* The last entry's data padding may be missing at the very end. */
    data_off += e->size;
    r->off += pad4(data_off) <= left ? pad4(data_off) : left;
    return 1;
}
