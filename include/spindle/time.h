/*
 * spindle/time.h - clocks, sleeping and timers (Go's time package).
 *
 * All durations are nanoseconds.  Sleeping parks the G, never the core;
 * an idle core halts until its next timer.  Timer functions and channel
 * sends happen on the core of the P that started the timer.  Durations
 * are Go's, int64 nanoseconds passed as unsigned: one above INT64_MAX is
 * a negative duration, already over (a sleep returns at once, a timer
 * fires at once; a ticker's interval must be positive).  A duration too
 * long for the machine's cycle counter (centuries) ends in a future no
 * timer reaches, never in the past: such a timer does not fire and such
 * a sleep does not end (Go clamps its deadlines the same way).
 *
 * Timers follow Go 1.23: a timer's or ticker's channel is synchronous in
 * effect.  Once sp_timer_stop or sp_timer_reset returns, no value sent
 * for the timer's earlier settings can be received from its channel, not
 * even one sent before the call and not yet received (the call takes it
 * back).  The other half of Go 1.23's change, collecting timers no one
 * references, has no meaning without a garbage collector: free them with
 * sp_timer_free.
 *
 *   sp_sleep(SP_MS(5));
 *   sp_timer *t = sp_timer_new(SP_MS(100));       like time.NewTimer
 *   sp_chan_recv(sp_timer_chan(t), &when);        fires once: a uint64_t
 *   sp_ticker *k = sp_ticker_new(SP_MS(10));      like time.NewTicker
 *   sp_timer *f = sp_after_func(SP_MS(1), fn, arg);   fn runs in a new G
 */
#ifndef SPINDLE_TIME_H
#define SPINDLE_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <spindle/chan.h>

#define SP_US(n) ((uint64_t)(n) * 1000)
#define SP_MS(n) ((uint64_t)(n) * 1000000)
#define SP_S(n)  ((uint64_t)(n) * 1000000000)

/* Monotonic nanoseconds since boot, the same on every core. */
uint64_t sp_nanotime(void);

/* Wall-clock nanoseconds since 1970 (the RTC at boot plus sp_nanotime). */
uint64_t sp_walltime(void);

/* Parks the calling G for at least ns nanoseconds. */
void sp_sleep(uint64_t ns);

typedef struct sp_timer sp_timer;
typedef struct sp_timer sp_ticker;

/*
 * A timer whose channel (capacity 1) receives the sp_nanotime() of its
 * firing, once, after ns (Go's time.NewTimer).
 */
sp_timer *sp_timer_new(uint64_t ns);
sp_chan *sp_timer_chan(sp_timer *t);

/* After ns, runs fn(arg) in a new G (Go's time.AfterFunc). */
sp_timer *sp_after_func(uint64_t ns, void (*fn)(void *), void *arg);

/*
 * True if the timer was pending and now will not fire, or had fired and
 * its value was not yet received (taken back now); false if it had
 * fired and been received, or been stopped already (Go 1.23's
 * Timer.Stop).  A live ticker's stop returns true.  Nothing from the
 * timer arrives after it returns.
 *
 * Stop, reset and free may race the timer's firing on another core.  One
 * timer must not be reset or freed by two Gs at once.
 */
bool sp_timer_stop(sp_timer *t);

/*
 * Re-arms the timer to fire after ns, whether it was pending, fired or
 * stopped, with what sp_timer_stop returns for its earlier settings.  A
 * ticker's ns is its new period too (Go's Ticker.Reset), and must not be
 * 0 (a panic, as in Go).
 */
bool sp_timer_reset(sp_timer *t, uint64_t ns);

/* Stops the timer and frees it (and its channel), once any run of its
   function in progress on another core is over. */
void sp_timer_free(sp_timer *t);

/*
 * A ticker: its channel (capacity 1) receives the time every period ns;
 * ticks a slow receiver misses are dropped, and the phase never drifts
 * (Go's time.NewTicker).  Stop and free with sp_timer_stop/free.
 */
sp_ticker *sp_ticker_new(uint64_t period);

/*
 * Receives from c, waiting at most ns.  Returns 1 and sets *ok as
 * sp_chan_recv would, or 0 on timeout.
 */
int sp_chan_recv_timeout(sp_chan *c, void *elem, uint64_t ns, bool *ok);

/*
 * How many times, since boot, a core's timer interrupt arrived more than
 * 1 ms after the deadline it was set for.  Interrupts held off that long
 * count, and so do delays of the machine under the guest: under an
 * emulator, the host's.
 */
uint64_t sp_timer_irqs_late(void);

#endif
