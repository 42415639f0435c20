/*
 * exec.c - the calls that would make or change processes, and dynamic
 * loading, which a Spindle image does not have: one image is one
 * program, statically linked, in one address space.  Each call fails at
 * once, with the errno a program can test, and changes nothing:
 *
 *   fork, vfork, execve, execv, execvp, waitpid, wait, daemon: -1, ENOSYS;
 *   system(NULL) is 0 (no command processor), system(cmd) -1 and ENOSYS;
 *   dlopen and dlsym return NULL, dlclose -1, and dlerror then names the
 *   reason once.
 *
 * dladdr does mean something: it looks the address up in the image's
 * symbol table (the one backtraces use) and returns 0 when the address
 * is not in the image's code.
 *
 * newlib's own fork, execve and wait call the stubs _fork, _execve and
 * _wait given here.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>
#include "kernel/panic.h"

/* The linker script's: the image's start, and its code's bounds. */
extern char __kernel_start[], __text_start[], __text_end[];

static int nosys(void)
{
    errno = ENOSYS;
    return -1;
}

int _fork(void) { return nosys(); }
pid_t vfork(void) { return nosys(); }
int daemon(int nochdir, int noclose) { return nosys(); }

int _execve(const char *path, char *const argv[], char *const envp[])
{
    return nosys();
}

int execv(const char *path, char *const argv[])
{
    return nosys();
}

int execvp(const char *file, char *const argv[])
{
    return nosys();
}

int _wait(int *status)
{
    return nosys();
}

pid_t waitpid(pid_t pid, int *status, int options)
{
    return nosys();
}

int system(const char *cmd)
{
    if (!cmd)
        return 0;
    return nosys();
}

/* ---- Dynamic loading ---------------------------------------------------- */

static int dl_failed;           /* a failure dlerror has not reported */

static void *dl_fail(void)
{
    __atomic_store_n(&dl_failed, 1, __ATOMIC_RELAXED);
    return NULL;
}

void *dlopen(const char *file, int mode)
{
    return dl_fail();
}

void *dlsym(void *restrict handle, const char *restrict name)
{
    return dl_fail();
}

int dlclose(void *handle)
{
    dl_fail();
    return -1;
}

char *dlerror(void)
{
    static char msg[] = "dynamic loading is not supported: "
                        "a Spindle image is one static program";

    if (!__atomic_exchange_n(&dl_failed, 0, __ATOMIC_RELAXED))
        return NULL;
    return msg;
}

int dladdr(const void *addr, Dl_info *info)
{
    uintptr_t off;
    const char *name;

    if ((const char *)addr < __text_start || (const char *)addr >= __text_end ||
        !(name = ksym_lookup((uintptr_t)addr, &off)))
        return 0;
    info->dli_fname = "spindle";
    info->dli_fbase = __kernel_start;
    info->dli_sname = name;
    info->dli_saddr = (char *)addr - off;
    return 1;
}
