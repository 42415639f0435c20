/*
 * fdt.h - flattened device tree (DTB) parsing: a bounds-checked walker over
 * the blob (fdt.c), and fdt_parse_machine (fdt_machine.c), the summary the
 * aarch64 port boots from.
 *
 * Follows the Devicetree Specification v0.4: chapter 5 (the blob: header,
 * memory reservation block, structure and strings blocks), §2.3 (standard
 * properties: compatible, status, #address-cells, #size-cells, reg,
 * phandle), §2.4 (interrupt-parent), §3.3-§3.8 (/aliases, /memory,
 * /reserved-memory, /chosen, /cpus), and the Linux bindings for the nodes
 * fdt_parse_machine reads (arm/psci.yaml, arm/cpus.yaml, arm/arch_timer,
 * interrupt-controller/arm,gic*.yaml, pci/host-generic-pci.yaml,
 * virtio/mmio.yaml, and /chosen's linux,initrd-start and -end).
 *
 * The blob is untrusted.  fdt_check validates it completely; every other
 * function requires a blob that passed fdt_check (they read the size from
 * its header) and still bounds-checks each read against that size, so no
 * call reads outside the blob or loops forever, whatever the blob holds.
 * Nothing is allocated, nothing is written to the blob, nothing is cached:
 * any core may call anything at any time while the blob stays unchanged.
 *
 * A node or property is named by an int offset: that of its token from the
 * start of the structure block (as in libfdt).  The root node is offset 0.
 * Functions returning an offset return a negative FDT_E* code instead when
 * there is none.  Pass only offsets these functions returned: any other
 * gives an error, or a wrong answer if it lands on bytes that read as a
 * token (a <1> cell reads as FDT_BEGIN_NODE), but still never a bad read.
 */
#ifndef FIRMWARE_FDT_H
#define FIRMWARE_FDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "firmware/machine.h"

#define FDT_MAGIC       0xd00dfeedu
#define FDT_MAX_DEPTH   32      /* deepest node nesting fdt_check accepts */
#define FDT_MAX_SIZE    (1u << 30)  /* largest totalsize fdt_check accepts */

/* Results, negated. */
#define FDT_ECORRUPT    1       /* malformed blob (fails fdt_check) */
#define FDT_ENOTFOUND   2       /* no such node, property or entry */
#define FDT_EBADOFFSET  3       /* offset is not a node (or property) */

/* ---- Big-endian cells (§2.2.4: all values are big-endian) ---- */

static inline uint32_t fdt32(const void *p)
{
    const uint8_t *b = p;

    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
           (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t fdt64(const void *p)
{
    return (uint64_t)fdt32(p) << 32 | fdt32((const uint8_t *)p + 4);
}

/* n (0, 1 or 2) cells at p as one number: reg addresses and sizes. */
static inline uint64_t fdt_cells(const void *p, int n)
{
    return n == 2 ? fdt64(p) : n == 1 ? fdt32(p) : 0;
}

/* ---- Validation ---- */

/*
 * Checks that the blob in the size bytes at blob is well-formed: magic,
 * version >= 16 with last_comp_version <= 17, totalsize <= size (and
 * <= FDT_MAX_SIZE), each block inside totalsize and aligned (reservation
 * block 8, structure block 4), a terminated reservation list, and a
 * structure block of known tokens that stay inside it, property names that
 * are strings inside the strings block, exactly one root and at offset 0,
 * balanced nodes no deeper than FDT_MAX_DEPTH, properties before
 * subnodes, and FDT_END.
 * Returns 0, or -FDT_ECORRUPT with *err (if err is not NULL) set to a
 * sentence saying what is wrong; on success *err is NULL.
 */
int fdt_check(const void *blob, size_t size, const char **err);

/* ---- Walking (blob must have passed fdt_check) ---- */

/* First subnode of node / next node after node with the same parent. */
int fdt_first_child(const void *blob, int node);
int fdt_next_sibling(const void *blob, int node);

/* Parent of node; -FDT_ENOTFOUND for the root.  Scans from the root. */
int fdt_parent_offset(const void *blob, int node);

/* Name with unit address ("memory@40000000"); "" for the root; NULL if
 * node is not a node. */
const char *fdt_node_name(const void *blob, int node);

/*
 * Properties in order: fdt_first_prop/fdt_next_prop give offsets, and
 * fdt_prop_value the name (if name is not NULL), length and value of one.
 */
int fdt_first_prop(const void *blob, int node);
int fdt_next_prop(const void *blob, int prop);
const void *fdt_prop_value(const void *blob, int prop, const char **name,
                           int *len);

/*
 * Value of node's property name and its length in *len (if len is not
 * NULL).  NULL if absent, with *len = -FDT_ENOTFOUND (-FDT_EBADOFFSET if
 * node is not a node).  The value is not aligned: read it with fdt32/fdt64.
 */
const void *fdt_getprop(const void *blob, int node, const char *name,
                        int *len);

/* A string property: its value if that holds a NUL, else NULL. */
const char *fdt_getprop_str(const void *blob, int node, const char *name);

/* A one-cell property: its value if it is 4 bytes long, else def. */
uint32_t fdt_getprop_u32(const void *blob, int node, const char *name,
                         uint32_t def);

/*
 * The node at an absolute path ("/cpus", "/memory@40000000"), or at an
 * alias path ("serial0", "serial0/child") resolved through /aliases.  A
 * component without '@' also matches a node whose name has a unit address
 * ("/memory" finds "memory@40000000"); the first match wins.
 */
int fdt_path_offset(const void *blob, const char *path);

/* Same, for the first len characters of path (for "path:options"). */
int fdt_path_offset_n(const void *blob, const char *path, size_t len);

/* The node whose phandle (or linux,phandle) is ph. */
int fdt_node_by_phandle(const void *blob, uint32_t ph);

/* The node named by node's interrupt-parent, or its nearest ancestor's. */
int fdt_interrupt_parent(const void *blob, int node);

/* That interrupt-parent's phandle itself, 0 if no ancestor names one. */
uint32_t fdt_interrupt_parent_phandle(const void *blob, int node);

/* True if the <stringlist> value p[0..len) holds s (§2.2.4). */
bool fdt_strlist_has(const void *p, int len, const char *s);

/* True if node's compatible string list holds compat exactly. */
bool fdt_node_compatible(const void *blob, int node, const char *compat);

/*
 * First node after start, in blob order, compatible with compat; start < 0
 * searches from the root.  Loop: for (n = fdt_find_compatible(b, -1, c);
 * n >= 0; n = fdt_find_compatible(b, n, c)).
 */
int fdt_find_compatible(const void *blob, int start, const char *compat);

/* True unless node has a status other than "okay" or "ok" (§2.3.4). */
bool fdt_node_enabled(const void *blob, int node);

/*
 * #address-cells / #size-cells of node, i.e. the cell counts its children's
 * reg uses: the property, else the defaults 2 and 1 (§2.3.5).  A value
 * above 4 or of the wrong length gives -FDT_ECORRUPT.
 */
int fdt_address_cells(const void *blob, int node);
int fdt_size_cells(const void *blob, int node);

/*
 * Entry index of node's reg, decoded with its parent's #address-cells and
 * #size-cells; addr and size may be NULL.  False if there is no such
 * entry, the reg length is not a whole number of entries, or the parent's
 * cells do not fit 64 bits (address 1-2 cells, size 0-2).  The address is
 * in the parent's bus space: not translated through any ranges.
 */
bool fdt_reg(const void *blob, int node, int index, uint64_t *addr,
             uint64_t *size);

/* Entry index of the memory reservation block (§5.3). */
bool fdt_mem_rsv(const void *blob, int index, uint64_t *addr,
                 uint64_t *size);

/* ---- The machine summary (machine.h) ---- */

/*
 * Checks the blob (fdt_check) and fills *m from it.  Returns 0, or a
 * negative FDT_E* with m->error set: -FDT_ECORRUPT if the blob is
 * malformed (m is then all zero but for error), -FDT_ENOTFOUND if there is
 * no usable /memory or /cpus (the other fields are filled all the same).
 */
int fdt_parse_machine(const void *blob, size_t size, struct machine *m);

#endif
