/*
 * arch_impl.h (hosted) - the inline primitives behind arch/arch.h when
 * Spindle runs as a Linux process: a core is a thread, an interrupt is a
 * signal (arch/hosted/irq.c says how).
 *
 * Interrupt masking is a per-core flag, not the thread's signal mask:
 * spin_lock turns "interrupts" off on every lock and getg() on every
 * call, and a sigprocmask system call there would cost more than the
 * scheduler operation itself.  The signal handler honours the flag: with
 * it set, the handler only records the interrupt as pending, and the
 * flag's clearing (arch_irq_restore / arch_irq_enable) delivers it, as
 * the CPU delivers a pending interrupt at sti.  The flag also survives a
 * switch of G inside the handler, which a signal mask would not (the
 * kernel restores the mask only at sigreturn, on whichever thread the G
 * next returns from the handler).
 *
 * The per-CPU pointer is thread-local.  It is read with an explicit
 * %fs-relative load on every use, never through a cached address: a G
 * may move to another thread between two reads.
 */
#ifndef ARCH_HOSTED_IMPL_H
#define ARCH_HOSTED_IMPL_H

#include <stdbool.h>
#include <stdint.h>

/* What a core's hardware id is called: the host thread id. */
#define ARCH_HWID_NAME "thread"

/*
 * The kernel's virtual areas (kernel/vm.h): heap, stacks, G slots and
 * the G table, 256 GiB apart, up to 0x5640_0000_0000 + 256 GiB.  The
 * place is one that no sanitizer claims: TSan keeps application memory
 * only in a few ranges on x86_64, and 0x5500_0000_0000 to
 * 0x5680_0000_0000 is the one a non-PIE binary leaves free (hosted
 * images are linked -no-pie for that reason); ASan's shadow ends far
 * below.
 */
#define ARCH_VM_BASE    0x554000000000UL
#define ARCH_VM_STRIDE  0x004000000000UL
#define ARCH_VM_AREA    0x004000000000UL

/* A G slot's pages are host memory of their own, not their frames
   (mmu.c): kernel/vm.c reaches them through arch_gslot_bytes and
   friends (arch.h). */
#define ARCH_GSLOT_BACKING 1

/*
 * Big G stacks (kernel/vmbig.c) are host memory too: arch_bigstack_open
 * makes [lo, hi) accessible, backed by the host on first touch, and
 * arch_bigstack_close gives it back and makes it fault again (the host
 * drops every thread's TLB entries itself).  open: 0 or -ENOMEM.
 */
#define ARCH_BIGSTACK_BACKING 1
int arch_bigstack_open(uintptr_t lo, uintptr_t hi);
void arch_bigstack_close(uintptr_t lo, uintptr_t hi);

/*
 * TLS (arch.h): none per G.  glibc owns FS here: its own TLS (errno,
 * the sanitizers' state) is the thread's, and a G's block installed in
 * FS would take it from glibc.  __thread variables are per host thread,
 * that is per core; sp_go_attr ignores tls.
 */
#define ARCH_TLS_VARIANT 0

static inline void arch_tp_set(uintptr_t tp)
{
    (void)tp;
}

static inline uintptr_t arch_tp_get(void)
{
    return 0;
}

/* Pending interrupt bits (struct arch_cpu.pending). */
#define PEND_TIMER  1u          /* the core's timer fired */
#define PEND_IPI    2u          /* arch_send_ipi */
#define PEND_STOP   4u          /* arch_stop_others: stop for good */
#define PEND_DEV    8u          /* device interrupts, the bits of dev */

struct arch_cpu {
    /* Written only by the core's own thread (and its signal handler,
       which runs on that thread, so compiler barriers order them). */
    int irq_off;                /* interrupts disabled; relaxed atomic */
    /* Set by any core (atomic or), cleared by the owner (atomic
       exchange); also the futex word arch_halt sleeps on. */
    uint32_t pending;
    uint32_t dev;               /* device interrupts waiting, bit n = irq n;
                                   set by hosted_raise (atomic or), taken
                                   by the owner (atomic exchange) */
    int halted;                 /* in arch_halt's futex wait; atomic */
    int tid;                    /* host thread id, for tgkill */
    void *timer;                /* the core's POSIX timer (timer_t) */
    void *altstack;             /* SIGSEGV stack (sigaltstack) */
    size_t altstack_size;
    void *tsan_fiber;           /* the thread's own fiber (TSan builds) */
    int *errno_loc;             /* the thread's errno (__errno_location),
                                   set by set_cpu; for arch_switch */
};

extern __thread struct cpu *hosted_this_cpu;
extern __thread struct arch_cpu *hosted_this_arch;

/* Interrupts pending on this core: delivers them with interrupts on. */
void hosted_irq_on(void);

static inline __attribute__((always_inline)) struct cpu *arch_this_cpu(void)
{
    struct cpu *c;

    /* volatile: re-read after every switch point, never cached. */
    __asm__ volatile("movq %%fs:hosted_this_cpu@tpoff, %0" : "=r"(c));
    return c;
}

static inline __attribute__((always_inline)) struct arch_cpu *hosted_arch(void)
{
    struct arch_cpu *a;

    __asm__ volatile("movq %%fs:hosted_this_arch@tpoff, %0" : "=r"(a));
    return a;
}

static inline unsigned long arch_irq_save(void)
{
    struct arch_cpu *a = hosted_arch();
    unsigned long was_on = !__atomic_load_n(&a->irq_off, __ATOMIC_RELAXED);

    /* Relaxed atomics and signal fences: the flag is shared with this
       thread's signal handler only, which a compiler barrier orders. */
    __atomic_store_n(&a->irq_off, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return was_on;
}

static inline void arch_irq_enable(void)
{
    struct arch_cpu *a = hosted_arch();

    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&a->irq_off, 0, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* Pairs with the atomic or of the sender: a bit set after this load
       comes with a signal, which finds the flag clear and delivers. */
    if (__builtin_expect(__atomic_load_n(&a->pending, __ATOMIC_RELAXED) &
                         (PEND_TIMER | PEND_IPI), 0))
        hosted_irq_on();
}

static inline void arch_irq_restore(unsigned long was_on)
{
    if (was_on)
        arch_irq_enable();
}

static inline bool arch_irqs_enabled(void)
{
    return !__atomic_load_n(&hosted_arch()->irq_off, __ATOMIC_RELAXED);
}

/* How many arch_cpu_relax calls wait about as long as one x86 `pause`
   (arch.h): the pause itself. */
#define ARCH_RELAX_PER_PAUSE 1

static inline void arch_cpu_relax(void)
{
    __asm__ volatile("pause" : : : "memory");
}

/*
 * The TSC, as on bare metal, not clock_gettime: a G that polls the clock
 * in a loop then spends its time in Spindle's code, where an interrupt
 * can be taken, rather than in the vDSO, where irq.c defers it.  Its rate
 * is measured against CLOCK_MONOTONIC at boot (clock.c).
 */
static inline uint64_t arch_cycles(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static inline uintptr_t arch_frame_address(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

/* arch.h: the text is read-only here, so a site always goes to label
   (whose code tests what the site would have skipped). */
#define arch_branch_site(label) goto label

/* Device registers (contracts in arch.h).  A Linux process has no
   devices mapped and no port I/O (in/out would fault without ioperm):
   the drivers that use these compile here but nothing calls them. */
#define ARCH_HAS_PIO 0

static inline uint8_t arch_pio_read8(uint16_t port)
{
    (void)port;
    return 0xFF;
}

static inline void arch_pio_write8(uint16_t port, uint8_t v)
{
    (void)port;
    (void)v;
}


#endif
