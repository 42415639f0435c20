/*
 * fdt.c - walking a flattened device tree blob that fdt_check (fdt_blob.c)
 * accepted: nodes, properties, paths, phandles, reg.  See fdt.h for the
 * contract.
 *
 * Every walk reads the structure block only through fdt_view_tag, which
 * bounds-checks each token, and moves forward by at least 4 bytes per
 * token, so it ends within size_dt_struct / 4 steps; nothing recurses (an
 * alias is resolved once and must be absolute).  If the structural rules
 * are broken anyway (the caller skipped fdt_check) a walker returns an
 * error, never faults.  fdt_parse_machine (fdt_machine.c) is a client of
 * the walkers here.
 */
#include <string.h>
#include "firmware/fdt_blob.h"

/* ---- Walking ---- */

/*
 * The first FDT_PROP at or after off, skipping NOPs; -FDT_ENOTFOUND at the
 * first subnode or the end of the node.
 */
static int prop_from(struct view *v, int off)
{
    int next, t;

    for (;; off = next) {
        t = fdt_view_tag(v, off, &next);
        if (t == FDT_PROP)
            return off;
        if (t == FDT_BEGIN_NODE || t == FDT_END_NODE)
            return -FDT_ENOTFOUND;
        if (t != FDT_NOP)
            return -FDT_ECORRUPT;
    }
}

/* The first FDT_BEGIN_NODE at or after off, skipping NOPs (and props). */
static int node_from(struct view *v, int off, bool props)
{
    int next, t;

    for (;; off = next) {
        t = fdt_view_tag(v, off, &next);
        if (t == FDT_BEGIN_NODE)
            return off;
        if (t == FDT_END_NODE || t == FDT_END)
            return -FDT_ENOTFOUND;
        if (t != FDT_NOP && !(t == FDT_PROP && props))
            return -FDT_ECORRUPT;
    }
}

/* Offset of the token after node's FDT_BEGIN_NODE, or an error. */
static int node_body(struct view *v, int node)
{
    int next;

    if (fdt_view_tag(v, node, &next) != FDT_BEGIN_NODE)
        return -FDT_EBADOFFSET;
    return next;
}

static int first_child(struct view *v, int node)
{
    int off = node_body(v, node);

    return off < 0 ? off : node_from(v, off, true);
}

static int next_sibling(struct view *v, int node)
{
    int off = node, next, depth = 0, t;

    if (fdt_view_tag(v, node, &next) != FDT_BEGIN_NODE)
        return -FDT_EBADOFFSET;
    do {                        /* skip node's subtree */
        t = fdt_view_tag(v, off, &next);
        if (t == FDT_BEGIN_NODE)
            depth++;
        else if (t == FDT_END_NODE)
            depth--;
        else if (t != FDT_PROP && t != FDT_NOP)
            return -FDT_ECORRUPT;
        off = next;
    } while (depth > 0);
    return node_from(v, off, false);
}

/* Value of node's property name[0..n), length in *len. */
static const uint8_t *prop_n(struct view *v, int node, const char *name,
                             size_t n, int *len)
{
    const char *pn;
    int off, next;

    off = node_body(v, node);
    if (off < 0) {
        *len = off;
        return NULL;
    }
    for (off = prop_from(v, off); off >= 0; off = prop_from(v, next)) {
        fdt_view_tag(v, off, &next);
        pn = v->str + fdt32(v->st + off + 8);
        if (strlen(pn) == n && memcmp(pn, name, n) == 0) {
            *len = (int)fdt32(v->st + off + 4);
            return v->st + off + 12;
        }
    }
    *len = -FDT_ENOTFOUND;
    return NULL;
}

static const uint8_t *prop(struct view *v, int node, const char *name,
                           int *len)
{
    return prop_n(v, node, name, strlen(name), len);
}

static const char *prop_str(struct view *v, int node, const char *name)
{
    const uint8_t *p;
    int len;

    p = prop(v, node, name, &len);
    if (!p || len < 1 || !memchr(p, '\0', (size_t)len))
        return NULL;
    return (const char *)p;
}

/* A one-cell property, or def if absent or of another length. */
static uint32_t prop_u32(struct view *v, int node, const char *name,
                         uint32_t def)
{
    const uint8_t *p;
    int len;

    p = prop(v, node, name, &len);
    return p && len == 4 ? fdt32(p) : def;
}

bool fdt_strlist_has(const void *p, int len, const char *s)
{
    const char *c = p, *end = c + len, *z;
    size_t n = strlen(s);

    for (; c < end; c = z + 1) {
        z = memchr(c, '\0', (size_t)(end - c));
        if (!z)
            z = end;
        if ((size_t)(z - c) == n && memcmp(c, s, n) == 0)
            return true;
    }
    return false;
}

static bool compatible(struct view *v, int node, const char *compat)
{
    const uint8_t *p;
    int len;

    p = prop(v, node, "compatible", &len);
    return p && fdt_strlist_has(p, len, compat);
}

static bool enabled(struct view *v, int node)
{
    const uint8_t *p;
    int len;

    p = prop(v, node, "status", &len);
    return !p || (len == 5 && memcmp(p, "okay", 5) == 0) ||
           (len == 3 && memcmp(p, "ok", 3) == 0);
}

/* The child of parent named name[0..n), or name@unit if name has no '@'. */
static int child_n(struct view *v, int parent, const char *name, size_t n)
{
    bool unit = memchr(name, '@', n) == NULL;
    const char *cn;
    size_t cl;
    int c;

    for (c = first_child(v, parent); c >= 0; c = next_sibling(v, c)) {
        cn = (const char *)v->st + c + 4;
        cl = strlen(cn);
        if ((cl == n || (unit && cl > n && cn[n] == '@')) &&
            memcmp(cn, name, n) == 0)
            return c;
    }
    return c;
}

static int path_n(struct view *v, const char *p, size_t n)
{
    const char *end = p + n, *q, *a;
    int node = 0, len;

    if (n == 0)
        return -FDT_ENOTFOUND;
    if (*p != '/') {            /* alias: its value must be absolute */
        q = memchr(p, '/', n);
        if (!q)
            q = end;
        node = child_n(v, 0, "aliases", 7);
        a = NULL;
        if (node >= 0) {
            a = (const char *)prop_n(v, node, p, (size_t)(q - p), &len);
            if (a && (len < 2 || a[0] != '/' ||
                      !memchr(a, '\0', (size_t)len)))
                a = NULL;
        }
        if (!a)
            return -FDT_ENOTFOUND;
        node = path_n(v, a, strlen(a));
        p = q;
    }
    while (p < end && node >= 0) {
        if (*p == '/') {
            p++;
            continue;
        }
        q = memchr(p, '/', (size_t)(end - p));
        if (!q)
            q = end;
        node = child_n(v, node, p, (size_t)(q - p));
        p = q;
    }
    return node;
}

/*
 * Fills up[0..d) with node's ancestors, root first, and returns d: 0 for
 * the root.  up holds FDT_MAX_DEPTH entries.
 */
static int ancestors(struct view *v, int node, int *up)
{
    int off = 0, next, depth = 0, t;

    for (; off <= node; off = next) {
        t = fdt_view_tag(v, off, &next);
        if (t == FDT_BEGIN_NODE) {
            if (off == node)
                return depth;
            if (depth >= FDT_MAX_DEPTH)
                return -FDT_ECORRUPT;
            up[depth++] = off;
        } else if (t == FDT_END_NODE) {
            if (depth-- == 0)
                return -FDT_ECORRUPT;
        } else if (t == FDT_END) {
            break;
        } else if (t < 0) {
            return t;
        }
    }
    return -FDT_EBADOFFSET;
}

static int parent(struct view *v, int node)
{
    int up[FDT_MAX_DEPTH], d;

    d = ancestors(v, node, up);
    if (d < 0)
        return d;
    return d == 0 ? -FDT_ENOTFOUND : up[d - 1];
}

/* phandle of node's interrupt parent (own or inherited), 0 if none. */
static uint32_t irq_parent(struct view *v, int node)
{
    int up[FDT_MAX_DEPTH], d;
    uint32_t ph;

    d = ancestors(v, node, up);
    if (d < 0)
        return 0;
    ph = prop_u32(v, node, "interrupt-parent", 0);
    while (ph == 0 && d > 0)
        ph = prop_u32(v, up[--d], "interrupt-parent", 0);
    return ph;
}

static int by_phandle(struct view *v, uint32_t ph)
{
    int off = 0, next, t;

    if (ph == 0 || ph == 0xffffffffu)
        return -FDT_ENOTFOUND;
    for (;; off = next) {
        t = fdt_view_tag(v, off, &next);
        if (t == FDT_END)
            return -FDT_ENOTFOUND;
        if (t < 0)
            return t;
        if (t == FDT_BEGIN_NODE && (prop_u32(v, off, "phandle", 0) == ph ||
                                    prop_u32(v, off, "linux,phandle", 0) == ph))
            return off;
    }
}

static int cells(struct view *v, int node, const char *name, int def)
{
    const uint8_t *p;
    int len;

    if (node_body(v, node) < 0)
        return -FDT_EBADOFFSET;
    p = prop(v, node, name, &len);
    if (!p)
        return def;
    if (len != 4 || fdt32(p) > 4)
        return -FDT_ECORRUPT;
    return (int)fdt32(p);
}

/* The first node after start (< 0: from the root) compatible with compat. */
static int find_compat(struct view *v, int start, const char *compat)
{
    int off = 0, next, t;

    if (start >= 0 && (off = node_body(v, start)) < 0)
        return off;
    for (;; off = next) {
        t = fdt_view_tag(v, off, &next);
        if (t == FDT_END)
            return -FDT_ENOTFOUND;
        if (t < 0)
            return t;
        if (t == FDT_BEGIN_NODE && compatible(v, off, compat))
            return off;
    }
}

/* Entry i of node's reg, given its parent's cell counts ac and sc. */
static bool reg_cells(struct view *v, int node, int ac, int sc, int i,
                      uint64_t *addr, uint64_t *size)
{
    const uint8_t *p;
    int len, stride;

    if (ac < 1 || ac > 2 || sc < 0 || sc > 2 || i < 0)
        return false;
    stride = 4 * (ac + sc);
    p = prop(v, node, "reg", &len);
    if (!p || len % stride != 0 || i >= len / stride)
        return false;
    p += i * stride;
    if (addr)
        *addr = fdt_cells(p, ac);
    if (size)
        *size = fdt_cells(p + 4 * ac, sc);
    return true;
}

/* ---- Public walkers: open the blob, then call the above ---- */

int fdt_first_child(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) ? -FDT_ECORRUPT : first_child(&v, node);
}

int fdt_next_sibling(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) ? -FDT_ECORRUPT : next_sibling(&v, node);
}

int fdt_parent_offset(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) ? -FDT_ECORRUPT : parent(&v, node);
}

const char *fdt_node_name(const void *blob, int node)
{
    struct view v;

    if (fdt_view_open(&v, blob) || node_body(&v, node) < 0)
        return NULL;
    return (const char *)v.st + node + 4;
}

int fdt_first_prop(const void *blob, int node)
{
    struct view v;
    int off;

    if (fdt_view_open(&v, blob))
        return -FDT_ECORRUPT;
    off = node_body(&v, node);
    return off < 0 ? off : prop_from(&v, off);
}

int fdt_next_prop(const void *blob, int prop)
{
    struct view v;
    int next;

    if (fdt_view_open(&v, blob))
        return -FDT_ECORRUPT;
    if (fdt_view_tag(&v, prop, &next) != FDT_PROP)
        return -FDT_EBADOFFSET;
    return prop_from(&v, next);
}

const void *fdt_prop_value(const void *blob, int prop, const char **name,
                           int *len)
{
    struct view v;
    int next;

    if (fdt_view_open(&v, blob) || fdt_view_tag(&v, prop, &next) != FDT_PROP) {
        if (len)
            *len = -FDT_EBADOFFSET;
        return NULL;
    }
    if (name)
        *name = v.str + fdt32(v.st + prop + 8);
    if (len)
        *len = (int)fdt32(v.st + prop + 4);
    return v.st + prop + 12;
}

const void *fdt_getprop(const void *blob, int node, const char *name,
                        int *len)
{
    struct view v;
    const void *p = NULL;
    int n = -FDT_ECORRUPT;

    if (fdt_view_open(&v, blob) == 0 && name)
        p = prop(&v, node, name, &n);
    if (len)
        *len = n;
    return p;
}

const char *fdt_getprop_str(const void *blob, int node, const char *name)
{
    struct view v;

    return fdt_view_open(&v, blob) || !name ? NULL : prop_str(&v, node, name);
}

uint32_t fdt_getprop_u32(const void *blob, int node, const char *name,
                         uint32_t def)
{
    struct view v;

    return fdt_view_open(&v, blob) || !name ? def
                                            : prop_u32(&v, node, name, def);
}

int fdt_path_offset_n(const void *blob, const char *path, size_t len)
{
    struct view v;

    if (fdt_view_open(&v, blob) || !path)
        return -FDT_ECORRUPT;
    return path_n(&v, path, len);
}

int fdt_path_offset(const void *blob, const char *path)
{
    return fdt_path_offset_n(blob, path, path ? strlen(path) : 0);
}

int fdt_node_by_phandle(const void *blob, uint32_t ph)
{
    struct view v;

    return fdt_view_open(&v, blob) ? -FDT_ECORRUPT : by_phandle(&v, ph);
}

int fdt_interrupt_parent(const void *blob, int node)
{
    struct view v;

    if (fdt_view_open(&v, blob))
        return -FDT_ECORRUPT;
    return by_phandle(&v, irq_parent(&v, node));
}

uint32_t fdt_interrupt_parent_phandle(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) ? 0 : irq_parent(&v, node);
}

bool fdt_node_compatible(const void *blob, int node, const char *compat)
{
    struct view v;

    return fdt_view_open(&v, blob) == 0 && compat && compatible(&v, node, compat);
}

int fdt_find_compatible(const void *blob, int start, const char *compat)
{
    struct view v;

    if (fdt_view_open(&v, blob) || !compat)
        return -FDT_ECORRUPT;
    return find_compat(&v, start, compat);
}

bool fdt_node_enabled(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) == 0 && node_body(&v, node) >= 0 &&
           enabled(&v, node);
}

int fdt_address_cells(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) ? -FDT_ECORRUPT :
           cells(&v, node, "#address-cells", 2);
}

int fdt_size_cells(const void *blob, int node)
{
    struct view v;

    return fdt_view_open(&v, blob) ? -FDT_ECORRUPT :
           cells(&v, node, "#size-cells", 1);
}

bool fdt_reg(const void *blob, int node, int index, uint64_t *addr,
             uint64_t *size)
{
    struct view v;
    int p;

    if (fdt_view_open(&v, blob) || (p = parent(&v, node)) < 0)
        return false;
    return reg_cells(&v, node, cells(&v, p, "#address-cells", 2),
                     cells(&v, p, "#size-cells", 1), index, addr, size);
}

bool fdt_mem_rsv(const void *blob, int index, uint64_t *addr,
                 uint64_t *size)
{
    struct view v;
    uint32_t off;
    int i = 0;

    if (fdt_view_open(&v, blob) || index < 0)
        return false;
    for (off = v.rsv; v.total - off >= 16; off += 16, i++) {
        uint64_t a = fdt64(v.blob + off), s = fdt64(v.blob + off + 8);
        if (a == 0 && s == 0)
            break;
        if (i == index) {
            if (addr)
                *addr = a;
            if (size)
                *size = s;
            return true;
        }
    }
    return false;
}
