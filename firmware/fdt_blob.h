/*
 * fdt_blob.h - what the files of the device tree parser share: the blob's
 * tokens and a checked view of its header.  Not for other users: they
 * have fdt.h.
 */
#ifndef FIRMWARE_FDT_BLOB_H
#define FIRMWARE_FDT_BLOB_H

#include <stdint.h>
#include "firmware/fdt.h"

/* Structure block tokens (DT spec v0.4 §5.4.1). */
enum {
    FDT_BEGIN_NODE = 1,
    FDT_END_NODE = 2,
    FDT_PROP = 3,
    FDT_NOP = 4,
    FDT_END = 9,
};

/* A blob whose header has been checked. */
struct view {
    const uint8_t *blob;
    const uint8_t *st;          /* structure block */
    uint32_t stsize;
    const char *str;            /* strings block */
    uint32_t strsize;
    uint32_t rsv;               /* offset of the reservation block */
    uint32_t total;
    const char *err;            /* why the last failure happened */
};

/*
 * For the walkers: the blob passed fdt_check, so trust its totalsize and
 * fill *v from its header.  0, or -FDT_ECORRUPT with v->err set.
 */
int fdt_view_open(struct view *v, const void *blob);

/*
 * Reads the token at off of the structure block; see fdt_blob.c.  The one
 * reader of the structure block: it returns a token only once all it
 * carries lies inside the blocks.
 */
int fdt_view_tag(struct view *v, int off, int *next);

#endif
