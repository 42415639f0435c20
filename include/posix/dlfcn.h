/*
 * dlfcn.h - dynamic loading (POSIX).  A Spindle image is one static
 * program: dlopen and dlsym always fail, with a reason from dlerror
 * (posix/exec.c).
 */
#ifndef _DLFCN_H
#define _DLFCN_H

#include <sys/cdefs.h>

#define RTLD_LAZY       0x0001
#define RTLD_NOW        0x0002
#define RTLD_GLOBAL     0x0100
#define RTLD_LOCAL      0
#define RTLD_NODELETE   0x1000
#define RTLD_NOLOAD     0x0004
#define RTLD_DEFAULT    ((void *)0)
#define RTLD_NEXT       ((void *)-1)

__BEGIN_DECLS
void *dlopen(const char *file, int mode);
void *dlsym(void *__restrict handle, const char *__restrict name);
int dlclose(void *handle);
char *dlerror(void);
__END_DECLS

#endif
