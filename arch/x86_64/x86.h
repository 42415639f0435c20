/*
 * x86.h - x86_64 constants and single-instruction helpers (Intel SDM
 * Vol. 3A).  Usable from assembly for the constants.
 */
#ifndef ARCH_X86_64_X86_H
#define ARCH_X86_64_X86_H

/* The boot entries (boot/x86_64/pvh_entry.S, efi_entry.S) identity-map
   this much; arch_paging_init maps the rest. */
#define BOOT_MAPPED (4UL << 30)

#define CR0_PE      (1 << 0)
#define CR0_MP      (1 << 1)
#define CR0_EM      (1 << 2)
#define CR0_WP      (1 << 16)
#define CR0_PG      (1 << 31)
#define CR4_PAE     (1 << 5)
#define CR4_PGE     (1 << 7)
#define CR4_OSFXSR  (1 << 9)
#define CR4_OSXMMEXCPT (1 << 10)

#define MSR_EFER        0xC0000080
#define MSR_GS_BASE     0xC0000101
#define MSR_APIC_BASE   0x1B
#define EFER_LME    (1 << 8)
#define EFER_NXE    (1 << 11)

#define PTE_P       (1 << 0)
#define PTE_W       (1 << 1)
#define PTE_PWT     (1 << 3)
#define PTE_PCD     (1 << 4)
#define PTE_PS      (1 << 7)
#define PTE_G       (1 << 8)

#define KERNEL_CS   0x08
#define KERNEL_DS   0x10
#define KERNEL_TSS  0x18

/* Long-mode code (L=1, P, S, type execute/read) and flat data descriptors. */
#define GDT_CODE64  0x00209A0000000000
#define GDT_DATA    0x00CF92000000FFFF

/* Interrupt vectors. */
#define VEC_NMI         2
#define VEC_DF          8
#define VEC_PF          14
#define VEC_MC          18
#define VEC_DEV0        0x40    /* device interrupts: VEC_DEV0 + irq */
#define VEC_TIMER       0xEF
#define VEC_IPI         0xF0
#define VEC_SPURIOUS    0xFF

/* Interrupt stack table slots in the TSS (1-based, as the IDT names them). */
#define IST_DF  1
#define IST_NMI 2
#define IST_MC  3
#define IST_PF  4

/* Where the AP trampoline is copied: below 1 MiB, page aligned. */
#define TRAMPOLINE_PA 0x8000

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

/* Byte port I/O is arch.h's arch_pio_read8/arch_pio_write8. */
static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;

    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
                     "d"((uint32_t)(v >> 32)) : "memory");
}

static inline void x86_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                     : "a"(leaf), "c"(sub));
}

static inline uint64_t read_cr0(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr0, %0" : "=r"(v));
    return v;
}

static inline void write_cr0(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t read_cr2(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}

static inline uint64_t read_cr3(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr3, %0" : "=r"(v));
    return v;
}

static inline void write_cr3(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr4, %0" : "=r"(v));
    return v;
}

static inline void write_cr4(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void invlpg(uintptr_t va)
{
    __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/*
 * Trap frame built by vectors.S: the FPU/SSE state (fxsave), then the
 * general registers in reverse push order, then what the CPU pushed.
 */
struct trapframe {
    uint8_t fx[512] __attribute__((aligned(16)));
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;     /* pushed by the CPU */
};

/* x86-internal interfaces between the files of arch/x86_64. */
struct bootinfo;
void serial_init(void);
void idt_init(void);
void idt_load(void);
void lapic_init(void);
void lapic_eoi(void);
uint32_t lapic_id(void);
void lapic_send(uint32_t apic_id, uint32_t icr_low);
void lapic_self(uint8_t vector);
/*
 * Ends every interrupt in service on this core and sends each to the
 * core again, pending until IF is set.  For the page-fault handler: an
 * external interrupt whose frame faulted on the way onto a G stack (a
 * stack page not mapped yet) was moved into service, but its handler
 * never ran and never EOIs it, which would block that vector and every
 * lower one for good.  Handlers EOI first thing (trap.c), so a vector in
 * service at a page fault is one whose handler has not started, and
 * sending it again costs at most one spurious interrupt.
 */
void lapic_resend_in_service(void);
/*
 * ioapic.c: the I/O APIC pin an ISA IRQ reaches (after the MADT's
 * overrides), and routing it, edge-triggered, to vector on the core with
 * apic_id.  Each returns NULL, or why it cannot (no I/O APIC, a level-
 * triggered override, an APIC id the entry cannot name).
 */
struct ioapic_pin {
    uint32_t base;              /* the I/O APIC's registers (identity map) */
    uint32_t pin, gsi;
    bool active_low;
};
const char *ioapic_isa_pin(uint8_t isa, struct ioapic_pin *p);
/* The pins of the I/O APIC whose registers are at base. */
uint32_t ioapic_pins(uint32_t base);
/* The pin that carries global system interrupt gsi (active high); NULL,
   or why there is none. */
const char *ioapic_gsi_pin(uint32_t gsi, struct ioapic_pin *p);
const char *ioapic_route(const struct ioapic_pin *p, uint8_t vector,
                         uint32_t apic_id);
void tsc_calibrate(void);
void delay_us(uint64_t us);
void trap(struct trapframe *tf);
extern uint64_t boot_pml4[];
/* What smp.c read from the ACPI tables (MADT, MCFG, FADT); all zero
   with acpi=off or no tables.  Written once at boot, before pci.c. */
extern struct acpi_info acpi;
#endif

#endif
