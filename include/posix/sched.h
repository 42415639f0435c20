/*
 * sched.h - newlib's, with cpu_set_t (sys/cpuset.h) so that it declares
 * the affinity calls (posix/pthread_attr.c).
 */
#ifndef SPINDLE_SCHED_H_WRAP
#define SPINDLE_SCHED_H_WRAP

#include <sys/cpuset.h>
#include_next <sched.h>

#endif
