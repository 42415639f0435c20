/*
 * trampoline.S - where application processors start after INIT-SIPI-SIPI.
 *
 * smp.c copies [ap_trampoline, ap_trampoline_end) to TRAMPOLINE_PA (below
 * 1 MiB) and fills the parameter block at its end; the SIPI vector is
 * TRAMPOLINE_PA >> 12.  An AP starts in real mode at CS:IP = vector:0,
 * and walks real -> protected -> long mode (Intel SDM Vol. 3A §9.4, §10.8.5).
 * Addresses are written as TRAMPOLINE_PA + (label - ap_trampoline) because
 * the code runs at the copy, not where it was linked.
 *
 * Then it takes a ticket from tr_ticket (several APs may run this at once),
 * uses stack tr_stacks[ticket], and calls
 *   void ap_entry(uint32_t ticket);     (arch/x86_64/smp.c)
 */
#include "arch/x86_64/x86.h"

#define REL(x) (TRAMPOLINE_PA + ((x) - ap_trampoline))

    .section .rodata
    .code16
    .globl ap_trampoline, ap_trampoline_end
    .globl tr_cr3, tr_stacks, tr_entry, tr_ticket
    .align 16
ap_trampoline:
    cli
    cld
    xor %ax, %ax
    mov %ax, %ds
    lgdtl REL(tr_gdt_ptr)
    mov %cr0, %eax
    or $CR0_PE, %eax
    mov %eax, %cr0
    ljmpl $0x08, $REL(tr_pm32)

    .code32
tr_pm32:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %cr4, %eax
    or $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
    mov %eax, %cr4
    mov REL(tr_cr3), %eax
    mov %eax, %cr3
    mov $MSR_EFER, %ecx
    rdmsr
    or $EFER_LME, %eax
    wrmsr
    mov %cr0, %eax
    and $~CR0_EM, %eax
    or $(CR0_PG | CR0_MP), %eax
    mov %eax, %cr0
    ljmp $0x18, $REL(tr_lm64)

    .code64
tr_lm64:
    mov $1, %eax
    lock xadd %eax, REL(tr_ticket)
    mov REL(tr_stacks), %rbx
    mov (%rbx, %rax, 8), %rsp
    mov %eax, %edi
    xor %ebp, %ebp
    mov REL(tr_entry), %rax
    call *%rax
1:  hlt
    jmp 1b

    .align 16
tr_gdt:
    .quad 0
    .quad 0x00CF9A000000FFFF        /* 0x08: 32-bit code */
    .quad 0x00CF92000000FFFF        /* 0x10: 32-bit data */
    .quad GDT_CODE64                /* 0x18: 64-bit code */
tr_gdt_ptr:
    .word tr_gdt_ptr - tr_gdt - 1
    .long REL(tr_gdt)
    .align 8
tr_cr3:     .quad 0                 /* kernel page tables, below 4 GiB */
tr_stacks:  .quad 0                 /* uint64_t stack tops[], by ticket */
tr_entry:   .quad 0                 /* ap_entry */
tr_ticket:  .long 0
ap_trampoline_end:
