/*
 * trace - the execution tracer on a program of known shape (booted with
 * trace=1; test.conf has the host's check of the dump).
 *
 * A chain of N Gs passes a token: main sends it to link 0 over an
 * unbuffered channel, link i to link i+1, and the last back to main.  Of
 * the two ends of each of the N + 1 hand-overs exactly one parks (the one
 * that came first) and the other readies it, so segment 1 of the dump -
 * between the two sp_trace_flush calls, with nothing else running -
 * holds exactly N creates, N + 1 parks, N + 1 readies and N exits, and
 * tools/run/trace.py checks those counts and every G's state sequence.
 */
#include <stdint.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/trace.h>
#include "sched/export_test.h"

#define N 64

static sp_chan *ch[N + 1];

static void link_run(void *arg)
{
    intptr_t i = (intptr_t)arg;
    int tok;

    sp_chan_recv(ch[i], &tok);
    tok++;
    sp_chan_send(ch[i + 1], &tok);
}

TEST(tracer_is_on)
{
    CHECK(sp_trace_on());
}

TEST(token_chain)
{
    struct sp_trace_stats st;
    long base;
    int tok = 0;

    for (int i = 0; i <= N; i++)
        CHECK((ch[i] = sp_chan_make(sizeof(int), 0)) != NULL);
    base = sched_live_gs();
    sp_trace_flush();           /* segment 0: the boot, up to here */
    for (intptr_t i = 0; i < N; i++)
        sp_go(link_run, (void *)i);
    sp_chan_send(ch[0], &tok);
    sp_chan_recv(ch[N], &tok);
    /* Every link has exited (and traced it) once it is dead. */
    while (sched_live_gs() > base)
        sp_yield();
    sp_trace_stats(&st);
    sp_trace_flush();           /* segment 1: the chain alone */
    CHECKF(tok == N, "the token came back as %d", tok);
    CHECKF(st.lost == 0, "%llu of %llu events lost",
           (unsigned long long)st.lost, (unsigned long long)st.events);
    /* At least a create, start, stop and a park or ready per link. */
    CHECKF(st.events >= 4 * N, "only %llu events",
           (unsigned long long)st.events);
    for (int i = 0; i <= N; i++)
        sp_chan_free(ch[i]);
}

TEST(mark_and_stats)
{
    struct sp_trace_stats a, b;

    sp_trace_stats(&a);
    for (int i = 0; i < 10; i++)
        sp_trace_mark(i);
    sp_trace_stats(&b);
    /* Other cores may add their own events meanwhile, never fewer. */
    CHECKF(b.events >= a.events + 10, "%llu then %llu events",
           (unsigned long long)a.events, (unsigned long long)b.events);
}

int main(void)
{
    return sp_test_main();
}
