/*
 * cpio.c - libFuzzer target for posix/cpio.c: any bytes as the packed
 * tree's archive, walked to its end.  Every entry must lie inside the
 * input, its name NUL-terminated at namelen; the walk must end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "posix/cpio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cpio_reader r;
    struct cpio_entry e;
    const uint8_t *end = data + size;
    size_t entries = 0;
    int k;

    cpio_begin(&r, data, size);
    while ((k = cpio_next(&r, &e)) == 1) {
        const uint8_t *name = (const uint8_t *)e.name, *d = e.data;

        if (name < data || name + e.namelen >= end || e.name[e.namelen] ||
            strlen(e.name) != e.namelen)
            abort();
        if (d < data || d > end || e.size > (size_t)(end - d))
            abort();
        if (++entries > size / 110 + 1)
            abort();            /* each entry takes a header's bytes */
    }
    if (k < 0 && !r.err)
        abort();
    if (cpio_next(&r, &e) != k)
        abort();
    return 0;
}
