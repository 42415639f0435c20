/*
 * sys/resource.h - resource usage and limits (POSIX, with Linux's numbers
 * and struct rusage's fields, which ported programs read).  Replaces
 * newlib's, which has two fields of struct rusage and no limits.
 *
 * getrusage (posix/time.c) fills ru_utime alone: every other field is 0.
 * getrlimit/setrlimit (posix/proc.c) say which limits mean something.
 */
#ifndef _SYS_RESOURCE_H_
#define _SYS_RESOURCE_H_

#include <sys/cdefs.h>
#include <sys/time.h>

#define RUSAGE_SELF      0      /* the process: every G */
#define RUSAGE_CHILDREN  (-1)   /* there are none: all 0 */
#define RUSAGE_THREAD    1      /* the calling G */

struct rusage {
    struct timeval ru_utime;    /* CPU time, user */
    struct timeval ru_stime;    /* CPU time, system */
    long ru_maxrss;             /* the rest: Linux's, for source */
    long ru_ixrss;              /* compatibility; always 0 */
    long ru_idrss;
    long ru_isrss;
    long ru_minflt;
    long ru_majflt;
    long ru_nswap;
    long ru_inblock;
    long ru_oublock;
    long ru_msgsnd;
    long ru_msgrcv;
    long ru_nsignals;
    long ru_nvcsw;
    long ru_nivcsw;
};

typedef unsigned long rlim_t;

#define RLIM_INFINITY   (~(rlim_t)0)
#define RLIM_SAVED_MAX  RLIM_INFINITY
#define RLIM_SAVED_CUR  RLIM_INFINITY

struct rlimit {
    rlim_t rlim_cur;            /* soft limit: what is enforced */
    rlim_t rlim_max;            /* hard limit: the soft one's ceiling */
};

#define RLIMIT_CPU      0
#define RLIMIT_FSIZE    1
#define RLIMIT_DATA     2
#define RLIMIT_STACK    3
#define RLIMIT_CORE     4
#define RLIMIT_RSS      5
#define RLIMIT_NPROC    6
#define RLIMIT_NOFILE   7
#define RLIMIT_MEMLOCK  8
#define RLIMIT_AS       9
#define RLIMIT_NLIMITS  10
#define RLIM_NLIMITS    RLIMIT_NLIMITS

#define PRIO_PROCESS    0
#define PRIO_PGRP       1
#define PRIO_USER       2

__BEGIN_DECLS
int getrusage(int who, struct rusage *usage);
int getrlimit(int resource, struct rlimit *rlim);
int setrlimit(int resource, const struct rlimit *rlim);
__END_DECLS

#endif
