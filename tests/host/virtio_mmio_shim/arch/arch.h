/*
 * arch.h (virtio-mmio host test) - stands in for arch/arch.h when
 * drivers/virtio.c and drivers/virtio_mmio.c are built on the host by
 * tests/host/virtio_mmio_test.c: every register access goes to the
 * test's simulated devices (shim_mmio_read32, shim_mmio_write32, which
 * the test defines), and the platform's calls are declared as the real
 * header declares them.
 */
#ifndef TESTS_HOST_VIRTIO_MMIO_SHIM_ARCH_ARCH_H
#define TESTS_HOST_VIRTIO_MMIO_SHIM_ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint32_t shim_mmio_read32(uintptr_t a);
void shim_mmio_write32(uintptr_t a, uint32_t v);

static inline uint32_t arch_mmio_read32(uintptr_t a)
{
    return shim_mmio_read32(a);
}

static inline void arch_mmio_write32(uintptr_t a, uint32_t v)
{
    shim_mmio_write32(a, v);
}

static inline void arch_cpu_relax(void)
{
}

struct arch_mmio_slot {
    uint64_t base, size;
    uint32_t line;
};

int arch_virtio_mmio_slots(struct arch_mmio_slot *slots, int max);
bool arch_irq_line(uint32_t line, int irq);

#endif
