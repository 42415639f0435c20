/*
 * relocate.S - the x86_64 entries' move of the image to where it runs.
 *
 *   void boot_relocate(void);   long mode, the boot identity map (or the
 *                               firmware's), a 16-byte aligned stack
 *
 * Applies the image's relocation table (boot/reloc.h) for the address
 * the image runs at, which pvh_entry and efi_entry call before anything
 * reads an absolute address of the image.  A table it cannot apply
 * leaves the kernel no way on: the error goes to COM1 (QEMU's console,
 * a PC's first serial port) and the core halts.  Clobbers what the
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

    /* "... error N" on COM1, N in two digits (reloc.h's codes). */
2:  mov %eax, %ebx
    lea fail_msg(%rip), %rsi
    mov $COM1, %dx
3:  lodsb
    test %al, %al
    jz 4f
    out %al, (%dx)
    jmp 3b
4:  mov %ebx, %eax
    mov $10, %cl
    div %cl                         /* %al tens, %ah ones */
    add $0x3030, %ax
    out %al, (%dx)
    mov %ah, %al
    out %al, (%dx)
    mov $'\n', %al
    out %al, (%dx)
5:  cli
    hlt
    jmp 5b

    .section .rodata
fail_msg:
    .asciz "\nspindle: cannot move the kernel to where it was loaded (boot/reloc.h): error "
