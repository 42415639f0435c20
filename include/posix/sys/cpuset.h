/*
 * sys/cpuset.h - a set of cores, for the affinity calls (glibc's
 * cpu_set_t and CPU_* macros).  newlib's <sched.h> declares
 * sched_getaffinity and friends once this header is in.
 */
#ifndef _SYS_CPUSET_H_
#define _SYS_CPUSET_H_

#include <stddef.h>

#define CPU_SETSIZE 1024

typedef struct {
    unsigned long __bits[CPU_SETSIZE / (8 * sizeof(unsigned long))];
} cpu_set_t;

#define __CPU_WORD(c)   ((c) / (8 * sizeof(unsigned long)))
#define __CPU_BIT(c)    (1UL << ((c) % (8 * sizeof(unsigned long))))

#define CPU_ZERO(s)     __builtin_memset((s), 0, sizeof(cpu_set_t))
#define CPU_SET(c, s)   ((c) < CPU_SETSIZE ? \
                         ((s)->__bits[__CPU_WORD(c)] |= __CPU_BIT(c)) : 0)
#define CPU_CLR(c, s)   ((c) < CPU_SETSIZE ? \
                         ((s)->__bits[__CPU_WORD(c)] &= ~__CPU_BIT(c)) : 0)
#define CPU_ISSET(c, s) ((c) < CPU_SETSIZE && \
                         ((s)->__bits[__CPU_WORD(c)] & __CPU_BIT(c)) != 0)

static inline int __cpu_count(const cpu_set_t *s)
{
    int n = 0;

    for (size_t i = 0; i < sizeof s->__bits / sizeof s->__bits[0]; i++)
        n += __builtin_popcountl(s->__bits[i]);
    return n;
}

#define CPU_COUNT(s)    __cpu_count(s)

#endif
