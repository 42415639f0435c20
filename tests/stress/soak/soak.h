/*
 * soak.h - the soak's workload phases and the tallies they keep.
 *
 * A round runs every phase once; each phase starts its own Gs, waits for
 * all of them and returns, so between phases the machine is quiescent
 * (main.c checks its conservation laws there).  Every phase counts what
 * it did in struct tally and checks its own result: each message received
 * exactly once, each timer fired exactly once (and a stopped one never),
 * each spawned G run exactly once, the mutex's counter exact.  A broken
 * law adds to tally.bad and keeps the first reason.
 */
#ifndef SOAK_H
#define SOAK_H

#include <stdbool.h>
#include <stdint.h>

struct tally {
    uint64_t spawned;           /* Gs the phases started */
    uint64_t msgs;              /* channel messages received once */
    uint64_t selects;           /* select operations completed */
    uint64_t timers;            /* timers fired (and stopped ones that
                                   correctly did not) */
    uint64_t locks;             /* mutex and rwmutex critical sections */
    uint64_t sleeps;            /* sleeps completed */
    uint64_t hog_ms;            /* CPU time the hogs burned */
    uint64_t preempts;          /* times the hogs were preempted */
    uint64_t net_bytes;         /* bytes echoed back intact over TCP */
    uint64_t netfault_bytes;    /* the same, through the NIC (netfault) */
    uint64_t bad;               /* broken laws */
};

extern struct tally tally;

/* Records a broken law (first reason kept) and counts it. */
__attribute__((format(printf, 1, 2)))
void soak_fail(const char *fmt, ...);

/* Per-round sizes, fixed for the run by main.c from the core count and
   the build (sanitizers run smaller rounds, not fewer laws). */
struct sizes {
    int spawn;                  /* Gs the spawn phase starts */
    int producers, consumers;   /* chan phase */
    int msgs_per_producer;
    int selectors, selects_each;
    int lockers, locks_each;
    int timers;
    int sleepers, sleeps_each;
    int hogs;
    int hog_ms;
    int conns, msgs_per_conn;   /* net phase */
};

void phase_spawn(const struct sizes *sz, uint64_t seed);
void phase_chan(const struct sizes *sz, uint64_t seed);
void phase_select(const struct sizes *sz, uint64_t seed);
void phase_mutex(const struct sizes *sz, uint64_t seed);
void phase_timers(const struct sizes *sz, uint64_t seed);
/* Hogs that spin on the CPU while the sleepers sleep: preemption. */
void phase_hogs(const struct sizes *sz, uint64_t seed);
/* TCP to the machine's own address, when it has a NIC (the first call
   waits for DHCP and says whether it has); phase_net_enabled says. */
void phase_net(const struct sizes *sz, uint64_t seed);
bool phase_net_enabled(void);
/* The same through the NIC, when via= named an address of the host's
   that leads back to the listener (`make soak`: a QEMU forward), and so
   through the link faults of fault=; phase_netfault_via sets it, before
   the first round. */
void phase_netfault(const struct sizes *sz, uint64_t seed);
bool phase_netfault_enabled(void);
void phase_netfault_via(const char *addr);

#endif
