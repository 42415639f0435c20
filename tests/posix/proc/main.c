/*
 * proc - the process as posix/ presents it: sysconf, resource limits,
 * uname and the host name, ids and the password record, the calls that
 * fail for want of processes and dynamic loading, dladdr, signals raised
 * and masked (SA_SIGINFO handlers too), anonymous mappings, getentropy,
 * get_current_dir_name and flock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>

TEST(sysconf_values)
{
    CHECK(sysconf(_SC_NPROCESSORS_ONLN) == sp_ncpu());
    CHECK(sysconf(_SC_NPROCESSORS_CONF) == sp_ncpu());
    CHECK(sysconf(_SC_PAGESIZE) == 4096 && getpagesize() == 4096);
    CHECK(sysconf(_SC_CLK_TCK) == CLOCKS_PER_SEC);
    CHECK(sysconf(_SC_OPEN_MAX) == 1024);
    CHECK(sysconf(_SC_GETPW_R_SIZE_MAX) > 0);
    CHECK(sysconf(_SC_PHYS_PAGES) > sysconf(_SC_AVPHYS_PAGES));
    errno = 0;
    CHECK(sysconf(-1) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(sysconf(9999) == -1 && errno == EINVAL);
}

TEST(rlimits)
{
    struct rlimit r, lo = { 256, 512 }, bad = { 600, 500 }, up = { 256, 1024 };

    CHECK(getrlimit(RLIMIT_NOFILE, &r) == 0);
    CHECK(r.rlim_cur == 1024 && r.rlim_max == 1024);
    CHECK(getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur == 8 << 20);
    errno = 0;
    CHECK(setrlimit(RLIMIT_NOFILE, &bad) == -1 && errno == EINVAL);
    CHECK(setrlimit(RLIMIT_NOFILE, &lo) == 0);
    CHECK(getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur == 256 &&
          r.rlim_max == 512);
    CHECK(sysconf(_SC_OPEN_MAX) == 256);
    errno = 0;                          /* a lowered hard limit stays */
    CHECK(setrlimit(RLIMIT_NOFILE, &up) == -1 && errno == EPERM);
    r.rlim_cur = r.rlim_max = 512;
    CHECK(setrlimit(RLIMIT_NOFILE, &r) == 0);
    r.rlim_cur = r.rlim_max = RLIM_INFINITY;
    CHECK(setrlimit(RLIMIT_CORE, &r) == 0);
    errno = 0;
    CHECK(getrlimit(99, &r) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(setrlimit(-1, &r) == -1 && errno == EINVAL);
}

TEST(uname_and_hostname)
{
    struct utsname u;
    static char name[1001];

    CHECK(uname(&u) == 0);
    CHECK(!strcmp(u.sysname, "Spindle"));
#if defined(__aarch64__)
    CHECK(!strcmp(u.machine, "aarch64"));
#else
    CHECK(!strcmp(u.machine, "x86_64"));
#endif
    CHECK(gethostname(name, sizeof name) == 0 && !strcmp(name, u.nodename));
    CHECK(sethostname("cache-7", 7) == 0);
    CHECK(gethostname(name, sizeof name) == 0 && !strcmp(name, "cache-7"));
    CHECK(uname(&u) == 0 && !strcmp(u.nodename, "cache-7"));
    errno = 0;
    CHECK(gethostname(name, 4) == -1 && errno == ENAMETOOLONG);
    errno = 0;
    CHECK(sethostname(name, 1000) == -1 && errno == EINVAL);
}

TEST(ids_and_password_record)
{
    struct passwd *pw, rec, *out;
    char buf[256];

    CHECK(getuid() == 1000 && geteuid() == 1000);
    CHECK(getgid() == 1000 && getegid() == 1000);
    CHECK(getpid() == 1 && getppid() == 0);
    CHECK(setuid(1000) == 0 && setgid(1000) == 0);
    errno = 0;
    CHECK(setuid(0) == -1 && errno == EPERM);
    CHECK(setsid() == getpid());
    errno = 0;
    CHECK(setsid() == -1 && errno == EPERM);
    CHECK(umask(077) == 022 && umask(022) == 077);
    pw = getpwuid(getuid());
    CHECK(pw && pw->pw_uid == 1000 && pw->pw_gid == 1000);
    CHECK(pw->pw_name && pw->pw_dir && pw->pw_shell);
    CHECK(getpwnam(pw->pw_name) == pw);
    CHECK(getpwuid(0) == NULL && getpwnam("root") == NULL);
    CHECK(getpwuid_r(1000, &rec, buf, sizeof buf, &out) == 0 && out == &rec);
    CHECK(!strcmp(rec.pw_name, pw->pw_name));
    CHECK(getpwuid_r(1000, &rec, buf, 4, &out) == ERANGE && !out);
}

TEST(no_processes_no_dynamic_loading)
{
    char *argv[] = { "sh", NULL };
    int st;

    errno = 0;
    CHECK(fork() == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(vfork() == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(execv("/bin/sh", argv) == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(execvp("sh", argv) == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(execve("/bin/sh", argv, NULL) == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(waitpid(-1, &st, WNOHANG) == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(wait(&st) == -1 && errno == ENOSYS);
    errno = 0;
    CHECK(daemon(0, 0) == -1 && errno == ENOSYS);
    CHECK(system(NULL) == 0);
    errno = 0;
    CHECK(system("true") == -1 && errno == ENOSYS);
    CHECK(dlerror() == NULL);
    CHECK(dlopen("libssl.so", RTLD_NOW) == NULL);
    const char *e = dlerror();
    CHECK(e && strstr(e, "not supported"));
    CHECK(dlerror() == NULL);           /* reported once */
    CHECK(dlsym(RTLD_DEFAULT, "main") == NULL && dlerror() != NULL);
}

/* A function of the image to look up (not inlined: it must have code). */
__attribute__((noinline)) int proc_dladdr_target(int x)
{
    return x * 3 + 1;
}

TEST(dladdr_names_the_function)
{
    char *fn = (char *)proc_dladdr_target;
    Dl_info info;
    static int data;

    memset(&info, 0, sizeof info);
    CHECK(proc_dladdr_target(1) == 4);
    CHECK(dladdr(fn + 1, &info) == 1);
    CHECKF(info.dli_sname && !strcmp(info.dli_sname, "proc_dladdr_target"), "%s",
           info.dli_sname ? info.dli_sname : "(null)");
    CHECK(info.dli_saddr == fn);
    CHECK(info.dli_fname && info.dli_fbase && (char *)info.dli_fbase <= fn);
    CHECK(dladdr(&data, &info) == 0);   /* not code */
    CHECK(dladdr(NULL, &info) == 0);
}

TEST(get_current_dir_name_and_flock)
{
    char *d = get_current_dir_name();
    int p[2];

    CHECK(d && !strcmp(d, "/"));
    free(d);
    CHECK(pipe(p) == 0);
    CHECK(flock(p[0], LOCK_EX) == 0);
    CHECK(flock(p[0], LOCK_EX | LOCK_NB) == 0);     /* no other process */
    CHECK(flock(p[0], LOCK_SH | LOCK_NB) == 0);
    CHECK(flock(p[0], LOCK_UN) == 0);
    errno = 0;
    CHECK(flock(p[0], LOCK_NB) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(flock(p[0], 0x40) == -1 && errno == EINVAL);
    close(p[0]);
    close(p[1]);
    errno = 0;
    CHECK(flock(p[0], LOCK_EX) == -1 && errno == EBADF);
}

/* ---- Signals ----------------------------------------------------------- */

static int got_sig, got_count;
static uint64_t got_g;

static void on_sig(int sig)
{
    got_sig = sig;
    got_count++;
    got_g = sp_goid();
}

TEST(sigaction_and_raise_run_the_handler)
{
    struct sigaction sa = { .sa_handler = on_sig }, old;

    got_sig = got_count = 0;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    CHECK(got_sig == SIGUSR1 && got_count == 1);
    CHECK(got_g == sp_goid());          /* in the calling G */
    CHECK(sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == on_sig);
    CHECK(signal(SIGUSR2, on_sig) == SIG_DFL);
    CHECK(raise(SIGUSR2) == 0 && got_sig == SIGUSR2 && got_count == 2);
    CHECK(signal(SIGUSR2, SIG_IGN) == on_sig);
    CHECK(raise(SIGUSR2) == 0 && got_count == 2);   /* ignored */
    /* SA_RESETHAND: once, then the default (SIGCHLD's: ignored). */
    sa.sa_flags = SA_RESETHAND;
    CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
    CHECK(raise(SIGCHLD) == 0 && got_count == 3 && got_sig == SIGCHLD);
    CHECK(raise(SIGCHLD) == 0 && got_count == 3);
    CHECK(raise(0) == 0);
    errno = 0;
    CHECK(raise(NSIG) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(sigaction(SIGKILL, &sa, NULL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(sigaction(0, &sa, NULL) == -1 && errno == EINVAL);
    CHECK(signal(-3, on_sig) == SIG_ERR);
}

static siginfo_t got_info;
static void *got_ctx = (void *)1;

static void on_info(int sig, siginfo_t *info, void *ctx)
{
    got_sig = sig;
    got_count++;
    got_info = *info;
    got_ctx = ctx;
}

TEST(sa_siginfo_handler_gets_the_info)
{
    struct sigaction sa, old;
    sigset_t s;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_info;
    sa.sa_flags = SA_SIGINFO;
    got_count = 0;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0 && got_count == 1 && got_sig == SIGUSR1);
    CHECK(got_info.si_signo == SIGUSR1 && got_info.si_code == SI_USER);
    CHECK(got_info.si_pid == getpid() && got_info.si_uid == getuid());
    CHECK(got_info.si_addr == NULL && got_ctx == NULL);
    CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
    CHECK((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_info);
    /* A blocked one keeps its code until it is delivered. */
    CHECK(sigemptyset(&s) == 0 && sigaddset(&s, SIGUSR1) == 0);
    CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0 && got_count == 1);
    memset(&got_info, 0, sizeof got_info);
    CHECK(sigprocmask(SIG_UNBLOCK, &s, NULL) == 0);
    CHECK(got_count == 2 && got_info.si_code == SI_USER);
    /* SA_RESETHAND goes back to SIG_DFL, a plain handler. */
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
    CHECK(raise(SIGCHLD) == 0 && got_count == 3 && got_sig == SIGCHLD);
    CHECK(sigaction(SIGCHLD, NULL, &old) == 0);
    CHECK(old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO));
    CHECK(raise(SIGCHLD) == 0 && got_count == 3);   /* ignored */
    sa.sa_flags = 0;
    sa.sa_handler = SIG_DFL;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

TEST(sigprocmask_records_and_delivers_on_unblock)
{
    struct sigaction sa = { .sa_handler = on_sig };
    sigset_t s, old, cur;

    got_count = 0;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(sigemptyset(&s) == 0 && sigaddset(&s, SIGUSR1) == 0);
    CHECK(sigprocmask(SIG_BLOCK, &s, &old) == 0);
    CHECK(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
    CHECK(sigismember(&cur, SIGUSR1) == 1 && sigismember(&old, SIGUSR1) == 0);
    CHECK(raise(SIGUSR1) == 0 && got_count == 0);   /* pending */
    CHECK(sigpending(&cur) == 0 && sigismember(&cur, SIGUSR1) == 1);
    CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
    CHECK(got_count == 1 && got_sig == SIGUSR1);
    CHECK(sigpending(&cur) == 0 && sigismember(&cur, SIGUSR1) == 0);
    /* SIGKILL cannot be blocked. */
    CHECK(sigfillset(&s) == 0);
    CHECK(sigprocmask(SIG_SETMASK, &s, &old) == 0);
    CHECK(sigprocmask(SIG_SETMASK, &old, &cur) == 0);
    CHECK(sigismember(&cur, SIGKILL) == 0 && sigismember(&cur, SIGTERM) == 1);
    errno = 0;
    CHECK(sigprocmask(17, &s, NULL) == -1 && errno == EINVAL);
    CHECK(pthread_sigmask(17, &s, NULL) == EINVAL);
    errno = 0;
    CHECK((sigaddset)(&s, 0) == -1 && errno == EINVAL);
    CHECK((sigismember)(&s, 99) == -1);
}

/* ---- Mappings and entropy -------------------------------------------- */

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

TEST(mmap_round_trips)
{
    size_t len = 5 * 4096 + 100;
    unsigned char *p, *q;

    for (int round = 0; round < 3; round++) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        CHECK(((uintptr_t)p & 4095) == 0);
        CHECK(all_zero(p, 6 * 4096));   /* the last page whole */
        memset(p, 0xa5, 6 * 4096);
        CHECK(mprotect(p, 4096, PROT_READ) == 0);
        CHECK(msync(p, len, MS_SYNC) == 0);
        CHECK(madvise(p + 4096, 4096, MADV_DONTNEED) == 0);
        CHECK(all_zero(p + 4096, 4096) && p[0] == 0xa5 && p[8192] == 0xa5);
        CHECK(munmap(p + 2 * 4096, 4096) == 0);     /* a hole */
        errno = 0;
        CHECK(mprotect(p, len, PROT_READ) == -1 && errno == ENOMEM);
        CHECK(munmap(p, len) == 0);
        errno = 0;
        CHECK(msync(p, 4096, MS_SYNC) == -1 && errno == ENOMEM);
    }
    errno = 0;
    q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 3, 0);
    CHECK(q == MAP_FAILED && errno == ENODEV);
    errno = 0;
    q = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(q == MAP_FAILED && errno == EINVAL);
    errno = 0;
    CHECK(munmap((void *)4097, 4096) == -1 && errno == EINVAL);
    void *a = aligned_alloc(256, 1000);
    CHECK(a && ((uintptr_t)a & 255) == 0);
    free(a);
    void *m = NULL;
    CHECK(posix_memalign(&m, 64, 100) == 0 && m && ((uintptr_t)m & 63) == 0);
    free(m);
    CHECK(posix_memalign(&m, 3, 100) == EINVAL);
}

TEST(getentropy_differs_and_limits)
{
    unsigned char a[64], b[64], big[300];

    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    CHECK(getentropy(a, sizeof a) == 0 && getentropy(b, sizeof b) == 0);
    CHECK(memcmp(a, b, sizeof a) != 0);
    CHECK(!all_zero(a, sizeof a));
    CHECK(getentropy(big, 256) == 0);
    errno = 0;
    CHECK(getentropy(big, 257) == -1 && errno == EIO);
    CHECK(getrandom(big, sizeof big, 0) == (ssize_t)sizeof big);
    errno = 0;
    CHECK(getrandom(big, 8, 0x80) == -1 && errno == EINVAL);
}

int main(void)
{
    return sp_test_main();
}
