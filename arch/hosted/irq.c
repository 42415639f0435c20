/*
 * irq.c (hosted) - interrupts as signals: the core timer, IPIs, halt.
 *
 * One signal, SIG_IRQ (SIGURG, as in Go), stands for every interrupt.
 * Its causes are bits in the target core's `pending` word: the timer
 * (each core has a POSIX timer aimed at its own thread, SIGEV_THREAD_ID,
 * and its signal carries si_code SI_TIMER), an IPI (the sender sets the
 * bit, then wakes the core's futex if it is halted or signals its thread
 * with tgkill), a device interrupt (raised the same way by a device's
 * host thread: tap.c), and stop (panic).
 *
 * The handler runs on the interrupted stack, which for a G is the G's own
 * stack, with the G's whole register state - general, FP and SSE/AVX -
 * saved in the signal frame below it.  That is the bare-metal trap frame,
 * so the handler calls sched/preempt.c's timer_interrupt just as the x86
 * trap handler does, and a preemption there is the same arch_switch from
 * inside the handler: the signal frame waits on the G's stack until the G
 * is chosen again, maybe by another thread, and the handler then returns
 * through rt_sigreturn into the G's code.  Two things of the frame belong
 * to the thread and not the G, and the handler puts the current thread's
 * back before it returns: the alternate signal stack (uc_stack, which
 * sigreturn installs) and errno.  The signal mask: the kernel blocks
 * SIG_IRQ while the handler runs, so handlers never nest while it only
 * looks (a nested one per timer expiry could pile signal frames up on a
 * host that deschedules the thread for longer than RETRY_NS); before it
 * runs the interrupt, which may switch G and never return on this
 * thread, it unblocks SIG_IRQ itself.  Every core thread otherwise runs
 * with SIG_IRQ unblocked, so the mask sigreturn restores is right on
 * whichever thread the G returns.
 *
 * When the handler may act (the safe point).  Interrupts masked (the
 * per-core flag, see arch_impl.h): it leaves the bit pending and the
 * unmasking delivers it.  Otherwise it acts only if the interrupted
 * instruction is Spindle or app code: inside the host C library (or a
 * sanitizer runtime, or the vDSO) the G may hold a libc lock - malloc's
 * arena, stdio's recursive FILE lock - that another G on this thread
 * would deadlock on or, worse, re-enter; and the timer code itself may
 * call malloc.  Then the handler leaves the bit pending and re-arms the
 * timer a little later (RETRY_NS), as Go's sysmon retries a G that was not
 * at an async safe point.  Code that libc calls back while holding a lock
 * (the console cookie of stdio.c) sits in a section that counts as libc.
 *
 * A timer signal that cannot act at once (masked, or inside libc) still
 * stopped the core at a known instruction: it is the CPU profiler's
 * sample of that place (prof_interrupt, arch.h), taken in the handler's
 * first half, which no sanitizer instruments.
 *
 * Halting is a futex wait on the pending word with the value 0: a bit set
 * between the caller's last look and the wait makes the wait return at
 * once, so no wakeup is lost (the sti;hlt of bare metal).
 */
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"

#define RETRY_NS 50000          /* defer a signal that hit libc */
#define IRQ_BITS (PEND_TIMER | PEND_IPI | PEND_DEV)

__thread struct cpu *hosted_this_cpu;
__thread struct arch_cpu *hosted_this_arch;

static int pid;

/* Spindle or app code, not libc, a sanitizer runtime or the vDSO; and
   not the code libc calls back with a lock held (stdio.c). */
static NO_TSAN bool pc_is_ours(uintptr_t pc)
{
    extern const char __executable_start[], etext[];
    extern const char __start_hosted_libc_cb[], __stop_hosted_libc_cb[];

    if (pc >= (uintptr_t)__start_hosted_libc_cb &&
        pc < (uintptr_t)__stop_hosted_libc_cb)
        return false;
    return pc >= (uintptr_t)__executable_start && pc < (uintptr_t)etext;
}

static long futex(uint32_t *w, int op, uint32_t val)
{
    return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

__attribute__((noreturn)) void hosted_stop_self(void)
{
    sigset_t all;

    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;)
        pause();                /* the panicking core ends the process */
}

/*
 * Runs the pending interrupts of whatever core this is with interrupts
 * masked, as a trap gate does, until none is left once they are unmasked
 * again.  timer_interrupt may switch G and come back on another thread:
 * the core is looked up afresh each time.
 */
static void deliver(struct trapframe *tf)
{
    for (;;) {
        struct arch_cpu *a = hosted_arch();
        uint32_t p;

        __atomic_store_n(&a->irq_off, 1, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        p = __atomic_fetch_and(&a->pending, ~IRQ_BITS, __ATOMIC_ACQUIRE);
        if (p & PEND_STOP)
            hosted_stop_self();
        if (p & PEND_IPI)
            ipi_handler();
        if (p & PEND_DEV)
            for (uint32_t d = __atomic_exchange_n(&a->dev, 0, __ATOMIC_ACQUIRE);
                 d; d &= d - 1)
                irq_dispatch(__builtin_ctz(d));
        if (p & PEND_TIMER)
            timer_interrupt(tf);
        a = hosted_arch();
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        __atomic_store_n(&a->irq_off, 0, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (!(__atomic_load_n(&a->pending, __ATOMIC_RELAXED) & IRQ_BITS))
            return;
    }
}

/* arch_irq_enable found an interrupt pending: take it now, as at sti. */
void hosted_irq_on(void)
{
    struct trapframe tf = { 0 };
    int err = errno;

    deliver(&tf);
    errno = err;
}

static void arm_ns(timer_t t, uint64_t ns, int flags)
{
    struct itimerspec its = { 0 };

    its.it_value.tv_sec = ns / 1000000000;
    its.it_value.tv_nsec = ns % 1000000000;
    timer_settime(t, flags, &its, NULL);
}

void hosted_irq_retry(void)
{
    arm_ns(hosted_arch()->timer, RETRY_NS, 0);
}

/* The handler's second half, at a safe point: runs the interrupts. */
static __attribute__((noinline)) void irq_run(ucontext_t *uc, siginfo_t *si,
                                             int sig)
{
    struct trapframe tf = { uc, si, sig };
    struct arch_cpu *a;
    int err = errno;

    /* The kernel blocked SIG_IRQ for the handler; this thread may go on
       to run other Gs from inside it (a preemption), so unblock it now.
       Interrupts stay masked by the flag until deliver is done. */
    hosted_irq_unblock();
    deliver(&tf);
    /* Maybe another thread now: sigreturn must not install the signal
       stack of the thread the G was interrupted on. */
    a = hosted_arch();
    uc->uc_stack.ss_sp = a->altstack;
    uc->uc_stack.ss_size = a->altstack_size;
    uc->uc_stack.ss_flags = 0;
    errno = err;
}

/*
 * The handler's first half decides whether this is a safe point.  It is
 * not compiled with TSan's instrumentation (NO_TSAN): the signal may have
 * come in the middle of TSan's runtime or of a fiber switch, where TSan's
 * per-thread state is half updated, and an instrumented function entry
 * there crashes it.  Only once the interrupted code is known to be
 * Spindle's own, with interrupts on (so not inside arch_switch), does it
 * call instrumented code.
 */
static NO_TSAN void on_irq(int sig, siginfo_t *si, void *ucv)
{
    struct arch_cpu *a = hosted_arch();
    ucontext_t *uc = ucv;
    const greg_t *r = uc->uc_mcontext.gregs;
    bool off, ours;
    uint32_t p;

    if (!a)
        return;                 /* not a core's thread */
    if (si->si_code == SI_TIMER)
        __atomic_fetch_or(&a->pending, PEND_TIMER, __ATOMIC_RELAXED);
    p = __atomic_load_n(&a->pending, __ATOMIC_ACQUIRE);
    if (p & PEND_STOP)
        hosted_stop_self();     /* the NMI of panic: even when masked */
    off = __atomic_load_n(&a->irq_off, __ATOMIC_RELAXED);
    ours = pc_is_ours(r[REG_RIP]);
    if (si->si_code == SI_TIMER && (off || !ours))
        prof_interrupt(r[REG_RIP], r[REG_RBP], r[REG_RSP], 0, off);
    if (off || !(p & IRQ_BITS))
        return;
    if (!ours) {
        struct itimerspec its = { .it_value.tv_nsec = RETRY_NS };

        timer_settime(a->timer, 0, &its, NULL);
        return;
    }
    irq_run(uc, si, sig);
}

void irq_init(void)
{
    sigset_t none;

    pid = getpid();
    sigemptyset(&none);
    if (hosted_sigaction(SIG_IRQ, on_irq, 0, &none))
        panic("irq_init: cannot install the interrupt signal handler");
}

void irq_cpu_init(struct cpu *c)
{
    struct sigevent sev = { 0 };
    timer_t t;
    sigset_t set;

    c->arch.tid = gettid();
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIG_IRQ;
    sev._sigev_un._tid = c->arch.tid;
    if (timer_create(CLOCK_MONOTONIC, &sev, &t))
        panic("arch_cpu_init: timer_create failed (errno %d)", errno);
    c->arch.timer = t;
    sigemptyset(&set);
    sigaddset(&set, SIG_IRQ);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void arch_timer_arm(uint64_t deadline)
{
    arm_ns(hosted_arch()->timer, deadline ? hosted_cycles_to_mono(deadline) : 0,
           deadline ? TIMER_ABSTIME : 0);
}

/* Sets bit `bit` of c's pending word and wakes c, unless a sender of
   the same bit already did. */
static void raise_bit(const struct cpu *c, uint32_t bit)
{
    struct arch_cpu *a = (struct arch_cpu *)&c->arch;
    uint32_t old = __atomic_fetch_or(&a->pending, bit, __ATOMIC_SEQ_CST);

    if (old & bit)
        return;                 /* its sender is already waking it */
    /* Seq-cst, paired with arch_halt: either it sees the bit before it
       waits, or this sees it halted. */
    if (__atomic_load_n(&a->halted, __ATOMIC_SEQ_CST))
        futex(&a->pending, FUTEX_WAKE_PRIVATE, 1);
    else
        syscall(SYS_tgkill, pid, a->tid, SIG_IRQ);
}

void hosted_irq_again(bool tick, bool now)
{
    struct arch_cpu *a = hosted_arch();

    if (tick)
        __atomic_fetch_or(&a->pending, PEND_TIMER, __ATOMIC_RELAXED);
    if (now && (__atomic_load_n(&a->pending, __ATOMIC_ACQUIRE) & IRQ_BITS))
        syscall(SYS_tgkill, pid, a->tid, SIG_IRQ);
}

void arch_send_ipi(const struct cpu *c)
{
    raise_bit(c, PEND_IPI);
}

void hosted_raise(const struct cpu *c, int irq)
{
    /* Release: the device's state before the bit; pairs with the
       acquire exchange in deliver. */
    __atomic_fetch_or((uint32_t *)&c->arch.dev, 1u << irq, __ATOMIC_RELEASE);
    raise_bit(c, PEND_DEV);
}

void arch_send_ipi_others(void)
{
    struct cpu *me = arch_this_cpu();

    for (int i = 0; i < ncpu; i++)
        if (cpus[i] != me)
            arch_send_ipi(cpus[i]);
}

void arch_stop_others(void)
{
    struct cpu *me = arch_this_cpu();

    for (int i = 0; i < ncpu; i++) {
        struct arch_cpu *a = &cpus[i]->arch;

        if (cpus[i] == me || !cpus[i]->online)
            continue;
        __atomic_fetch_or(&a->pending, PEND_STOP, __ATOMIC_SEQ_CST);
        futex(&a->pending, FUTEX_WAKE_PRIVATE, 1);
        syscall(SYS_tgkill, pid, a->tid, SIG_IRQ);
    }
}

void arch_stop_self(void)
{
    hosted_stop_self();
}

void arch_halt(void)
{
    struct arch_cpu *a = hosted_arch();

    __atomic_store_n(&a->halted, 1, __ATOMIC_SEQ_CST);
    if (!(__atomic_load_n(&a->pending, __ATOMIC_SEQ_CST) & IRQ_BITS))
        futex(&a->pending, FUTEX_WAIT_PRIVATE, 0);
    __atomic_store_n(&a->halted, 0, __ATOMIC_RELAXED);
    hosted_irq_on();
    __atomic_store_n(&hosted_arch()->irq_off, 1, __ATOMIC_RELAXED);
}
