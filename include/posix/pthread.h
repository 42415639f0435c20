/*
 * pthread.h - newlib's, plus the affinity calls of glibc that newlib
 * declares only for RTEMS (posix/pthread_attr.c).
 */
#ifndef SPINDLE_PTHREAD_H_WRAP
#define SPINDLE_PTHREAD_H_WRAP

#include <sched.h>
#include_next <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

int pthread_setaffinity_np(pthread_t t, size_t size, const cpu_set_t *set);
int pthread_getaffinity_np(pthread_t t, size_t size, cpu_set_t *set);
int pthread_attr_setaffinity_np(pthread_attr_t *a, size_t size,
                                const cpu_set_t *set);
int pthread_attr_getaffinity_np(const pthread_attr_t *a, size_t size,
                                cpu_set_t *set);

#ifdef __cplusplus
}
#endif

#endif
