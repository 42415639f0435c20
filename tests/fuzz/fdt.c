/*
 * fdt.c - libFuzzer target for the device tree code (firmware/fdt.c,
 * fdt_blob.c, fdt_machine.c): any bytes as a blob.  fdt_check must
 * reject what the walkers cannot take; whatever it accepts is walked
 * node by node and property by property, and summarized as the kernel
 * does at boot.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "firmware/fdt.h"

static volatile size_t sink;

/* Every node under `node`, each property's name and value read whole;
   depth-bounded like the blob itself is by fdt_check. */
static void walk(const void *blob, int node, int depth)
{
    if (depth > 64)
        return;
    (void)fdt_node_name(blob, node);
    (void)fdt_parent_offset(blob, node);
    (void)fdt_interrupt_parent(blob, node);
    (void)fdt_node_compatible(blob, node, "arm,gic-v3");
    for (int p = fdt_first_prop(blob, node); p >= 0;
         p = fdt_next_prop(blob, p)) {
        const char *name;
        int len;
        const uint8_t *v = fdt_prop_value(blob, p, &name, &len);

        /* Read both ends and the name: ASan checks the bounds. */
        if (v && len > 0)
            sink += v[0] + v[len - 1];
        if (name)
            sink += strlen(name);
    }
    for (int c = fdt_first_child(blob, node); c >= 0;
         c = fdt_next_sibling(blob, c))
        walk(blob, c, depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so ASan sees any read past the blob. */
    uint8_t *blob = malloc(size ? size : 1);
    static struct machine m;
    const char *err;

    memcpy(blob, data, size);
    if (fdt_check(blob, size, &err) == 0) {
        walk(blob, 0, 0);
        (void)fdt_path_offset(blob, "/cpus");
        (void)fdt_path_offset(blob, "/chosen");
        (void)fdt_node_by_phandle(blob, 1);
    }
    (void)fdt_parse_machine(blob, size, &m);
    free(blob);
    return 0;
}
