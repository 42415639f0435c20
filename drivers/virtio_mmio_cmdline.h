/*
 * virtio_mmio_cmdline.h - Linux's kernel command-line form of a
 * virtio-mmio device, for machines whose firmware does not describe
 * them (QEMU's x86_64 microvm passes them this way):
 *
 *   virtio_mmio.device=<size>@<baseaddr>:<irq>[:<id>]
 *
 * size: decimal or 0x-hex, with an optional K, M or G suffix (either
 * case: times 2^10, 2^20, 2^30); baseaddr: decimal or 0x-hex; irq: the
 * platform's interrupt line (aarch64: the GIC INTID, 32 + the SPI's
 * number; x86_64: the I/O APIC input), decimal or 0x-hex; id: a
 * decimal number Linux names the platform device with, kept and not
 * used.  The key may come several times, one device each.  Pure
 * parsing, so the host tests and the command-line fuzzer run it as the
 * kernel does.
 */
#ifndef DRIVERS_VIRTIO_MMIO_CMDLINE_H
#define DRIVERS_VIRTIO_MMIO_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIRTIO_MMIO_CMDLINE_KEY  "virtio_mmio.device"
#define VIRTIO_MMIO_MIN_SIZE     0x200      /* registers, then 0x100 of
                                               device configuration */
#define VIRTIO_MMIO_MAX_SIZE     (1ULL << 30)
#define VIRTIO_MMIO_MAX_LINE     1023

struct virtio_mmio_cmdline {
    uint64_t base, size;        /* base 4-byte aligned, base + size no
                                   wrap, size in [MIN_SIZE, MAX_SIZE] */
    uint32_t line;              /* 1 .. VIRTIO_MMIO_MAX_LINE */
    int32_t id;                 /* -1: not given */
};

/*
 * Parses one value (what follows "virtio_mmio.device=") into *d.
 * Returns true, or false with *d zeroed and what is wrong with it in err
 * (NUL-terminated, at most errlen bytes, the value quoted; "" on
 * success).
 */
bool virtio_mmio_cmdline_parse(const char *val, struct virtio_mmio_cmdline *d,
                               char *err, size_t errlen);

#endif
