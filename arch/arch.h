/*
 * arch.h - the one interface between generic Spindle code and the hardware.
 *
 * kernel/, sched/ and drivers/ reach the machine only through the functions
 * declared here.  Each architecture (arch/x86_64, arch/aarch64, arch/hosted)
 * implements them; each one's arch_impl.h, chosen below by the target,
 * holds its static inline primitives (single instructions: irq on/off,
 * per-CPU pointer, pause).
 *
 * Every function states what it saves, what ordering it implies, and from
 * which context it may be called.  "Any context" includes interrupt handlers
 * and the panic path.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu;
struct bootinfo;
struct trapframe;

#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

/*
 * Inline primitives supplied by arch_impl.h:
 *
 *   unsigned long arch_irq_save(void)      disable interrupts on this core,
 *                                          return the previous state; acts as
 *                                          a compiler barrier.
 *   void arch_irq_restore(unsigned long)   restore the state from irq_save.
 *   void arch_irq_enable(void)             compiler barrier + enable.
 *   bool arch_irqs_enabled(void)
 *   struct cpu *arch_this_cpu(void)        this core's per-CPU block; valid
 *                                          after arch_cpu_init on the core.
 *   void arch_cpu_relax(void)              spin-wait hint (pause / yield).
 *   ARCH_RELAX_PER_PAUSE                   how many arch_cpu_relax calls wait
 *                                          as long as one x86 pause, for
 *                                          spins counted in pauses.
 *   uint64_t arch_cycles(void)             a free-running counter that is
 *                                          monotonic on one core (TSC /
 *                                          CNTVCT); rate from arch_cycles_hz.
 *   uintptr_t arch_frame_address(void)     the caller's frame pointer; frames
 *                                          are {prev fp, return address} on
 *                                          every supported arch.
 *   ARCH_HWID_NAME                         what a core's hardware id is
 *                                          called ("APIC id", "MPIDR").
 *   arch_branch_site(label)                a statement: one no-op
 *                                          instruction until
 *                                          arch_branch_enable makes it a
 *                                          jump to label (a label of the
 *                                          calling function); the hosted
 *                                          build, whose text is read-only,
 *                                          always goes to label.
 */
/* The hosted build says so (SPINDLE_HOSTED, arch/hosted/hosted.mk); a
   bare-metal build is known by its compiler's target. */
#if defined(SPINDLE_HOSTED)
#include "arch/hosted/arch_impl.h"
#elif defined(__x86_64__)
#include "arch/x86_64/arch_impl.h"
#elif defined(__aarch64__)
#include "arch/aarch64/arch_impl.h"
#else
#error "arch/arch.h: Spindle has no port to this target"
#endif

/* One x86 `pause`'s worth of spin-waiting on any arch: the unit of the
   spins that, as Go's procyield, count their waits rather than time
   them (sync.c's mutex, chan.c's buffered send and receive). */
static inline void cpu_pause(void)
{
    for (int i = 0; i < ARCH_RELAX_PER_PAUSE; i++)
        arch_cpu_relax();
}

/*
 * Turns every arch_branch_site into its jump, for good (sched/exectrace.h's
 * sites, when trace= is given).  Boot core, once, while no other core
 * runs code with a site in it (they wait for sched.ready); each of them
 * passes an exception (the IPI that follows sched.ready, or the first
 * interrupt it takes) before it runs a site, which makes the new code
 * visible to it.  The code after a site's label must be correct to run
 * at any time: the site only spares the path that does not need it the
 * test that would tell.
 */
void arch_branch_enable(void);

/* The sites, from the arch_branch_site macros (the linker collects them). */
struct arch_branch {
    uintptr_t site, target;
};
extern const struct arch_branch __start_branch_sites[], __stop_branch_sites[];

/* ---- Boot and per-core bring-up ------------------------------------- */

/*
 * Called once on the boot core by the boot path, before kernel_main:
 * console, exception vectors, per-CPU pointer of the boot core, cycle
 * counter rate.  Interrupts stay off.
 */
void arch_early_init(struct bootinfo *bi);

/*
 * Called on the boot core once the page allocator exists: builds the final
 * page tables that map all RAM and device windows (page 0 stays unmapped so
 * a NULL dereference faults).
 */
void arch_paging_init(struct bootinfo *bi);

/*
 * Binds per-CPU block c to the calling core (GS base / TPIDR_EL1) and sets
 * up its private state: descriptor tables, emergency stacks, local
 * interrupt controller.  Called on every core, boot core included.
 */
void arch_cpu_init(struct cpu *c);

/*
 * Discovers the cores of the machine (ACPI MADT / device tree): fills
 * hwid[] with the hardware ids (APIC ids / MPIDRs) of usable cores, boot
 * core first, and returns how many (at most max).  On missing or corrupt
 * tables it says why on the console and returns 1 (the boot core only).
 */
int arch_discover_cpus(uint32_t *hwid, int max);

/*
 * Starts the cores whose per-CPU blocks are cpus[1..n-1] (cpus[0] is the
 * boot core).  Each started core runs arch_cpu_init(c) and then
 * cpu_main(c) (kernel/smp.c), never returning.  Returns once every core
 * has either checked in or timed out; a core that timed out has
 * c->online == false and has been reported on the console.
 */
void arch_start_cpus(struct cpu **cpus, int n);

/*
 * Calls fn(arg) on the stack whose top is `top`, never to return (the
 * boot core leaves its small boot stack for a guarded one this way).
 */
__attribute__((noreturn)) void arch_call_on_stack(uintptr_t top,
                                                  void (*fn)(void *),
                                                  void *arg);

/*
 * Voluntary context switch: saves the callee-saved registers (and the FP
 * control words) on the current stack, stores the stack pointer in
 * *save_sp, and resumes the context saved at new_sp.  Caller-saved state
 * is dead across a call, so nothing else needs saving.  No barrier: the
 * caller orders publication of *save_sp (scheduler locks or the run
 * queue's release/acquire pairs).
 */
void arch_switch(void **save_sp, void *new_sp);

/*
 * Builds, below stack_top, a context that arch_switch resumes as a call
 * of fn(arg) with interrupts in the state the switcher had; fn must not
 * return.  *sp receives the context.
 */
void arch_context_init(void **sp, uintptr_t stack_top, void (*fn)(void *),
                       void *arg);

/*
 * Of a context saved at sp (by arch_switch, or built by
 * arch_context_init): where it resumes (*pc, a return address) and its
 * frame pointer (*fp), the head of the frame chain of the code that
 * switched out; a context not yet started resumes at the arch's start
 * code with *fp 0.  For the goroutine dump (sched/gdump.c).
 */
void arch_switched_regs(const void *sp, uintptr_t *pc, uintptr_t *fp);

/* The hardware id of the calling core (APIC id / MPIDR affinity). */
uint32_t arch_cpu_hwid(void);

/* ---- Interrupts and IPIs -------------------------------------------- */

/*
 * Sends the scheduler IPI to core c.  Ordering: all of the sender's prior
 * stores are visible to c before its handler runs (full barrier before
 * the send).  The receiver calls ipi_handler() with interrupts off.
 * Any context.
 */
void arch_send_ipi(const struct cpu *c);

/* Halts the calling core for good with interrupts off (panic path). */
__attribute__((noreturn)) void arch_stop_self(void);

/* The same IPI to every online core but the caller. */
void arch_send_ipi_others(void);

/*
 * Stops every other core for good (NMI on x86_64, an SGI on aarch64); used
 * by panic.  Does not wait.  Any context.
 */
void arch_stop_others(void);

/*
 * Enables interrupts and waits for one, atomically: an interrupt that
 * arrives between the caller's last check and the halt still wakes the
 * core (sti;hlt / wfi).  Returns with interrupts disabled again.
 */
void arch_halt(void);

/* ---- Devices -------------------------------------------------------- */

/*
 * Device registers, for drivers/ (port I/O inline in arch_impl.h, MMIO
 * below).  Each is one
 * access of the stated width, never merged, split or repeated, and any
 * context may make it (no lock, no allocation: the console drivers use
 * them in the panic path).
 *
 *   ARCH_HAS_PIO                           1 if the platform has port I/O
 *                                          (x86_64), 0 if not (aarch64,
 *                                          hosted).  A constant: drivers
 *                                          test it with a plain if and
 *                                          treat a device in I/O space as
 *                                          missing when it is 0.
 *   uint8_t arch_pio_read8(uint16_t port)  in from an I/O port (inb).
 *   void arch_pio_write8(uint16_t port, uint8_t v)
 *                                          out to an I/O port (outb).
 *                                          Where ARCH_HAS_PIO is 0 they
 *                                          exist, so drivers compile
 *                                          everywhere, but touch nothing:
 *                                          a read returns 0xFF, as an
 *                                          empty ISA bus does, and a
 *                                          write is dropped.
 *   uint8_t arch_mmio_read8(uintptr_t a)
 *   uint32_t arch_mmio_read32(uintptr_t a)
 *   void arch_mmio_write8(uintptr_t a, uint8_t v)
 *   void arch_mmio_write32(uintptr_t a, uint32_t v)
 *                                          a register of a memory-mapped
 *                                          device: `a` is a mapped address
 *                                          (MAP_NOCACHE, or the boot map's
 *                                          device windows), naturally
 *                                          aligned.
 *
 * Ordering: each is a compiler barrier (the compiler moves no memory
 * access across it), and accesses to one device's registers reach it in
 * program order: x86_64 maps devices uncacheable, whose accesses the CPU
 * keeps in program order with all others, and reorders no read or write
 * with an in or out (SDM Vol. 3A §8.2.2); aarch64 maps them
 * Device-nGnRnE, whose accesses are ordered among themselves.  On
 * aarch64 there is no CPU barrier against normal memory (unlike Linux's
 * readl/writel): a driver whose device reads memory it wrote (DMA, a
 * doorbell after a ring update) puts its own barrier before the register
 * write (drivers/virtq.c says which).
 */

/* The MMIO half is the same on every arch: a volatile access of the
   stated width between compiler barriers. */
static inline uint8_t arch_mmio_read8(uintptr_t a)
{
    uint8_t v = *(volatile uint8_t *)a;

    __asm__ volatile("" : : : "memory");
    return v;
}

static inline uint32_t arch_mmio_read32(uintptr_t a)
{
    uint32_t v = *(volatile uint32_t *)a;

    __asm__ volatile("" : : : "memory");
    return v;
}

static inline void arch_mmio_write8(uintptr_t a, uint8_t v)
{
    __asm__ volatile("" : : : "memory");
    *(volatile uint8_t *)a = v;
}

static inline void arch_mmio_write32(uintptr_t a, uint32_t v)
{
    __asm__ volatile("" : : : "memory");
    *(volatile uint32_t *)a = v;
}

/*
 * Device interrupts are numbered 0..ARCH_NIRQ-1 by kernel/irq.c, which
 * hands them out; the arch turns a raised one into a call of
 * irq_dispatch(n) on the core it was aimed at, with interrupts off.
 */
#define ARCH_NIRQ 32

/*
 * The MSI message (address and data a device writes) with which vector
 * (an MSI-X table entry) of the PCI device with requester ID rid (bus <<
 * 8 | dev << 3 | fn) raises device interrupt irq on core c.  Asking again
 * for the same rid and vector re-aims that vector at the new irq and
 * core (the message may stay the same).  False if the platform gives the
 * device no MSI path (it uses INTx through arch_pci_intx instead).  From
 * a G or the boot path, once every core is up.
 */
bool arch_msi_message(uint32_t rid, uint32_t vector, int irq,
                      const struct cpu *c, uint64_t *addr, uint32_t *data);

/*
 * Routes the level-triggered INTx pin (1 = INTA .. 4 = INTD) of PCI
 * device bus:dev to device interrupt irq on the boot core and enables
 * it.  The handler must quiet the device before it returns, or the line
 * fires again.  False if the platform does not say where the pin goes.
 */
bool arch_pci_intx(uint32_t bus, uint32_t dev, uint32_t pin, int irq);

/* A virtio-mmio device the machine's description lists. */
struct arch_mmio_slot {
    uint64_t base, size;        /* its registers, physical */
    uint32_t line;              /* its interrupt line for arch_irq_line;
                                   0: none */
};

/*
 * Fills slots with at most max of the virtio-mmio devices the machine's
 * description lists (aarch64: the device tree's "virtio,mmio" nodes; an
 * ACPI boot's are in AML, which is not read) and returns how many.
 * Where the arch has none, drivers/virtio_mmio.c's weak default returns
 * 0.  From G 1.
 */
int arch_virtio_mmio_slots(struct arch_mmio_slot *slots, int max);

/*
 * Routes the platform's level-triggered interrupt line `line` (aarch64:
 * the GIC INTID of an SPI, 32 + its number; x86_64: an I/O APIC input)
 * to device interrupt irq on the boot core and enables it.  The handler
 * must quiet the device before it returns, or the line fires again.
 * False if the platform cannot (no such line, routed already, no route
 * free; drivers/virtio_mmio.c's weak default: always).  From G 1.
 */
bool arch_irq_line(uint32_t line, int irq);

/* A PCI host bridge with an ECAM window, as the firmware describes it. */
struct pci_window {
    uint64_t cpu;               /* where the CPU sees it; size 0: none */
    uint64_t bus;               /* the address a BAR is programmed with */
    uint64_t size;
};

struct pci_host {
    uint64_t ecam;              /* config space of bus 0 (even when
                                   bus_start is higher); 0: none */
    uint32_t bus_start, bus_end;
    struct pci_window mem32;    /* where unassigned BARs may go */
    struct pci_window mem64;
};

/*
 * Fills *h with the machine's first PCI host bridge (ACPI MCFG, or the
 * device tree's pci-host-ecam-generic node); false if there is none.
 * The BAR windows are empty where the firmware assigns BARs itself.
 * Called once, after arch_paging_init.
 */
bool arch_pci_host(struct pci_host *h);

/*
 * The platform's own NIC where it has one outside PCI (the hosted build's
 * TAP device, named by tap= on the command line); NULL otherwise.
 * irq_fn(arg, 0) is its receive interrupt's handler (one queue).  Once,
 * from G 1 (net/net.c).
 */
struct netdev;
struct netdev *arch_netdev_probe(void (*irq_fn)(void *, int), void *arg);

/* ---- Time ----------------------------------------------------------- */

/*
 * Wall-clock time now, in seconds since 1970 (UTC as the RTC keeps it), or
 * 0 if the machine has no readable clock.  Slow: read once at boot.
 */
uint64_t arch_wallclock(void);

/* True if the counter ticks at a constant rate in every power state. */
bool arch_cycles_invariant(void);

/* Rate of arch_cycles(), measured or read at boot. */
uint64_t arch_cycles_hz(void);

/*
 * How long this core has run, in arch_cycles() units, for the CPU
 * profiler's weights (sched/profile.c).  Bare metal: arch_cycles()
 * itself, since a core runs all the time, halted or not, as far as the
 * machine can tell (a host that deschedules a vCPU is invisible).
 * Hosted: the core thread's CPU time, which stands still while Linux
 * runs another thread or the core waits in arch_halt.  Any context,
 * signal handlers included, instrumented by no sanitizer.
 */
uint64_t arch_run_clock(void);

/*
 * Arms this core's one-shot timer to fire at arch_cycles() >= deadline
 * (0 disarms).  The handler calls timer_interrupt(tf).  Interrupts off.
 */
void arch_timer_arm(uint64_t deadline);

/* ---- Memory --------------------------------------------------------- */

enum {
    MAP_WRITE   = 1 << 0,
    MAP_NOCACHE = 1 << 1,   /* device memory */
    MAP_EXEC    = 1 << 2,
};

/*
 * Maps one 4 KiB page va -> pa in the page tables shared by all cores,
 * splitting a large page if needed.  Returns 0, or -ENOMEM when a page
 * table page cannot be allocated.  Caller serializes (kernel/vm.c lock).
 */
int arch_map_page(uintptr_t va, uint64_t pa, int flags);

/*
 * Unmaps one page and flushes it from this core's TLB.  Other cores may
 * keep a stale entry until they flush; callers only unmap pages no other
 * core has touched since boot (guard pages), or shoot the TLBs down.
 */
void arch_unmap_page(uintptr_t va);

/*
 * TLS: the thread pointer of the compiler's local-exec TLS accesses,
 * through arch_impl.h's inline
 *   void arch_tp_set(uintptr_t tp)   makes tp this core's thread pointer
 *                                    until the next call on this core,
 *                                    whatever interrupts come meanwhile;
 *                                    interrupts off (sched/proc.c calls
 *                                    it when a G with TLS, or after one,
 *                                    starts).
 *   uintptr_t arch_tp_get(void)      reads it back.
 *   ARCH_TLS_VARIANT                 where a TLS block lies from it (the
 *                                    ELF TLS ABI's variants): 2, just
 *                                    below, the pointer's target holding
 *                                    the pointer itself (x86_64); 1,
 *                                    above, past a 16-byte TCB (aarch64);
 *                                    0, Gs have no TLS of their own.
 */

/*
 * Drops this core's translations of pages that arch_unmap_page removed
 * on another core (which flushed only its own TLB, unless the arch
 * broadcasts the flush).
 */
void arch_tlb_flush_local(void);

/*
 * A G slot's memory while kernel/vm.c gives its pages back.  On bare
 * metal a page is its frame: an unmapped page's bytes are read through
 * the direct map, and freeing the frame frees them (vm.c's defaults).  An
 * arch that backs slot pages with memory of its own (the hosted build)
 * defines ARCH_GSLOT_BACKING and these:
 *   arch_gslot_read(va, pa, buf): the bytes of slot page va (page
 *     aligned; arch_virt_to_phys put it at pa), mapped or not: a pointer
 *     to them, or to buf (PAGE_SIZE bytes) once copied there; NULL if
 *     the page reads as zero.
 *   arch_gslot_write(va, pa, src, n): copies n bytes from src to slot
 *     address va, mapped or not, within one page (at pa).
 *   arch_gslot_frame(pa): whether pa is a page allocator frame, which
 *     vm.c frees when it gives the page back.
 *   arch_gslot_unmap(lo, hi): unmaps the slot pages [lo, hi), every one
 *     of them mapped (arch_unmap_page on each, in one step).
 *   arch_gslot_drop(lo, hi): frees the memory behind the unmapped slot
 *     pages [lo, hi) once vm.c has copied out what it keeps.
 *   arch_gslot_releasable(): whether slot pages can be given back at
 *     all (release.c stays off if not).
 */
#ifdef ARCH_GSLOT_BACKING
const void *arch_gslot_read(uintptr_t va, uint64_t pa, void *buf);
void arch_gslot_write(uintptr_t va, uint64_t pa, const void *src, size_t n);
bool arch_gslot_frame(uint64_t pa);
void arch_gslot_unmap(uintptr_t lo, uintptr_t hi);
void arch_gslot_drop(uintptr_t lo, uintptr_t hi);
bool arch_gslot_releasable(void);
#else
static inline bool arch_gslot_releasable(void)
{
    return true;
}
#endif

/* Pages the page tables themselves use (for leak checks). */
size_t arch_page_table_pages(void);

/* Translates va to its physical address; false if not mapped. */
bool arch_virt_to_phys(uintptr_t va, uint64_t *pa);

/* ---- Console and exit ----------------------------------------------- */

/*
 * Writes n bytes to the boot console, polling (no interrupts, no locks):
 * callable from the panic path.  Callers serialize lines themselves.
 */
void arch_console_write(const char *s, size_t n);

/*
 * Turns the console's receive interrupt on: from then on each byte the
 * console receives is read in that interrupt and handed to
 * console_input (kernel/console_in.h), on the core the interrupt is aimed
 * at (the boot core).  x86_64: COM1 through the I/O APIC; aarch64: the
 * PL011 through the GIC; hosted: SIGQUIT, as one Ctrl-\ byte.  Where the
 * machine gives no way (no UART, no interrupt route for it, no free
 * device interrupt) it says why in one line and the console stays
 * transmit-only.  Once, from G 1, once every core is up.
 */
void arch_console_in_start(void);

/*
 * Ends the machine with status (0 = success).  Under QEMU the launcher
 * sees the status; on real hardware the machine powers off or halts.
 */
__attribute__((noreturn)) void arch_exit(int status);

/*
 * The execution tracer's dump file (sched/exectrace.c).  The hosted build
 * opens `path` on the host for writing (truncating it), or when path is
 * NULL the image's own path with .trace in place of .elf; NULL if it
 * cannot (said on the console).  Bare metal has no files: the tracer's
 * weak defaults return NULL, and the dump goes to the host channel
 * (kernel/hostchan.h) or the console.  From a G; write retries until all
 * n bytes are written.
 */
void *arch_trace_file_open(const char *path);
void arch_trace_file_write(void *f, const char *s, size_t n);
void arch_trace_file_close(void *f);

/*
 * The same for any dump (the CPU profiler's, sched/profile.c): the
 * hosted build opens `path`, or the image's own path with `ext` in place
 * of .elf, and names `who` in its messages; bare metal returns NULL
 * (profile.c's weak defaults).  The tracer's calls above are these with
 * ".trace" and "trace".  From a G.
 */
void *arch_dump_open(const char *path, const char *ext, const char *who);
void arch_dump_write(void *f, const char *s, size_t n);
void arch_dump_close(void *f);

/* Prints the register state of a trap frame (panic path). */
void arch_dump_trapframe(const struct trapframe *tf);

/* The frame pointer, program counter and stack pointer saved in a trap
   frame (0 for a hosted interrupt taken at arch_irq_enable, which has no
   registers of the code it interrupted). */
uintptr_t arch_trapframe_fp(const struct trapframe *tf);
uintptr_t arch_trapframe_pc(const struct trapframe *tf);
uintptr_t arch_trapframe_sp(const struct trapframe *tf);
/* The link register saved in a trap frame (aarch64's x30); 0 where the
   call pushes its return address (x86_64, hosted). */
uintptr_t arch_trapframe_lr(const struct trapframe *tf);

/* For a memory fault, the address that faulted (CR2 / FAR_EL1). */
bool arch_fault_address(const struct trapframe *tf, uintptr_t *va);

/* ---- Generic code the arch calls ------------------------------------ */

void kernel_main(struct bootinfo *bi);      /* kernel/main.c */
void cpu_main(struct cpu *c);               /* kernel/smp.c: AP entry */
void ipi_handler(void);                     /* kernel/smp.c */
void timer_interrupt(struct trapframe *tf); /* sched/timers.c */
void irq_dispatch(int irq);                 /* kernel/irq.c */

/*
 * The CPU profiler's sample of the code a timer interrupt stopped where it
 * cannot act at once (sched/profile.c): the interrupt arrived while the
 * core had interrupts masked (masked; x86_64, aarch64 and hosted), or
 * the hosted build's signal came inside libc.  pc, fp, sp and lr (the
 * link register, 0 where there is none) are the interrupted code's.  Does nothing unless this core's sample is due.
 * From the interrupt's entry, with the hardware's interrupts off; calls
 * no instrumented code (the hosted handler may run inside a sanitizer's
 * runtime).  aarch64 does not know which interrupt it was: any, there.
 */
void prof_interrupt(uintptr_t pc, uintptr_t fp, uintptr_t sp, uintptr_t lr,
                    bool masked);

/* An exception the arch cannot handle: prints, stops others, exits. */
__attribute__((noreturn)) void panic_trap(struct trapframe *tf,
                                          const char *what);

#endif
