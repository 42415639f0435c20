/*
 * switch.S (hosted) - the callee-saved context switch of x86_64 bare
 * metal (arch/x86_64/switch.S), for a Linux process.
 *
 *   void hosted_swap(void **save_sp, void *new_sp, struct hosted_ctx *me);
 *
 * The frame is the bare-metal one with one more word below it: `me`, the
 * switching context's record for the sanitizers (context.c), which the
 * next switch to this context reads at *new_sp before it resumes it.
 * Saved frame, from the saved stack pointer up: me (8 bytes), mxcsr
 * (4 bytes), x87 control word (2 bytes, 2 padding), r15, r14, r13,
 * r12, rbx, rbp, return address (context.c's struct switch_frame).  As
 * on bare metal, the control words are loaded only when they differ.
 * Register map: %rdi = save_sp, %rsi = new_sp, %rdx = me, %eax and %cx =
 * the saved control words (each read back as stored: one 8-byte load of
 * the two smaller stores would miss store forwarding).
 *
 * Under a signal handler the same switch is preemption: the interrupted
 * registers are in the ucontext on this stack, below the handler's frame,
 * and stay there until the G is resumed and the handler returns.
 */
    .text
    .globl hosted_swap
    .type hosted_swap, @function
hosted_swap:
    push %rbp
    push %rbx
    push %r12
    push %r13
    push %r14
    push %r15
    sub $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    mov (%rsp), %eax
    movzwl 4(%rsp), %ecx
    push %rdx
    mov %rsp, (%rdi)
    mov %rsi, %rsp
    cmp 8(%rsp), %eax
    jne 2f
    cmp 12(%rsp), %cx
    jne 2f
1:  add $16, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbx
    pop %rbp
    ret
2:  ldmxcsr 8(%rsp)
    fldcw 12(%rsp)
    jmp 1b
    .size hosted_swap, . - hosted_swap

/*
 *   void hosted_jump_stack(uintptr_t top, void (*fn)(void *), void *arg,
 *                          void (*entry)(void (*)(void *), void *));
 * Calls entry(fn, arg) on the stack whose top is `top`, never to return.
 * Register map: %rdi = top, %rsi = fn, %rdx = arg, %rcx = entry.  A zero
 * return address and frame pointer end backtraces there.
 */
    .globl hosted_jump_stack
    .type hosted_jump_stack, @function
hosted_jump_stack:
    mov %rdi, %rsp
    xor %ebp, %ebp
    mov %rsi, %rdi
    mov %rdx, %rsi
    push $0
    jmp *%rcx
    .size hosted_jump_stack, . - hosted_jump_stack

/*
 * First code of a new context (arch_context_init): r12 = fn, r13 = arg.
 * %rsp is 16-byte aligned here, so the call leaves the callee an ABI
 * frame.  hosted_context_entry finishes the switch (sanitizers, errno)
 * and calls fn(arg).
 */
    .globl hosted_context_start
    .type hosted_context_start, @function
hosted_context_start:
    .cfi_startproc
    .cfi_undefined rip          /* the outermost frame: debuggers stop */
    mov %r12, %rdi
    mov %r13, %rsi
    call hosted_context_entry
    ud2                         /* fn must not return */
    .cfi_endproc
    .size hosted_context_start, . - hosted_context_start

    .section .note.GNU-stack, "", @progbits
