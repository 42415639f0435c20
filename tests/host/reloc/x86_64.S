/*
 * x86_64.S - one site of every relocation type tools/build/relocs.c
 * accepts for x86_64 (reloc_test.c checks that none is missing), and
 * the targets it must leave alone: an absolute symbol (abs_sym,
 * fixture.ld's), an undefined weak one.
 */
    .globl func, data_obj
    .weak weak_undef

    .text
    .globl _start
_start:
    movabs $data_obj, %rax          /* R_X86_64_64 */
    mov $data_obj, %eax             /* R_X86_64_32 */
    mov data_obj(, %rcx, 8), %rax   /* R_X86_64_32S */
    movq $data_obj + 8, %rdx        /* R_X86_64_32S */
    lea data_obj(%rip), %rax        /* R_X86_64_PC32 */
    call func                       /* R_X86_64_PLT32 */
    mov %fs:tls_var@tpoff, %eax     /* R_X86_64_TPOFF32 */
    mov $abs_sym, %eax              /* R_X86_64_32, absolute: stays */
    movabs $weak_undef, %rax        /* R_X86_64_64, undefined weak: stays 0 */
    ret

    .section .text.other, "ax"
func:
    ret

    .section .rodata
    .balign 8
    .quad data_obj                  /* R_X86_64_64 */
    .quad _start + 5
    .quad abs_sym
    .quad data_obj - .              /* R_X86_64_PC64 */
    .long data_obj - .              /* R_X86_64_PC32 */

    .data
    .balign 8
data_obj:
    .quad func                      /* R_X86_64_64 */
    .long data_obj                  /* R_X86_64_32 */

    .section .tdata, "awT", @progbits
tls_var:
    .long 1
