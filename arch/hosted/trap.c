/*
 * trap.c (hosted) - faults as signals, and the register dump.
 *
 * A fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE) is fatal, as every exception
 * is on bare metal, and goes to panic_trap with the signal's context as
 * the trap frame, but for a touch of G stack pages given back (mmu.c),
 * which fixed_up maps back as the bare-metal page fault handler does.
 * Its handler runs on an alternate signal stack per core (sigaltstack),
 * because the common fault is a G running into its guard page, where its
 * own stack has no room left.  The kernel's signal frame carries the x86
 * trap number, error code and faulting address (CR2), so the report
 * reads as the bare-metal one.  abort() (a failed glibc
 * assert) panics too, as newlib's _kill does.
 */
#include <string.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

#define ALTSTACK_SIZE (64 * 1024)

static const char *trap_name(const struct trapframe *tf)
{
    switch (tf->sig) {
    case SIGSEGV:
        return "page fault";
    case SIGBUS:
        return "bus error";
    case SIGILL:
        return "invalid opcode";
    case SIGFPE:
        return "divide error";
    case SIGTRAP:
        return "breakpoint";
    default:
        return "abort() called";
    }
}

/*
 * A SIGSEGV on a G stack page given back, or (SI_KERNEL, no address) an
 * interrupt whose signal frame the host could not push on one: the slot
 * is mapped back and the code goes on.  vm.c takes a spinlock, whose
 * unlock would run pending interrupts right here, on the core's signal
 * stack: the mask is held around it and put back with a plain store, and
 * what is pending then, the lost interrupt counted as a tick (it may have
 * been the timer's), comes again as a SIG_IRQ once the handler returns.
 */
static bool fixed_up(siginfo_t *si, ucontext_t *uc)
{
    struct arch_cpu *a = hosted_arch();
    bool lost = si->si_code == SI_KERNEL && !si->si_addr, ok;
    int was_off;

    if (!a)
        return false;           /* not a core's thread */
    was_off = __atomic_load_n(&a->irq_off, __ATOMIC_RELAXED);
    __atomic_store_n(&a->irq_off, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    ok = lost ? hosted_gslot_refault(uc->uc_mcontext.gregs[REG_RSP])
              : vm_fault((uintptr_t)si->si_addr);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&a->irq_off, was_off, __ATOMIC_RELAXED);
    if (ok)
        hosted_irq_again(lost, !was_off);
    return ok;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    struct trapframe tf = { uc, si, sig };

    if (sig == SIGSEGV && fixed_up(si, uc))
        return;
    panic_trap(&tf, trap_name(&tf));
}

void trap_init(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP,
                                SIGABRT };
    sigset_t mask;

    /* No interrupt on the fault stack: a preemption there would leave
       the G's frames on a stack that belongs to the core. */
    sigemptyset(&mask);
    sigaddset(&mask, SIG_IRQ);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (hosted_sigaction(sigs[i], on_fault, SA_ONSTACK, &mask))
            panic("trap_init: cannot install the handler of signal %d",
                  sigs[i]);
}

void trap_cpu_init(struct cpu *c)
{
    stack_t ss = { 0 };

    c->arch.altstack = vm_stack_alloc(ALTSTACK_SIZE);
    if (!c->arch.altstack)
        panic("arch_cpu_init: no memory for the signal stack");
    c->arch.altstack_size = ALTSTACK_SIZE;
    ss.ss_sp = c->arch.altstack;
    ss.ss_size = ALTSTACK_SIZE;
    if (sigaltstack(&ss, NULL))
        panic("arch_cpu_init: sigaltstack failed");
}

/* greg_t is long long; the kernel's printk formats take long. */
static const unsigned long *regs(const struct trapframe *tf)
{
    return (const unsigned long *)tf->uc->uc_mcontext.gregs;
}

void arch_dump_trapframe(const struct trapframe *tf)
{
    const unsigned long *r;

    if (!tf->uc) {
        printk("no register state (interrupt taken at arch_irq_enable)\n");
        return;
    }
    r = regs(tf);
    printk("vector %lu error 0x%lx rip 0x%016lx cr2 0x%016lx\n",
           r[REG_TRAPNO], r[REG_ERR], r[REG_RIP], r[REG_CR2]);
    printk("signal %d code %d address 0x%016lx\n", tf->sig,
           tf->si ? tf->si->si_code : 0,
           tf->si ? (unsigned long)tf->si->si_addr : 0UL);
    printk("rax %016lx rbx %016lx rcx %016lx rdx %016lx\n",
           r[REG_RAX], r[REG_RBX], r[REG_RCX], r[REG_RDX]);
    printk("rsi %016lx rdi %016lx rbp %016lx rsp %016lx\n",
           r[REG_RSI], r[REG_RDI], r[REG_RBP], r[REG_RSP]);
    printk("r8  %016lx r9  %016lx r10 %016lx r11 %016lx\n",
           r[REG_R8], r[REG_R9], r[REG_R10], r[REG_R11]);
    printk("r12 %016lx r13 %016lx r14 %016lx r15 %016lx\n",
           r[REG_R12], r[REG_R13], r[REG_R14], r[REG_R15]);
    printk("rflags %016lx thread %d\n", r[REG_EFL], gettid());
}

uintptr_t arch_trapframe_fp(const struct trapframe *tf)
{
    return tf->uc ? regs(tf)[REG_RBP] : 0;
}

uintptr_t arch_trapframe_pc(const struct trapframe *tf)
{
    return tf->uc ? regs(tf)[REG_RIP] : 0;
}

uintptr_t arch_trapframe_sp(const struct trapframe *tf)
{
    return tf->uc ? regs(tf)[REG_RSP] : 0;
}

uintptr_t arch_trapframe_lr(const struct trapframe *tf)
{
    return 0;
}

bool arch_fault_address(const struct trapframe *tf, uintptr_t *va)
{
    if (tf->sig != SIGSEGV && tf->sig != SIGBUS)
        return false;
    *va = (uintptr_t)tf->si->si_addr;
    return true;
}
