/*
 * release_irq - what reaches a G's stack pages while they are given back
 * without running the G's own code: an interrupt that lands on a G that
 * ran on registers alone, and the console writing a buffer on a parked
 * G's stack.
 *
 * sched/release.c gives back the pages of a parked G, and the G may be
 * readied and run before the release is over.  Its own code faults on the
 * pages and maps them back, but a G that touches no memory of its stack
 * meets the missing pages only when an interrupt's frame is pushed there:
 * x86_64's CPU faults on the push (the page-fault handler maps the slot
 * back and sends the interrupt again), aarch64's vector code probes the
 * stack before it saves, and the hosted build's Linux cannot push the
 * signal's frame and reports a fault without an address (the fault
 * handler maps the slot back and raises the interrupt again).
 *
 * One G spins in registers until told to stop; the main G, on the other
 * core, gives back its pages (vm_gslot_release, the first step of a
 * release), has every core drop them from its TLB as release.c does,
 * interrupts every core once more, and waits for the pages to come back.
 * If the spinning G's core ran no other G meanwhile, only an interrupt
 * can have brought them back.  The G then finds the values it left on
 * its stack.
 */
#include <stdio.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "arch/export_test.h"
#include "kernel/export_test.h"
#include "sched/export_test.h"

#define WORDS   32
#define WAIT_NS SP_MS(5000)     /* for an interrupt, on a slow host */
#define TRIES   10

static struct g *spinner_g;     /* set before ready */
static uintptr_t spinner_sp;    /* its stack pointer in the loop */
static int ready, done;         /* atomic */
static long bad_words;
static sp_waitgroup wg;

static uint64_t pattern(int i)
{
    return 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1);
}

/* Stores sp to *spp and 1 to *readyp, then spins until *donep is set;
   registers only from the first store on. */
static void spin_in_registers(uintptr_t *spp, int *readyp, int *donep)
{
#if defined(__aarch64__)
    __asm__ volatile("mov x11, sp\n\t"
                     "str x11, [%[spp]]\n\t"
                     "mov w12, #1\n\t"
                     "stlr w12, [%[ready]]\n"
                     "1:\n\t"
                     "yield\n\t"
                     "ldar w12, [%[done]]\n\t"
                     "cbz w12, 1b"
                     :
                     : [spp] "r"(spp), [ready] "r"(readyp), [done] "r"(donep)
                     : "x11", "x12", "memory");
#else
    __asm__ volatile("mov %%rsp, (%[spp])\n\t"
                     "movl $1, (%[ready])\n"
                     "1:\n\t"
                     "pause\n\t"
                     "cmpl $0, (%[done])\n\t"
                     "je 1b"
                     :
                     : [spp] "r"(spp), [ready] "r"(readyp), [done] "r"(donep)
                     : "cc", "memory");
#endif
}

static void spinner(void *arg)
{
    volatile uint64_t words[WORDS];

    (void)arg;
    for (int i = 0; i < WORDS; i++)
        words[i] = pattern(i);
    spinner_g = getg();
    spin_in_registers(&spinner_sp, &ready, &done);
    for (int i = 0; i < WORDS; i++)
        if (words[i] != pattern(i))
            bad_words++;
    sp_waitgroup_done(&wg);
}

static void flush_tlb(void *arg)
{
    (void)arg;
    arch_tlb_flush_local();
}

static void nothing(void *arg)
{
    (void)arg;
}

/* Waits until the spinner runs on a core other than ours; its M. */
static struct m *spinner_elsewhere(void)
{
    uint64_t t0 = sp_nanotime();

    while (sp_nanotime() - t0 < WAIT_NS) {
        struct m *sm = __atomic_load_n(&spinner_g->lastm, __ATOMIC_RELAXED);

        if (__atomic_load_n(&spinner_g->status, __ATOMIC_RELAXED) ==
                G_RUNNING && sm != this_cpu()->m &&
            __atomic_load_n(&sm->curg, __ATOMIC_RELAXED) == spinner_g)
            return sm;
        sp_sleep(SP_MS(1));
    }
    return NULL;
}

/*
 * One attempt: gives back the spinner's pages, has every core drop them
 * from its TLB, then interrupts every core once more (bare metal's TLB
 * may have served the first interrupt's frame).  Returns whether the
 * pages came back; *clean says that the spinner's core ran no other G
 * meanwhile, so that an interrupt's frame is what brought them back.
 */
static bool attempt(size_t before, bool *clean)
{
    struct m *sm = spinner_elsewhere();
    uintptr_t lo, slot = g_slot(spinner_g);
    uint64_t nsched, t0;
    bool back;

    if (!sm) {
        printf("# the spinner never ran on the other core\n");
        return false;
    }
    nsched = __atomic_load_n(&sm->p->nsched, __ATOMIC_RELAXED);
    /* Everything from below the loop's stack pointer up, the x86_64
       ABI's red zone included, in 32-byte pieces. */
    lo = (spinner_sp - 128) & ~(uintptr_t)31;
    if (!vm_gslot_release(slot, lo)) {
        printf("# could not give back the pages of the slot at 0x%lx "
               "(stack pointer 0x%lx)\n", (unsigned long)slot,
               (unsigned long)spinner_sp);
        return false;
    }
    if (vm_gslots_released() != before + 1)
        printf("# %zu slots given back, want %zu\n", vm_gslots_released(),
               before + 1);
    smp_call_all_irq(flush_tlb, NULL);
    smp_call_all_irq(nothing, NULL);
    t0 = sp_nanotime();
    while (!(back = vm_gslots_released() == before) &&
           sp_nanotime() - t0 < WAIT_NS)
        sp_sleep(SP_MS(1));
    *clean = __atomic_load_n(&sm->p->nsched, __ATOMIC_RELAXED) == nsched;
    /* Maps the pages back if nothing did (a failure). */
    vm_gslot_release_finish(slot, false);
    return back;
}

TEST(interrupt_on_given_back_stack)
{
    size_t before = vm_gslots_released();
    bool back = true, clean = false;
    int tries = 0;

    CHECKF(sp_ncpu() >= 2, "needs 2 cores, has %d", sp_ncpu());
    sp_waitgroup_add(&wg, 1);
    sp_go(spinner, NULL);
    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        sp_sleep(SP_MS(1));
    /* A preemption of the spinner in between also brings the pages
       back, through its switch: try again then. */
    while (back && !clean && tries++ < TRIES)
        back = attempt(before, &clean);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    sp_waitgroup_wait(&wg);
    CHECKF(back, "the pages did not come back in %llu ms (try %d)",
           (unsigned long long)(WAIT_NS / SP_MS(1)), tries);
    CHECKF(clean, "the spinner's core switched Gs during each of %d tries",
           TRIES);
    CHECKF(bad_words == 0, "%ld of %d words on the G's stack changed",
           bad_words, WORDS);
}

/* ---- a console write from a given-back stack ------------------------- */

static char *parked_line;       /* on the parked G's stack */
static size_t parked_len;
static sp_chan *wake_ch;

static void parked_writer(void *arg)
{
    char line[] = "# release_irq: this line was on a given-back stack\n";
    int v;

    (void)arg;
    parked_line = line;
    parked_len = sizeof line - 1;
    spinner_g = getg();
    __atomic_store_n(&ready, 2, __ATOMIC_RELEASE);
    sp_chan_recv(wake_ch, &v);
    if (strcmp(line, "# release_irq: this line was on a given-back "
               "stack\n"))
        bad_words++;
    sp_waitgroup_done(&wg);
}

/*
 * The console's write reads a buffer on a parked G's stack whose pages
 * were given back.  Bare metal faults on it and maps it back; the hosted
 * build's write(2) fails with EFAULT instead, and the line would be lost
 * unless the console touches the buffer and tries again.
 */
TEST(console_write_from_given_back_stack)
{
    size_t before = vm_gslots_released();
    int v = 1;

    bad_words = 0;
    wake_ch = sp_chan_make(sizeof(int), 0);
    sp_waitgroup_add(&wg, 1);
    sp_go(parked_writer, NULL);
    while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) != 2 ||
           __atomic_load_n(&spinner_g->status, __ATOMIC_ACQUIRE) !=
               G_WAITING)
        sp_sleep(SP_MS(1));
    CHECKF(vm_gslot_release(g_slot(spinner_g),
                            (uintptr_t)spinner_g->sp & ~(uintptr_t)31),
           "could not give back the parked G's pages");
    smp_call_all_irq(flush_tlb, NULL);
    arch_console_write(parked_line, parked_len);
    CHECKF(vm_gslots_released() == before, "the write left the pages "
           "given back (%zu slots, want %zu)", vm_gslots_released(),
           before);
    vm_gslot_release_finish(g_slot(spinner_g), false);
    sp_chan_send(wake_ch, &v);
    sp_waitgroup_wait(&wg);
    sp_chan_free(wake_ch);
    CHECKF(bad_words == 0, "the line on the G's stack changed");
}

int main(void)
{
    return sp_test_main();
}
