/*
 * hog - a G that spins forever without calling anything cannot starve the
 * others: the core's timer preempts it after `quantum` (default 10 ms).
 * Run it on one core, where nothing else could rescue the sleeper:
 *
 *   make run APP=hog SMP=1
 *
 * A sleeper wakes every 1 ms for 2 s beside the hog and prints how late
 * its wake-ups were.
 */
#include <stdio.h>
#include <spindle/sched.h>
#include <spindle/time.h>

static volatile unsigned long spins;

static void hog(void *arg)
{
    for (;;)
        spins++;
}

int main(void)
{
    uint64_t start, late, worst = 0, total = 0;
    int n = 0;

    sp_go(hog, NULL);
    start = sp_nanotime();
    while (sp_nanotime() - start < SP_S(2)) {
        uint64_t t0 = sp_nanotime();

        sp_sleep(SP_MS(1));
        late = sp_nanotime() - t0 - SP_MS(1);
        total += late;
        worst = late > worst ? late : worst;
        n++;
    }
    printf("%d sleeps of 1 ms beside a hog that spun %lu times: "
           "lateness mean %llu us, max %llu us\n", n, spins,
           (unsigned long long)(total / n / 1000),
           (unsigned long long)(worst / 1000));
    return 0;
}
