/*
 * dlfcn.h - dynamic loading (POSIX).  A Spindle image is one static
 * program: dlopen and dlsym always fail, with a reason from dlerror
 * (posix/exec.c).  dladdr (a GNU and BSD extension) names the function
 * of the image that holds an address, from the image's symbol table.
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

typedef struct {
    const char *dli_fname;      /* the image: "spindle" */
    void *dli_fbase;            /* the image's first byte */
    const char *dli_sname;      /* the function holding the address */
    void *dli_saddr;            /* that function's first byte */
} Dl_info;

__BEGIN_DECLS
int dladdr(const void *addr, Dl_info *info);
void *dlopen(const char *file, int mode);
void *dlsym(void *__restrict handle, const char *__restrict name);
int dlclose(void *handle);
char *dlerror(void);
__END_DECLS

#endif
