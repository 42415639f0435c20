/*
 * quit.c (hosted) - the console's Ctrl-\: SIGQUIT, which a terminal sends
 * for that key (as `kill -QUIT` does), reaches console_input as one byte
 * 0x1c through the device interrupt path instead of ending the process.
 * Standard input stays the app's: the hosted console only writes.
 *
 * The signal's handler may run on any thread in the middle of anything
 * (libc, a sanitizer's runtime, a core's own interrupt path), so it only
 * counts the signal in an eventfd, with one raw write system call, and
 * keeps errno.  A host thread of its own (the watcher) reads the count
 * and raises a device interrupt on core 0 (hosted_raise), as tap.c's
 * watcher does for frames; that interrupt's handler hands over one 0x1c
 * per SIGQUIT counted.  Signals that come close together may merge into
 * one, as on any Linux process.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/console_in.h"
#include "kernel/cpu.h"
#include "kernel/irq.h"
#include "kernel/printk.h"

static int quit_ev = -1;        /* eventfd: SIGQUITs the watcher has not read */
static int quit_irq;
static uint64_t quit_pending;   /* atomic: read, not yet handed over */

/* Not instrumented: it may interrupt TSan's runtime (irq.c's on_irq). */
static NO_TSAN void on_quit(int sig, siginfo_t *si, void *uc)
{
    uint64_t one = 1;
    int err = errno;

    syscall(SYS_write, quit_ev, &one, sizeof one);
    errno = err;
}

static void *watch(void *arg)
{
    sigset_t all;
    uint64_t n;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);     /* not a core */
    for (;;) {
        if (read(quit_ev, &n, sizeof n) != sizeof n) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        __atomic_add_fetch(&quit_pending, n, __ATOMIC_RELEASE);
        hosted_raise(cpus[0], quit_irq);
    }
}

static void quit_interrupt(void *arg)
{
    static const char key = CONSOLE_QUIT_KEY;
    uint64_t n = __atomic_exchange_n(&quit_pending, 0, __ATOMIC_ACQUIRE);

    while (n--)
        console_input(&key, 1);
}

void arch_console_in_start(void)
{
    sigset_t none;
    pthread_t th;

    quit_irq = irq_alloc(quit_interrupt, NULL);
    quit_ev = eventfd(0, EFD_CLOEXEC);
    if (quit_irq < 0 || quit_ev < 0 ||
        pthread_create(&th, NULL, watch, NULL)) {
        printk("console: input off: cannot start the SIGQUIT watcher\n");
        return;
    }
    pthread_detach(th);
    sigemptyset(&none);
    if (hosted_sigaction(SIGQUIT, on_quit, SA_RESTART, &none))
        printk("console: input off: cannot handle SIGQUIT (errno %d)\n",
               errno);
}
