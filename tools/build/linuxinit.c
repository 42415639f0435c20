/*
 * linuxinit.c - /init of the Linux guest of `make bench-apps`
 * (tools/build/linuxapps.sh builds it static and puts it in the guest's
 * initramfs; tools/bench/bench-apps.sh boots it).
 *
 *   /init [net=ADDR/PREFIX] [uid=N] [watch=SECS] PROG ARGS...
 *
 * The kernel hands init the words after "--" on its command line.  Init:
 *   1. loads the kernel modules that /modules/order names, in that order
 *      (the virtio-net driver and what it needs: Debian's kernel builds
 *      them as modules), from /modules/;
 *   2. mounts sysfs on /sys and prints the kernel's clocksource ("# init:
 *      clocksource tsc"): under TCG Linux may find the TSC unstable at
 *      boot and fall back to the HPET, which makes every clock read slow;
 *   3. with net=: brings lo up and gives eth0 ADDR/PREFIX and brings it
 *      up (no gateway: the benchmark's client is on the same link);
 *   4. raises RLIMIT_NOFILE to 65536, and with uid= drops to that user
 *      and its group (memcached will not run as root without -u, which
 *      would need /etc/passwd);
 *   5. runs PROG with ARGS as its child, with init's console as its
 *      standard streams, and waits for it;
 *      with watch=, every SECS seconds it prints "# watch: " lines: the
 *      per-CPU counts of the virtio interrupts (from /proc/interrupts)
 *      and, for each of PROG's threads, the CPU it last ran on and its
 *      CPU time so far (where the work and the interrupts land);
 *   6. prints "# exit status N" (or "# killed by signal N") and powers
 *      the machine off, which ends QEMU run with -no-reboot.
 * Lines from init itself start with "# init: "; a failure before PROG
 * runs prints one and powers off after "# exit status 125".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void halt(int status)
{
    printf("# exit status %d\n", status);
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    for (;;)
        pause();
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("# init: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    halt(125);
}

/* Step 1. */
static void load_modules(void)
{
    FILE *f = fopen("/modules/order", "r");
    char name[256], path[300];
    if (!f)
        return;
    while (fgets(name, sizeof name, f)) {
        name[strcspn(name, "\r\n")] = 0;
        if (!name[0])
            continue;
        snprintf(path, sizeof path, "/modules/%s", name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            fail("%s: %s", path, strerror(errno));
        if (syscall(SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST)
            fail("loading %s: %s", path, strerror(errno));
        close(fd);
    }
    fclose(f);
}

/* Step 2. */
static void show_clocksource(void)
{
    char cs[64] = "unknown";
    mkdir("/sys", 0755);
    if (mount("sysfs", "/sys", "sysfs", 0, NULL) == 0) {
        FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
        if (f) {
            if (fgets(cs, sizeof cs, f))
                cs[strcspn(cs, "\n")] = 0;
            fclose(f);
        }
    }
    printf("# init: clocksource %s\n", cs);
}

static void set_flags_up(int s, const char *dev)
{
    struct ifreq ifr = {0};
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
        fail("%s: %s", dev, strerror(errno));
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
        fail("%s up: %s", dev, strerror(errno));
}

static void set_addr(int s, const char *dev, unsigned long req, in_addr_t a)
{
    struct ifreq ifr = {0};
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = a};
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
    memcpy(&ifr.ifr_addr, &sin, sizeof sin);
    if (ioctl(s, req, &ifr) != 0)
        fail("%s: setting an address: %s", dev, strerror(errno));
}

/* Step 3: spec is ADDR/PREFIX. */
static void net_up(const char *spec)
{
    char addr[64];
    const char *slash = strchr(spec, '/');
    int prefix = slash ? atoi(slash + 1) : 24;
    snprintf(addr, sizeof addr, "%.*s", slash ? (int)(slash - spec) : (int)strlen(spec), spec);
    struct in_addr a;
    if (!inet_aton(addr, &a) || prefix < 1 || prefix > 32)
        fail("net=%s is not ADDR/PREFIX", spec);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        fail("socket: %s", strerror(errno));
    set_flags_up(s, "lo");
    /* eth0 exists once virtio_net has probed the NIC; give it 5 s. */
    for (int i = 0; i < 500 && if_nametoindex("eth0") == 0; i++)
        usleep(10000);
    if (if_nametoindex("eth0") == 0)
        fail("no eth0 (is the NIC a virtio-net one?)");
    set_addr(s, "eth0", SIOCSIFADDR, a.s_addr);
    set_addr(s, "eth0", SIOCSIFNETMASK, htonl(0xffffffffu << (32 - prefix)));
    set_flags_up(s, "eth0");
    close(s);
    printf("# init: eth0 %s/%d up\n", addr, prefix);
}

/* Step 5's watch: one round of "# watch: " lines about PROG (pid). */
static void watch_round(pid_t pid)
{
    char path[300], line[512];
    FILE *f = fopen("/proc/interrupts", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "virtio"))
            printf("# watch: irq %s", line);
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%s/stat", (int)pid, e->d_name);
        FILE *t = fopen(path, "r");
        if (!t)
            continue;
        if (fgets(line, sizeof line, t)) {
            /* After the ") ": state is field 3; utime 14, stime 15, processor 39. */
            char *p = strrchr(line, ')'), *tok, *save;
            char comm[64] = "";
            sscanf(line, "%*d (%63[^)]", comm);
            long v[40] = {0};
            int n = 3;
            for (tok = strtok_r(p ? p + 2 : line, " ", &save); tok && n < 40;
                 tok = strtok_r(NULL, " ", &save), n++)
                v[n] = atol(tok);
            printf("# watch: thread %s %s on cpu %ld, cpu time %ld ticks\n", e->d_name, comm,
                   v[39], v[14] + v[15]);
        }
        fclose(t);
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    int i = 1, uid = -1, watch = 0;
    const char *net = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (; i < argc; i++) {
        if (strncmp(argv[i], "net=", 4) == 0)
            net = argv[i] + 4;
        else if (strncmp(argv[i], "uid=", 4) == 0)
            uid = atoi(argv[i] + 4);
        else if (strncmp(argv[i], "watch=", 6) == 0)
            watch = atoi(argv[i] + 6);
        else
            break;
    }
    if (i == argc)
        fail("usage: /init [net=ADDR/PREFIX] [uid=N] [watch=SECS] PROG ARGS...");

    load_modules();
    show_clocksource();
    if (net)
        net_up(net);
    struct rlimit nofile = {65536, 65536};
    if (setrlimit(RLIMIT_NOFILE, &nofile) != 0)
        fail("setrlimit: %s", strerror(errno));

    pid_t pid = fork();
    if (pid < 0)
        fail("fork: %s", strerror(errno));
    if (pid == 0) {
        if (uid >= 0 && (setgid(uid) != 0 || setuid(uid) != 0))
            printf("# init: uid %d: %s\n", uid, strerror(errno));
        else {
            execv(argv[i], argv + i);
            printf("# init: %s: %s\n", argv[i], strerror(errno));
        }
        _exit(125);
    }
    printf("# init: started %s (pid %d)\n", argv[i], (int)pid);
    if (watch > 0) {
        mkdir("/proc", 0555);
        if (mount("proc", "/proc", "proc", 0, NULL) != 0)
            printf("# init: mounting /proc: %s\n", strerror(errno));
        for (;;) {
            siginfo_t si = {0};
            if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid != 0)
                break; /* PROG has ended: reaped below */
            sleep(watch);
            watch_round(pid);
        }
    }
    /* Init reaps every child; the machine ends with PROG. */
    for (;;) {
        int st;
        pid_t w = wait(&st);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            fail("wait: %s", strerror(errno));
        if (w != pid)
            continue;
        if (WIFSIGNALED(st)) {
            printf("# killed by signal %d\n", WTERMSIG(st));
            halt(128 + WTERMSIG(st));
        }
        halt(WEXITSTATUS(st));
    }
}
