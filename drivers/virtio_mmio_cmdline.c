/*
 * virtio_mmio_cmdline.c - the virtio_mmio.device= value (see
 * virtio_mmio_cmdline.h).  Every number is checked for overflow before
 * it is scaled or added, so no value wraps into an address it does not
 * say.
 */
#include <string.h>
#include "drivers/virtio_mmio_cmdline.h"
#include "kernel/fmt.h"

static unsigned digit(char c)
{
    if (c >= '0' && c <= '9')
        return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (unsigned)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return (unsigned)(c - 'A' + 10);
    return 16;
}

/* A decimal or 0x-hex number at *s, at most max; advances *s past it.
   False if there is none or it exceeds max. */
static bool number(const char **s, uint64_t max, uint64_t *out)
{
    const char *p = *s;
    unsigned base = 10, d;
    uint64_t v = 0;

    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (digit(*p) >= base)
        return false;
    for (; (d = digit(*p)) < base; p++) {
        if (v > (max - d) / base)
            return false;
        v = v * base + d;
    }
    *s = p;
    *out = v;
    return true;
}

bool virtio_mmio_cmdline_parse(const char *val, struct virtio_mmio_cmdline *d,
                               char *err, size_t errlen)
{
    const char *p = val ? val : "", *why;
    uint64_t size, base, line, id = 0;
    bool has_id = false;
    unsigned shift = 0;

    *d = (struct virtio_mmio_cmdline){ 0 };
    if (errlen)
        err[0] = '\0';
    if (!number(&p, UINT64_MAX, &size)) {
        why = "no size";
        goto bad;
    }
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    }
    if (size > VIRTIO_MMIO_MAX_SIZE >> shift ||
        (size << shift) < VIRTIO_MMIO_MIN_SIZE) {
        why = "the size is not 0x200 (512) to 1G bytes";
        goto bad;
    }
    size <<= shift;
    if (*p++ != '@' || !number(&p, UINT64_MAX, &base)) {
        why = "no @<baseaddr> after the size";
        goto bad;
    }
    if ((base & 3) || base > UINT64_MAX - size || base == 0) {
        why = "the base address is 0, not 4-byte aligned, or wraps";
        goto bad;
    }
    if (*p++ != ':' || !number(&p, VIRTIO_MMIO_MAX_LINE, &line) || !line) {
        why = "no :<irq> from 1 to 1023 after the base address";
        goto bad;
    }
    if (*p == ':') {
        p++;
        if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ||
            !number(&p, INT32_MAX, &id)) {
            why = "the :<id> is not a decimal number below 2^31";
            goto bad;
        }
        has_id = true;
    }
    if (*p != '\0') {
        why = "something follows the last field";
        goto bad;
    }
    *d = (struct virtio_mmio_cmdline){ base, size, (uint32_t)line,
                                       has_id ? (int32_t)id : -1 };
    return true;
bad:
    fmt_snprintf(err, errlen,
                 VIRTIO_MMIO_CMDLINE_KEY "=%.40s%s: %s; the device is ignored",
                 val ? val : "", val && strlen(val) > 40 ? "..." : "",
                 why);
    return false;
}
