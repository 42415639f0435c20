/*
 * aml.h - virtio-mmio devices described in a DSDT's AML, as QEMU's
 * microvm machine (and Linux's LNRO0005 binding) describes them:
 *
 *   Device (VR00) {
 *       Name (_HID, "LNRO0005")
 *       Name (_CRS, ResourceTemplate () {
 *           Memory32Fixed (ReadWrite, base, size)
 *           Interrupt (ResourceConsumer, Level, ActiveHigh, Exclusive) { gsi }
 *       })
 *   }
 *
 * Not an AML interpreter: a reader of the byte patterns of those two
 * named objects inside each Device op (ACPI 6.5 §20.2.5.2 DefDevice,
 * §20.2.4 PkgLength, §20.2.5.1 DefName, §6.4 the resource descriptors).
 * A device whose _HID or _CRS is computed by a method is not found.  The
 * AML is untrusted: reads stay inside it, and anything malformed is
 * skipped, never a fault or a hang.
 */
#ifndef FIRMWARE_AML_H
#define FIRMWARE_AML_H

#include <stddef.h>
#include <stdint.h>

struct aml_mmio {
    uint64_t base, size;        /* the register window */
    uint32_t gsi;               /* its interrupt, a global system
                                   interrupt; 0 if none was given */
};

/*
 * The virtio-mmio devices in aml[0..len) (a DSDT's or SSDT's body, after
 * its 36-byte header), in the order they appear, at most max of them into
 * out.  Returns how many there are (which may exceed max).
 */
int aml_virtio_mmio(const uint8_t *aml, size_t len, struct aml_mmio *out,
                    int max);

#endif
