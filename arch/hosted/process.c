/*
 * process.c (hosted) - the machine of a Spindle that runs as a Linux
 * process (boot/hosted/main.c starts it): its cores are threads, its
 * console is stdout, its exit the process's.
 *
 * Each core other than the boot core is a thread on a guarded stack of
 * the kernel's stack area; with at least as many host CPUs as cores,
 * core i is pinned to host CPU i.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"

/* TSan wants about 900 KiB of a thread stack it did not allocate. */
#define CORE_STACK_SIZE (2 * 1024 * 1024)
#define START_TIMEOUT_NS 5000000000ULL

static struct cpu boot_cpu;
int hosted_machine_cores;
const char *hosted_image_path = "spindle";
int hosted_host_cpus;

static void set_cpu(struct cpu *c)
{
    c->self = c;
    hosted_this_cpu = c;
    hosted_this_arch = &c->arch;
    c->arch.errno_loc = __errno_location();
}

void arch_early_init(struct bootinfo *b)
{
    cpus[0] = &boot_cpu;
    boot_cpu.arch.irq_off = 1;
    set_cpu(&boot_cpu);
    clock_init();
    irq_init();
    trap_init();
}

void arch_cpu_init(struct cpu *c)
{
    c->arch.irq_off = 1;
    c->arch.tsan_fiber = hosted_thread_fiber();
    set_cpu(c);
    trap_cpu_init(c);
    irq_cpu_init(c);
}

uint32_t arch_cpu_hwid(void)
{
    return gettid();
}

/* The machine's cores are -smp's; acpi=off means the boot core only,
   as with bare metal's firmware tables ignored. */
int arch_discover_cpus(uint32_t *hwid, int max)
{
    int n = hosted_machine_cores < max ? hosted_machine_cores : max;
    const char *opt;

    if (cmdline_get("acpi", &opt) && !strcmp(opt, "off")) {
        printk("acpi: off (acpi=off); using the boot core only\n");
        n = 1;
    }
    for (int i = 0; i < n; i++)
        hwid[i] = i;
    hwid[0] = gettid();
    return n;
}

static void pin(pthread_t t, int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(t, sizeof set, &set);
}

static void *core_thread(void *arg)
{
    struct cpu *c = arg;

    arch_cpu_init(c);
    c->hwid = gettid();
    cpu_main(c);
    return NULL;
}

void arch_start_cpus(struct cpu **cs, int n)
{
    uint64_t deadline = hosted_mono_now() + START_TIMEOUT_NS;
    bool pinned = hosted_host_cpus >= n;

    if (pinned)
        pin(pthread_self(), 0);
    for (int i = 1; i < n; i++) {
        struct cpu *c = cs[i];
        void *lo = vm_stack_alloc(CORE_STACK_SIZE);
        pthread_attr_t attr;
        pthread_t t;

        if (!lo)
            panic("arch_start_cpus: no memory for core stacks");
        c->stack_lo = (uintptr_t)lo;
        c->stack_hi = (uintptr_t)lo + CORE_STACK_SIZE;
        pthread_attr_init(&attr);
        pthread_attr_setstack(&attr, lo, CORE_STACK_SIZE);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, core_thread, c))
            panic("arch_start_cpus: cannot start a thread for cpu %d", i);
        pthread_attr_destroy(&attr);
        if (pinned)
            pin(t, i);
    }
    for (int i = 1; i < n; i++) {
        while (!__atomic_load_n(&cs[i]->online, __ATOMIC_ACQUIRE) &&
               hosted_mono_now() < deadline)
            sched_yield();
        if (!__atomic_load_n(&cs[i]->online, __ATOMIC_ACQUIRE))
            panic("arch_start_cpus: cpu %d's thread never came online", i);
    }
}

uint64_t arch_wallclock(void)
{
    return time(NULL);
}

/* Reads a byte of each page of s[0..n), so that a G stack page given
   back meanwhile (mmu.c) faults and is mapped back: the host's system
   calls report such a page as EFAULT instead. */
static void touch_pages(const char *s, size_t n)
{
    const volatile char *p = s;

    for (size_t i = 0; i < n; i += PAGE_SIZE - (uintptr_t)(p + i) % PAGE_SIZE)
        (void)p[i];
}

/* Writes s[0..n) to fd, through interrupted and partial writes; gives
   up on an error, or on a second EFAULT in a row. */
static void write_all(int fd, const char *s, size_t n)
{
    bool touched = false;

    while (n) {
        ssize_t k = write(fd, s, n);

        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0 && errno == EFAULT && !touched) {
                touch_pages(s, n);
                touched = true;
                continue;
            }
            return;
        }
        touched = false;
        s += k;
        n -= k;
    }
}

void arch_console_write(const char *s, size_t n)
{
    write_all(STDOUT_FILENO, s, n);
}

/* Dump files (the tracer's, the profiler's): plain system calls, since
   the G writing one may be preempted and go on on another thread (a
   stdio FILE's lock would then be released by a thread that does not
   own it). */
void *arch_dump_open(const char *path, const char *ext, const char *who)
{
    char def[4096];
    size_t len;
    int fd;

    if (!path) {
        len = strlen(hosted_image_path);
        if (len > 4 && !strcmp(hosted_image_path + len - 4, ".elf"))
            len -= 4;
        snprintf(def, sizeof def, "%.*s%s", (int)len, hosted_image_path, ext);
        path = def;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        printk("%s: cannot write %s (%s); the dump goes to the console\n",
               who, path, strerror(errno));
        return NULL;
    }
    printk("%s: dump in %s\n", who, path);
    return (void *)(intptr_t)(fd + 1);
}

void arch_dump_write(void *f, const char *s, size_t n)
{
    write_all((int)(intptr_t)f - 1, s, n);
}

void arch_dump_close(void *f)
{
    close((int)(intptr_t)f - 1);
}

void *arch_trace_file_open(const char *path)
{
    return arch_dump_open(path, ".trace", "trace");
}

void arch_trace_file_write(void *f, const char *s, size_t n)
{
    arch_dump_write(f, s, n);
}

void arch_trace_file_close(void *f)
{
    arch_dump_close(f);
}

/*
 * The machine's end: exit_group straight away, as the bare-metal debug
 * exit does.  Not _exit, which TSan intercepts to finish its bookkeeping,
 * and which deadlocks when a core stopped by the panic holds one of its
 * locks.  (main's return goes through exit() in kernel/main.c instead.)
 */
void arch_exit(int status)
{
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}
