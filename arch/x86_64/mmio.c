/*
 * mmio.c - virtio-mmio devices on x86_64 (QEMU's microvm): where they
 * are and how their interrupt lines reach a core.
 *
 * With ACPI on, microvm lists them in the DSDT (firmware/aml.c), each
 * line a GSI; with ACPI off they come on the command line
 * (drivers/virtio_mmio_cmdline.h), each line an ISA IRQ, which on
 * microvm's I/O APIC is the GSI of the same number.
 *
 * A line is routed edge-triggered, though the device holds it high
 * until its InterruptStatus is acknowledged.  Interrupts are masked in
 * software (arch_impl.h): one that arrives while masked is acknowledged
 * to the local APIC at once and sent again when the mask lifts.  A
 * level-triggered entry would then raise it again at every EOI while
 * the line stays high, as long as the core keeps the mask; an edge is
 * taken once, and the virtio-mmio handler acknowledges the device's
 * status before it serves the queues (drivers/virtio_mmio.h), so a
 * notification after the acknowledgement raises the line anew, and one
 * before it is in the rings the handler then reads.
 */
#include "arch/arch.h"
#include "arch/x86_64/x86.h"
#include "firmware/acpi.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"

int arch_virtio_mmio_slots(struct arch_mmio_slot *slots, int max)
{
    struct aml_mmio d[32];
    int n = acpi.dsdt_pa ? acpi_virtio_mmio(&acpi, d, 32) : 0;

    if (n > 32)
        n = 32;
    if (n > max)
        n = max;
    for (int i = 0; i < n; i++)
        slots[i] = (struct arch_mmio_slot){ .base = d[i].base,
                                            .size = d[i].size,
                                            .line = d[i].gsi };
    return n;
}

bool arch_irq_line(uint32_t line, int irq)
{
    struct ioapic_pin pin;
    const char *why;

    if ((why = ioapic_gsi_pin(line, &pin)) ||
        (why = ioapic_route(&pin, VEC_DEV0 + irq, cpus[0]->arch.apic_id))) {
        printk("virtio-mmio: interrupt line %u: %s\n", line, why);
        return false;
    }
    return true;
}
