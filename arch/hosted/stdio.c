/*
 * stdio.c (hosted) - the host C library in place of newlib: stdout and
 * stderr write through the kernel console, and per-core libc set-up.
 *
 * Under newlib every write reaches console_write (posix/newlib.c's
 * _write), so console lines come out whole and the console tap
 * (printk.c) sees app output.  Here stdout and stderr become stdio
 * streams over a cookie whose write function is console_write, line
 * buffered as newlib's console is.
 *
 * glibc calls the cookie with the stream's recursive FILE lock held, and
 * that lock's owner is the thread, not the G.  The cookie therefore runs
 * in the section hosted_libc_cb, which the interrupt handler treats as
 * libc (no preemption: another G on this thread would re-enter the
 * stream), and it masks interrupts itself before it calls anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <reent.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

#define LIBC_CB __attribute__((section("hosted_libc_cb"), noinline))

struct _reent hosted_global_reent;

/* Interrupts back on without taking a pending one here, inside the
   stream: the timer comes back for it a little later (irq.c). */
static LIBC_CB void restore_quietly(unsigned long was_on)
{
    struct arch_cpu *a = hosted_arch();

    if (!was_on)
        return;
    if (__atomic_load_n(&a->pending, __ATOMIC_RELAXED))
        hosted_irq_retry();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&a->irq_off, 0, __ATOMIC_RELAXED);
}

static LIBC_CB ssize_t console_cookie_write(void *cookie, const char *buf,
                                            size_t n)
{
    unsigned long f = arch_irq_save();

    console_write(buf, n);
    restore_quietly(f);
    return n;
}

/* The buffer is static: glibc's malloc_stats prints to stderr while it
   holds malloc's arena lock, so the stream must not malloc its buffer on
   first use. */
static FILE *console_stream(char *buf, size_t size)
{
    cookie_io_functions_t io = { .write = console_cookie_write };
    FILE *f = fopencookie(NULL, "w", io);

    if (!f || setvbuf(f, buf, _IOLBF, size))
        panic("hosted_console_init: cannot make a console stream");
    return f;
}

/* kernel/main.c calls newlib_init before the scheduler starts. */
void newlib_init(void)
{
    static char outbuf[BUFSIZ], errbuf[BUFSIZ];

    stdout = console_stream(outbuf, sizeof outbuf);
    stderr = console_stream(errbuf, sizeof errbuf);
}

/* kernel/main.c makes the RAM file system before main(); the hosted
   build's files are the host's, through glibc. */
void fs_init(void)
{
}
