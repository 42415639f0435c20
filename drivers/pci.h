/*
 * pci.h - PCI Express devices over ECAM: enumeration, BARs, capabilities
 * and MSI-X (PCI Express Base 5.0 §7.2.2 ECAM, §7.5.1 type 0 header,
 * PCI Local Bus 3.0 §6.2.5 BARs, §6.8.2 MSI-X).
 *
 * pci_init runs once on the boot core before any driver looks for a
 * device; afterwards the device list never changes, and each device
 * belongs to the one driver that claimed it (pci_claim).
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#define PCI_MAX_DEVS    64

/* Config-space offsets used outside pci.c. */
#define PCI_CAP_VENDOR  0x09
#define PCI_CAP_MSIX    0x11

struct pci_dev {
    uint32_t bus, dev, fn;
    uint16_t vendor, device;
    uint8_t class, subclass;
    uint8_t irq_pin;            /* 1 = INTA .. 4 = INTD, 0: none */
    uint64_t bar[6];            /* CPU address of each memory BAR, 0 if
                                   none; a 64-bit BAR fills its low slot */
    uint64_t bar_size[6];
    bool claimed;               /* a driver owns it */
    volatile uint8_t *cfg;      /* its 4 KiB of config space */
    /* MSI-X, if the device has it (pci_msix_enable): */
    uint32_t msix_cap;          /* config offset of the capability, 0 */
    uint32_t msix_n;            /* table entries */
    volatile uint32_t *msix_table;
};

/*
 * Finds every device under the platform's host bridge (arch_pci_host),
 * places the memory BARs no firmware placed, and turns on memory decoding
 * and bus mastering.  Returns how many devices it found (0 with a message
 * when there is no host bridge).
 */
int pci_init(void);

/* The next unclaimed device with this vendor and a device id in
   [lo, hi], after `prev` (NULL: from the start); NULL if none. */
struct pci_dev *pci_find(uint16_t vendor, uint16_t lo, uint16_t hi,
                         struct pci_dev *prev);

/* Its requester ID: bus << 8 | dev << 3 | fn. */
static inline uint32_t pci_rid(const struct pci_dev *d)
{
    return d->bus << 8 | d->dev << 3 | d->fn;
}

static inline void pci_claim(struct pci_dev *d)
{
    d->claimed = true;
}

uint8_t pci_read8(const struct pci_dev *d, uint32_t off);
uint16_t pci_read16(const struct pci_dev *d, uint32_t off);
uint32_t pci_read32(const struct pci_dev *d, uint32_t off);
void pci_write16(const struct pci_dev *d, uint32_t off, uint16_t v);
void pci_write32(const struct pci_dev *d, uint32_t off, uint32_t v);

/* Offset of the first capability with this id after `after` (0: from
   the start of the list); 0 if none.  Bounded: a looping list ends. */
uint32_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint32_t after);

/* Maps [bar + off, + len) of a memory BAR; NULL if out of the BAR. */
volatile void *pci_map_bar(struct pci_dev *d, int bar, uint64_t off,
                           uint64_t len);

/*
 * Turns MSI-X on with every vector masked.  False if the device has no
 * MSI-X or its table cannot be mapped.
 */
bool pci_msix_enable(struct pci_dev *d);

/* Points MSI-X table entry i at device interrupt irq on core c and
   unmasks it; false if the platform has no MSI or i is out of range. */
bool pci_msix_route(struct pci_dev *d, uint32_t i, int irq,
                    const struct cpu *c);

/* "bus:dev.fn", for messages; buf holds 12 bytes. */
const char *pci_name(const struct pci_dev *d, char *buf);

#endif
