/*
 * schedtrace - schedtrace=N prints Go's scheduler trace line every N ms
 * while cores schedule (booted once per `cmdline` of `test.conf`), with
 * scheddetail=1 followed by a line per P and per M; a bad period prints
 * a message and no lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include "kernel/export_test.h"

#define RUN_NS 700000000ULL
#define TAP_SIZE 65536

static char tap[TAP_SIZE];
static long nbusy;

static void busy(void *arg)
{
    uint64_t end = sp_nanotime() + RUN_NS;

    while (sp_nanotime() < end)
        sp_yield();         /* keep the scheduler loop turning */
    __atomic_add_fetch(&nbusy, -1, __ATOMIC_RELEASE);
}

/* Checks one line against Go's format; returns why not, or NULL. */
static const char *check_line(const char *l, long *ms)
{
    int procs, idle, threads, spin, idlet, n = 0;
    unsigned q;
    const char *b;

    if (sscanf(l, "SCHED %ldms: gomaxprocs=%d idleprocs=%d threads=%d "
               "spinningthreads=%d idlethreads=%d runqueue=%u [", ms, &procs,
               &idle, &threads, &spin, &idlet, &q) != 7)
        return "line not in Go's schedtrace format";
    if (procs != sp_ncpu() || threads != sp_ncpu())
        return "gomaxprocs/threads is not the core count";
    if (idle < 0 || idle > procs || spin < 0 || spin > procs)
        return "idle or spinning count out of range";
    for (b = strchr(l, '['); b && *b != ']'; b++)
        if (*b >= '0' && *b <= '9' && (b[-1] == '[' || b[-1] == ' '))
            n++;
    return n == procs ? NULL : "not one local queue length per P";
}

/* With scheddetail=1: after the line at l, one "  P<i>:" line per P,
   then one "  M<i>:" line per M; returns why not, or NULL.  The tap may
   end inside the last block, which a core was still printing. */
static const char *check_detail(const char *l)
{
    char want[16];

    for (int k = 0; k < 2 * sp_ncpu(); k++) {
        l = strchr(l, '\n');
        if (!l || !*++l)
            return NULL;
        snprintf(want, sizeof want, "  %c%d: ", k < sp_ncpu() ? 'P' : 'M',
                 k % sp_ncpu());
        if (strncmp(l, want, strlen(want)) != 0)
            return "detail lines not one per P, then one per M";
    }
    return NULL;
}

TEST(trace_lines)
{
    const char *period, *arg, *l;
    long lines = 0, ms, last = -1;
    size_t len;
    bool on, detail;

    on = cmdline_get("schedtrace", &period) && atoi(period) > 0;
    detail = cmdline_get("scheddetail", &arg) && strcmp(arg, "1") == 0;
    console_tap(tap, TAP_SIZE - 1);
    nbusy = sp_ncpu();
    for (int i = 0; i < sp_ncpu(); i++)
        sp_go(busy, NULL);
    while (__atomic_load_n(&nbusy, __ATOMIC_ACQUIRE) > 0)
        sp_yield();
    len = console_tap(NULL, 0);
    tap[len] = 0;
    for (l = strstr(tap, "SCHED "); l; l = strstr(l + 1, "SCHED ")) {
        const char *why = check_line(l, &ms);

        CHECKF(!why, "%s: %.120s", why, l);
        why = detail ? check_detail(l) : NULL;
        CHECKF(!why, "%s: %.300s", why, l);
        CHECKF(ms > last, "times go backwards: %ld after %ld", ms, last);
        last = ms;
        lines++;
    }
    if (on)
        CHECKF(lines >= 4, "%ld lines in %llu ms at schedtrace=%s", lines,
               RUN_NS / 1000000, period);
    else
        CHECKF(lines == 0, "%ld lines with schedtrace=%s", lines, period);
}

int main(void)
{
    return sp_test_main();
}
