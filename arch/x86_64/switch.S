/*
 * switch.S - voluntary context switch.
 *
 *   void arch_switch(void **save_sp, void *new_sp);
 *
 * Saves the callee-saved registers of the System V ABI (rbx, rbp, r12-r15)
 * on the current stack, stores the stack pointer through save_sp, and
 * resumes the context whose saved stack pointer is new_sp.  Caller-saved registers,
 * including all SSE state, are dead across a call by the ABI, so a
 * voluntary switch needs none of them; MXCSR and the x87 control word are
 * callee-saved and kept too.  Both are loaded only when the resumed
 * context's differ from the saved ones (rarely: they hold rounding modes
 * and sticky flags that few Gs touch), since each load is a serializing
 * instruction on hardware and a helper call under TCG.
 * The saved frame, from new_sp up: mxcsr (4 bytes), x87 control word
 * (2 bytes, 2 padding), r15, r14, r13, r12, rbx, rbp, return address
 * (arch_context_init in cpu.c builds the same layout).
 * Register map: %rdi = save_sp, %rsi = new_sp, %eax and %cx = the
 * saved control words (each read back as stored: one 8-byte load of
 * the two smaller stores would miss store forwarding).
 */
    .text
    .globl arch_switch
arch_switch:
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
    mov %rsp, (%rdi)
    mov %rsi, %rsp
    cmp (%rsp), %eax
    jne 2f
    cmp 4(%rsp), %cx
    jne 2f
1:  add $8, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbx
    pop %rbp
    ret
2:  ldmxcsr (%rsp)
    fldcw 4(%rsp)
    jmp 1b

/*
 *   void arch_call_on_stack(uintptr_t top, void (*fn)(void *), void *arg);
 * Register map: %rdi = top, %rsi = fn, %rdx = arg.  A zero return address
 * and frame pointer end backtraces there.
 */
    .globl arch_call_on_stack
arch_call_on_stack:
    mov %rdi, %rsp
    xor %ebp, %ebp
    mov %rdx, %rdi
    push $0
    jmp *%rsi

/*
 * First code of a new context (arch_context_init): r12 = fn, r13 = arg.
 * %rsp is 16-byte aligned here, so the call leaves fn an ABI frame.
 */
    .globl arch_context_start
arch_context_start:
    .cfi_startproc
    .cfi_undefined rip          /* the outermost frame: debuggers stop */
    mov %r13, %rdi
    call *%r12
    ud2                         /* fn must not return */
    .cfi_endproc
