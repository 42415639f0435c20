/*
 * reent.h (hosted) - stands in for newlib's <reent.h>, which the generic
 * scheduler includes for the per-G libc state in struct g.
 *
 * Under the host's C library there is no such state to keep per G: the
 * one piece that must follow a G, errno, travels with the G's context
 * instead (arch/hosted/context.c saves it at every switch and puts it back
 * on whichever thread the G resumes).  stdio and malloc are the host's,
 * shared by all cores and locked by glibc itself.  So this struct only
 * gives the generic code the fields it initializes; nothing reads them.
 */
#ifndef ARCH_HOSTED_REENT_H
#define ARCH_HOSTED_REENT_H

struct _reent {
    int _errno;
    void *_stdin, *_stdout, *_stderr;
    int __sdidinit;
};

extern struct _reent hosted_global_reent;

#define _GLOBAL_REENT (&hosted_global_reent)
#define _REENT_INIT_PTR(r) ((void)(*(r) = (struct _reent){ 0 }))

#endif
