/*
 * proc.c - the process as ported programs ask about it: sysconf, resource
 * limits, uname and the host name, user and group ids, the password
 * record, and the session calls.
 *
 * One program is one process, pid 1 (posix/newlib.c's _getpid), with no
 * parent: getppid is 0.  It runs as user and group 1000, "spindle", never
 * as root: programs such as memcached refuse to run as root, and nothing
 * here has privileges to drop.  So setuid/setgid (and the e- variants)
 * accept the ids the process has (a no-op) and refuse others with EPERM,
 * as Linux does for an unprivileged process; setsid makes the process
 * the leader of session 1 once, then EPERM (it leads it already); umask
 * records the mask and returns the old one; the file system's calls that
 * create apply it (proc_umask).  get_current_dir_name is getcwd's answer
 * in a malloc'd string.
 *
 * Limits are recorded, checked as Linux checks an unprivileged process
 * (soft <= hard; a hard limit may be lowered, never raised), and reported.
 * RLIMIT_NOFILE is 1024 descriptors (also sysconf(_SC_OPEN_MAX)) and
 * RLIMIT_STACK 8 MiB soft: the values programs size themselves by; none
 * is enforced (the socket layer has its own table; a G's stack is its
 * slot).  RLIMIT_CORE is accepted and means nothing: there are no cores
 * to dump.  The rest are unlimited.
 *
 * Not done: supplementary groups (getgroups says none), getpwent, group
 * records.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <spindle/cpu.h>
#include <spindle/sync.h>
#include "kernel/mem.h"

#define PROC_UID        1000
#define PROC_GID        1000
#define PROC_NAME       "spindle"
#define PAGE_BYTES      4096
#define NOFILE_MAX      1024
#define HOSTNAME_MAX    64

#if defined(__aarch64__)
#define MACHINE "aarch64"
#else
#define MACHINE "x86_64"
#endif

static sp_mutex procmu = SP_MUTEX_INIT;
/* Under procmu: */
static char hostname[HOSTNAME_MAX + 1] = "spindle";
static struct rlimit limits[RLIMIT_NLIMITS] = {
    [RLIMIT_CPU]     = { RLIM_INFINITY, RLIM_INFINITY },
    [RLIMIT_FSIZE]   = { RLIM_INFINITY, RLIM_INFINITY },
    [RLIMIT_DATA]    = { RLIM_INFINITY, RLIM_INFINITY },
    [RLIMIT_STACK]   = { 8 << 20, RLIM_INFINITY },
    [RLIMIT_CORE]    = { 0, RLIM_INFINITY },
    [RLIMIT_RSS]     = { RLIM_INFINITY, RLIM_INFINITY },
    [RLIMIT_NPROC]   = { RLIM_INFINITY, RLIM_INFINITY },
    [RLIMIT_NOFILE]  = { NOFILE_MAX, NOFILE_MAX },
    [RLIMIT_MEMLOCK] = { RLIM_INFINITY, RLIM_INFINITY },
    [RLIMIT_AS]      = { RLIM_INFINITY, RLIM_INFINITY },
};
static bool session_led;
static mode_t cmask = 022;

/* ---- sysconf ---------------------------------------------------------- */

long sysconf(int name)
{
    struct rlimit r;

    switch (name) {
    case _SC_NPROCESSORS_ONLN:
    case _SC_NPROCESSORS_CONF:
        return sp_ncpu();
    case _SC_PAGESIZE:
        return PAGE_BYTES;
    case _SC_CLK_TCK:
        return CLOCKS_PER_SEC;  /* the unit of times() and clock() */
    case _SC_OPEN_MAX:
        getrlimit(RLIMIT_NOFILE, &r);
        return r.rlim_cur;
    case _SC_PHYS_PAGES:
        return mem_total_count();
    case _SC_AVPHYS_PAGES:
        return mem_free_count();
    case _SC_GETPW_R_SIZE_MAX:
    case _SC_GETGR_R_SIZE_MAX:
        return 1024;
    case _SC_HOST_NAME_MAX:
        return HOSTNAME_MAX;
    case _SC_LOGIN_NAME_MAX:
        return 256;
    case _SC_IOV_MAX:
        return 1024;
    case _SC_LINE_MAX:
        return 2048;
    case _SC_ARG_MAX:
        return 4096;            /* the kernel command line's size */
    case _SC_NGROUPS_MAX:
        return 0;
    case _SC_CHILD_MAX:
        return 1;               /* this process alone: no children */
    case _SC_VERSION:
    case _SC_THREADS:
    case _SC_MONOTONIC_CLOCK:
        return 200809L;
    }
    errno = EINVAL;
    return -1;
}

int getpagesize(void)
{
    return PAGE_BYTES;
}

/* ---- Limits ------------------------------------------------------------ */

int getrlimit(int resource, struct rlimit *r)
{
    if (resource < 0 || resource >= RLIMIT_NLIMITS) {
        errno = EINVAL;
        return -1;
    }
    if (!r) {
        errno = EFAULT;
        return -1;
    }
    sp_mutex_lock(&procmu);
    *r = limits[resource];
    sp_mutex_unlock(&procmu);
    return 0;
}

int setrlimit(int resource, const struct rlimit *r)
{
    int err = 0;

    if (resource < 0 || resource >= RLIMIT_NLIMITS || (r && r->rlim_cur > r->rlim_max)) {
        errno = EINVAL;
        return -1;
    }
    if (!r) {
        errno = EFAULT;
        return -1;
    }
    sp_mutex_lock(&procmu);
    if (r->rlim_max > limits[resource].rlim_max)
        err = EPERM;            /* raising a hard limit takes privilege */
    else
        limits[resource] = *r;
    sp_mutex_unlock(&procmu);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

/* ---- Names -------------------------------------------------------------- */

static void copy_name(char *dst, const char *src, size_t size)
{
    strncpy(dst, src, size - 1);
    dst[size - 1] = 0;
}

int uname(struct utsname *u)
{
    if (!u) {
        errno = EFAULT;
        return -1;
    }
    memset(u, 0, sizeof *u);
    copy_name(u->sysname, "Spindle", sizeof u->sysname);
    sp_mutex_lock(&procmu);
    copy_name(u->nodename, hostname, sizeof u->nodename);
    sp_mutex_unlock(&procmu);
    copy_name(u->release, "1.0", sizeof u->release);
    copy_name(u->version, "Spindle unikernel", sizeof u->version);
    copy_name(u->machine, MACHINE, sizeof u->machine);
    copy_name(u->domainname, "(none)", sizeof u->domainname);
    return 0;
}

int gethostname(char *name, size_t len)
{
    int err = 0;

    if (!name) {
        errno = EFAULT;
        return -1;
    }
    sp_mutex_lock(&procmu);
    if (strlen(hostname) + 1 > len)
        err = ENAMETOOLONG;
    else
        strcpy(name, hostname);
    sp_mutex_unlock(&procmu);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

/* Any process may name its machine: there is no one else to ask. */
int sethostname(const char *name, size_t len)
{
    if (len > HOSTNAME_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (!name && len) {
        errno = EFAULT;
        return -1;
    }
    sp_mutex_lock(&procmu);
    memcpy(hostname, name, len);
    hostname[len] = 0;
    sp_mutex_unlock(&procmu);
    return 0;
}

/* ---- Ids ------------------------------------------------------------------ */

uid_t getuid(void) { return PROC_UID; }
uid_t geteuid(void) { return PROC_UID; }
gid_t getgid(void) { return PROC_GID; }
gid_t getegid(void) { return PROC_GID; }
pid_t getppid(void) { return 0; }
pid_t getpgrp(void) { return getpid(); }

static int same_id(unsigned id, unsigned mine)
{
    if (id != mine) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

int setuid(uid_t uid) { return same_id(uid, PROC_UID); }
int seteuid(uid_t uid) { return same_id(uid, PROC_UID); }
int setgid(gid_t gid) { return same_id(gid, PROC_GID); }
int setegid(gid_t gid) { return same_id(gid, PROC_GID); }

int getgroups(int n, gid_t *list)
{
    if (n < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

/* Only a privileged process may set its groups, and this one is not
   (getuid is PROC_UID), as on Linux without CAP_SETGID. */
int setgroups(int n, const gid_t *list)
{
    (void)n;
    (void)list;
    errno = EPERM;
    return -1;
}

pid_t setsid(void)
{
    bool again;

    sp_mutex_lock(&procmu);
    again = session_led;
    session_led = true;
    sp_mutex_unlock(&procmu);
    if (again) {
        errno = EPERM;
        return -1;
    }
    return getpid();
}

pid_t getsid(pid_t pid)
{
    if (pid != 0 && pid != getpid()) {
        errno = ESRCH;
        return -1;
    }
    return getpid();
}

mode_t proc_umask(void)
{
    return __atomic_load_n(&cmask, __ATOMIC_RELAXED);
}

char *get_current_dir_name(void)
{
    char buf[PATH_MAX];

    return getcwd(buf, sizeof buf) ? strdup(buf) : NULL;
}

mode_t umask(mode_t mask)
{
    mode_t old;

    sp_mutex_lock(&procmu);
    old = cmask;
    __atomic_store_n(&cmask, mask & 0777, __ATOMIC_RELAXED);
    sp_mutex_unlock(&procmu);
    return old;
}

/* ---- The password record --------------------------------------------------- */

static char pw_name[] = PROC_NAME, pw_passwd[] = "x", pw_gecos[] = "Spindle",
            pw_dir[] = "/", pw_shell[] = "/bin/false";
static struct passwd pw_record = {
    .pw_name = pw_name, .pw_passwd = pw_passwd, .pw_uid = PROC_UID,
    .pw_gid = PROC_GID, .pw_comment = pw_gecos, .pw_gecos = pw_gecos,
    .pw_dir = pw_dir, .pw_shell = pw_shell,
};

struct passwd *getpwuid(uid_t uid)
{
    return uid == PROC_UID ? &pw_record : NULL;
}

struct passwd *getpwnam(const char *name)
{
    return name && !strcmp(name, PROC_NAME) ? &pw_record : NULL;
}

/* The record into buf: 0, ERANGE when buf is too small. */
static int pw_copy(struct passwd *pw, char *buf, size_t len,
                   struct passwd **out)
{
    const char *f[] = { pw_name, pw_passwd, pw_gecos, pw_dir, pw_shell };
    char *s[5];
    size_t used = 0;

    for (int i = 0; i < 5; i++) {
        size_t n = strlen(f[i]) + 1;

        if (used + n > len) {
            *out = NULL;
            return ERANGE;
        }
        s[i] = memcpy(buf + used, f[i], n);
        used += n;
    }
    *pw = (struct passwd){ .pw_name = s[0], .pw_passwd = s[1],
        .pw_uid = PROC_UID, .pw_gid = PROC_GID, .pw_comment = s[2],
        .pw_gecos = s[2], .pw_dir = s[3], .pw_shell = s[4] };
    *out = pw;
    return 0;
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
               struct passwd **out)
{
    if (uid != PROC_UID) {
        *out = NULL;
        return 0;               /* no such user: not an error */
    }
    return pw_copy(pw, buf, len, out);
}

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
               struct passwd **out)
{
    if (!name || strcmp(name, PROC_NAME)) {
        *out = NULL;
        return 0;
    }
    return pw_copy(pw, buf, len, out);
}
