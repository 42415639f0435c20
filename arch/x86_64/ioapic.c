/*
 * ioapic.c - the I/O APIC (Intel 82093AA data sheet), for the interrupts
 * that are lines, not messages: COM1's receive interrupt (pc.c) and
 * virtio-mmio devices' (mmio.c, on microvm).  PCI devices use MSI
 * (pci.c).  The MADT lists the I/O APICs, each with the first
 * global system interrupt (GSI) its pins carry, and the ISA IRQs that
 * are not wired to the GSI of the same number or not edge-triggered
 * active-high (its interrupt source overrides, ACPI 6.5 §5.2.12.5).
 *
 * Registers are reached through an index (IOREGSEL) and a window
 * (IOWIN); the redirection entry of pin p is registers 0x10 + 2p (low
 * word: vector, polarity, trigger, mask) and 0x11 + 2p (high byte: the
 * destination APIC id, physical mode).  One caller at a time: G 1 at
 * start-up.
 *
 * Routing a pin masks the legacy 8259 PICs first, whatever the firmware
 * left (the EFI path masks them too): an ISA line reaches them as well,
 * and through a local APIC's LINT0 they would deliver it again with a
 * vector of their own, which may be an exception's.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "firmware/acpi.h"

#define IOREGSEL        0x00
#define IOWIN           0x10
#define IOAPICVER       0x01
#define IOREDTBL(p)     (0x10 + 2 * (p))
#define RTE_ACTIVE_LOW  (1u << 13)
#define RTE_LEVEL       (1u << 15)
#define RTE_MASKED      (1u << 16)

/* MPS INTI flags of an override: polarity in bits 0-1, trigger in 2-3;
   0 in either means the bus's own (ISA: active high, edge). */
#define INTI_ACTIVE_LOW 0x3
#define INTI_LEVEL      0xC

#define PIC1_DATA       0x21
#define PIC2_DATA       0xA1

static uint32_t reg_read(uint32_t base, uint32_t reg)
{
    arch_mmio_write32(base + IOREGSEL, reg);
    return arch_mmio_read32(base + IOWIN);
}

static void reg_write(uint32_t base, uint32_t reg, uint32_t v)
{
    arch_mmio_write32(base + IOREGSEL, reg);
    arch_mmio_write32(base + IOWIN, v);
}

uint32_t ioapic_pins(uint32_t base)
{
    return (reg_read(base, IOAPICVER) >> 16 & 0xFF) + 1;
}

const char *ioapic_gsi_pin(uint32_t gsi, struct ioapic_pin *p)
{
    if (!acpi.nioapic)
        return "no I/O APIC in the ACPI tables or the MP table";
    for (uint32_t i = 0; i < acpi.nioapic; i++) {
        const struct acpi_ioapic *a = &acpi.ioapics[i];

        if (gsi >= a->gsi_base && gsi - a->gsi_base < ioapic_pins(a->addr)) {
            *p = (struct ioapic_pin){ .base = a->addr,
                                      .pin = gsi - a->gsi_base, .gsi = gsi };
            return NULL;
        }
    }
    return "no I/O APIC has that GSI";
}

const char *ioapic_isa_pin(uint8_t isa, struct ioapic_pin *p)
{
    uint32_t gsi = isa, flags = 0;
    const char *why;

    for (uint32_t i = 0; i < acpi.niso; i++)
        if (acpi.isos[i].bus == 0 && acpi.isos[i].source == isa) {
            gsi = acpi.isos[i].gsi;
            flags = acpi.isos[i].flags;
            break;
        }
    if ((flags & INTI_LEVEL) == INTI_LEVEL)
        return "its ISA IRQ is level-triggered (MADT override)";
    if ((why = ioapic_gsi_pin(gsi, p)))
        return why;
    p->active_low = (flags & INTI_ACTIVE_LOW) == INTI_ACTIVE_LOW;
    return NULL;
}

const char *ioapic_route(const struct ioapic_pin *p, uint8_t vector,
                         uint32_t apic_id)
{
    uint32_t lo = vector | (p->active_low ? RTE_ACTIVE_LOW : 0);

    if (apic_id > 255)
        return "the boot core's APIC id is above 255";
    arch_pio_write8(PIC1_DATA, 0xFF);
    arch_pio_write8(PIC2_DATA, 0xFF);
    reg_write(p->base, IOREDTBL(p->pin), lo | RTE_MASKED);
    reg_write(p->base, IOREDTBL(p->pin) + 1, apic_id << 24);
    reg_write(p->base, IOREDTBL(p->pin), lo);
    return NULL;
}
