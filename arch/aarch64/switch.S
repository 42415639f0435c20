/*
 * switch.S - voluntary context switch.
 *
 *   void arch_switch(void **save_sp, void *new_sp);
 *
 * Saves what AAPCS64 makes callee-saved - x19-x28, the frame pointer
 * x29, the link register x30, and the low halves of v8-v15 (d8-d15) -
 * plus FPCR (rounding mode, like x86's MXCSR control bits) and FPSR (the
 * sticky exception flags) on the current stack, stores sp through
 * *save_sp, and resumes the context saved at new_sp.  Everything else is
 * dead across a call.  FPCR and FPSR are written only when the resumed
 * context's differ from the saved ones (rarely), since each write is a
 * synchronizing system-register write on hardware and a helper call
 * under TCG.
 * The saved frame, from new_sp up (struct switch_frame in cpu.c builds
 * the same): x19..x28, x29, x30, d8..d15, fpcr, fpsr; 176 bytes.
 * Register map: x0 = save_sp, x1 = new_sp, x9-x10 the saved FPCR and
 * FPSR, x11-x12 the resumed ones.
 */
#define SWITCH_SIZE 176

    .text
    .globl arch_switch
arch_switch:
    sub sp, sp, #SWITCH_SIZE
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mrs x9, fpcr
    mrs x10, fpsr
    stp x9, x10, [sp, #160]
    mov x11, sp
    str x11, [x0]
    mov sp, x1
    ldp x11, x12, [sp, #160]
    cmp x9, x11
    b.ne 2f
1:  cmp x10, x12
    b.ne 3f
4:  ldp d14, d15, [sp, #144]
    ldp d12, d13, [sp, #128]
    ldp d10, d11, [sp, #112]
    ldp d8, d9, [sp, #96]
    ldp x29, x30, [sp, #80]
    ldp x27, x28, [sp, #64]
    ldp x25, x26, [sp, #48]
    ldp x23, x24, [sp, #32]
    ldp x21, x22, [sp, #16]
    ldp x19, x20, [sp, #0]
    add sp, sp, #SWITCH_SIZE
    ret
2:  msr fpcr, x11
    b 1b
3:  msr fpsr, x12
    b 4b

/*
 *   void arch_call_on_stack(uintptr_t top, void (*fn)(void *), void *arg);
 * Register map: x0 = top, x1 = fn, x2 = arg.  A zero frame pointer and
 * link register end backtraces there.
 */
    .globl arch_call_on_stack
arch_call_on_stack:
    mov sp, x0
    mov x29, #0
    mov x30, #0
    mov x0, x2
    br x1

/*
 * First code of a new context (arch_context_init): x19 = fn, x20 = arg,
 * x29 = 0 so the backtrace ends here.
 */
    .globl arch_context_start
arch_context_start:
    .cfi_startproc
    .cfi_undefined x30              /* the outermost frame: debuggers stop */
    mov x0, x20
    blr x19
    brk #0                          /* fn must not return */
    .cfi_endproc
