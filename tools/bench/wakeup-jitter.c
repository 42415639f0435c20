/*
 * wakeup-jitter.c - how late a sleeping host thread wakes while as many
 * threads of the same process as the host has CPUs spin.
 *
 * This is QEMU's situation under TCG when every vCPU is busy: the
 * guest's core timers are QEMU timers that its main-loop thread fires,
 * so a guest timer interrupt is as late as that thread's wakeup.  The
 * README's `timers` notes quote this program's output.
 *
 *   gcc -O2 -pthread tools/bench/wakeup-jitter.c -o /tmp/wakeup-jitter
 *   /tmp/wakeup-jitter [spinners]      (default: the number of host CPUs)
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void *spin(void *arg)
{
    (void)arg;
    while (!stop)
        ;
    return NULL;
}

int main(int argc, char **argv)
{
    long nspin = argc > 1 ? atol(argv[1]) : sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t t[256];

    if (nspin < 0 || nspin > 256) {
        fprintf(stderr, "usage: %s [spinners, 0..256]\n", argv[0]);
        return 2;
    }
    for (long i = 0; i < nspin; i++)
        pthread_create(&t[i], NULL, spin, NULL);
    printf("%ld spinning threads\n", nspin);
    for (long us = 20; us <= 2000; us *= 10) {
        long n = 2000000 / (us + 50), sum = 0, max = 0, over1ms = 0;

        for (long i = 0; i < n; i++) {
            struct timespec ts = { 0, us * 1000 };
            long t0 = now_ns(), late;

            ppoll(NULL, 0, &ts, NULL);
            late = now_ns() - t0 - us * 1000;
            sum += late;
            max = late > max ? late : max;
            over1ms += late > 1000000;
        }
        printf("sleep %4ld us x %5ld: late mean %ld us, max %ld us, "
               "%ld over 1 ms\n", us, n, sum / n / 1000, max / 1000,
               over1ms);
    }
    stop = 1;
    for (long i = 0; i < nspin; i++)
        pthread_join(t[i], NULL);
    return 0;
}
