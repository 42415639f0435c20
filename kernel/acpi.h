/*
 * acpi.h - ACPI table discovery: CPUs, I/O APICs and interrupt overrides
 * (MADT), PCIe ECAM windows (MCFG) and the PM timer (FADT).
 *
 * Pure parsing over firmware memory, reached only through acpi_map().  All
 * tables are untrusted: each one used is checksummed, reads stay inside its
 * length, and corrupt input yields an error or a partial result, never a
 * fault or a hang.  Follows ACPI 6.5 §5.2.5 (RSDP), §5.2.6 (table header),
 * §5.2.7/§5.2.8 (RSDT/XSDT), §5.2.9 (FADT), §5.2.12 (MADT), and the PCI
 * Firmware Specification 3.3 §4.1.2 (MCFG).
 *
 * Not thread-safe and keeps no state: call once on the boot core.
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_MAX_CPUS   256
#define ACPI_MAX_IOAPIC 8
#define ACPI_MAX_ISO    8
#define ACPI_MAX_MCFG   8

/* acpi_parse results, negated. */
#define ACPI_ENOTFOUND  1       /* no RSDP given, or no MADT in the tables */
#define ACPI_ECORRUPT   2       /* RSDP, root table or MADT failed checks */

struct acpi_cpu {
    uint32_t apic_id;           /* x2APIC id, or the xAPIC id zero-extended */
    uint32_t acpi_uid;          /* type 0: the 8-bit ACPI processor id */
    bool usable;                /* enabled; false: online capable, off now */
    bool x2apic_entry;          /* from a type-9 (local x2APIC) entry */
};

struct acpi_ioapic {
    uint32_t addr;              /* MMIO base, physical */
    uint32_t gsi_base;          /* first GSI its pins carry */
    uint8_t id;
};

/* An ISA IRQ that is not identity-mapped to a GSI, or not edge/high. */
struct acpi_iso {
    uint32_t gsi;
    uint16_t flags;             /* MPS INTI flags: polarity, trigger mode */
    uint8_t bus;                /* always 0 (ISA) */
    uint8_t source;             /* ISA IRQ */
};

/* One PCIe ECAM window: config space of buses start_bus..end_bus. */
struct acpi_mcfg {
    uint64_t base;              /* address of bus 0, even if start_bus > 0 */
    uint16_t segment;
    uint8_t start_bus;
    uint8_t end_bus;
};

/*
 * What acpi_parse found.  CPUs the firmware marks neither enabled nor
 * online capable are left out; online-capable ones that are off now are
 * kept with usable = false.  Counts never exceed their array sizes.
 */
struct acpi_info {
    uint32_t ncpus;
    struct acpi_cpu cpus[ACPI_MAX_CPUS];    /* MADT order, BSP normally first */
    uint64_t lapic_pa;          /* local APIC MMIO base, after any override */

    uint32_t nioapic;
    struct acpi_ioapic ioapics[ACPI_MAX_IOAPIC];
    uint32_t niso;
    struct acpi_iso isos[ACPI_MAX_ISO];
    uint32_t nmcfg;
    struct acpi_mcfg mcfg[ACPI_MAX_MCFG];

    uint16_t pm_tmr_port;       /* I/O port of the PM timer, 0 if none */
    bool pm_tmr_32bit;          /* counter is 32 bits wide, else 24 */

    const char *error;          /* NULL, or why acpi_parse failed */
};

/*
 * Provided by the user of this file.  acpi_map returns a pointer through
 * which len bytes at physical address pa can be read, or NULL if they
 * cannot be mapped; mappings are never released.  acpi_log prints one
 * message about a table that was skipped or cut short; messages have no
 * prefix (acpi_log adds one), end in '\n', and use only %s %u %x %llx.
 * Failures of acpi_parse are not logged, only returned in out->error.
 */
void *acpi_map(uint64_t pa, size_t len);
__attribute__((format(printf, 1, 2))) void acpi_log(const char *fmt, ...);

/*
 * Scans the legacy BIOS areas (the first KiB of the EBDA, then
 * 0xE0000-0xFFFFF) for a valid RSDP.  Returns its physical address, or 0.
 * For BIOS boots only: UEFI and PVH hand the RSDP over directly.
 */
uint64_t acpi_find_rsdp_bios(void);

/*
 * Fills *out from the tables under the RSDP at rsdp_pa.  Returns 0, or a
 * negative ACPI_E* with out->error set when there is no usable RSDP, root
 * table, MADT, or enabled CPU; the caller then runs on the boot core alone.
 * Even on failure, the MCFG and PM timer fields hold whatever was found.
 */
int acpi_parse(uint64_t rsdp_pa, struct acpi_info *out);

#endif
