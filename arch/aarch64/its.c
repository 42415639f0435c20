/*
 * its.c - MSIs through the GICv3 Interrupt Translation Service (IHI 0069
 * ch. 5-6).  A device writes an EventID to GITS_TRANSLATER; the ITS
 * looks the writer's DeviceID up in its device table, finds the event in
 * that device's interrupt translation table (ITT), and makes it pending
 * as an LPI on the redistributor of the event's collection.
 *
 * Here each core is a collection (ICID = cpu id), each mapped (DeviceID,
 * EventID) gets an LPI of its own from 8192 up, and each LPI stands for
 * one device interrupt (kernel/irq.h).  The LPI configuration table is
 * shared by every redistributor; each core has its own pending table.
 *
 * its_init runs on the boot core after the distributor, its_init_cpu on
 * every core as it comes up (the boot core's after its_init), its_map
 * from a G or the boot path once every core is up; its_lpi_irq from the
 * interrupt path at any time.  The ITS takes commands through a ring in
 * memory, under its_lock, each batch consumed before the next is
 * written; a command it has not consumed within CMD_TIMEOUT_MS, or one
 * that stalls it, leaves the ITS unused from then on, with a message.
 */
#include <stddef.h>
#include "arch/aarch64/aarch64.h"
#include "arch/arch.h"
#include "firmware/machine.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"

/* Distributor. */
#define GICD_TYPER          0x0004
#define GICD_TYPER_LPIS     (1u << 17)

/* Redistributor, RD_base frame. */
#define GICR_CTLR           0x0000
#define GICR_TYPER          0x0008
#define GICR_PROPBASER      0x0070
#define GICR_PENDBASER      0x0078
#define GICR_CTLR_LPIS      1u          /* EnableLPIs */
#define GICR_TYPER_PLPIS    1u          /* physical LPIs supported */
#define PENDBASER_PTZ       (1UL << 62) /* the pending table is zero */

/* ITS control frame; GITS_TRANSLATER is in the translation frame, 64 KiB
   above. */
#define GITS_CTLR           0x0000
#define GITS_TYPER          0x0008
#define GITS_CBASER         0x0080
#define GITS_CWRITER        0x0088
#define GITS_CREADR         0x0090
#define GITS_BASER(n)       (0x0100 + 8 * (n))
#define GITS_TRANSLATER     0x10040
#define GITS_CTLR_ENABLED   1u
#define GITS_CTLR_QUIESCENT (1u << 31)
#define CREADR_STALLED      1u

/* GITS_TYPER fields. */
#define TYPER_PHYSICAL      1UL
#define TYPER_ITT_SIZE(t)   (((t) >> 4 & 0xF) + 1)      /* bytes */
#define TYPER_EVBITS(t)     (((t) >> 8 & 0x1F) + 1)
#define TYPER_DEVBITS(t)    (((t) >> 13 & 0x1F) + 1)
#define TYPER_PTA           (1UL << 19)
#define TYPER_HCC(t)        ((t) >> 24 & 0xFF)

/* GITS_BASERn fields. */
#define BASER_VALID         (1UL << 63)
#define BASER_TYPE(b)       ((b) >> 56 & 7)
#define BASER_ESIZE(b)      (((b) >> 48 & 0x1F) + 1)
#define BASER_PSZ(b)        ((b) >> 8 & 3)              /* 4, 16, 64 KiB */
#define BASER_TYPE_DEVICES  1
#define BASER_TYPE_COLLECT  4

/*
 * Memory attributes of the tables the GIC reads: inner write-back
 * read/write-allocate cacheable, inner shareable, outer as inner.  Where
 * the GIC reads back non-shareable it cannot snoop the caches: the
 * tables are then non-cacheable to it and every write it is to see is
 * cleaned to the point of coherency (sync_mem).  The inner-cache field
 * sits at bits 7-9 in the redistributor's registers and 59-61 in the
 * ITS's; shareability at 10-11 in both.
 */
#define CACHE_WB            7UL
#define CACHE_NC            1UL
#define SH_INNER            (1UL << 10)
#define SH_MASK             (3UL << 10)
#define RD_CACHE(c)         ((uint64_t)(c) << 7)
#define ITS_CACHE(c)        ((uint64_t)(c) << 59)

/* Commands: 32 bytes each, the opcode in the low byte. */
#define CMD_MOVI            0x01
#define CMD_SYNC            0x05
#define CMD_MAPD            0x08
#define CMD_MAPC            0x09
#define CMD_MAPTI           0x0A
#define CMD_INV             0x0C
#define CMD_VALID           (1UL << 63)
#define CMD_PA_MASK         0x000FFFFFFFFFFF00UL    /* ITT address, 51:8 */
#define CMD_RD_MASK         0x000FFFFFFFFF0000UL    /* RDbase, 51:16 */
#define CMDQ_BYTES          PAGE_SIZE
#define CMD_TIMEOUT_MS      1000

/*
 * 14 INTID bits: LPIs 8192..16383, of which the first ITS_MAX_LPIS are
 * handed out.  The configuration table has a byte per LPI (priority in
 * bits 2-7, bit 1 RES1, bit 0 enable); the pending table a bit per
 * INTID, LPIs' and below.
 */
#define LPI_BASE            8192
#define LPI_IDBITS          14
#define PROP_BYTES          ((1u << LPI_IDBITS) - LPI_BASE)
#define PEND_BYTES          ((1u << LPI_IDBITS) / 8)
#define PEND_ALIGN          (0x10000 / PAGE_SIZE)
#define LPI_PRIO            0x80
#define LPI_ON              (LPI_PRIO | 2 | 1)

#define ITS_MAX_LPIS        (2 * ARCH_NIRQ)
#define ITS_MAX_DEVS        16
#define ITS_EVENT_BITS      5                   /* EventIDs 0..31 */

struct its_dev {
    uint32_t devid;
    uint64_t itt;               /* physical address of its ITT */
};

/* One mapped event and its LPI (LPI_BASE + index in maps). */
struct its_map {
    uint32_t devid, event;
    int cpu;                    /* its collection */
};

static struct {
    uintptr_t base;             /* 0: no ITS in use */
    uint64_t typer;
    bool flush;                 /* some reader does not snoop: sync_mem */
    uint8_t *prop;              /* LPI configuration table */
    uint64_t prop_pa;
    uint32_t ndevids;           /* device table entries */
    bool coll_table;            /* collections live in memory */
    uint64_t *cmdq;
    uint32_t cwriter;           /* byte offset of the next command */
    bool cpu_on[MAXCPU];        /* core's redistributor takes LPIs */
    uint32_t ndevs, nmaps;
    struct its_dev devs[ITS_MAX_DEVS];
    struct its_map maps[ITS_MAX_LPIS];
} its;

/* Device interrupt of each LPI, -1 if none; read by the interrupt path. */
static int lpi_irqs[ITS_MAX_LPIS];

static struct spinlock its_lock = SPINLOCK_INIT(LOCK_ITS);

static void mmio_write64(uintptr_t a, uint64_t v)
{
    __asm__ volatile("" : : : "memory");
    *(volatile uint64_t *)a = v;
}

/* Makes [p, p + n) visible to the GIC before the caller's next MMIO
   write (a command, EnableLPIs). */
static void sync_mem(const void *p, uint64_t n)
{
    if (its.flush)
        dcache_clean_poc(p, n);
    else
        __asm__ volatile("dsb ishst" : : : "memory");
}

/*
 * Writes v to the table base register at reg; where the GIC reads back
 * non-shareable, writes it again with the table non-cacheable and sets
 * its.flush.  Returns what the register holds.
 */
static uint64_t set_base(uintptr_t reg, uint64_t v, uint64_t wb,
                         uint64_t nc)
{
    uint64_t r;

    mmio_write64(reg, v);
    r = mmio_read64(reg);
    if ((r & SH_MASK) == 0) {
        its.flush = true;
        mmio_write64(reg, (v & ~(wb | SH_MASK)) | nc);
        r = mmio_read64(reg);
    }
    return r;
}

static uint64_t ms_cycles(uint64_t ms)
{
    return arch_cycles_hz() / 1000 * ms;
}

/* Gives up on the ITS: no new messages from now on. */
static void its_fail(const char *why)
{
    printk("its: %s; no more MSIs through the ITS\n", why);
    __atomic_store_n(&its.base, 0, __ATOMIC_RELEASE);
}

/*
 * Queues the n commands at cmd, then waits until the ITS has consumed
 * them.  False, with the ITS given up, if it has not within
 * CMD_TIMEOUT_MS or it stalled on a command error.  Under its_lock.
 */
static bool its_send(const uint64_t (*cmd)[4], int n)
{
    uintptr_t b = its.base;
    uint64_t end = arch_cycles() + ms_cycles(CMD_TIMEOUT_MS), r;

    if (!b)
        return false;
    for (int i = 0; i < n; i++) {
        uint64_t *slot = its.cmdq + its.cwriter / 8;

        for (int w = 0; w < 4; w++)
            slot[w] = cmd[i][w];
        sync_mem(slot, 32);
        its.cwriter = (its.cwriter + 32) % CMDQ_BYTES;
    }
    mmio_write64(b + GITS_CWRITER, its.cwriter);
    while (((r = mmio_read64(b + GITS_CREADR)) & 0xFFFE0) != its.cwriter) {
        if (r & CREADR_STALLED) {
            printk("its: command 0x%lx at offset 0x%lx stalled the queue\n",
                   its.cmdq[(r & 0xFFFE0) / 8] & 0xFF, r & 0xFFFE0);
            its_fail("a command failed");
            return false;
        }
        if (arch_cycles() > end) {
            printk("its: command queue not consumed within %d ms "
                   "(CREADR 0x%lx, CWRITER 0x%x)\n", CMD_TIMEOUT_MS,
                   r, its.cwriter);
            its_fail("the ITS stopped taking commands");
            return false;
        }
        arch_cpu_relax();
    }
    return true;
}

/* The target of a collection: its redistributor as MAPC and SYNC name it. */
static uint64_t rdbase(uintptr_t gicr)
{
    if (its.typer & TYPER_PTA)
        return gicr & CMD_RD_MASK;
    return (mmio_read64(gicr + GICR_TYPER) >> 8 & 0xFFFF) << 16;
}

/*
 * Allocates and programs the table GITS_BASERn describes, if it is one
 * this driver needs (devices, collections).  False if a needed table
 * could not be had.
 */
static bool its_table(int n, uint32_t ncollections)
{
    static const uint64_t psz[] = { 0x1000, 0x4000, 0x10000, 0x10000 };
    uintptr_t reg = its.base + GITS_BASER(n);
    uint64_t b = mmio_read64(reg), type = BASER_TYPE(b), page, bytes, pa;
    uint64_t entries, npages;

    if (type == BASER_TYPE_DEVICES)
        entries = its.ndevids;
    else if (type == BASER_TYPE_COLLECT)
        entries = ncollections;
    else
        return true;
    /* Ask for 4 KiB pages; a fixed size reads back as itself. */
    b &= ~(BASER_VALID | 1UL << 62 | 0x3FFUL);          /* flat */
    mmio_write64(reg, b);
    page = psz[BASER_PSZ(mmio_read64(reg))];
    b = (b & ~(3UL << 8)) | (uint64_t)BASER_PSZ(mmio_read64(reg)) << 8;
    bytes = entries * BASER_ESIZE(b);
    npages = (bytes + page - 1) / page;
    if (npages > 256) {                 /* what the Size field holds */
        npages = 256;
        entries = npages * page / BASER_ESIZE(b);
    }
    pa = mem_alloc_pages_aligned(npages * page / PAGE_SIZE, page / PAGE_SIZE);
    if (!pa)
        return false;
    sync_mem(phys_to_virt(pa), npages * page);
    b = (b & ~(0x7UL << 59 | SH_MASK | 0xFFFFFFFFF000UL | 0xFF)) |
        BASER_VALID | ITS_CACHE(CACHE_WB) | SH_INNER | pa | (npages - 1);
    b = set_base(reg, b, ITS_CACHE(7UL), ITS_CACHE(CACHE_NC));
    if (its.flush)
        dcache_clean_poc(phys_to_virt(pa), npages * page);
    if (type == BASER_TYPE_DEVICES)
        its.ndevids = (uint32_t)entries;
    else
        its.coll_table = true;
    return true;
}

/* Why the ITS cannot be used, or NULL when it is set up and enabled. */
static const char *its_setup(void)
{
    const struct machine *m = boot_info->machine;
    uintptr_t b = m->gic.its.base, gicd = m->gic.dist.base;
    uint64_t end, cb, max = 0;
    uint32_t t;

    if (!b)
        return "no ITS in the machine description";
    if (!m->pci.nmsi)
        return "PCI MSIs reach no known ITS (no msi-map; with ACPI, the "
               "IORT is not read)";
    t = mmio_read32(gicd + GICD_TYPER);
    if (!(t & GICD_TYPER_LPIS) || (t >> 19 & 0x1F) + 1 < LPI_IDBITS)
        return "the distributor has no LPIs";
    its.typer = mmio_read64(b + GITS_TYPER);
    if (!(its.typer & TYPER_PHYSICAL))
        return "the ITS has no physical LPIs";
    if (TYPER_EVBITS(its.typer) < ITS_EVENT_BITS)
        return "the ITS has too few EventID bits";
    /* Left enabled by firmware: off, and quiet, before reprogramming. */
    mmio_write32(b + GITS_CTLR, mmio_read32(b + GITS_CTLR) &
                                ~GITS_CTLR_ENABLED);
    end = arch_cycles() + ms_cycles(CMD_TIMEOUT_MS);
    while (!(mmio_read32(b + GITS_CTLR) & GITS_CTLR_QUIESCENT))
        if (arch_cycles() > end)
            return "the ITS does not quiesce";
    /* DeviceIDs: as many as the msi-map reaches, within the ITS's. */
    for (uint32_t i = 0; i < m->pci.nmsi; i++)
        if ((uint64_t)m->pci.msi[i].devid + m->pci.msi[i].len > max)
            max = (uint64_t)m->pci.msi[i].devid + m->pci.msi[i].len;
    its.ndevids = max < 1UL << TYPER_DEVBITS(its.typer) ?
                  (uint32_t)max : 1u << TYPER_DEVBITS(its.typer);
    its.base = b;
    for (int n = 0; n < 8; n++)
        if (!its_table(n, MAXCPU))
            return "no memory for its tables";
    its.prop_pa = mem_alloc_pages((PROP_BYTES + PAGE_SIZE - 1) / PAGE_SIZE);
    cb = mem_alloc_pages(CMDQ_BYTES / PAGE_SIZE);
    if (!its.prop_pa || !cb)
        return "no memory for its tables";
    its.prop = phys_to_virt(its.prop_pa);
    its.cmdq = phys_to_virt(cb);
    cb = set_base(b + GITS_CBASER, CMD_VALID | ITS_CACHE(CACHE_WB) |
                  SH_INNER | cb | (CMDQ_BYTES / 0x1000 - 1),
                  ITS_CACHE(7UL), ITS_CACHE(CACHE_NC));
    if (its.flush) {
        dcache_clean_poc(its.prop, PROP_BYTES);
        dcache_clean_poc(its.cmdq, CMDQ_BYTES);
    }
    its.cwriter = 0;
    mmio_write64(b + GITS_CWRITER, 0);
    mmio_write32(b + GITS_CTLR, mmio_read32(b + GITS_CTLR) |
                                GITS_CTLR_ENABLED);
    return NULL;
}

void its_init(void)
{
    const struct mach_gic *g = &boot_info->machine->gic;
    const char *why;

    for (int i = 0; i < ITS_MAX_LPIS; i++)
        lpi_irqs[i] = -1;
    if (g->version != 3) {
        printk("its: no MSI: GICv%u has no ITS; PCI devices use INTx\n",
               g->version);
        return;
    }
    why = its_setup();
    if (why) {
        its.base = 0;
        printk("its: no MSI: %s; PCI devices use INTx\n", why);
        return;
    }
    printk("its: PCI MSI through the ITS at 0x%lx (%u DeviceIDs, LPIs "
           "%d-%d)%s\n", its.base, its.ndevids, LPI_BASE,
           LPI_BASE + ITS_MAX_LPIS - 1, its.flush ? ", tables flushed" : "");
}

void its_init_cpu(void)
{
    struct cpu *c = this_cpu();
    uintptr_t r = c->arch.gicr;
    uint64_t pend, v;
    unsigned long f;
    bool ok;

    if (!__atomic_load_n(&its.base, __ATOMIC_ACQUIRE))
        return;
    if (!(mmio_read64(r + GICR_TYPER) & GICR_TYPER_PLPIS)) {
        printk("its: cpu %d: its redistributor has no LPIs; no MSI aimed "
               "there\n", c->id);
        return;
    }
    if (mmio_read32(r + GICR_CTLR) & GICR_CTLR_LPIS) {
        printk("its: cpu %d: LPIs left on by the firmware; no MSI aimed "
               "there\n", c->id);
        return;
    }
    if (!its.coll_table && (uint32_t)c->id >= TYPER_HCC(its.typer)) {
        printk("its: cpu %d: no collection for it\n", c->id);
        return;
    }
    pend = mem_alloc_pages_aligned(1, PEND_ALIGN);
    if (!pend) {
        printk("its: cpu %d: no memory for its pending table\n", c->id);
        return;
    }
    v = its.prop_pa | RD_CACHE(CACHE_WB) | SH_INNER | (LPI_IDBITS - 1);
    set_base(r + GICR_PROPBASER, v, RD_CACHE(7UL), RD_CACHE(CACHE_NC));
    v = pend | RD_CACHE(CACHE_WB) | SH_INNER | PENDBASER_PTZ;
    set_base(r + GICR_PENDBASER, v, RD_CACHE(7UL), RD_CACHE(CACHE_NC));
    if (its.flush) {
        dcache_clean_poc(its.prop, PROP_BYTES);
        dcache_clean_poc(phys_to_virt(pend), PEND_BYTES);
    }
    __asm__ volatile("dsb sy" : : : "memory");
    mmio_write32(r + GICR_CTLR, mmio_read32(r + GICR_CTLR) | GICR_CTLR_LPIS);
    f = spin_lock(&its_lock);
    ok = its_send((const uint64_t[][4]){
        { CMD_MAPC, 0, CMD_VALID | rdbase(r) | (uint32_t)c->id, 0 },
        { CMD_SYNC, 0, rdbase(r), 0 },
    }, 2);
    spin_unlock(&its_lock, f);
    its.cpu_on[c->id] = ok;
}

/* The ITT of devid, mapped (MAPD) on first use; 0 if none can be had. */
static uint64_t its_device(uint32_t devid)
{
    struct its_dev *d;
    uint64_t itt;

    for (uint32_t i = 0; i < its.ndevs; i++)
        if (its.devs[i].devid == devid)
            return its.devs[i].itt;
    if (its.ndevs == ITS_MAX_DEVS ||
        (1u << ITS_EVENT_BITS) * TYPER_ITT_SIZE(its.typer) > PAGE_SIZE ||
        !(itt = mem_alloc_pages(1)))
        return 0;
    sync_mem(phys_to_virt(itt), PAGE_SIZE);
    if (!its_send((const uint64_t[][4]){
        { CMD_MAPD | (uint64_t)devid << 32, ITS_EVENT_BITS - 1,
          CMD_VALID | (itt & CMD_PA_MASK), 0 },
    }, 1)) {
        mem_free_pages(itt, 1);
        return 0;
    }
    d = &its.devs[its.ndevs++];
    d->devid = devid;
    d->itt = itt;
    return itt;
}

bool its_map(uint32_t devid, uint32_t event, int irq, const struct cpu *c,
             uint64_t *addr, uint32_t *data)
{
    struct its_map *e = NULL;
    uint64_t rd;
    unsigned long f;
    uint32_t i;
    bool ok;

    if (!__atomic_load_n(&its.base, __ATOMIC_ACQUIRE) || irq < 0 ||
        irq >= ARCH_NIRQ || devid >= its.ndevids ||
        event >= 1u << ITS_EVENT_BITS || !its.cpu_on[c->id])
        return false;
    rd = rdbase(c->arch.gicr);
    f = spin_lock(&its_lock);
    for (i = 0; i < its.nmaps; i++)
        if (its.maps[i].devid == devid && its.maps[i].event == event)
            break;
    if (i < its.nmaps) {
        /* Mapped before: the interrupt follows the new core. */
        e = &its.maps[i];
        __atomic_store_n(&lpi_irqs[i], irq, __ATOMIC_RELEASE);
        ok = e->cpu == c->id || its_send((const uint64_t[][4]){
            { CMD_MOVI | (uint64_t)devid << 32, event, (uint32_t)c->id, 0 },
            { CMD_SYNC, 0, rd, 0 },
        }, 2);
    } else if (i == ITS_MAX_LPIS || !its_device(devid)) {
        ok = false;
    } else {
        uint32_t lpi = LPI_BASE + i;

        e = &its.maps[i];
        __atomic_store_n(&lpi_irqs[i], irq, __ATOMIC_RELEASE);
        its.prop[i] = LPI_ON;
        sync_mem(&its.prop[i], 1);
        ok = its_send((const uint64_t[][4]){
            { CMD_MAPTI | (uint64_t)devid << 32,
              event | (uint64_t)lpi << 32, (uint32_t)c->id, 0 },
            { CMD_INV | (uint64_t)devid << 32, event, 0, 0 },
            { CMD_SYNC, 0, rd, 0 },
        }, 3);
        if (ok) {
            e->devid = devid;
            e->event = event;
            its.nmaps++;
        }
    }
    if (ok)
        e->cpu = c->id;
    spin_unlock(&its_lock, f);
    if (!ok)
        return false;
    *addr = its.base + GITS_TRANSLATER;
    *data = event;
    return true;
}

int its_lpi_irq(uint32_t intid)
{
    if (intid < LPI_BASE || intid >= LPI_BASE + ITS_MAX_LPIS)
        return -1;
    return __atomic_load_n(&lpi_irqs[intid - LPI_BASE], __ATOMIC_ACQUIRE);
}
