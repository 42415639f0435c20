/*
 * pvh_entry.S - kernel entry through the PVH boot protocol.
 *
 *   void pvh_entry(void);   32-bit protected mode, paging off,
 *                           %ebx = physical address of struct hvm_start_info
 *
 * QEMU's -kernel loads a 64-bit ELF that carries the XEN_ELFNOTE_PHYS32_ENTRY
 * note and jumps here (Xen's PVH ABI, docs/misc/pvh.pandoc), wherever the
 * ELF's program headers put the image (below 2 GiB, boot/reloc.h).  We
 * zero .bss, identity-map the first 4 GiB with 2 MiB pages, enter long
 * mode, move the image's absolute addresses to where it runs
 * (boot_relocate) and call
 *   void x86_boot(uint32_t start_info_pa, uint64_t entry_tsc);
 *
 * Register map (32-bit part): %ebx start_info, then the load offset
 *               once %edi holds start_info; %edx the load offset;
 *               %esi/%ebp TSC at entry (lo/hi).
 * (64-bit part): %r12 start_info, %r13 TSC, across boot_relocate.
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

    /* The load offset, where we run less where we are linked, by a call:
       PVH gives no stack, so the start info's first word holds the
       return address for the moment.  The immediate $0b is still the
       link address (boot_relocate has not run). */
    mov (%ebx), %ecx
    lea 4(%ebx), %esp
    call 0f
0:  pop %edx
    mov %ecx, (%ebx)
    sub $0b, %edx

    /* Zero .bss: the page tables below live there.  Four bytes a step
       (the linker script aligns both ends to 16): under QEMU's TCG each
       step of a rep prefix costs about alike, and .bss holds lwIP's
       pools, some 26 MB, which a byte at a time took 25 ms to clear.
       Every address of the image below is its link address + %edx. */
    lea __bss_start(%edx), %edi
    lea __bss_end(%edx), %ecx
    sub %edi, %ecx
    shr $2, %ecx
    xor %eax, %eax
    rep stosl
    mov %ebx, %edi
    lea boot_stack_top(%edx), %esp

    /* pml4[0] -> pdpt; pdpt[0..3] -> pd[0..3]; pd[i] = 2 MiB pages. */
    lea boot_pdpt(%edx), %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, boot_pml4(%edx)
    xor %ecx, %ecx
1:  mov %ecx, %eax
    shl $12, %eax
    lea boot_pd(%eax, %edx), %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, boot_pdpt(%edx, %ecx, 8)
    inc %ecx
    cmp $4, %ecx
    jne 1b
    xor %ecx, %ecx
2:  mov %ecx, %eax
    shl $21, %eax
    or $(PTE_P | PTE_W | PTE_PS), %eax
    mov %eax, boot_pd(%edx, %ecx, 8)
    mov %ecx, %eax
    shr $11, %eax                   /* high dword of (i << 21) */
    mov %eax, boot_pd + 4(%edx, %ecx, 8)
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
    lea boot_pml4(%edx), %eax
    mov %eax, %cr3
    mov %edx, %ebx                  /* rdmsr takes %edx */
    mov $MSR_EFER, %ecx
    rdmsr
    or $EFER_LME, %eax
    wrmsr
    mov %cr0, %eax
    or $(CR0_PG | CR0_PE), %eax
    mov %eax, %cr0

    /* The GDT by its run-time address (boot_gdt_ptr holds the link
       address until boot_relocate), then a far return into long mode. */
    sub $8, %esp
    movw $(boot_gdt_end - boot_gdt - 1), (%esp)
    lea boot_gdt(%ebx), %eax
    mov %eax, 2(%esp)
    lgdt (%esp)
    add $8, %esp
    push $KERNEL_CS
    lea long_entry(%ebx), %eax
    push %eax
    lret

    .code64
long_entry:
    mov $KERNEL_DS, %eax
    mov %eax, %ds
    mov %eax, %es
    mov %eax, %ss
    xor %eax, %eax
    mov %eax, %fs
    mov %eax, %gs
    lea boot_stack_top(%rip), %rsp
    mov %edi, %r12d                 /* upper halves are undefined now */
    mov %esi, %r13d
    shl $32, %rbp
    or %rbp, %r13
    call boot_relocate
    mov %r12, %rdi
    mov %r13, %rsi
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
