/*
 * acpi.h - ACPI table discovery: CPUs, I/O APICs and interrupt overrides
 * (MADT), PCIe ECAM windows (MCFG) and the PM timer (FADT); on arm64 also
 * the GIC (MADT), the generic timer's interrupts (GTDT), the console UART
 * (SPCR) and how to reach PSCI (FADT).
 *
 * Pure parsing over firmware memory, reached only through acpi_map().  All
 * tables are untrusted: each one used is checksummed, reads stay inside its
 * length, and corrupt input yields an error or a partial result, never a
 * fault or a hang.  Follows ACPI 6.5 §5.2.5 (RSDP), §5.2.6 (table header),
 * §5.2.7/§5.2.8 (RSDT/XSDT), §5.2.9 (FADT), §5.2.12 (MADT), §5.2.25
 * (GTDT), the PCI Firmware Specification 3.3 §4.1.2 (MCFG) and Microsoft's
 * Serial Port Console Redirection Table specification (SPCR).
 *
 * Which table feeds which field of struct acpi_info:
 *   MADT  cpus (x86 local APIC/x2APIC entries, or arm64 GICC entries),
 *         lapic_pa, ioapics, isos (x86); gicd_pa, gic_version, gicr, its
 *         (arm64)
 *   MCFG  mcfg
 *   FADT  pm_tmr_port, pm_tmr_32bit, hw_reduced, psci, psci_hvc, dsdt_pa
 *   GTDT  timer_el1_phys, timer_el1_virt, timer_el2_phys
 *   SPCR  spcr_type, spcr_space, spcr_access_size, spcr_base,
 *         spcr_int_type, spcr_gsi
 *
 * Not thread-safe and keeps no state: call once on the boot core.
 */
#ifndef FIRMWARE_ACPI_H
#define FIRMWARE_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "firmware/aml.h"

#define ACPI_MAX_CPUS   256
#define ACPI_MAX_IOAPIC 8
#define ACPI_MAX_ISO    8
#define ACPI_MAX_MCFG   8
#define ACPI_MAX_GICR   4
#define ACPI_MAX_ITS    4

/* acpi_parse results, negated. */
#define ACPI_ENOTFOUND  1       /* no RSDP given, or no MADT in the tables */
#define ACPI_ECORRUPT   2       /* RSDP, root table or MADT failed checks;
                                   also an x86 MADT with no enabled CPU */
#define ACPI_ENOCORE    3       /* an arm64 MADT (GICC entries) lists no
                                   usable core */

/*
 * One CPU, from an x86 local APIC or x2APIC entry, or from an arm64 GICC
 * entry (gicc_entry).  A MADT lists one kind or the other, never both.
 */
struct acpi_cpu {
    uint32_t apic_id;           /* x2APIC id, or the xAPIC id zero-extended;
                                   0 for a GICC entry */
    uint32_t acpi_uid;          /* type 0: the 8-bit ACPI processor id;
                                   x2APIC and GICC: the 32-bit UID */
    bool usable;                /* enabled; false: online capable, off now */
    bool x2apic_entry;          /* from a type-9 (local x2APIC) entry */
    bool gicc_entry;            /* from a type-0xB (GICC) entry; the fields
                                   below are 0 unless this is set */
    uint64_t mpidr;             /* MPIDR_EL1 affinity: Aff3 in bits 32-39,
                                   Aff2..Aff0 in bits 0-23, the rest 0 */
    uint64_t gicr_pa;           /* this core's GICv3+ redistributor, 0 if
                                   not given (then found through gicr[]) */
    uint64_t gicc_pa;           /* GICv2 CPU interface MMIO base, 0 if not
                                   given (GICv3+ uses system registers) */
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

/* A GICv3+ redistributor discovery range: frames back to back in it. */
struct acpi_gicr {
    uint64_t base;
    uint32_t length;            /* bytes */
};

/*
 * A generic timer interrupt: a PPI's GSIV (its INTID) and its GTDT flags,
 * ACPI_TIMER_*.  gsiv 0 (an SGI, never a timer) means not given.
 */
struct acpi_timer_irq {
    uint32_t gsiv;
    uint32_t flags;
};

#define ACPI_TIMER_EDGE         (1u << 0)   /* else level triggered */
#define ACPI_TIMER_ACTIVE_LOW   (1u << 1)   /* else active high */
#define ACPI_TIMER_ALWAYS_ON    (1u << 2)   /* keeps running in low power */

/* SPCR interface types (the DBG2 serial port subtypes), a few of them. */
#define ACPI_SPCR_16550         0x00    /* full 16550 */
#define ACPI_SPCR_16450         0x01    /* 16450, or 16550 subset */
#define ACPI_SPCR_PL011         0x03    /* ARM PL011 */
#define ACPI_SPCR_SBSA_32BIT    0x0D    /* ARM SBSA 2.x UART, 32-bit access */
#define ACPI_SPCR_SBSA          0x0E    /* ARM SBSA generic UART */
#define ACPI_SPCR_16550_GAS     0x12    /* 16550, register width from the
                                           GAS (spcr_access_size) */

/* SPCR interrupt types (spcr_int_type), bits; the ones spcr_gsi serves. */
#define ACPI_SPCR_INT_IOAPIC    (1u << 1)   /* an I/O APIC's GSI */
#define ACPI_SPCR_INT_GIC       (1u << 3)   /* ARMH GIC: a GSIV (INTID) */

/* Address spaces of a Generic Address Structure (spcr_space). */
#define ACPI_SPACE_MEMORY       0
#define ACPI_SPACE_IO           1

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
    uint64_t dsdt_pa;           /* the DSDT (FADT), 0 if none given */
    bool hw_reduced;            /* FADT HW_REDUCED_ACPI: no fixed hardware
                                   (always so on arm64); false if no FADT */
    bool psci;                  /* FADT ARM_BOOT_ARCH PSCI_COMPLIANT: cores
                                   start through PSCI; false if no FADT or
                                   one too short to hold the field */
    bool psci_hvc;              /* with psci: PSCI is called with HVC, else
                                   SMC; false without psci */

    /* arm64 GIC, from the MADT; all 0 on x86. */
    uint64_t gicd_pa;           /* distributor MMIO base, 0 if no GICD */
    uint8_t gic_version;        /* 1..4 from the GICD; 0: not given (ask
                                   the hardware: GICD_PIDR2) */
    uint32_t ngicr;
    struct acpi_gicr gicr[ACPI_MAX_GICR];   /* MADT order */
    uint32_t nits;
    uint64_t its_pa[ACPI_MAX_ITS];  /* ITS MMIO bases, MADT order */

    /* arm64 generic timer PPIs, from the GTDT; gsiv 0 if no GTDT. */
    struct acpi_timer_irq timer_el1_phys;   /* non-secure EL1 physical */
    struct acpi_timer_irq timer_el1_virt;   /* EL1 virtual */
    struct acpi_timer_irq timer_el2_phys;   /* non-secure EL2 physical */

    /* Console UART, from the SPCR; spcr_base 0 if no SPCR or console
       redirection is off there. */
    uint64_t spcr_base;         /* register base, in spcr_space */
    uint8_t spcr_type;          /* interface type, ACPI_SPCR_* (raw) */
    uint8_t spcr_space;         /* ACPI_SPACE_MEMORY or ACPI_SPACE_IO */
    uint8_t spcr_access_size;   /* GAS access size: 1..4 = 8..64-bit
                                   accesses, 0 not given */
    uint8_t spcr_int_type;      /* its interrupt's kinds, ACPI_SPCR_INT_*
                                   (raw); 0: none, or a table too short */
    uint32_t spcr_gsi;          /* its GSI (GSIV on a GIC), as given */

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
 * Once a root table is found, the fields from the MCFG, FADT, GTDT and
 * SPCR hold whatever was found even on failure, and so do the MADT's when
 * only the CPUs are missing (-ACPI_ENOCORE, or -ACPI_ECORRUPT with
 * "MADT lists no enabled CPU").
 */
int acpi_parse(uint64_t rsdp_pa, struct acpi_info *out);

/*
 * The virtio-mmio devices the DSDT of tables acpi_parse read describes
 * (aml.h: QEMU's microvm lists them there, with ACPI on), at most max
 * into out; returns how many there are, 0 without a DSDT or with a bad
 * one (said by acpi_log).
 */
int acpi_virtio_mmio(const struct acpi_info *a, struct aml_mmio *out,
                     int max);

#endif
