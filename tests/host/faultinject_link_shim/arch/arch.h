/*
 * arch.h (faultinject_link host test) - stands in for arch/arch.h when
 * kernel/faultinject_link.c is built on the host by
 * tests/host/faultinject_link_test.c, which defines what is declared
 * here: the cycle counter is a fake clock the test sets.
 */
#ifndef TESTS_HOST_FAULTINJECT_LINK_SHIM_ARCH_ARCH_H
#define TESTS_HOST_FAULTINJECT_LINK_SHIM_ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu;

struct arch_cpu {
    int unused;
};

struct cpu *arch_this_cpu(void);
uint64_t arch_cycles(void);             /* the fake clock */
uint64_t arch_cycles_hz(void);

#endif
