/*
 * vectors.S - the exception vector table, the save of the full register
 * state into a trap frame, and the return from it.
 *
 *   void aarch64_trap(struct trapframe *tf, int kind);   (trap.c)
 *
 * The kernel runs at EL1 on SP_EL1 and has no EL0, so only the four
 * "current EL with SPx" vectors are expected; the others panic.  Each
 * entry first puts the interrupted x0, x1, x30, ELR and SPSR in its
 * kind's area of struct cpu (arch.entry_save, always mapped), keeps the
 * area's address in TPIDR_EL0 (TPIDRRO_EL0 is its scratch), then calls
 * save_frame, which copies them from there into the frame.  TPIDR_EL0 is
 * also the TLS thread pointer of the code interrupted: trap_return puts
 * back the core's (the core-local page's LOCAL_TP, arch_tp_set), which
 * is the interrupted G's, or the G's the core switched to meanwhile.
 *
 * Why save_frame first asks the MMU (AT S1E1W) whether the frame's pages
 * are mapped: the frame goes on the interrupted stack, which for a G may
 * be a page not mapped yet (G stacks grow on demand) or a guard page (a
 * stack overflow).  x86 has IST stacks for this; here the frame then
 * goes on the core's emergency stack instead, and trap.c maps the page
 * (and returns, so the instruction or interrupt comes again) or reports
 * the stack overflow.  A page can still go between the probe and the
 * stores: another core giving back the stack pages of a G readied during
 * the release (sched/release.c), whose broadcast TLBI takes the page
 * from this core too.  The store then faults inside this code, and the
 * fault's own entry overwrites ELR, SPSR and the scratch registers; but
 * the interrupted state is in the entry save area by then, and the
 * frame's registers so far are in GPRs, which the fault's return puts
 * back.  trap.c maps the page back (vm_fault), and the store goes on.
 * A fault's save area is its own kind's, so the interrupt's is left as
 * it was.
 *
 * The frame layout is struct trapframe (aarch64.h, offsets checked in
 * trap.c): x0-x30, sp, elr, spsr, esr, far, fpcr, fpsr, q0-q31.  The
 * whole FP/SIMD state is saved because the interrupted code may use any
 * of it and the C handler may too, and because a preempted G resumes
 * from this frame (sched/preempt.c).
 * Register map in save_frame and save_frame_sync: x0 the interrupted sp,
 * x1 scratch, then (from label 2) the entry save area, and x2-x3
 * scratch once saved; x30 the return address into the vector entry.
 */
#include "arch/aarch64/aarch64.h"

    .macro ventry kind, save=save_frame
    .balign 128
    msr tpidrro_el0, x0
    mrs x0, tpidr_el1
    add x0, x0, #(CPU_ENTRY_SAVE + \kind * ENTRY_SAVE_SIZE)
    str x1, [x0, #ES_X1]
    str x30, [x0, #ES_X30]
    mrs x1, tpidrro_el0
    str x1, [x0, #ES_X0]
    mrs x1, elr_el1
    str x1, [x0, #ES_ELR]
    mrs x1, spsr_el1
    str x1, [x0, #ES_SPSR]
    mrs x1, esr_el1
    str x1, [x0, #ES_ESR]
    mrs x1, far_el1
    str x1, [x0, #ES_FAR]
    msr tpidr_el0, x0
    bl \save
    mov x0, sp
    mov x1, #\kind
    bl aarch64_trap
    mrs x1, tpidr_el1
    add x1, x1, #(CPU_ENTRY_SAVE + \kind * ENTRY_SAVE_SIZE)
    b trap_return
    .endm

    .text
    .balign 2048
    .globl vector_table
vector_table:
    ventry KIND_BAD         /* current EL, SP_EL0 */
    ventry KIND_BAD
    ventry KIND_BAD
    ventry KIND_BAD
    ventry KIND_SYNC, save_frame_sync   /* current EL, SP_ELx */
    ventry KIND_IRQ
    ventry KIND_FIQ
    ventry KIND_SERROR
    ventry KIND_BAD         /* lower EL, AArch64 */
    ventry KIND_BAD
    ventry KIND_BAD
    ventry KIND_BAD
    ventry KIND_BAD         /* lower EL, AArch32 */
    ventry KIND_BAD
    ventry KIND_BAD
    ventry KIND_BAD

/*
 * Synchronous exceptions (faults) always go to the emergency stack, as
 * x86_64's page fault goes to an IST stack: the handler maps lazily
 * grown G stack pages, and must not itself run on the stack whose page
 * is missing.  A fault while already on the emergency stack (inside a
 * fault handler) stacks below it as usual.
 */
save_frame_sync:
    mov x0, sp
    mrs x1, tpidr_el1
    ldr x1, [x1, #CPU_ESTACK]
    cmp x0, x1
    b.hs 1f                         /* above the emergency stack */
    sub x1, x1, #ESTACK_SIZE
    cmp x0, x1
    b.hs save_frame                 /* on it already */
    b 1f

save_frame:
    mov x0, sp
    sub x1, x0, #TF_SIZE
    at s1e1w, x1
    isb
    mrs x1, par_el1
    tbnz x1, #0, 1f                 /* PAR_EL1.F: no translation */
    sub x1, x0, #1
    at s1e1w, x1
    isb
    mrs x1, par_el1
    tbnz x1, #0, 1f
    sub sp, x0, #TF_SIZE
    b 2f
1:  mrs x1, tpidr_el1               /* struct cpu */
    ldr x1, [x1, #CPU_ESTACK]
    sub sp, x1, #TF_SIZE
2:  mrs x1, tpidr_el0               /* this kind's entry save area */
    str x0, [sp, #TF_SP]
    stp x2, x3, [sp, #16]
    stp x4, x5, [sp, #32]
    stp x6, x7, [sp, #48]
    stp x8, x9, [sp, #64]
    stp x10, x11, [sp, #80]
    stp x12, x13, [sp, #96]
    stp x14, x15, [sp, #112]
    stp x16, x17, [sp, #128]
    stp x18, x19, [sp, #144]
    stp x20, x21, [sp, #160]
    stp x22, x23, [sp, #176]
    stp x24, x25, [sp, #192]
    stp x26, x27, [sp, #208]
    stp x28, x29, [sp, #224]
    ldp x2, x3, [x1, #ES_X0]
    stp x2, x3, [sp, #0]
    ldr x2, [x1, #ES_X30]
    str x2, [sp, #240]              /* x30 */
    ldp x2, x3, [x1, #ES_ELR]
    stp x2, x3, [sp, #TF_ELR]
    ldp x2, x3, [x1, #ES_ESR]
    stp x2, x3, [sp, #TF_ESR]
    mrs x0, fpcr
    mrs x1, fpsr
    stp x0, x1, [sp, #TF_FPCR]
    stp q0, q1, [sp, #TF_Q + 0]
    stp q2, q3, [sp, #TF_Q + 32]
    stp q4, q5, [sp, #TF_Q + 64]
    stp q6, q7, [sp, #TF_Q + 96]
    stp q8, q9, [sp, #TF_Q + 128]
    stp q10, q11, [sp, #TF_Q + 160]
    stp q12, q13, [sp, #TF_Q + 192]
    stp q14, q15, [sp, #TF_Q + 224]
    stp q16, q17, [sp, #TF_Q + 256]
    stp q18, q19, [sp, #TF_Q + 288]
    stp q20, q21, [sp, #TF_Q + 320]
    stp q22, q23, [sp, #TF_Q + 352]
    stp q24, q25, [sp, #TF_Q + 384]
    stp q26, q27, [sp, #TF_Q + 416]
    stp q28, q29, [sp, #TF_Q + 448]
    stp q30, q31, [sp, #TF_Q + 480]
    ret

/*
 * Restores the frame at sp and returns from the exception; x1 is this
 * exception kind's entry save area (set by the vector entry).  Everything is
 * masked first: the C handler may have unmasked FIQs, and ELR/SPSR must
 * not change between here and eret.  The frame may be on a G stack
 * page that another core gives back meanwhile (see the top of this
 * file): a load from it may fault, and the fault's own entry and return
 * overwrite ELR, SPSR and the scratch registers but put back every GPR.
 * So every load from the frame comes first, what is set last (ELR, SPSR,
 * x0, x1, x30, sp) going through the save area, and the rest is loads
 * from that area, which is always mapped.  The scheduler never enters
 * here directly: a preempted G returns through its handler
 * (preempt.c).
 */
    .globl trap_return
trap_return:
    msr daifset, #0xf
    ldp q0, q1, [sp, #TF_Q + 0]
    ldp q2, q3, [sp, #TF_Q + 32]
    ldp q4, q5, [sp, #TF_Q + 64]
    ldp q6, q7, [sp, #TF_Q + 96]
    ldp q8, q9, [sp, #TF_Q + 128]
    ldp q10, q11, [sp, #TF_Q + 160]
    ldp q12, q13, [sp, #TF_Q + 192]
    ldp q14, q15, [sp, #TF_Q + 224]
    ldp q16, q17, [sp, #TF_Q + 256]
    ldp q18, q19, [sp, #TF_Q + 288]
    ldp q20, q21, [sp, #TF_Q + 320]
    ldp q22, q23, [sp, #TF_Q + 352]
    ldp q24, q25, [sp, #TF_Q + 384]
    ldp q26, q27, [sp, #TF_Q + 416]
    ldp q28, q29, [sp, #TF_Q + 448]
    ldp q30, q31, [sp, #TF_Q + 480]
    ldp x2, x3, [sp, #TF_FPCR]
    msr fpcr, x2
    msr fpsr, x3
    ldp x2, x3, [sp, #TF_ELR]
    stp x2, x3, [x1, #ES_ELR]
    ldp x2, x3, [sp, #0]            /* x0, x1 */
    stp x2, x3, [x1, #ES_X0]
    ldr x2, [sp, #240]              /* x30 */
    str x2, [x1, #ES_X30]
    ldr x2, [sp, #TF_SP]
    str x2, [x1, #ES_SP]
    ldp x2, x3, [sp, #16]
    ldp x4, x5, [sp, #32]
    ldp x6, x7, [sp, #48]
    ldp x8, x9, [sp, #64]
    ldp x10, x11, [sp, #80]
    ldp x12, x13, [sp, #96]
    ldp x14, x15, [sp, #112]
    ldp x16, x17, [sp, #128]
    ldp x18, x19, [sp, #144]
    ldp x20, x21, [sp, #160]
    ldp x22, x23, [sp, #176]
    ldp x24, x25, [sp, #192]
    ldp x26, x27, [sp, #208]
    ldp x28, x29, [sp, #224]
    /* The last load from the frame is above: the rest reads the save
       area.  sp goes back to the interrupted sp, which is not always
       just above the frame. */
    ldr x0, [x1, #ES_ELR]
    msr elr_el1, x0
    ldr x0, [x1, #ES_SPSR]
    msr spsr_el1, x0
    ldr x30, [x1, #ES_SP]
    mov sp, x30
    ldr x30, [x1, #ES_X30]
    mov x0, #LOCAL_VA               /* the entry borrowed TPIDR_EL0 */
    ldr x0, [x0, #LOCAL_TP]
    msr tpidr_el0, x0
    ldr x0, [x1, #ES_X0]
    ldr x1, [x1, #ES_X1]
    eret
