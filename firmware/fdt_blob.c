/*
 * fdt_blob.c - the device tree blob itself: its header, the reading of
 * one token, and fdt_check, which validates a whole blob.  See fdt.h for
 * the contract; fdt.c walks what this checked.
 *
 * The blob (DT spec v0.4 §5.2-§5.5): a header; the memory reservation
 * block, 16-byte <address size> pairs ending with 0,0; the structure
 * block, a stream of big-endian 32-bit tokens, each 4-byte aligned:
 *
 *   FDT_BEGIN_NODE name'\0' pad    FDT_PROP len nameoff value pad
 *   FDT_END_NODE   FDT_NOP         FDT_END (last)
 *
 * and the strings block, which holds the property names nameoff points at.
 *
 * Safety rests on one function: fdt_view_tag is the only reader of the
 * structure block, and it returns a token only once the token and all it
 * carries (name, property header and value, the property's name in the
 * strings block) lie inside their blocks.  fdt_check walks the whole
 * stream once with the structural rules (one root, balanced nodes, depth,
 * properties before subnodes, FDT_END), so the walkers may count on them.
 *
 * Offsets are ints: FDT_MAX_SIZE (1 GiB) keeps every sum below INT_MAX.
 */
#include <string.h>
#include "firmware/fdt_blob.h"

/* Header field offsets (§5.2); size_dt_struct is new in version 17. */
enum {
    H_MAGIC = 0, H_TOTALSIZE = 4, H_OFF_STRUCT = 8, H_OFF_STRINGS = 12,
    H_OFF_RSVMAP = 16, H_VERSION = 20, H_LAST_COMP = 24,
    H_SIZE_STRINGS = 32, H_SIZE_STRUCT = 36,
    HDR_V16 = 36, HDR_V17 = 40,
};

_Static_assert(FDT_MAX_DEPTH <= 64, "check_struct keeps one bit per level");
_Static_assert(FDT_MAX_SIZE <= 0x7fffff00u, "offsets must fit an int");


static int bad(struct view *v, const char *why)
{
    v->err = why;
    return -FDT_ECORRUPT;
}

/* Checks the header of the blob in size bytes and fills *v. */
static int header(struct view *v, const void *blob, size_t size)
{
    const uint8_t *b = blob;
    uint32_t total, ver, hdr, off, len;

    v->err = NULL;
    if (!b)
        return bad(v, "no blob");
    if (size < HDR_V16)
        return bad(v, "buffer smaller than a blob header");
    if (fdt32(b + H_MAGIC) != FDT_MAGIC)
        return bad(v, "bad magic: not a device tree blob");
    total = fdt32(b + H_TOTALSIZE);
    if (total > size)
        return bad(v, "totalsize is larger than the buffer");
    if (total > FDT_MAX_SIZE)
        return bad(v, "totalsize is over FDT_MAX_SIZE");
    ver = fdt32(b + H_VERSION);
    if (ver < 16)
        return bad(v, "version is older than 16");
    if (fdt32(b + H_LAST_COMP) > 17)
        return bad(v, "last_comp_version is newer than 17");
    hdr = ver >= 17 ? HDR_V17 : HDR_V16;
    if (total < hdr)
        return bad(v, "totalsize is smaller than the header");

    off = fdt32(b + H_OFF_RSVMAP);
    if (off % 8)
        return bad(v, "memory reservation block is not 8-byte aligned");
    if (off < hdr || off > total)
        return bad(v, "memory reservation block is outside the blob");
    v->rsv = off;

    off = fdt32(b + H_OFF_STRUCT);
    if (off % 4)
        return bad(v, "structure block is not 4-byte aligned");
    if (off < hdr || off > total)
        return bad(v, "structure block is outside the blob");
    len = ver >= 17 ? fdt32(b + H_SIZE_STRUCT) : total - off;
    if (len > total - off)
        return bad(v, "structure block runs past totalsize");
    v->st = b + off;
    v->stsize = len;

    off = fdt32(b + H_OFF_STRINGS);
    len = fdt32(b + H_SIZE_STRINGS);
    if (off < hdr || off > total || len > total - off)
        return bad(v, "strings block is outside the blob");
    v->str = (const char *)b + off;
    v->strsize = len;

    v->blob = b;
    v->total = total;
    return 0;
}

/* For the walkers: the blob passed fdt_check, so trust its totalsize. */
int fdt_view_open(struct view *v, const void *blob)
{
    if (!blob)
        return bad(v, "no blob");
    return header(v, blob, fdt32((const uint8_t *)blob + H_TOTALSIZE));
}

/*
 * Reads the token at off.  Returns it, with *next set to the offset of the
 * token after it, or -FDT_ECORRUPT if the token or what it carries does not
 * lie inside the blob.
 */
int fdt_view_tag(struct view *v, int off, int *next)
{
    const uint8_t *p, *z;
    uint32_t room, len, name;

    if (off < 0 || off % 4 || (uint32_t)off > v->stsize ||
        v->stsize - (uint32_t)off < 4)
        return bad(v, "structure block ends before FDT_END");
    p = v->st + off;
    room = v->stsize - (uint32_t)off - 4;
    switch (fdt32(p)) {
    case FDT_BEGIN_NODE:
        z = memchr(p + 4, '\0', room);
        if (!z)
            return bad(v, "node name runs past the structure block");
        *next = (int)(((uint32_t)(z - v->st) + 1 + 3) & ~3u);
        return FDT_BEGIN_NODE;
    case FDT_PROP:
        if (room < 8)
            return bad(v, "property header runs past the structure block");
        len = fdt32(p + 4);
        name = fdt32(p + 8);
        if (len > room - 8)
            return bad(v, "property value runs past the structure block");
        if (name >= v->strsize)
            return bad(v, "property name offset is outside the strings block");
        if (!memchr(v->str + name, '\0', v->strsize - name))
            return bad(v, "property name is not terminated in the "
                          "strings block");
        *next = (int)(((uint32_t)off + 12 + len + 3) & ~3u);
        return FDT_PROP;
    case FDT_END_NODE:
    case FDT_NOP:
    case FDT_END:
        *next = off + 4;
        return (int)fdt32(p);
    }
    return bad(v, "unknown token in the structure block");
}

/* ---- fdt_check ---- */

static int check_rsvmap(struct view *v)
{
    uint32_t off;

    for (off = v->rsv; v->total - off >= 16; off += 16)
        if (fdt64(v->blob + off) == 0 && fdt64(v->blob + off + 8) == 0)
            return 0;
    return bad(v, "memory reservation block has no terminating entry");
}

static int check_struct(struct view *v)
{
    uint64_t kids = 0;  /* bit d: the open node at depth d has a subnode */
    int off = 0, next, depth = 0, t;
    bool root = false;

    for (;; off = next) {
        t = fdt_view_tag(v, off, &next);
        if (t < 0)
            return t;
        if (off == 0 && t != FDT_BEGIN_NODE)    /* the root is offset 0 */
            return bad(v, "structure block does not start with a node");
        switch (t) {
        case FDT_BEGIN_NODE:
            if (depth == 0 && root)
                return bad(v, "more than one root node");
            if (depth >= FDT_MAX_DEPTH)
                return bad(v, "nodes nest deeper than FDT_MAX_DEPTH");
            root = true;
            if (depth > 0)
                kids |= 1ull << (depth - 1);
            kids &= ~(1ull << depth);
            depth++;
            break;
        case FDT_PROP:
            if (depth == 0)
                return bad(v, "property outside any node");
            if (kids & 1ull << (depth - 1))
                return bad(v, "property after a subnode");
            break;
        case FDT_END_NODE:
            if (depth == 0)
                return bad(v, "FDT_END_NODE without FDT_BEGIN_NODE");
            depth--;
            break;
        case FDT_END:
            if (depth > 0)
                return bad(v, "FDT_END inside an open node");
            return 0;
        }
    }
}

int fdt_check(const void *blob, size_t size, const char **err)
{
    struct view v;
    int rc;

    rc = header(&v, blob, size);
    if (rc == 0)
        rc = check_rsvmap(&v);
    if (rc == 0)
        rc = check_struct(&v);
    if (err)
        *err = rc ? v.err : NULL;
    return rc;
}
