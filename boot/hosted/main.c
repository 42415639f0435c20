/*
 * main.c (hosted) - the boot path of a Spindle that runs as a Linux
 * process: the process's main() turns its arguments into struct bootinfo
 * and enters the generic kernel, as the firmware paths do.
 *
 *   <image> [-smp N] [-m MiB] [-initrd FILE] [kernel command line words...]
 *
 * -smp is the machine's core count (QEMU's -smp; default: the host's
 * CPUs), -m its RAM (default 1024 MiB), -initrd a file read into the top
 * of that RAM as the initrd (QEMU's -initrd; kernel/initrd.h), at most
 * half of it; the other words, joined by spaces, are the kernel command
 * line (QEMU's -append), so "smp=2 -- a b" works as it does under QEMU.
 *
 * The app's main() is renamed spindle_main at compile time (the Makefile's
 * -Dmain=spindle_main), which kernel/main.c calls as G 1; the real main()
 * is here.
 */
#undef main
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/hosted/hosted.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu.h"

#define CMDLINE_MAX 1024

static struct bootinfo bi;
static char cmdline[CMDLINE_MAX];

static void usage(void)
{
    fprintf(stderr, "usage: <image> [-smp N] [-m MiB] [-initrd FILE] "
            "[command line...]\n");
    exit(2);
}

/* Reads the file at path into the top pages of the machine's RAM (bi's
   one usable range), as QEMU loads -initrd into the guest's, for
   kernel_main to check and reserve.  A file that cannot be read or
   takes more than half the RAM ends the process, as QEMU ends. */
static void load_initrd(const char *path, struct bootinfo *bi)
{
    const struct memrange *ram = &bi->usable[0];
    struct stat st;
    uint64_t at;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0 || fstat(fd, &st)) {
        fprintf(stderr, "-initrd %s: %s\n", path, strerror(errno));
        exit(2);
    }
    if ((uint64_t)st.st_size > ram->len / 2) {
        fprintf(stderr, "-initrd %s: %lld bytes, more than half the RAM (-m)\n",
                path, (long long)st.st_size);
        exit(2);
    }
    at = (ram->base + ram->len - st.st_size) & ~(uint64_t)(PAGE_SIZE - 1);
    for (off_t done = 0; done < st.st_size;) {
        ssize_t n = read(fd, (char *)at + done, st.st_size - done);

        if (n <= 0) {
            fprintf(stderr, "-initrd %s: %s\n", path,
                    n ? strerror(errno) : "shorter than its size");
            exit(2);
        }
        done += n;
    }
    close(fd);
    bi->initrd = at;
    bi->initrd_size = st.st_size;
    bi->initrd_from = "hosted";
}

static long number(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (!*s || *end || v < 1)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    const char *initrd = NULL;
    long mib = 1024;
    int i = 1;

    bi.entry_cycles = arch_cycles();
    /* One malloc arena for every core, as bare metal has newlib's one
       heap: glibc would set one up for each thread (core) as it first
       allocates, a few KiB in use from then on whenever that is, which
       the soak's leak check cannot tell from a leak. */
    mallopt(M_ARENA_MAX, 1);
    hosted_image_path = argv[0];
    hosted_host_cpus = sysconf(_SC_NPROCESSORS_ONLN);
    hosted_machine_cores = hosted_host_cpus;
    for (; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-smp"))
            hosted_machine_cores = number(argv[i + 1]);
        else if (!strcmp(argv[i], "-m"))
            mib = number(argv[i + 1]);
        else if (!strcmp(argv[i], "-initrd"))
            initrd = argv[i + 1];
        else
            break;
    }
    if (hosted_machine_cores > MAXCPU)
        hosted_machine_cores = MAXCPU;
    for (; i < argc; i++) {
        size_t len = strlen(cmdline);

        snprintf(cmdline + len, sizeof cmdline - len, "%s%s", len ? " " : "",
                 argv[i]);
    }
    bi.cmdline = cmdline;
    boot_info = &bi;
    arch_early_init(&bi);
    hosted_ram_init(&bi, (size_t)mib << 20);
    if (initrd)
        load_initrd(initrd, &bi);
    kernel_main(&bi);
    return 0;
}
