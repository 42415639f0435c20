/*
 * mqbsd - tests/net/bsd's cases on a multiqueue NIC with a queue pair,
 * and so a copy of lwIP, per core (test.conf: `net tap`, `queues smp`;
 * the runner passes guest= with the address it gives the machine).
 * Every connection here is to the machine's own address: the dialling
 * core's stack loops it back and accepts it, the listener having a pcb
 * in every stack; UDP is stack 0's whichever core sends; and poll()
 * wakes for events that any stack's callbacks report.
 */
#include "../bsd/main.c"
