/*
 * mptable.h - the cores of an x86 machine from the Intel MultiProcessor
 * Specification 1.4's tables (the MP floating pointer structure and the
 * MP configuration table), for machines that describe their cores there
 * and not in ACPI: QEMU's microvm with acpi=off (its qboot writes one),
 * and VMMs in Firecracker's manner.
 *
 * Pure parsing over firmware memory, reached only through acpi_map()
 * and reporting through acpi_log() as firmware/acpi.c does (acpi.h).  The
 * tables are untrusted: each is checksummed, reads stay inside its
 * length, and corrupt input yields an error, never a fault or a hang.
 */
#ifndef FIRMWARE_MPTABLE_H
#define FIRMWARE_MPTABLE_H

#include <stdbool.h>
#include <stdint.h>

#define MP_MAX_CPUS   256
#define MP_MAX_IOAPIC 8

struct mp_info {
    uint32_t ncpus;
    uint8_t apic_ids[MP_MAX_CPUS];      /* enabled processors, table order */
    int bsp;                            /* index of the one flagged BSP,
                                           -1 if none is */
    uint64_t lapic_pa;                  /* local APIC base the table gives */
    uint32_t nioapic;
    struct {
        uint32_t addr;                  /* its registers, physical */
        uint8_t id;
    } ioapics[MP_MAX_IOAPIC];           /* enabled I/O APICs, table order */
    const char *error;                  /* why mp_parse failed */
};

/* The MP floating pointer structure's physical address, found where the
   specification puts it (the last KiB of base memory, the BIOS area);
   0 if there is none. */
uint64_t mp_find(void);

/* Reads the table the floating pointer at pa points to into *out.
   Returns 0, or -1 with out->error set. */
int mp_parse(uint64_t pa, struct mp_info *out);

#endif
