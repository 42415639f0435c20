/*
 * aarch64.h - AArch64 constants, system-register helpers and the
 * interfaces between the files of arch/aarch64 (ARM ARM DDI 0487).
 * The constants are usable from assembly.
 */
#ifndef ARCH_AARCH64_H
#define ARCH_AARCH64_H

#include "arch/aarch64/corelocal.h"

/* Constants shared with assembly, which has no UL suffix. */
#ifdef __ASSEMBLER__
#define UL(x)           x
#else
#define UL(x)           x##UL
#endif

/* MAIR_EL1 slots: 0 Device-nGnRnE, 1 Normal write-back (inner/outer,
   read/write-allocate). */
#define MAIR_VALUE      0xFF00
#define ATTR_DEVICE     0
#define ATTR_NORMAL     1

/* TCR_EL1 (D13.2.131): 48-bit VAs from TTBR0 (T0SZ 16, 4 KiB granule,
   walks inner-shareable write-back), and the top 32 MiB from TTBR1
   (T1SZ 39, the same granule and walks), which hold only the core-local
   page; IPS is filled in from ID_AA64MMFR0_EL1.PARange at boot. */
#define TCR_VALUE       ((16 << 0) | (1 << 8) | (1 << 10) | (3 << 12) | \
                         (39 << 16) | (1 << 24) | (1 << 26) | (3 << 28) | \
                         (UL(2) << 30))
#define TCR_IPS_SHIFT   32

/* The core-local page's descriptor (corelocal.h): normal memory, no
   execute. */
#define LOCAL_PAGE      (PTE_VALID | PTE_TABLE | PTE_ATTR(ATTR_NORMAL) | \
                         PTE_ISH | PTE_AF | PTE_UXN | PTE_PXN)

/* SCTLR_EL1: RES1 bits of ARMv8.0, and M (MMU), C, SA (SP alignment
   check), I.  A (alignment faults) stays off: normal memory allows
   unaligned accesses and newlib's string functions make them. */
#define SCTLR_RES1      0x30D00800
#define SCTLR_MMU_ON    (SCTLR_RES1 | (1 << 0) | (1 << 2) | (1 << 3) | \
                         (1 << 12))

/* Descriptor bits (D8.3). */
#define PTE_VALID       (UL(1) << 0)
#define PTE_TABLE       (UL(1) << 1)      /* level 0-2: table; level 3: page */
#define PTE_ATTR(i)     (UL(i) << 2)
#define PTE_RDONLY      (UL(1) << 7)      /* AP[2] */
#define PTE_ISH         (UL(3) << 8)
#define PTE_AF          (UL(1) << 10)
#define PTE_PXN         (UL(1) << 53)
#define PTE_UXN         (UL(1) << 54)
#define PTE_ADDR_MASK   UL(0x0000FFFFFFFFF000)

/* Boot-map blocks (entry.S): 1 GiB, normal or device. */
#define BLOCK_NORMAL    (PTE_VALID | PTE_ATTR(ATTR_NORMAL) | PTE_ISH | \
                         PTE_AF | PTE_UXN)
#define BLOCK_DEVICE    (PTE_VALID | PTE_ATTR(ATTR_DEVICE) | PTE_AF | \
                         PTE_UXN | PTE_PXN)

/* CPACR_EL1.FPEN = 0b11: FP/SIMD does not trap at EL1. */
#define CPACR_FPEN      (3 << 20)

/* EL2 set-up for the drop to EL1 (D13.2.46 HCR_EL2, D13.8.6 CNTHCTL_EL2). */
#define HCR_RW          (1 << 31)       /* EL1 is AArch64 */
#define CNTHCTL_EL1PCEN (3 << 0)        /* EL1 may use the physical timer */
#define CPTR_EL2_RES1   0x33FF          /* and TFP clear: FP not trapped */
#define SPSR_EL1H_MASKED 0x3C5          /* EL1h, D A I F masked */

/* Trap frame (struct trapframe below), offsets for vectors.S. */
#define TF_X            0
#define TF_SP           248
#define TF_ELR          256
#define TF_SPSR         264
#define TF_ESR          272
#define TF_FAR          280
#define TF_FPCR         288
#define TF_FPSR         296
#define TF_Q            304
#define TF_SIZE         816

/* struct cpu: where vectors.S finds the emergency stack, and its size. */
#define CPU_ESTACK      8       /* arch.estack_top: arch is second */
#define ESTACK_SIZE     (16 * 1024)

/* struct cpu: arch.entry_save, one area per exception kind (below), in
   which the vector entry puts the interrupted state a nested fault would
   overwrite (ES_X0 ... ES_FAR), and trap_return what it puts back last
   (ES_X0 ... ES_SPSR, ES_SP). */
#define CPU_ENTRY_SAVE  16
#define ENTRY_KINDS     5
#define ENTRY_SAVE_WORDS 8
#define ENTRY_SAVE_SIZE (ENTRY_SAVE_WORDS * 8)
#define ES_X0           0
#define ES_X1           8
#define ES_X30          16
#define ES_ELR          24
#define ES_SPSR         32
#define ES_ESR          40
#define ES_FAR          48
#define ES_SP           56

/* Exception kinds vectors.S passes to trap.c. */
#define KIND_SYNC       0
#define KIND_IRQ        1
#define KIND_FIQ        2
#define KIND_SERROR     3
#define KIND_BAD        4       /* from EL0 or on SP_EL0: never expected */

/* Start block of a secondary core (smp.c, entry.S). */
#define AP_STACK_TOP    0
#define AP_CPU          8
#define AP_TTBR         16
#define AP_TTBR1        24

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"

#define sysreg_read(r) ({ uint64_t _v; \
    __asm__ volatile("mrs %0, " #r : "=r"(_v)); _v; })
#define sysreg_write(r, v) \
    __asm__ volatile("msr " #r ", %0" : : "r"((uint64_t)(v)) : "memory")

static inline void isb(void)
{
    __asm__ volatile("isb" : : : "memory");
}

/* Cleans and invalidates [p, p + n) from the data caches to the point of
   coherency (DC CIVAC by CTR_EL0's smallest D-cache line), for a reader
   with its MMU and caches off; done when it returns (DSB). */
static inline void dcache_clean_poc(const void *p, uint64_t n)
{
    uint64_t line = 4UL << (sysreg_read(ctr_el0) >> 16 & 0xF);

    for (uint64_t a = (uint64_t)p & ~(line - 1); a < (uint64_t)p + n; a += line)
        __asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
    __asm__ volatile("dsb sy" : : : "memory");
}

/* The arch's own device accesses: arch.h's, by their short names. */
static inline uint32_t mmio_read32(uintptr_t a)
{
    return arch_mmio_read32(a);
}

static inline void mmio_write32(uintptr_t a, uint32_t v)
{
    arch_mmio_write32(a, v);
}

static inline uint64_t mmio_read64(uintptr_t a)
{
    return *(volatile uint64_t *)a;
}

/*
 * The trap frame vectors.S builds on the interrupted stack (or on the
 * core's emergency stack when that stack is not mapped).
 */
struct trapframe {
    uint64_t x[31];             /* x0..x30 (x29 fp, x30 lr) */
    uint64_t sp;                /* the interrupted sp */
    uint64_t elr, spsr, esr, far;
    uint64_t fpcr, fpsr;
    __uint128_t q[32];
};

struct cpu;
struct machine;

/* QEMU virt's RAM, assumed when no description of the machine is usable. */
#define VIRT_RAM            0x40000000UL
#define VIRT_RAM_ASSUMED    (256UL << 20)

/*
 * The machine description's sources, for the boot paths (boot/aarch64/).
 * machine_from_dtb and machine_from_acpi fill *m from the device tree at
 * dtb or the ACPI tables under the RSDP at rsdp, and return NULL, or why
 * they could not (then *m may hold a part: callers fall back to
 * machine_assume_virt).  machine_from_acpi needs acpi=off absent.
 * console_init points the console at m's PL011 (QEMU virt's if none).
 */
const char *machine_from_dtb(uint64_t dtb, struct machine *m);
uint64_t machine_dtb_size(uint64_t dtb);    /* a blob machine_from_dtb took */
const char *machine_from_acpi(uint64_t rsdp, struct machine *m);
void machine_assume_virt(struct machine *m);
void console_init(const struct machine *m);

/* Interfaces between the files of arch/aarch64. */
void gic_init_dist(void);
void gic_init_cpu(void);
uint32_t gic_ack(bool fiq);
void gic_eoi(uint32_t iar, bool fiq);
uint32_t gic_intid(uint32_t iar);
void gic_enable_spi(uint32_t intid, const struct cpu *c);
bool gic_route_spi(uint32_t intid, int irq, const struct cpu *c);
int gic_spi_irq(uint32_t intid);    /* the device interrupt, or -1 */
void its_init(void);
void its_init_cpu(void);
bool its_map(uint32_t devid, uint32_t event, int irq, const struct cpu *c,
             uint64_t *addr, uint32_t *data);
int its_lpi_irq(uint32_t intid);
void gtimer_init(void);
void timer_disarm(void);
uint32_t timer_intid(void);
void vectors_install(void);
void cpu_boot_early(void);
int64_t psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3);
uint64_t mpidr_affinity(void);
uint32_t mpidr_to_hwid(uint64_t mpidr);
uint64_t mmu_kernel_ttbr(void);
uint64_t mmu_local_ttbr(void);
void ap_entry(struct cpu *c);

/* SGIs: the scheduler IPI and the panic's stop. */
#define SGI_IPI         0
#define SGI_STOP        1
#define INTID_SPURIOUS  1020
#define INTID_LPI       8192    /* LPIs from here (its.c) */

#endif
#endif
