/*
 * efi_entry.S - kernel entry from the EFI loader (boot/efi/handoff.h).
 *
 *   void efi_entry(struct efi_handoff *h);    %rdi = h
 *
 * The loader calls this after ExitBootServices, in long mode on the
 * firmware's identity map, GDT and stack, with the kernel's segments
 * placed (wherever the loader chose, below 2 GiB) and .bss zeroed.  We
 * first move the image's absolute addresses there (boot_relocate).
 * Everything the firmware set up for itself
 * lives in memory the kernel is about to reuse, so before any C runs we
 * switch to our own page tables (the same 4 GiB identity map as
 * pvh_entry builds, in the same boot_pml4/pdpt/pd), our GDT and our boot
 * stack, then call
 *   void efi_boot(struct efi_handoff *h, uint64_t entry_tsc);  (efi.c)
 *
 * Register map: %r12 h, %r13 TSC at entry.
 */
#include "arch/x86_64/x86.h"
#include "boot/efi/handoff.h"

/* The loader finds this entry by the note, not by e_entry (pvh_entry). */
    efi_entry_note efi_entry

    .section .text.boot, "ax"
    .code64
    .globl efi_entry
efi_entry:
    cli
    cld
    mov %rdi, %r12
    rdtsc
    shl $32, %rdx
    or %rax, %rdx
    mov %rdx, %r13

    /* The image's absolute addresses (boot_gdt_ptr's among them) to
       where the loader put it, on the firmware's stack. */
    and $-16, %rsp
    call boot_relocate

    /* pml4[0] -> pdpt; pdpt[0..3] -> pd[0..3]; pd[i] = 2 MiB page i.
       .bss came zeroed from the loader, so the other entries are 0. */
    lea boot_pdpt(%rip), %rax
    or $(PTE_P | PTE_W), %rax
    mov %rax, boot_pml4(%rip)
    xor %ecx, %ecx
1:  mov %rcx, %rax
    shl $12, %rax
    lea boot_pd(%rip), %rdx
    add %rdx, %rax
    or $(PTE_P | PTE_W), %rax
    lea boot_pdpt(%rip), %rdx
    mov %rax, (%rdx, %rcx, 8)
    inc %ecx
    cmp $4, %ecx
    jne 1b
    xor %ecx, %ecx
    lea boot_pd(%rip), %rdx
2:  mov %rcx, %rax
    shl $21, %rax
    or $(PTE_P | PTE_W | PTE_PS), %rax
    mov %rax, (%rdx, %rcx, 8)
    inc %ecx
    cmp $2048, %ecx
    jne 2b

    /* CR4 exactly as pvh_entry leaves it: the firmware may have turned
       on global pages (clearing PGE flushes its global TLB entries,
       which a CR3 load would keep), PCIDE, SMEP, XSAVE and the like,
       none of which the kernel expects.  LA57 cannot change in long
       mode; the loader refuses to boot under 5-level paging. */
    mov $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
    mov %rax, %cr4
    mov %cr0, %rax
    and $~CR0_EM, %rax
    or $CR0_MP, %rax
    mov %rax, %cr0
    lea boot_pml4(%rip), %rax
    mov %rax, %cr3

    lgdt boot_gdt_ptr(%rip)
    pushq $KERNEL_CS
    lea 3f(%rip), %rax
    push %rax
    lretq
3:  mov $KERNEL_DS, %eax
    mov %eax, %ds
    mov %eax, %es
    mov %eax, %ss
    xor %eax, %eax
    mov %eax, %fs
    mov %eax, %gs
    lea boot_stack_top(%rip), %rsp
    mov %r12, %rdi
    mov %r13, %rsi
    xor %ebp, %ebp                  /* ends the backtrace */
    call efi_boot
4:  hlt
    jmp 4b
