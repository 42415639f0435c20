/*
 * faultinject.h - fault injection, switched on by fault= on the command line
 * (faultinject_cfg.h has its forms).  Faults take effect when the app's main()
 * starts, so that booting is never what they break, and cost one load of
 * fault_armed where they are checked while off.
 *
 * What each does, and what the kernel promises under it:
 *   alloc   mem_alloc_pages fails at the rate given.  Its callers carry
 *           on or say what failed: malloc and the channel and timer
 *           constructors return NULL; a spawn that needs a new G slot,
 *           the global run queue and a timer heap that must grow panic,
 *           naming what ran out.  Demand paging of G stacks is exempt:
 *           a fault has no caller to tell.
 *   ipi     a core that takes a scheduler IPI stops answering (spins
 *           with interrupts masked) for the time given, as one whose
 *           vCPU the host descheduled or that entered firmware: the Gs
 *           it was woken for wait, or are run by the core that readied
 *           them; nothing is lost.
 *   timer   a core timer interrupt is put off by the time given (the
 *           core re-arms for then and does nothing else); a delayed one
 *           may be delayed again, so timers and preemption run late by
 *           a multiple of it, and nothing is lost.
 *   stall   the spinning protocol's stall windows (sched_stall_set).
 *   rxdrop, txdup, ... (link faults)  the NIC's frames are lost,
 *           doubled, held back or have a bit flipped, per queue (below):
 *           TCP resends what was lost or rejected and takes duplicates
 *           and frames out of order in its stride; a datagram may be
 *           lost.
 */
#ifndef KERNEL_FAULTINJECT_H
#define KERNEL_FAULTINJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/faultinject_cfg.h"

extern bool fault_armed;        /* set once, before main() */
extern struct faultcfg fault_cfg;

/* kernel_main: reads fault= and says what will be injected. */
void fault_init(void);
/* Before main(): the faults take effect. */
void fault_arm(void);

bool fault_alloc_roll(void);
void fault_ipi_roll(void);
uint64_t fault_timer_roll(void);

/* True if this page allocation is to fail. */
static inline bool fault_alloc_fails(void)
{
    return __builtin_expect(fault_armed, 0) && fault_cfg.alloc_permille &&
           fault_alloc_roll();
}

/* In the IPI handler: maybe stops answering for a while. */
static inline void fault_ipi(void)
{
    if (__builtin_expect(fault_armed, 0) && fault_cfg.ipi_pct)
        fault_ipi_roll();
}

/* In the timer interrupt: cycles to put it off by, or 0. */
static inline uint64_t fault_timer_delay(void)
{
    if (__builtin_expect(fault_armed, 0) && fault_cfg.timer_pct)
        return fault_timer_roll();
    return 0;
}

/*
 * Link faults: the NIC driver calls these for each frame while
 * fault_link_on, which is false unless fault= names a link fault, so that
 * a machine without them pays one predictable branch per frame.  Each
 * NIC queue has a struct fault_link of its own, used under the queue's
 * owner's lock (the stack's: net/netdev.h), so deciding costs no shared
 * line: its dice and its held frames are the queue's.
 */
extern bool fault_link_on;              /* set once, before main() */

enum fault_kind { FK_DROP, FK_DUP, FK_CORRUPT, FK_REORDER, FK_KINDS };

/* A frame held back by reorder: the driver's buffer number (-1: none),
   its length, and when it goes: after `left` more frames in its
   direction, or at arch_cycles() `due`, whichever is first. */
struct fault_hold {
    int32_t buf;
    uint32_t len, left;
    uint64_t due;
};

struct fault_dir {
    uint64_t n[FK_KINDS];       /* frames each kind struck */
    uint64_t data_lost;         /* of those dropped or corrupted: TCP
                                   segments that carried data */
    struct fault_hold hold;
};

struct fault_link {
    uint64_t dice;              /* xorshift64* state */
    struct fault_dir rx, tx;
};

/* What becomes of a frame. */
enum fault_verdict {
    FV_PASS,                    /* as it is (or with a bit flipped) */
    FV_DROP,                    /* lost */
    FV_DUP,                     /* twice */
    FV_HOLD,                    /* into d->hold: the caller keeps it */
};

/* The queue's state, once, at the driver's set-up (any time before
   main()); counted by fault_counts from then on. */
void fault_link_init(struct fault_link *fl, int queue);

/* The fate of one frame going in direction tx (else rx) through fl;
   corrupt flips a bit of frame in place and says FV_PASS.  FV_HOLD only
   when d's hold is free: the caller fills in buf and len. */
enum fault_verdict fault_link_frame(struct fault_link *fl, bool tx,
                                    uint8_t *frame, uint32_t len);

/* A frame went past d's held one: true if the held one goes now. */
static inline bool fault_hold_passed(struct fault_hold *h)
{
    return h->buf >= 0 && --h->left == 0;
}

/* True if d's held frame has waited its longest. */
bool fault_hold_overdue(const struct fault_hold *h);

/* The link faults' counters as a line "net: link faults: ...", as
   snprintf; 0 when none is configured. */
int fault_link_report(char *buf, size_t len);

/* No injected allocation failure on this core between the two (page
   faults, interrupts off). */
void fault_hold(void);
void fault_release(void);

/* How often each fault was injected since fault_arm. */
struct fault_counts {
    uint64_t allocs_failed;
    uint64_t ipis_deaf;
    uint64_t timers_delayed;
    uint64_t rx[FK_KINDS], tx[FK_KINDS];    /* link faults, by kind */
    uint64_t rx_data_lost, tx_data_lost;
};
void fault_counts(struct fault_counts *c);
/* Adds the link faults' counters of every queue into c. */
void fault_link_counts(struct fault_counts *c);

#endif
