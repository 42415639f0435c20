/*
 * irq_frame_fault - an interrupt whose frame lands on a G stack page not
 * mapped yet still reaches its handler.
 *
 * On x86_64 the CPU pushes an interrupt's frame onto the running G's
 * stack; when that push faults, the page-fault handler maps the page and
 * returns to the interrupted code, and the interrupt, already moved into
 * service in the local APIC, must be sent again
 * (lapic_resend_in_service), or that vector and every lower one stay
 * blocked on the core for good: its timer never fires again.  On aarch64
 * the vector code saves the registers itself, and its own fault on the
 * page must be taken and resolved before the interrupt is acknowledged.
 * A fresh G moves its stack pointer to 16 bytes above its deepest stack
 * page, which nothing has touched, and waits there, touching no memory,
 * until a timer interrupt has come.  The wait is written per arch: the
 * one place in the tests that moves the stack pointer by hand.
 */
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "arch/export_test.h"
#include "kernel/export_test.h"
#include "sched/export_test.h"

static volatile uint64_t *nirq;
static uint64_t spins_left;     /* what the wait had left when it ended */
static sp_waitgroup wg;

/*
 * Spins with the stack pointer at sp until *count changes or `spins`
 * rounds have passed; returns the rounds left (0: the interrupt never
 * came).  Only registers are used while the stack pointer is moved.
 */
static uint64_t wait_on_stack(uintptr_t sp, volatile uint64_t *count,
                              uint64_t spins)
{
    uint64_t seen = *count;

#if defined(__aarch64__)
    __asm__ volatile("mov x11, sp\n\t"
                     "mov sp, %[sp]\n"
                     "1:\n\t"
                     "yield\n\t"
                     "ldr x12, [%[count]]\n\t"
                     "cmp x12, %[seen]\n\t"
                     "b.ne 2f\n\t"
                     "subs %[spins], %[spins], #1\n\t"
                     "b.ne 1b\n"
                     "2:\n\t"
                     "mov sp, x11"
                     : [spins] "+r"(spins)
                     : [sp] "r"(sp), [count] "r"(count), [seen] "r"(seen)
                     : "x11", "x12", "cc", "memory");
#else
    __asm__ volatile("mov %%rsp, %%r11\n\t"
                     "mov %[sp], %%rsp\n"
                     "1:\n\t"
                     "pause\n\t"
                     "cmp %[seen], (%[count])\n\t"
                     "jne 2f\n\t"
                     "dec %[spins]\n\t"
                     "jnz 1b\n"
                     "2:\n\t"
                     "mov %%r11, %%rsp"
                     : [spins] "+r"(spins)
                     : [sp] "r"(sp), [count] "r"(count), [seen] "r"(seen)
                     : "r11", "cc", "memory");
#endif
    return spins;
}

static void deep_waiter(void *arg)
{
    struct g *gp = getg();
    /* The deepest page of the stack, just above the guard. */
    uintptr_t sp = gp->stack_lo + PAGE_SIZE + 16;

    nirq = &this_cpu()->m->nirq;
    spins_left = wait_on_stack(sp, nirq, 300000000);
    sp_waitgroup_done(&wg);
}

TEST(interrupt_on_unmapped_stack_page)
{
    uint64_t before;

    sp_waitgroup_add(&wg, 1);
    sp_go(deep_waiter, NULL);
    sp_waitgroup_wait(&wg);
    CHECKF(spins_left > 0, "no timer interrupt reached the G");
    /* And the core's timer still works afterwards. */
    before = *nirq;
    sp_sleep(20000000);
    CHECKF(*nirq > before, "the core took no timer interrupt in 20 ms "
           "of sleep (%lu)", (unsigned long)before);
}

int main(void)
{
    return sp_test_main();
}
