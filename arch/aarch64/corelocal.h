/*
 * corelocal.h - the core-local page, for C and assembly.
 *
 * The last page of the address space, which every core maps through its
 * own TTBR1 tables to a page of its own (entry.S for the boot core,
 * mmu_local_ttbr for the others).  The same address reaches the running
 * core's page whichever core a G has moved to, so one load or store of
 * it is a per-core access that no migration can split, as %gs gives
 * x86_64.  It holds the software interrupt mask (arch_impl.h).  A
 * T1SZ-39 walk (TCR_VALUE) starts at level 2, whose 16 entries cover
 * 32 MiB; the page is entry 15 there and entry 511 of the level-3 table.
 */
#ifndef ARCH_AARCH64_CORELOCAL_H
#define ARCH_AARCH64_CORELOCAL_H

#define LOCAL_VA        0xFFFFFFFFFFFFF000
#define LOCAL_L2_INDEX  15
#define LOCAL_L3_INDEX  511

/* Its bytes. */
#define LOCAL_IRQ_OFF   0       /* interrupts masked (arch_irq_save) */
#define LOCAL_IRQ_SLOW  1       /* IRQ_HARD_OFF or 0 */
#define LOCAL_TP        8       /* 8 bytes: the thread pointer that
                                   TPIDR_EL0 holds outside exception
                                   entry (arch_tp_set, vectors.S) */

#define IRQ_HARD_OFF    0x01    /* irq_slow: PSTATE.I is set; clear it */

#endif
