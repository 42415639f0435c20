/*
 * aml.c - virtio-mmio devices in a DSDT (aml.h).
 *
 * Each DeviceOp (0x5B 0x82) found in the stream is checked as one: a
 * PkgLength that stays inside the stream, then a NameSeg.  Its body, up
 * to the first nested DeviceOp, must hold
 *   NameOp "_HID" StringPrefix "LNRO0005" NUL
 * and
 *   NameOp "_CRS" BufferOp PkgLength BufferSize <descriptors>
 * whose descriptors give the window (Memory32Fixed, or a 32- or 64-bit
 * fixed memory range of the address-space kinds) and the interrupt (the
 * extended interrupt descriptor's first number).  A scan byte by byte
 * can meet 0x5B 0x82 inside some other object's data; what follows must
 * then pass every check above, or it is skipped.
 */
#include <string.h>
#include "firmware/aml.h"

#define DEVICE_OP0   0x5B
#define DEVICE_OP1   0x82
#define NAME_OP      0x08
#define STRING_OP    0x0D
#define BUFFER_OP    0x11
#define BYTE_OP      0x0A
#define WORD_OP      0x0B
#define DWORD_OP     0x0C

static uint32_t le(const uint8_t *p, int n)
{
    uint32_t v = 0;

    while (n--)
        v = v << 8 | p[n];
    return v;
}

/* A PkgLength at p (inside [p, end)): the length it encodes, which counts
   its own bytes, and how many those are in *nb; 0 if malformed. */
static size_t pkglen(const uint8_t *p, const uint8_t *end, int *nb)
{
    int follow = p[0] >> 6;
    size_t v;

    *nb = 1 + follow;
    if (end - p < *nb)
        return 0;
    if (!follow)
        return p[0] & 0x3F;
    if (p[0] & 0x30)            /* bits 5-4 must be 0 with followers */
        return 0;
    v = p[0] & 0x0F;
    for (int i = 1; i <= follow; i++)
        v |= (size_t)p[i] << (4 + 8 * (i - 1));
    return v;
}

static int name_char(uint8_t c, int first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (!first && c >= '0' &&
                                                  c <= '9');
}

/* The object NameOp <name> inside [p, end): a pointer past the name,
   or NULL. */
static const uint8_t *find_name(const uint8_t *p, const uint8_t *end,
                                const char *name)
{
    for (; end - p >= 5; p++)
        if (p[0] == NAME_OP && !memcmp(p + 1, name, 4))
            return p + 5;
    return NULL;
}

/* The resource descriptors of a buffer [p, end) into *d; false if they
   give no memory window. */
static int resources(const uint8_t *p, const uint8_t *end,
                     struct aml_mmio *d)
{
    int window = 0;

    while (p < end) {
        size_t n;

        if (!(p[0] & 0x80)) {               /* small descriptor */
            if ((p[0] >> 3) == 0x0F)        /* end tag */
                break;
            n = 1 + (p[0] & 7);
        } else {                            /* large: tag, 16-bit length */
            if (end - p < 3)
                break;
            n = 3 + le(p + 1, 2);
            if ((size_t)(end - p) < n)
                break;
            if (p[0] == 0x86 && n == 12) {          /* Memory32Fixed */
                d->base = le(p + 4, 4);
                d->size = le(p + 8, 4);
                window = 1;
            } else if (p[0] == 0x87 && n >= 26 && p[3] == 0) {
                /* DWord address space, memory: min at 10, length at 22 */
                d->base = le(p + 10, 4);
                d->size = le(p + 22, 4);
                window = 1;
            } else if (p[0] == 0x8A && n >= 46 && p[3] == 0) {
                /* QWord address space, memory: min at 14, length at 38 */
                d->base = le(p + 14, 4) | (uint64_t)le(p + 18, 4) << 32;
                d->size = le(p + 38, 4) | (uint64_t)le(p + 42, 4) << 32;
                window = 1;
            } else if (p[0] == 0x89 && n >= 9 && p[4] >= 1 && !d->gsi) {
                d->gsi = le(p + 5, 4);              /* extended interrupt */
            }
        }
        p += n;
    }
    return window && d->size;
}

/* The device whose body is [p, end), if it is a virtio-mmio one. */
static int virtio_device(const uint8_t *p, const uint8_t *end,
                         struct aml_mmio *d)
{
    static const uint8_t hid[] = { STRING_OP, 'L', 'N', 'R', 'O', '0', '0',
                                   '0', '5', 0 };
    const uint8_t *h, *c, *bend;
    size_t n;
    int nb;

    /* Up to a nested device: its names are its own. */
    for (const uint8_t *q = p; q + 1 < end; q++)
        if (q[0] == DEVICE_OP0 && q[1] == DEVICE_OP1) {
            end = q;
            break;
        }
    if (!(h = find_name(p, end, "_HID")) || end - h < (long)sizeof hid ||
        memcmp(h, hid, sizeof hid))
        return 0;
    if (!(c = find_name(p, end, "_CRS")) || c >= end || c[0] != BUFFER_OP)
        return 0;
    c++;
    if (c >= end || !(n = pkglen(c, end, &nb)) || n > (size_t)(end - c) ||
        (size_t)nb >= n)
        return 0;
    bend = c + n;
    c += nb;
    /* BufferSize: a byte, word or dword constant (or Zero/One). */
    if (c[0] == BYTE_OP)
        c += 2;
    else if (c[0] == WORD_OP)
        c += 3;
    else if (c[0] == DWORD_OP)
        c += 5;
    else if (c[0] <= 1)
        c += 1;
    else
        return 0;
    if (c > bend)
        return 0;
    *d = (struct aml_mmio){ 0 };
    return resources(c, bend, d);
}

int aml_virtio_mmio(const uint8_t *aml, size_t len, struct aml_mmio *out,
                    int max)
{
    const uint8_t *end = aml + len;
    int found = 0;

    for (const uint8_t *p = aml; end - p >= 7; p++) {
        const uint8_t *body, *bend;
        struct aml_mmio d;
        size_t n;
        int nb;

        if (p[0] != DEVICE_OP0 || p[1] != DEVICE_OP1)
            continue;
        n = pkglen(p + 2, end, &nb);
        if (!n || (size_t)nb + 4 > n || n > (size_t)(end - (p + 2)))
            continue;
        body = p + 2 + nb;
        bend = p + 2 + n;
        if (!name_char(body[0], 1) || !name_char(body[1], 0) ||
            !name_char(body[2], 0) || !name_char(body[3], 0))
            continue;
        if (!virtio_device(body + 4, bend, &d))
            continue;
        if (found < max)
            out[found] = d;
        found++;
    }
    return found;
}
