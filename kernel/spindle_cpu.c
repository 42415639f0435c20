/*
 * spindle_cpu.c - the kernel calls behind include/spindle/cpu.h.
 */
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include "arch/arch.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "sched/sched.h"


int sp_ncpu(void)
{
    return ncpu;
}

int sp_cpu_id(void)
{
    return cpu_id();
}

void sp_on_each_cpu(void (*fn)(void *), void *arg)
{
    if (!fn)
        panic("sp_on_each_cpu: nil func value");
    smp_call_all(fn, arg);
}

uint64_t sp_go(void (*fn)(void *), void *arg)
{
    if (!fn)
        panic("go of nil func value");
    return go(fn, arg);
}

void sp_yield(void)
{
    goyield();
}

uint64_t sp_goid(void)
{
    struct g *gp = getg();

    return gp ? gp->goid : 0;
}

uint64_t sp_preempted(void)
{
    struct g *gp = getg();

    return gp ? gp->npreempt : 0;
}

void sp_goexit(void)
{
    goexit();
}
