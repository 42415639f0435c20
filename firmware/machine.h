/*
 * machine.h - the description of an aarch64 machine the kernel boots
 * from: memory, cores, the GIC, the timer, the console UART and its
 * interrupt, PSCI, PCI and virtio-mmio devices.  Filled from the device
 * tree (fdt_parse_machine, firmware/fdt_machine.c) or from the ACPI tables
 * (acpi_to_machine, firmware/acpi_machine.c), and handed to the kernel
 * in struct bootinfo.
 */
#ifndef FIRMWARE_MACHINE_H
#define FIRMWARE_MACHINE_H

#include <stdint.h>

#define MACH_MAX_MEM         16
#define MACH_MAX_RESERVED    16
#define MACH_MAX_CPUS        256
#define MACH_MAX_VIRTIO      32
#define MACH_MAX_REDIST      4
#define MACH_MAX_INTX        64
#define MACH_MAX_MSI         4

enum mach_enable {
    MACH_ENABLE_NONE,           /* no (known) enable-method: the boot CPU */
    MACH_ENABLE_PSCI,           /* "psci": PSCI CPU_ON */
    MACH_ENABLE_SPIN_TABLE,     /* "spin-table": write cpu-release-addr */
};

enum mach_conduit {
    MACH_CONDUIT_NONE,          /* no PSCI node, or an unknown method */
    MACH_CONDUIT_HVC,
    MACH_CONDUIT_SMC,
};

/* Order of the arm,armv8-timer interrupts property. */
enum mach_timer {
    MACH_TIMER_SEC,             /* secure EL1 physical timer */
    MACH_TIMER_PHYS,            /* non-secure EL1 physical timer */
    MACH_TIMER_VIRT,            /* virtual timer */
    MACH_TIMER_HYP,             /* EL2 physical timer */
    MACH_NTIMER,
};

struct mach_range {
    uint64_t base, size;
};

/* One GIC interrupt specifier <type num flags>, type 0 SPI, 1 PPI. */
struct mach_irq {
    uint32_t intid;             /* 16 + num for a PPI, 32 + num for an SPI;
                                   0: none */
    uint32_t flags;             /* bits 0-3 trigger: 1 edge rising, 4 level
                                   high, 8 level low; GICv2 PPIs carry a CPU
                                   mask in bits 8-15 */
};

struct mach_cpu {
    uint64_t mpidr;             /* reg: MPIDR_EL1 Aff3 (bits 32-39) and
                                   Aff2..Aff0 (bits 0-23) */
    uint64_t release_addr;      /* spin-table: cpu-release-addr, else 0 */
    uint8_t enable;             /* enum mach_enable */
};

struct mach_gic {
    uint32_t version;           /* 2 or 3; 0: no supported GIC found */
    struct mach_range dist;     /* GICD */
    struct mach_range cpuif;    /* v2: GICC */
    uint32_t nredist;           /* v3: GICR regions, in reg order */
    struct mach_range redist[MACH_MAX_REDIST];
    struct mach_range its;      /* v3: the first ITS (its control frame,
                                   then its translation frame 64 KiB
                                   above); base 0: none */
};

struct mach_virtio {
    uint64_t base, size;
    uint32_t intid;             /* its SPI as an INTID (32 + num); 0: none */
};

/* A window of the PCI host's ranges: CPU addresses [cpu, cpu + size)
   reach PCI addresses [bus, bus + size). */
struct mach_pci_window {
    uint64_t cpu, bus, size;
};

/* One interrupt-map entry whose parent is the GIC: a device's INTx pin,
   matched under the mask, goes to an SPI. */
struct mach_pci_intx {
    uint32_t addr;              /* phys.hi of the child unit address */
    uint32_t pin;               /* 1 = INTA .. 4 = INTD */
    uint32_t intid;             /* 32 + SPI number */
};

/* One msi-map entry whose controller is the GIC's ITS: requester IDs
   [rid, rid + len) (after the mask) are ITS DeviceIDs [devid, devid + len). */
struct mach_pci_msi {
    uint32_t rid, devid, len;
};

struct mach_pci {
    struct mach_range ecam;     /* config space of bus_start; size 0: none */
    uint32_t bus_start, bus_end;    /* bus-range, default 0..255 */
    struct mach_pci_window mem32;   /* first 32-bit memory range */
    struct mach_pci_window mem64;   /* first 64-bit memory range */
    uint32_t intx_mask_addr;    /* interrupt-map-mask: phys.hi, pin */
    uint32_t intx_mask_pin;
    uint32_t nintx;
    struct mach_pci_intx intx[MACH_MAX_INTX];
    uint32_t msi_mask;          /* msi-map-mask, default 0xFFFF */
    uint32_t nmsi;              /* msi-map entries toward gic.its, or one
                                   identity entry for msi-parent = the ITS;
                                   0: the host's MSIs reach no known ITS */
    struct mach_pci_msi msi[MACH_MAX_MSI];
};

/*
 * The machine.  Counts never exceed their arrays; entries that did not
 * fit are counted in dropped.  Absent or unusable optional parts leave
 * their fields zero.  From a device tree (fdt_parse_machine), nodes
 * whose status is not "okay" are skipped (CPUs excepted, whose
 * "disabled" means parked; only "fail" CPUs are skipped), and addresses
 * are as reg gives them (see fdt_reg), which for QEMU's virt machine and
 * most SoCs are physical addresses.
 */
struct machine {
    uint32_t nmem;              /* every /memory node's every reg entry */
    struct mach_range mem[MACH_MAX_MEM];
    uint32_t nreserved;         /* reservation block, then /reserved-memory */
    struct mach_range reserved[MACH_MAX_RESERVED];
    uint32_t ncpus;             /* /cpus children with device_type "cpu" */
    struct mach_cpu cpus[MACH_MAX_CPUS]; /* blob order */
    uint32_t dropped;           /* entries left out: an array was full */

    uint32_t psci_version;      /* best compatible: 0x10000 for 1.0, 2 for
                                   0.2, 1 for "arm,psci" (0.1); 0: none */
    uint32_t psci_conduit;      /* enum mach_conduit */
    uint32_t psci_cpu_on;       /* cpu_on property (the function id PSCI
                                   0.1 needs); 0 if absent */

    struct mach_gic gic;
    struct mach_irq timer[MACH_NTIMER];   /* PPIs, indexed by enum mach_timer */
    struct mach_range uart;     /* PL011: the one /chosen's stdout-path
                                   names, else the first; base 0: none */
    struct mach_irq uart_irq;   /* its interrupt, when an SPI of the GIC;
                                   intid 0: none known */
    struct mach_range rtc;      /* first PL031 RTC; base 0: none */
    uint32_t nvirtio;
    struct mach_virtio virtio[MACH_MAX_VIRTIO];
    struct mach_pci pci;        /* first pci-host-ecam-generic */

    /* From /chosen; they point into the blob, NULL if absent. */
    const char *bootargs;       /* the kernel command line */
    const char *stdout_path;    /* as given, ":options" included */
    /* /chosen's linux,initrd-start and linux,initrd-end (one or two
       cells each), as given, unchecked: where the boot loader put the
       initrd.  Both 0 unless both are there with those lengths. */
    uint64_t initrd_start, initrd_end;

    const char *error;          /* NULL, or what was wrong with the
                                   tables it came from */
};

struct acpi_info;

/*
 * Fills *m from what acpi_parse(rsdp, a) read and returned (parsed), on
 * the core whose MPIDR affinity is boot.  The cores are the usable GICC
 * entries, each started with PSCI if the FADT says PSCI is there; a MADT
 * without a usable core gives the boot core alone.  The ECAM window is
 * the MCFG's first; the PCI windows and INTx routes live in AML and stay
 * empty (devices keep the firmware's BARs).  The ITS is the MADT's first;
 * how requester IDs become its DeviceIDs is the IORT's to say, which is
 * not read, so pci.nmsi stays 0 (no MSI).  mem, reserved, bootargs and
 * rtc are not ACPI's to give and stay empty.  Returns NULL, or why *m is
 * unusable (no ACPI tables, or no GIC); m->error keeps acpi_parse's
 * complaint about a partial result.
 */
const char *acpi_to_machine(const struct acpi_info *a, int parsed,
                            uint64_t boot, struct machine *m);

#endif
