/*
 * hosted.h - what the files of arch/hosted share, and nothing else uses.
 */
#ifndef ARCH_HOSTED_HOSTED_H
#define ARCH_HOSTED_HOSTED_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* The register state an interrupt or fault saw: the signal's context.
   uc is NULL for an interrupt delivered at arch_irq_enable. */
struct trapframe {
    ucontext_t *uc;
    siginfo_t *si;
    int sig;
};

/* Code TSan must not instrument at all, function entry included (it
   runs where TSan's state may be torn).  gcc's attribute drops the whole
   pass; clang would still instrument atomics. */
#define NO_TSAN __attribute__((no_sanitize_thread))

/* The signal that stands for every interrupt (timer, IPI, stop). */
#define SIG_IRQ SIGURG

/* irq.c */
void irq_init(void);                    /* process-wide handlers */
void irq_cpu_init(struct cpu *c);       /* this thread's timer */
__attribute__((noreturn)) void hosted_stop_self(void);
void hosted_irq_retry(void);            /* signal again a little later */
/* After a fault handler held the mask: tick adds a timer interrupt to
   what is pending, now signals this thread if anything is (else the
   unmasking delivers it). */
void hosted_irq_again(bool tick, bool now);
/* Raises device interrupt irq on core c, from any thread (a device's). */
void hosted_raise(const struct cpu *c, int irq);

/* trap.c */
void trap_init(void);                   /* SIGSEGV and friends */
void trap_cpu_init(struct cpu *c);      /* this thread's signal stack */

/* sig.c: sigaction without the sanitizers' interceptors. */
int hosted_sigaction(int sig, void (*fn)(int, siginfo_t *, void *),
                     int flags, const sigset_t *mask);
void hosted_irq_unblock(void);          /* rt_sigprocmask, not intercepted */

/* context.c: this thread's TSan fiber, NULL without TSan. */
void *hosted_thread_fiber(void);

/* clock.c */
void clock_init(void);                  /* measures the TSC's rate */
uint64_t hosted_cycles_to_mono(uint64_t cycles);   /* CLOCK_MONOTONIC ns */
uint64_t hosted_mono_now(void);

/* mmu.c */
void *hosted_reserve(size_t bytes);     /* zeroed, backed on first touch */
bool hosted_gslot_refault(uintptr_t sp);  /* trap.c's SI_KERNEL fault */

/* The machine boot/hosted/main.c made of the process's arguments: its
   cores (-smp), the host's CPUs, and its RAM (mmu.c maps -m MiB). */
extern int hosted_machine_cores;
extern const char *hosted_image_path;   /* argv[0] */
extern int hosted_host_cpus;
struct bootinfo;
void hosted_ram_init(struct bootinfo *bi, size_t bytes);


#endif
