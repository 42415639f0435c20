/*
 * faultinject_cfg.h - the fault= command-line value: which faults to inject and
 * how often (kernel/faultinject.h injects them).  Pure parsing, so the host
 * tests and the command-line fuzzer run it as the kernel does.
 *
 *   fault=alloc:PERMILLE        page allocations fail at that rate
 *   fault=ipi:PCT:MS            PCT% of the scheduler IPIs a core takes
 *                               make it stop answering for MS ms
 *   fault=timer:PCT:US          PCT% of core timer interrupts come US us late
 *   fault=stall:US              wakers and spinners stall US us in the
 *                               spinning protocol's windows
 *
 * Link faults, on the frames the NIC receives (rx) or sends (tx), each
 * at PERMILLE frames in a thousand, per queue:
 *   fault=rxdrop:PERMILLE       the frame is lost
 *   fault=rxdup:PERMILLE        it arrives twice
 *   fault=rxcorrupt:PERMILLE    one bit of its IPv4 packet is flipped
 *                               (frames of other kinds are left alone)
 *   fault=rxreorder:PERMILLE[:US]   it is held back behind up to
 *                               FAULT_HOLD_FRAMES later frames, and at
 *                               most US us (default FAULT_HOLD_US)
 * and the same with tx.
 *
 * Items are joined by commas: fault=ipi:20:5,timer:10:2000.
 */
#ifndef KERNEL_FAULTINJECT_CFG_H
#define KERNEL_FAULTINJECT_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One direction's link faults: 0 off, else frames in a thousand. */
struct faultlink {
    uint32_t drop, dup, corrupt, reorder;
    uint32_t hold_us;           /* reorder: the longest a frame is held */
};

struct faultcfg {
    uint32_t alloc_permille;    /* 0: off; 1..1000 */
    uint32_t ipi_pct, ipi_ms;   /* 0: off; 1..100 and 1..1000 */
    uint32_t timer_pct, timer_us;   /* 0: off; 1..100 and 1..100000 */
    uint32_t stall_us;          /* 0: off; 1..100000 */
    struct faultlink rx, tx;    /* the NIC's frames in and out */
};

#define FAULT_ALLOC_MAX    1000
#define FAULT_PCT_MAX      100
#define FAULT_IPI_MS_MAX   1000
#define FAULT_TIMER_US_MAX 100000
#define FAULT_STALL_US_MAX 100000
#define FAULT_HOLD_US      2000     /* reorder's default hold */
#define FAULT_HOLD_US_MAX  1000000
#define FAULT_HOLD_FRAMES  3        /* later frames a held one waits for */

/*
 * Parses spec into *cfg (zeroed first).  An item that cannot be used is
 * left out and described in err (the first such, NUL-terminated; "" when
 * every item was good); the others still count.  Returns the number of
 * items taken.
 */
int faultcfg_parse(const char *spec, struct faultcfg *cfg, char *err,
                   size_t errlen);

/* True if cfg injects anything. */
bool faultcfg_any(const struct faultcfg *cfg);

/* True if cfg injects a link fault (either direction). */
bool faultcfg_link_any(const struct faultcfg *cfg);

#endif
