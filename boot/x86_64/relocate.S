/*
 * relocate.S - the x86_64 entries' move of the image to where it runs.
 *
 *   void boot_relocate(void);   long mode, the boot identity map (or the
 *                               firmware's), a 16-byte aligned stack
 *
 * Applies the image's relocation table (boot/reloc.h) for the address
 * the image runs at, which pvh_entry and efi_entry call before anything
 * reads an absolute address of the image.  A table it cannot apply
 * leaves the kernel no way on: what is wrong goes to COM1 (QEMU's
 * console, a PC's first serial port) and the core halts.  Clobbers what the
 * System V ABI lets a call clobber.
 */
#define COM1 0x3F8

    .section .text.boot, "ax"
    .code64
    .globl boot_relocate
boot_relocate:
    push %rbx                       /* and the stack 16-byte aligned again */
    lea __kernel_start(%rip), %rdi
    movabs $__kernel_start, %rsi    /* the link address: not yet relocated */
    cmp %rsi, %rdi
    je 1f
    lea __relocs_start(%rip), %rdx
    lea __relocs_end(%rip), %rcx
    sub %rdx, %rcx
    mov $1, %r8d
    call reloc_apply
    test %eax, %eax
    jnz 2f
1:  pop %rbx
    ret

    /* What reloc_apply found, in reloc_error's words, on COM1: both
       reach their strings PC-relatively (boot/reloc.h). */
2:  mov %eax, %edi
    call reloc_error
    mov %rax, %rbx
    lea fail_msg(%rip), %rsi
    call puts_com1
    mov %rbx, %rsi
    call puts_com1
    lea fail_end(%rip), %rsi
    call puts_com1
5:  cli
    hlt
    jmp 5b

/* The NUL-terminated string at %rsi to COM1.  Clobbers %rax, %rdx, %rsi. */
puts_com1:
    mov $COM1, %dx
6:  lodsb
    test %al, %al
    jz 7f
    out %al, (%dx)
    jmp 6b
7:  ret

    .section .rodata
fail_msg:
    .asciz "\nspindle: cannot move the kernel to where it was loaded: "
fail_end:
    .asciz "\n"
