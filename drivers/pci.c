/*
 * pci.c - enumeration and BAR placement over ECAM (see pci.h).
 *
 * Buses are found by walking from the host bridge's first bus through
 * the bridges the firmware numbered; a bridge it left unnumbered is
 * reported and skipped (QEMU's q35 and virt put every device on bus 0).
 * Where no firmware placed the BARs (QEMU's direct kernel boots), each
 * memory BAR gets the next naturally aligned range of the window the
 * platform names, the largest BARs first so that alignment wastes
 * nothing.
 */
#include <stdio.h>
#include <string.h>
#include "arch/arch.h"
#include "drivers/pci.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

#define CFG_VENDOR      0x00
#define CFG_COMMAND     0x04
#define CFG_CLASS       0x08
#define CFG_HEADER      0x0E
#define CFG_BAR0        0x10
#define CFG_SECONDARY   0x19        /* type 1: secondary bus number */
#define CFG_CAPS        0x34
#define CFG_IRQ_PIN     0x3D
#define CMD_MEM         (1u << 1)
#define CMD_MASTER      (1u << 2)
#define CMD_INTX_OFF    (1u << 10)
#define STATUS_CAPS     (1u << 20)  /* in the dword at CFG_COMMAND */

#define BAR_IO          0x1
#define BAR_64          0x4

#define MSIX_CTRL       2
#define MSIX_TABLE      4
#define MSIX_ENABLE     (1u << 15)
#define MSIX_MASKALL    (1u << 14)
#define MSIX_VEC_MASKED 1u

static struct pci_host host;
static struct pci_dev devs[PCI_MAX_DEVS];
static int ndevs;
static uint64_t next32, next64;     /* free space in the BAR windows */

uint8_t pci_read8(const struct pci_dev *d, uint32_t off)
{
    return *(volatile uint8_t *)(d->cfg + off);
}

uint16_t pci_read16(const struct pci_dev *d, uint32_t off)
{
    return *(volatile uint16_t *)(d->cfg + off);
}

uint32_t pci_read32(const struct pci_dev *d, uint32_t off)
{
    return *(volatile uint32_t *)(d->cfg + off);
}

void pci_write16(const struct pci_dev *d, uint32_t off, uint16_t v)
{
    *(volatile uint16_t *)(d->cfg + off) = v;
}

void pci_write32(const struct pci_dev *d, uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(d->cfg + off) = v;
}

const char *pci_name(const struct pci_dev *d, char *buf)
{
    snprintf(buf, 12, "%02x:%02x.%x", d->bus & 0xFF, d->dev & 0x1F,
             d->fn & 7);
    return buf;
}

static volatile uint8_t *cfg_of(uint32_t bus, uint32_t dev, uint32_t fn)
{
    return (volatile uint8_t *)(uintptr_t)(host.ecam + ((uint64_t)bus << 20 |
                                                        dev << 15 | fn << 12));
}

uint32_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint32_t after)
{
    uint32_t off;

    if (!(pci_read32(d, CFG_COMMAND) & STATUS_CAPS))
        return 0;
    off = after ? pci_read8(d, after + 1) : pci_read8(d, CFG_CAPS);
    /* At most 48 capabilities fit in 192 bytes: a longer walk loops. */
    for (int n = 0; n < 48 && off >= 0x40 && off < 0x100; n++) {
        off &= ~3u;
        if (pci_read8(d, off) == id)
            return off;
        off = pci_read8(d, off + 1);
    }
    return 0;
}

/* Sizes BAR i (decoding is off while its all-ones probe is in it);
   returns the number of slots it takes (2 for 64-bit). */
static int size_bar(struct pci_dev *d, int i, bool *is64, uint64_t *cur)
{
    uint32_t off = CFG_BAR0 + 4 * i, lo = pci_read32(d, off), hi = 0;
    uint64_t mask;

    *is64 = (lo & 0x7) == BAR_64;
    pci_write32(d, off, ~0u);
    mask = pci_read32(d, off) & ~0xFu;
    pci_write32(d, off, lo);
    if (*is64 && i < 5) {
        hi = pci_read32(d, off + 4);
        pci_write32(d, off + 4, ~0u);
        mask |= (uint64_t)pci_read32(d, off + 4) << 32;
        pci_write32(d, off + 4, hi);
    } else if (mask) {
        mask |= 0xFFFFFFFF00000000UL;
    }
    *cur = ((uint64_t)hi << 32 | lo) & ~0xFUL;
    d->bar_size[i] = mask ? ~mask + 1 : 0;
    return *is64 ? 2 : 1;
}

static void program_bar(struct pci_dev *d, int i, bool is64, uint64_t bus)
{
    pci_write32(d, CFG_BAR0 + 4 * i, (uint32_t)bus);
    if (is64)
        pci_write32(d, CFG_BAR0 + 4 * i + 4, (uint32_t)(bus >> 32));
}

/* Takes room for `size` bytes from window w; its CPU address, or 0. */
static uint64_t take(const struct pci_window *w, uint64_t *next,
                     uint64_t size)
{
    uint64_t a = (*next + size - 1) & ~(size - 1);

    if (!w->size || !size || a < *next || a + size > w->cpu + w->size ||
        a + size < a)
        return 0;
    *next = a + size;
    return a;
}

/* Places BAR i if nobody did (it reads 0), in the 32-bit window while it
   has room (a 64-bit BAR too: that needs no mapping above 4 GiB), then
   the 64-bit one; records its CPU address. */
static void place_bar(struct pci_dev *d, int i, bool is64, uint64_t cur)
{
    const struct pci_window *w = &host.mem32;
    uint64_t size = d->bar_size[i], a;
    char nm[12];

    if (cur) {                          /* firmware placed it */
        for (int k = 0; k < 2; k++, w = &host.mem64)
            if (w->size && cur >= w->bus && cur - w->bus < w->size) {
                d->bar[i] = w->cpu + (cur - w->bus);
                return;
            }
        d->bar[i] = cur;
        return;
    }
    a = take(w, &next32, size);
    if (!a && is64) {
        w = &host.mem64;
        a = take(w, &next64, size);
    }
    if (!a) {
        printk("pci: %s BAR%d (%lu KiB) fits no window; left off\n",
               pci_name(d, nm), i, size >> 10);
        d->bar_size[i] = 0;
        return;
    }
    program_bar(d, i, is64, w->bus + (a - w->cpu));
    d->bar[i] = a;
}

/* BARs in decreasing size, so each window fills without gaps. */
static void place_bars(void)
{
    static struct {
        struct pci_dev *d;
        int i;
        bool is64;
        uint64_t cur;
    } b[6 * PCI_MAX_DEVS];
    int n = 0;

    for (int k = 0; k < ndevs; k++) {
        struct pci_dev *d = &devs[k];
        uint32_t cmd = pci_read32(d, CFG_COMMAND) & 0xFFFF;

        pci_write16(d, CFG_COMMAND, cmd & ~(CMD_MEM | CMD_MASTER));
        for (int i = 0; i < 6;) {
            bool is64;
            uint64_t cur;
            uint32_t raw = pci_read32(d, CFG_BAR0 + 4 * i);
            int w;

            if (raw & BAR_IO) {
                i++;
                continue;
            }
            w = size_bar(d, i, &is64, &cur);
            if (d->bar_size[i])
                b[n++] = (typeof(b[0])){ d, i, is64, cur };
            i += w;
        }
    }
    for (int i = 1; i < n; i++)         /* insertion sort, n is small */
        for (int j = i; j > 0 && b[j].d->bar_size[b[j].i] >
                                  b[j - 1].d->bar_size[b[j - 1].i]; j--) {
            typeof(b[0]) t = b[j];

            b[j] = b[j - 1];
            b[j - 1] = t;
        }
    for (int k = 0; k < n; k++)
        place_bar(b[k].d, b[k].i, b[k].is64, b[k].cur);
    for (int k = 0; k < ndevs; k++) {
        uint32_t cmd = pci_read32(&devs[k], CFG_COMMAND) & 0xFFFF;

        pci_write16(&devs[k], CFG_COMMAND, cmd | CMD_MEM | CMD_MASTER);
    }
}

static void add_dev(uint32_t bus, uint32_t dev, uint32_t fn)
{
    struct pci_dev *d;
    uint32_t cls;

    if (ndevs == PCI_MAX_DEVS) {
        printk("pci: more than %d functions; %02x:%02x.%x left out\n",
               PCI_MAX_DEVS, bus, dev, fn);
        return;
    }
    d = &devs[ndevs++];
    d->bus = bus, d->dev = dev, d->fn = fn;
    d->cfg = cfg_of(bus, dev, fn);
    d->vendor = pci_read16(d, CFG_VENDOR);
    d->device = pci_read16(d, CFG_VENDOR + 2);
    cls = pci_read32(d, CFG_CLASS);
    d->class = cls >> 24;
    d->subclass = cls >> 16;
    d->irq_pin = pci_read8(d, CFG_IRQ_PIN);
    if (d->irq_pin > 4)
        d->irq_pin = 0;
}

/* Every function on bus, and the buses behind its numbered bridges. */
static void scan_bus(uint32_t bus, int depth)
{
    if (bus < host.bus_start || bus > host.bus_end || depth > 8 ||
        !vm_map_device((uintptr_t)cfg_of(bus, 0, 0), 1 << 20))
        return;
    for (uint32_t dev = 0; dev < 32; dev++)
        for (uint32_t fn = 0; fn < 8; fn++) {
            volatile uint8_t *c = cfg_of(bus, dev, fn);
            uint8_t hdr;

            if (*(volatile uint16_t *)c == 0xFFFF) {
                if (fn == 0)
                    break;
                continue;
            }
            hdr = c[CFG_HEADER];
            if ((hdr & 0x7F) == 1) {
                uint8_t sec = c[CFG_SECONDARY];

                if (sec > bus)
                    scan_bus(sec, depth + 1);
                else
                    printk("pci: bridge %02x:%02x.%x has no bus number; "
                           "what is behind it is not used\n", bus, dev, fn);
            } else if ((hdr & 0x7F) == 0) {
                add_dev(bus, dev, fn);
            }
            if (fn == 0 && !(hdr & 0x80))
                break;
        }
}

int pci_init(void)
{
    if (!arch_pci_host(&host) || !host.ecam) {
        printk("pci: no PCI host bridge\n");
        return 0;
    }
    next32 = host.mem32.cpu;
    next64 = host.mem64.cpu;
    scan_bus(host.bus_start, 0);
    place_bars();
    printk("pci: %d functions; ECAM at 0x%lx, buses %u-%u\n", ndevs,
           host.ecam, host.bus_start, host.bus_end);
    return ndevs;
}

struct pci_dev *pci_find(uint16_t vendor, uint16_t lo, uint16_t hi,
                         struct pci_dev *prev)
{
    for (int i = prev ? (int)(prev - devs) + 1 : 0; i < ndevs; i++) {
        struct pci_dev *d = &devs[i];

        if (!d->claimed && d->vendor == vendor && d->device >= lo &&
            d->device <= hi)
            return d;
    }
    return NULL;
}

volatile void *pci_map_bar(struct pci_dev *d, int bar, uint64_t off,
                           uint64_t len)
{
    if (bar < 0 || bar > 5 || !d->bar[bar] || off + len > d->bar_size[bar] ||
        off + len < off)
        return NULL;
    return vm_map_device(d->bar[bar] + off, len);
}

bool pci_msix_enable(struct pci_dev *d)
{
    uint32_t cap = pci_find_cap(d, PCI_CAP_MSIX, 0), tbl;
    uint16_t ctrl;

    if (!cap)
        return false;
    ctrl = pci_read16(d, cap + MSIX_CTRL);
    tbl = pci_read32(d, cap + MSIX_TABLE);
    d->msix_n = (ctrl & 0x7FF) + 1;
    d->msix_table = pci_map_bar(d, tbl & 7, tbl & ~7u, 16 * d->msix_n);
    if (!d->msix_table)
        return false;
    d->msix_cap = cap;
    for (uint32_t i = 0; i < d->msix_n; i++)
        d->msix_table[4 * i + 3] = MSIX_VEC_MASKED;
    pci_write16(d, cap + MSIX_CTRL, (ctrl | MSIX_ENABLE) & ~MSIX_MASKALL);
    /* INTx stays quiet while MSI-X is on (§6.8.2); say so anyway. */
    pci_write16(d, CFG_COMMAND,
                (pci_read32(d, CFG_COMMAND) & 0xFFFF) | CMD_INTX_OFF);
    return true;
}

bool pci_msix_route(struct pci_dev *d, uint32_t i, int irq,
                    const struct cpu *c)
{
    volatile uint32_t *e;
    uint64_t addr;
    uint32_t data;

    if (!d->msix_cap || i >= d->msix_n ||
        !arch_msi_message(pci_rid(d), i, irq, c, &addr, &data))
        return false;
    e = d->msix_table + 4 * i;
    e[0] = (uint32_t)addr;
    e[1] = (uint32_t)(addr >> 32);
    e[2] = data;
    e[3] = 0;                           /* unmask last */
    return true;
}
