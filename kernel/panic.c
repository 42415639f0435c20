/*
 * panic.c - the fail-stop path.
 *
 * The first core to panic claims panic_cpu, stops every other core (they
 * halt in their NMI/stop handler), takes the console by force (a stopped
 * core may have held its lock), prints what broke, where, and a
 * backtrace, and ends the machine with PANIC_EXIT_STATUS.  A core that
 * panics while another is already panicking just stops.
 */
#include <stdarg.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/vm.h"
#include "sched/sched.h"

static int panic_cpu = -1;

/* "in goroutine N" when a G was running, for the PANIC line.  Not getg():
   a fault may be handled on a stack of its own (a stack overflow is). */
static void print_where(void)
{
    struct g *gp = running_g();

    if (gp)
        printk("in goroutine %lu\n", (unsigned long)gp->goid);
    else
        printk("in the scheduler (no goroutine)\n");
}

#define MAX_FRAMES 32

void backtrace_from(uintptr_t fp, uintptr_t pc)
{
    printk("backtrace:\n");
    for (int i = 0; i < MAX_FRAMES && pc; i++) {
        /* Past frame 0, pc is a return address: the call is just before
           it, and after a call to a noreturn function the return address
           may already belong to the next function. */
        uintptr_t at = i ? pc - 1 : pc, off;
        const char *name = ksym_lookup(at, &off);
        uintptr_t *frame = (uintptr_t *)fp;

        printk("  #%d 0x%016lx %s+0x%lx\n", i, pc, name ? name : "?",
               off + (pc - at));
        /* Frames are {saved fp, return address}; stop at the end of the
           chain or at anything that does not look like one. */
        if (!fp || fp & 7 || !arch_virt_to_phys(fp, &(uint64_t){0}))
            break;
        fp = frame[0];
        pc = frame[1];
    }
}

/* Claims the panic for this core and returns its id; a core that comes
   second stops here. */
static int begin(void)
{
    int me = this_cpu()->id, none = -1;

    arch_irq_save();
    this_cpu()->panicking = 1;
    if (!__atomic_compare_exchange_n(&panic_cpu, &none, me, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (panic_cpu != me)
            arch_stop_self();
        /* A panic inside the panic path: say so and get out. */
        console_break_lock();
        printk("panic: nested panic on cpu %d\n", me);
        arch_exit(PANIC_EXIT_STATUS);
    }
    arch_stop_others();
    console_break_lock();
    return me;
}

int stop_machine(void)
{
    return begin();
}

void panic(const char *fmt, ...)
{
    va_list ap;
    int me = begin();

    printk("\npanic: ");
    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
    printk("\nPANIC on cpu %d (" ARCH_HWID_NAME " %u)\n", me,
           this_cpu()->hwid);
    print_where();
    backtrace_from(arch_frame_address(), (uintptr_t)&panic);
    arch_exit(PANIC_EXIT_STATUS);
}

void panic_trap(struct trapframe *tf, const char *what)
{
    int me = begin();
    uintptr_t fault = 0;
    size_t size;

    printk("\nPANIC: %s on cpu %d (" ARCH_HWID_NAME " %u)\n", what, me,
           this_cpu()->hwid);
    print_where();
    arch_dump_trapframe(tf);
    if (!arch_fault_address(tf, &fault)) {
        /* not a memory access */
    } else if (fault < PAGE_SIZE) {
        /* Go's words for a NULL pointer followed, or called */
        printk("panic: runtime error: invalid memory address or nil "
               "pointer dereference (address 0x%lx)\n", fault);
    } else if (vm_is_stack_guard(fault, &size)) {
        printk("fault address 0x%lx is a stack guard page: stack overflow\n",
               fault);
        if (size && running_g())
            printk("the stack of goroutine %lu is %zu KiB\n",
                   (unsigned long)running_g()->goid, size / 1024);
    }
    backtrace_from(arch_trapframe_fp(tf), arch_trapframe_pc(tf));
    arch_exit(PANIC_EXIT_STATUS);
}
