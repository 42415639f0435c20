/*
 * time.c - the app-facing clocks, sleep and timers (include/spindle/
 * time.h), built on the per-P timer heaps of timers.c.
 *
 * sleep arms its timer from gopark's unlock callback, which runs on the
 * M once the G is off its stack: the timer cannot fire and goready the G
 * before it is parked (Go's resetForSleep does the same).
 */
#include <stdlib.h>
#include "arch/arch.h"
#include "kernel/panic.h"
#include "sched/schedimpl.h"
#include <spindle/time.h>
#include "sched/timers.h"

struct sp_timer {
    struct timer t;
    sp_chan *c;                 /* NULL for sp_after_func */
    void (*fn)(void *);
    void *arg;
};

static uint64_t wall0;          /* wall ns at sp_nanotime() == 0 */

/* A deadline no timer reaches: a duration too long for the cycle counter
   (centuries) ends there rather than wrapping round to a time already
   past (Go clamps its deadlines to maxWhen the same way). */
#define TIME_NEVER ((uint64_t)INT64_MAX)

/* ns in cycles, at most TIME_NEVER. */
static uint64_t ns_to_cycles(uint64_t ns)
{
    __uint128_t c = (__uint128_t)ns * arch_cycles_hz() / 1000000000;

    return c < TIME_NEVER ? (uint64_t)c : TIME_NEVER;
}

/* A duration above INT64_MAX is a negative one (Go's are int64) passed
   as unsigned: already over. */
static bool negative(uint64_t ns)
{
    return ns > (uint64_t)INT64_MAX;
}

/* A ticker's period in cycles: at least one, however fast it asks to
   tick (a 62.5 MHz counter has 16 ns cycles; a period of 0 cycles would
   make it a one-shot timer). */
static uint64_t period_cycles(uint64_t ns)
{
    uint64_t c = ns_to_cycles(ns);

    return c ? c : 1;
}

/* The arch_cycles() deadline ns from now, at most TIME_NEVER; now for a
   negative ns. */
static uint64_t deadline_after(uint64_t ns)
{
    uint64_t now = arch_cycles(), c = negative(ns) ? 0 : ns_to_cycles(ns);

    return c < TIME_NEVER - now ? now + c : TIME_NEVER;
}

uint64_t sp_nanotime(void)
{
    uint64_t c = arch_cycles(), hz = arch_cycles_hz();

    return c / hz * 1000000000 + c % hz * 1000000000 / hz;
}

void time_init(void)
{
    uint64_t s = arch_wallclock();

    wall0 = s ? s * 1000000000 - sp_nanotime() : 0;
}

uint64_t sp_walltime(void)
{
    return wall0 + sp_nanotime();
}

/* ---- sleep ------------------------------------------------------------ */

struct sleeper {
    struct timer t;
    uint64_t when;
};

static void sleep_wake(void *gp)
{
    goready(gp);
}

static bool sleep_arm(struct g *gp, void *arg)
{
    struct sleeper *s = arg;

    timer_start(&s->t, s->when, 0);
    return true;
}

void sp_sleep(uint64_t ns)
{
    struct sleeper s;

    if (!ns || negative(ns))
        return;
    s.when = deadline_after(ns);
    timer_init(&s.t, sleep_wake, getg());
    gopark(sleep_arm, &s, WAIT_SLEEP);
}

/* ---- timers and tickers ----------------------------------------------- */

/* Timer functions run off any G, interrupts off: only non-blocking work. */
static void send_time(void *arg)
{
    struct sp_timer *t = arg;
    uint64_t now = sp_nanotime();

    sp_chan_trysend(t->c, &now);    /* a full channel drops the tick */
}

static void start_fn(void *arg)
{
    struct sp_timer *t = arg;

    newproc(t->fn, t->arg);
}

static sp_timer *make(uint64_t ns, uint64_t period, void (*f)(void *),
                      bool chan)
{
    struct sp_timer *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    if (chan && !(t->c = sp_chan_make(sizeof(uint64_t), 1))) {
        free(t);
        return NULL;
    }
    timer_init(&t->t, f, t);
    timer_start(&t->t, deadline_after(ns),
                period ? period_cycles(period) : 0);
    return t;
}

sp_timer *sp_timer_new(uint64_t ns)
{
    return make(ns, 0, send_time, true);
}

sp_ticker *sp_ticker_new(uint64_t period)
{
    if (!period || negative(period))
        panic("non-positive interval for NewTicker");
    return make(period, period, send_time, true);
}

sp_timer *sp_after_func(uint64_t ns, void (*fn)(void *), void *arg)
{
    struct sp_timer *t;

    if (!fn)                    /* Go's would fail when it fires */
        panic("go of nil func value");
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    timer_init(&t->t, start_fn, t);
    timer_start(&t->t, deadline_after(ns), 0);
    return t;
}

sp_chan *sp_timer_chan(sp_timer *t)
{
    return t->c;
}

/*
 * Go 1.23's synchronous timer channels: once a channel timer's stop or
 * reset returns, no value of its earlier settings can be received.  A
 * run of send_time in progress is waited out (a one-shot's goes on after
 * timer_stop found it idle), then a value it left unreceived is taken
 * back; the timer then counts as stopped while pending, as in Go.  From
 * a timer function (interrupts off) there is no waiting: only the drain.
 */
static bool drain(struct sp_timer *t)
{
    uint64_t v;
    bool took = false;

    if (!t->c)
        return false;
    if (arch_irqs_enabled())
        timer_wait(&t->t);
    while (sp_chan_tryrecv(t->c, &v, NULL))
        took = true;
    return took;
}

bool sp_timer_stop(sp_timer *t)
{
    bool was;

    if (!t)
        panic("time: Stop called on uninitialized Timer");
    was = timer_stop(&t->t);
    return drain(t) || was;
}

bool sp_timer_reset(sp_timer *t, uint64_t ns)
{
    uint64_t period = 0;
    bool was = false;

    if (!t)
        panic("time: Reset called on uninitialized Timer");
    if (t->t.period) {          /* a ticker: ns is its new period */
        if (!ns || negative(ns))
            panic("non-positive interval for Ticker.Reset");
        period = period_cycles(ns);
    }
    if (t->c)                   /* Go 1.23: nothing of the old settings */
        was = sp_timer_stop(t);
    return timer_reset(&t->t, deadline_after(ns), period) || was;
}

void sp_timer_free(sp_timer *t)
{
    if (!t)
        return;
    timer_destroy(&t->t);
    sp_chan_free(t->c);
    free(t);
}

int sp_chan_recv_timeout(sp_chan *c, void *elem, uint64_t ns, bool *ok)
{
    sp_timer *t = sp_timer_new(ns);
    struct sp_case cases[2] = {
        { .ch = c, .dir = SP_RECV, .elem = elem },
        { .ch = t ? t->c : NULL, .dir = SP_RECV },
    };
    int i;

    if (!t)
        panic("sp_chan_recv_timeout: out of memory for a timer");
    i = sp_select(cases, 2, true);
    sp_timer_free(t);
    if (i == 0 && ok)
        *ok = cases[0].ok;
    return i == 0;
}
