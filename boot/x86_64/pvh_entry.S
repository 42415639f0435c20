/*
 * pvh_entry.S - kernel entry through the PVH boot protocol.
 *
 *   void pvh_entry(void);   32-bit protected mode, paging off,
 *                           %ebx = physical address of struct hvm_start_info
 *
 * QEMU's -kernel loads a 64-bit ELF that carries the XEN_ELFNOTE_PHYS32_ENTRY
 * note and jumps here (Xen's PVH ABI, docs/misc/pvh.pandoc).  We zero .bss,
 * identity-map the first 4 GiB with 2 MiB pages, enter long mode and call
 *   void x86_boot(uint32_t start_info_pa, uint64_t entry_tsc);
 *
 * Register map: %edi start_info (kept across the mode switch),
 *               %esi/%ebp TSC at entry (lo/hi).
 */
#include "arch/x86_64/x86.h"

#define XEN_ELFNOTE_PHYS32_ENTRY 18

    .section .note.pvh, "a"
    .align 4
    .long 4, 4, XEN_ELFNOTE_PHYS32_ENTRY
    .asciz "Xen"
    .long pvh_entry

    .section .text.boot, "ax"
    .code32
    .globl pvh_entry
pvh_entry:
    cli
    cld
    rdtsc
    mov %eax, %esi
    mov %edx, %ebp
    mov %ebx, %edi

    /* Zero .bss: the page tables below live there.  Four bytes a step
       (the linker script aligns both ends to 16): under QEMU's TCG each
       step of a rep prefix costs about alike, and .bss holds lwIP's
       pools, some 26 MB, which a byte at a time took 25 ms to clear. */
    push %edi
    mov $__bss_start, %edi
    mov $__bss_end, %ecx
    sub %edi, %ecx
    shr $2, %ecx
    xor %eax, %eax
    rep stosl
    pop %edi

    /* pml4[0] -> pdpt; pdpt[0..3] -> pd[0..3]; pd[i] = 2 MiB pages. */
    mov $boot_pdpt, %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, boot_pml4
    xor %ecx, %ecx
1:  mov %ecx, %eax
    shl $12, %eax
    add $boot_pd, %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, boot_pdpt(, %ecx, 8)
    inc %ecx
    cmp $4, %ecx
    jne 1b
    xor %ecx, %ecx
2:  mov %ecx, %eax
    shl $21, %eax
    or $(PTE_P | PTE_W | PTE_PS), %eax
    mov %eax, boot_pd(, %ecx, 8)
    mov %ecx, %eax
    shr $11, %eax                   /* high dword of (i << 21) */
    mov %eax, boot_pd + 4(, %ecx, 8)
    inc %ecx
    cmp $2048, %ecx
    jne 2b

    /* PAE for long mode; FXSR/XMMEXCPT because compiled C uses SSE. */
    mov %cr4, %eax
    or $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
    mov %eax, %cr4
    mov %cr0, %eax
    and $~CR0_EM, %eax
    or $CR0_MP, %eax
    mov %eax, %cr0
    mov $boot_pml4, %eax
    mov %eax, %cr3
    mov $MSR_EFER, %ecx
    rdmsr
    or $EFER_LME, %eax
    wrmsr
    mov %cr0, %eax
    or $(CR0_PG | CR0_PE), %eax
    mov %eax, %cr0

    lgdt boot_gdt_ptr
    ljmp $KERNEL_CS, $long_entry

    .code64
long_entry:
    mov $KERNEL_DS, %eax
    mov %eax, %ds
    mov %eax, %es
    mov %eax, %ss
    xor %eax, %eax
    mov %eax, %fs
    mov %eax, %gs
    mov $boot_stack_top, %rsp
    mov %edi, %edi                  /* upper halves are undefined now */
    mov %esi, %esi
    shl $32, %rbp
    or %rbp, %rsi
    xor %ebp, %ebp                  /* ends the backtrace */
    call x86_boot
3:  hlt
    jmp 3b

    .section .rodata
    .align 16
boot_gdt:
    .quad 0
    .quad GDT_CODE64
    .quad GDT_DATA
boot_gdt_end:
    .globl boot_gdt_ptr
boot_gdt_ptr:
    .word boot_gdt_end - boot_gdt - 1
    .quad boot_gdt

    .section .bss
    .align 4096
    .globl boot_pml4
boot_pml4:  .skip 4096
    .globl boot_pdpt, boot_pd   /* efi_entry.S fills them too */
boot_pdpt:  .skip 4096
boot_pd:    .skip 4 * 4096
    .globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
    .skip 16384
boot_stack_top:
