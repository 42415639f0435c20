/*
 * sig.c (hosted) - installing signal handlers straight through the
 * rt_sigaction system call.
 *
 * Why not sigaction(3): under TSan it is intercepted, and TSan delays an
 * asynchronous signal until the thread next enters one of its
 * interceptors.  A G spinning in Spindle code never does, so its timer
 * signal, and with it preemption, would never come.  Spindle's handler
 * keeps the rule TSan's delay exists for by itself: it acts only when the
 * interrupted code is Spindle's own (irq.c), never inside libc or a
 * sanitizer runtime.  ASan's interceptor would also refuse to replace its
 * own SIGSEGV handler.
 *
 * The kernel needs a restorer (SA_RESTORER): the code the handler returns
 * to, which calls rt_sigreturn.  It is one instruction pair, below.
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/cpu.h"

#define SA_RESTORER_FLAG 0x04000000     /* SA_RESTORER, kernel ABI */

/* The kernel's struct sigaction (not glibc's): mask last, 8 bytes. */
struct ksigaction {
    void (*handler)(int, siginfo_t *, void *);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

/* The restorer is named __restore_rt, as glibc's is (a local symbol
   here, as there), and is the same two instructions: debuggers and
   unwinders know a signal frame by that name or that code, and unwind
   through it into the interrupted code (gdb's backtrace of a G that a
   signal interrupted). */
void hosted_sigreturn(void) __asm__("__restore_rt");
__asm__(".text\n"
        ".type __restore_rt, @function\n"
        "__restore_rt:\n"
        "    mov $15, %rax\n"           /* __NR_rt_sigreturn */
        "    syscall\n"
        ".size __restore_rt, . - __restore_rt\n");

int hosted_sigaction(int sig, void (*fn)(int, siginfo_t *, void *),
                     int flags, const sigset_t *mask)
{
    struct ksigaction ka = {
        .handler = fn,
        .flags = (unsigned long)flags | SA_SIGINFO | SA_RESTORER_FLAG,
        .restorer = hosted_sigreturn,
    };

    memcpy(&ka.mask, mask, sizeof ka.mask);     /* the first 64 signals */
    return syscall(SYS_rt_sigaction, sig, &ka, NULL, sizeof ka.mask);
}

void hosted_irq_unblock(void)
{
    uint64_t set = 1ULL << (SIG_IRQ - 1);

    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, sizeof set);
}
