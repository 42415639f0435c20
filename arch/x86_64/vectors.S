/*
 * vectors.S - the 256 interrupt entry stubs and the common trap path.
 *
 *   void trap(struct trapframe *tf);    (arch/x86_64/trap.c)
 *
 * Each stub pushes a zero error code if the CPU did not push one, then its
 * vector number, and joins trap_common, which saves every general register
 * and the FPU/SSE state (an interrupt may land in code using SSE, and the
 * C handler may use it too), calls trap(), and returns with iretq.
 * The frame layout is struct trapframe in x86.h; the CPU aligned %rsp to 16
 * before pushing its frame, and 22 quadwords keep it aligned for fxsave.
 */
#include "arch/x86_64/x86.h"

    .altmacro
    .macro stub n
    .align 16
vector_\n:
    .if !(\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
    pushq $0
    .endif
    pushq $\n
    jmp trap_common
    .pushsection .rodata
    .quad vector_\n
    .popsection
    .endm

    .section .rodata
    .align 8
    .globl vector_table
vector_table:

    .text
    .set i, 0
    .rept 256
    stub %i
    .set i, i + 1
    .endr

    .globl trap_common
trap_common:
    push %rax
    push %rbx
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %rbp
    push %r8
    push %r9
    push %r10
    push %r11
    push %r12
    push %r13
    push %r14
    push %r15
    sub $512, %rsp
    fxsave (%rsp)
    cld
    mov %rsp, %rdi
    call trap
    /* A preempted G comes back here too, once resumed: its
       timer_interrupt returns from arch_switch, then trap returns. */
    .globl trap_return
trap_return:
    fxrstor (%rsp)
    add $512, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rbp
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rbx
    pop %rax
    add $16, %rsp               /* vector and error code */
    iretq
