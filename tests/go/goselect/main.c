/*
 * goselect - Go's own tests of select, ported: the select cases of
 * runtime/chan_test.go and the select programs of Go's test/chan/
 * (doubleselect.go, select*.go, sieve2.go).  Each case is named after
 * the Go test it ports (a test/chan program by its file name) and keeps
 * that test's assertion; the counts are Go's, or scaled as noted (never
 * below its -short ones, testing.Short()), so that the image runs in
 * seconds under TCG and under TSan.
 *
 * Not ported (Spindle's API cannot express them, or they test something
 * else):
 *   - The GOMAXPROCS changes of TestSelfSelect (2) and TestSelectStress
 *     (10), and doubleselect.go's (2): the core count is fixed at boot;
 *     the cases run at whatever count booted.
 *   - TestSelectStackAdjust's runtime.GC() and stack shrinking: no
 *     equivalent; the port keeps the select over duplicate and pointer
 *     cases and its check that the pointer a case did not run for is
 *     left alone.
 *   - TestChanSendInterface sends interface values; Spindle's channels
 *     carry bytes, so the port sends pointers (what an interface holding
 *     a pointer is), with the same selects.
 *   - select3.go's testPanic(always, ...) cases (a send on a closed
 *     channel, plain and in a select, panics): a Spindle panic cannot be
 *     recovered; both are tests/go/fatal_send_closed.  Its
 *     testPanic(never, ...) cases are ported as checks that the default
 *     case ran.
 *   - select4.go's point is that Go does not evaluate the left-hand side
 *     of a case that does not run; in C the destination is a pointer the
 *     caller computes, so the port checks that it is not written.
 *   - select5.go: a generator of Go programs that check the order in
 *     which a select evaluates its case expressions, a compile-time
 *     matter of Go's; C evaluates the cases' fields before sp_select.
 *   - select8.go's `break` inside a select: a statement of Go's; the
 *     port keeps its selects of one, two and three cases.
 *   - reflect.Select (reflect's tests): no reflection.
 *   - select2.go's runtime.GC() and MemStats: the port measures the heap
 *     in use with malloc_stats (tests/lib/testutil.h's heap_in_use).
 *   - Benchmarks (BenchmarkSelect*).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "tests/lib/gotest.h"
#include "tests/lib/testutil.h"

/* ---- TestNonblockSelectRace, TestNonblockSelectRace2 ----------------- */

/*
 * A select acts on the state of its channels at one moment, not over a
 * smeared window: from the moment the G is made, c1 or c2 is always
 * ready, so its select with a default must always receive.
 */
#define NBSR_N (SP_TSAN ? 5000 : 10000)     /* Go: 100000, 1000 -short */

struct nbsr {
    sp_chan *c1, *c2, *done;
};

static void nbsr_select(void *arg)
{
    struct nbsr *s = arg;
    struct sp_case cs[2] = { { s->c1, SP_RECV, NULL, false },
                             { s->c2, SP_RECV, NULL, false } };
    bool got = sp_select(cs, 2, false) >= 0;

    sp_chan_send(s->done, &got);
}

static void nonblock_select_race(bool close_c2)
{
    struct nbsr s = { .done = sp_chan_make(sizeof(bool), 1) };

    CHECK(s.done);
    for (int i = 0; i < NBSR_N; i++) {
        bool got = false;

        s.c1 = sp_chan_make(sizeof(int), 1);
        s.c2 = sp_chan_make(sizeof(int), close_c2 ? 0 : 1);
        CHECK(s.c1 && s.c2);
        sp_chan_send(s.c1, &(int){ 1 });
        sp_go(nbsr_select, &s);
        if (close_c2)
            sp_chan_close(s.c2);
        else
            sp_chan_send(s.c2, &(int){ 1 });
        sp_chan_tryrecv(s.c1, NULL, NULL);
        sp_chan_recv(s.done, &got);
        CHECKF(got, "no chan is ready (round %d)", i);
        sp_chan_free(s.c1);
        sp_chan_free(s.c2);
    }
    sp_chan_free(s.done);
}

/* runtime/chan_test.go */
TEST(TestNonblockSelectRace)
{
    nonblock_select_race(false);
}

/* runtime/chan_test.go (close(c2) for c2 <- 1) */
TEST(TestNonblockSelectRace2)
{
    nonblock_select_race(true);
}

/* ---- TestSelfSelect -------------------------------------------------- */

/* Sending and receiving on the same channel in one select neither crashes
   nor deadlocks, and an unbuffered channel never hands a G its own
   value. */
struct self {
    sp_chan *c, *done;
    int cap;
    int bad;
};

static struct self self_s;

static void self_select(void *arg)
{
    struct self *s = &self_s;
    int p = (int)(uintptr_t)arg, v = -1, sendv = p;

    for (int i = 0; i < 1000; i++) {
        struct sp_case cs[2];
        int k;

        /* Two orders of the cases, as Go's two selects. */
        if (p == 0 || i % 2 == 0) {
            cs[0] = (struct sp_case){ s->c, SP_SEND, &sendv, false };
            cs[1] = (struct sp_case){ s->c, SP_RECV, &v, false };
            k = sp_select(cs, 2, true);
            if (k == 1 && s->cap == 0 && v == p) {
                store(&s->bad, 1);      /* self receive */
                break;
            }
        } else {
            cs[0] = (struct sp_case){ s->c, SP_RECV, &v, false };
            cs[1] = (struct sp_case){ s->c, SP_SEND, &sendv, false };
            k = sp_select(cs, 2, true);
            if (k == 0 && s->cap == 0 && v == p) {
                store(&s->bad, 1);
                break;
            }
        }
    }
    sp_chan_send(s->done, NULL);
}

/* runtime/chan_test.go */
TEST(TestSelfSelect)
{
    static const int caps[] = { 0, 10 };

    for (int j = 0; j < 2; j++) {
        struct self *s = &self_s;

        *s = (struct self){ sp_chan_make(sizeof(int), caps[j]),
                            sp_chan_make(0, 2), caps[j], 0 };
        CHECK(s->c && s->done);
        for (int p = 0; p < 2; p++)
            sp_go(self_select, (void *)(uintptr_t)p);
        /* A G that stopped at a self receive leaves its peer waiting. */
        CHECKF(recv_wait(s->done, NULL), "cap %d: deadlock", caps[j]);
        CHECKF(!load(&s->bad), "self receive (cap %d)", caps[j]);
        CHECKF(recv_wait(s->done, NULL), "cap %d: deadlock", caps[j]);
        CHECKF(!load(&s->bad), "self receive (cap %d)", caps[j]);
        sp_chan_free(s->c);
        sp_chan_free(s->done);
    }
}

/* ---- TestSelectStress ------------------------------------------------ */

/*
 * Four Gs send N values on each of four channels (two unbuffered, two
 * buffered), four receive N from each, one sends N on each in a single
 * select, one receives N from each in a single select, dropping each
 * channel from its select (nil) once done with it.  All of it must end.
 */
#define SS_N 10000              /* Go: 100000, 10000 under -short */

static sp_chan *ss_c[4];
static sp_waitgroup ss_wg;

static void ss_sender(void *arg)
{
    sp_chan *c = arg;

    for (int i = 0; i < SS_N; i++)
        sp_chan_send(c, &(int){ 0 });
    sp_waitgroup_done(&ss_wg);
}

static void ss_receiver(void *arg)
{
    sp_chan *c = arg;

    for (int i = 0; i < SS_N; i++)
        sp_chan_recv(c, NULL);
    sp_waitgroup_done(&ss_wg);
}

static void ss_select(void *arg)
{
    int dir = (int)(uintptr_t)arg, n[4] = { 0 }, zero = 0, v;
    /* Go's senders list the cases 3, 2, 0, 1; its receiver 0, 1, 2, 3. */
    static const int send_order[4] = { 3, 2, 0, 1 };
    struct sp_case cs[4];

    for (int k = 0; k < 4; k++) {
        int ch = dir == SP_SEND ? send_order[k] : k;

        cs[k] = (struct sp_case){ ss_c[ch], dir,
                                  dir == SP_SEND ? &zero : &v, false };
    }
    for (int i = 0; i < 4 * SS_N; i++) {
        int k = sp_select(cs, 4, true);
        int ch = dir == SP_SEND ? send_order[k] : k;

        if (++n[ch] == SS_N)
            cs[k].ch = NULL;    /* c1[ch] = nil */
    }
    sp_waitgroup_done(&ss_wg);
}

/* runtime/chan_test.go */
TEST(TestSelectStress)
{
    ss_c[0] = sp_chan_make(sizeof(int), 0);
    ss_c[1] = sp_chan_make(sizeof(int), 0);
    ss_c[2] = sp_chan_make(sizeof(int), 2);
    ss_c[3] = sp_chan_make(sizeof(int), 3);
    for (int k = 0; k < 4; k++)
        CHECK(ss_c[k]);
    sp_waitgroup_add(&ss_wg, 10);
    for (int k = 0; k < 4; k++) {
        sp_go(ss_sender, ss_c[k]);
        sp_go(ss_receiver, ss_c[k]);
    }
    sp_go(ss_select, (void *)(uintptr_t)SP_SEND);
    sp_go(ss_select, (void *)(uintptr_t)SP_RECV);
    /* wg.Wait(), bounded: a deadlock fails the case, not the boot. */
    CHECKF(wg_wait(&ss_wg), "deadlock");
    for (int k = 0; k < 4; k++)
        sp_chan_free(ss_c[k]);
}

/* ---- TestSelectFairness ---------------------------------------------- */

#define SF_TRIALS 10000

struct sf {
    sp_chan *c1, *c2, *c3, *c4, *out, *done, *finished;
};

static void sf_selector(void *arg)
{
    struct sf *s = arg;

    for (;;) {
        unsigned char b = 0;
        struct sp_case in[4] = { { s->c3, SP_RECV, &b, false },
                                 { s->c4, SP_RECV, &b, false },
                                 { s->c1, SP_RECV, &b, false },
                                 { s->c2, SP_RECV, &b, false } };
        struct sp_case out[2] = { { s->out, SP_SEND, &b, false },
                                  { s->done, SP_RECV, NULL, false } };

        sp_select(in, 4, true);
        if (sp_select(out, 2, true) == 1)
            break;
    }
    sp_chan_send(s->finished, NULL);    /* wg.Done() */
}

/* runtime/chan_test.go */
TEST(TestSelectFairness)
{
    struct sf s = { sp_chan_make(1, SF_TRIALS + 1),
                    sp_chan_make(1, SF_TRIALS + 1), sp_chan_make(1, 0),
                    sp_chan_make(1, 0), sp_chan_make(1, 0),
                    sp_chan_make(0, 0), sp_chan_make(0, 1) };
    int cnt1 = 0, cnt2 = 0;
    /* If the select is fair, cnt1 and cnt2 are about the same; more
       than 10 sigma off is unfair (some systematic bias is fine). */
    const double mean = SF_TRIALS * 0.5;
    const double stddev = sqrt(SF_TRIALS * 0.5 * (1 - 0.5));

    CHECK(s.c1 && s.c2 && s.c3 && s.c4 && s.out && s.done && s.finished);
    for (int i = 0; i < SF_TRIALS + 1; i++) {
        sp_chan_send(s.c1, &(unsigned char){ 1 });
        sp_chan_send(s.c2, &(unsigned char){ 2 });
    }
    sp_go(sf_selector, &s);
    for (int i = 0; i < SF_TRIALS; i++) {
        unsigned char b = 0;

        CHECK(recv_wait(s.out, &b));
        if (b == 1)
            cnt1++;
        else if (b == 2)
            cnt2++;
        else
            CHECKF(0, "unexpected value %d on channel", b);
    }
    CHECKF(fabs(cnt1 - mean) <= 10 * stddev,
           "unfair select: in %d trials, results were %d, %d", SF_TRIALS,
           cnt1, cnt2);
    sp_chan_close(s.done);
    CHECK(recv_wait(s.finished, NULL));
    sp_chan_free(s.c1);
    sp_chan_free(s.c2);
    sp_chan_free(s.c3);
    sp_chan_free(s.c4);
    sp_chan_free(s.out);
    sp_chan_free(s.done);
    sp_chan_free(s.finished);
}

/* ---- TestChanSendInterface ------------------------------------------- */

struct mt {
    int unused;
};

/* runtime/chan_test.go (pointers for the interface values) */
TEST(TestChanSendInterface)
{
    static struct mt m0;
    struct mt *m = &m0, *other = malloc(sizeof *other);
    sp_chan *c = sp_chan_make(sizeof(void *), 1);
    struct sp_case one[1] = { { c, SP_SEND, &m, false } };
    struct sp_case two[2] = { { c, SP_SEND, &m, false },
                              { c, SP_SEND, &other, false } };
    void *got = NULL;

    CHECK(c && other);
    sp_chan_send(c, &m);
    /* c is full: both selects take their default. */
    CHECK(sp_select(one, 1, false) == -1);
    CHECK(sp_select(two, 2, false) == -1);
    CHECK(sp_chan_len(c) == 1);
    CHECK(sp_chan_recv(c, &got) && got == m);
    sp_chan_free(c);
    free(other);
}

/* ---- TestPseudoRandomSend -------------------------------------------- */

#define PRS_N 100

struct prs {
    sp_chan *c;
    int l[PRS_N];
    sp_mutex m;
};

static void prs_receiver(void *arg)
{
    struct prs *p = arg;

    for (int i = 0; i < PRS_N; i++) {
        sp_yield();             /* runtime.Gosched() */
        sp_chan_recv(p->c, &p->l[i]);
    }
    sp_mutex_unlock(&p->m);
}

/* runtime/chan_test.go */
TEST(TestPseudoRandomSend)
{
    static const int caps[] = { 0, PRS_N };

    for (int j = 0; j < 2; j++) {
        static struct prs p;
        int one = 1, zero = 0, n0 = 0, n1 = 0;

        p = (struct prs){ .c = sp_chan_make(sizeof(int), caps[j]) };
        CHECK(p.c);
        sp_mutex_lock(&p.m);
        sp_go(prs_receiver, &p);
        for (int i = 0; i < PRS_N; i++) {
            struct sp_case cs[2] = { { p.c, SP_SEND, &one, false },
                                     { p.c, SP_SEND, &zero, false } };

            sp_select(cs, 2, true);
        }
        sp_mutex_lock(&p.m);    /* wait */
        sp_mutex_unlock(&p.m);
        for (int i = 0; i < PRS_N; i++) {
            n0 += (p.l[i] + 1) % 2;
            n1 += p.l[i];
        }
        CHECKF(n0 > PRS_N / 10 && n1 > PRS_N / 10,
               "Want pseudorandom, got %d zeros and %d ones (chan cap %d)",
               n0, n1, caps[j]);
        sp_chan_free(p.c);
    }
}

/* ---- TestSelectDuplicateChannel -------------------------------------- */

/* A G may wait on the same channel twice in one select. */
struct dup {
    sp_chan *c, *d, *e;
};

static void dup_a(void *arg)
{
    struct dup *s = arg;
    struct sp_case cs[3] = { { s->c, SP_RECV, NULL, false },
                             { s->c, SP_RECV, NULL, false },
                             { s->d, SP_RECV, NULL, false } };

    sp_select(cs, 3, true);
    sp_chan_send(s->e, &(int){ 9 });
}

static void dup_b(void *arg)
{
    struct dup *s = arg;

    sp_chan_recv(s->c, NULL);
    sp_chan_send(s->e, &(int){ 10 });   /* the port's: B ended */
}

/* runtime/chan_test.go */
TEST(TestSelectDuplicateChannel)
{
    struct dup s = { sp_chan_make(sizeof(int), 0),
                     sp_chan_make(sizeof(int), 0),
                     sp_chan_make(sizeof(int), 0) };
    int v = 0;

    CHECK(s.c && s.d && s.e);
    sp_go(dup_a, &s);
    sp_sleep(SP_MS(1));         /* A is queued first on c (twice) */
    sp_go(dup_b, &s);
    sp_sleep(SP_MS(1));         /* B is queued on c after it */
    sp_chan_send(s.d, &(int){ 7 });     /* wakes A, which leaves c */
    CHECK(recv_wait(s.e, &v) && v == 9);
    /* Wakes B: with c's queue corrupted, this woke a running G. */
    {
        struct sp_case cs[1] = { { s.c, SP_SEND, &(int){ 8 }, false } };
        uint64_t end = sp_nanotime() + WAIT_NS;

        while (sp_select(cs, 1, false) != 0) {
            CHECKF(sp_nanotime() < end, "c <- 8 never found B");
            sp_sleep(SP_MS(1));
        }
    }
    CHECK(recv_wait(s.e, &v) && v == 10);
    sp_chan_free(s.c);
    sp_chan_free(s.d);
    sp_chan_free(s.e);
}

/* ---- TestSelectStackAdjust ------------------------------------------- */

struct adj {
    sp_chan *c, *d, *ready;
    bool dup;
    int bad;                    /* 1: cx moved, 2: val changed, 3: *cx */
};

static void adj_f(void *arg)
{
    struct adj *a = arg;
    int val = 42, *cx = &val, *tmp;
    sp_chan *c2 = a->dup ? a->c : NULL, *d2 = a->dup ? a->d : NULL;
    struct sp_case cs[4] = { { a->c, SP_RECV, &cx, false },
                             { c2, SP_RECV, &tmp, false },
                             { a->d, SP_RECV, NULL, false },
                             { d2, SP_RECV, NULL, false } };

    stack_growth(10);           /* grow the stack to 10 KiB a moment */
    sp_chan_send(a->ready, &(bool){ true });
    sp_select(cs, 4, true);     /* d closes: cx is not touched */
    if (cx != &val)
        a->bad = 1;             /* "cx no longer points to val" */
    else if (val != 42)
        a->bad = 2;             /* "val changed" */
    else {
        *cx = 43;
        if (val != 43)
            a->bad = 3;         /* "changing *cx failed to change val" */
    }
    sp_chan_send(a->ready, &(bool){ true });
}

/* runtime/chan_test.go */
TEST(TestSelectStackAdjust)
{
    sp_chan *c = sp_chan_make(sizeof(int *), 0);
    sp_chan *d = sp_chan_make(sizeof(int *), 0);
    struct adj a1 = { c, d, sp_chan_make(sizeof(bool), 0), false, 0 };
    struct adj a2 = { c, d, sp_chan_make(sizeof(bool), 0), true, 0 };

    CHECK(c && d && a1.ready && a2.ready);
    sp_go(adj_f, &a1);
    sp_go(adj_f, &a2);
    CHECK(recv_wait(a1.ready, NULL));
    CHECK(recv_wait(a2.ready, NULL));
    sp_sleep(SP_MS(10));        /* into the select */
    sp_chan_close(d);           /* wake the selects */
    CHECK(recv_wait(a1.ready, NULL));
    CHECK(recv_wait(a2.ready, NULL));
    CHECKF(!a1.bad && !a2.bad, "case %d/%d: %s", a1.bad, a2.bad,
           "cx no longer points to val, or val changed");
    sp_chan_free(c);
    sp_chan_free(d);
    sp_chan_free(a1.ready);
    sp_chan_free(a2.ready);
}

/* ---- test/chan/doubleselect.go --------------------------------------- */

/*
 * A sender sends a counter on one of four channels in a select; four
 * muxes forward to one channel; the receiver sees each value once.  Two
 * cases of one select running would send one value twice.
 */
#define DS_N (SP_TSAN ? 20000 : 100000)     /* Go: 100000 */

struct ds {
    sp_chan *c[4], *cmux;
    sp_waitgroup muxes;
};

static void ds_sender(void *arg)
{
    struct ds *s = arg;

    for (int i = 0; i < DS_N; i++) {
        struct sp_case cs[4];

        for (int k = 0; k < 4; k++)
            cs[k] = (struct sp_case){ s->c[k], SP_SEND, &i, false };
        sp_select(cs, 4, true);
    }
    for (int k = 0; k < 4; k++)
        sp_chan_close(s->c[k]);
}

struct mux {
    struct ds *s;
    sp_chan *in;
};

static void ds_mux(void *arg)
{
    struct mux *m = arg;
    int v;

    while (sp_chan_recv(m->in, &v))
        sp_chan_send(m->s->cmux, &v);
    sp_waitgroup_done(&m->s->muxes);
}

static void ds_closer(void *arg)
{
    struct ds *s = arg;

    sp_waitgroup_wait(&s->muxes);
    sp_chan_close(s->cmux);
}

/* test/chan/doubleselect.go */
TEST(chan_doubleselect)
{
    static struct ds s;
    static struct mux m[4];
    unsigned char *seen = calloc(DS_N, 1);
    int v, n = 0;

    s = (struct ds){ .cmux = sp_chan_make(sizeof(int), 0) };
    CHECK(seen && s.cmux);
    for (int k = 0; k < 4; k++) {
        s.c[k] = sp_chan_make(sizeof(int), 0);
        CHECK(s.c[k]);
    }
    sp_waitgroup_add(&s.muxes, 4);
    sp_go(ds_sender, &s);
    for (int k = 0; k < 4; k++) {
        m[k] = (struct mux){ &s, s.c[k] };
        sp_go(ds_mux, &m[k]);
    }
    sp_go(ds_closer, &s);
    while (sp_chan_recv(s.cmux, &v)) {
        CHECKF(v >= 0 && v < DS_N, "got a value never sent: %d", v);
        CHECKF(!seen[v], "got duplicate value: %d", v);
        seen[v] = 1;
        n++;
    }
    CHECKF(n == DS_N, "got %d values of %d", n, DS_N);
    free(seen);
}

/* ---- test/chan/select.go --------------------------------------------- */

static unsigned sel_counter, sel_shift;

static unsigned get_value(void)
{
    sel_counter++;
    return 1u << sel_shift;
}

/* Sends on a and b in a select with a default, dropping each channel
   once it took a value; returns how many sends ran. */
static int sel_send(sp_chan *a, sp_chan *b)
{
    int i = 0;

    for (;;) {
        /* Go evaluates every case's value on entry to the select. */
        unsigned va = get_value(), vb = get_value();
        struct sp_case cs[2] = { { a, SP_SEND, &va, false },
                                 { b, SP_SEND, &vb, false } };

        switch (sp_select(cs, 2, false)) {
        case 0:
            i++;
            a = NULL;
            break;
        case 1:
            i++;
            b = NULL;
            break;
        default:
            return i;
        }
        sel_shift++;
    }
}

/* test/chan/select.go */
TEST(chan_select)
{
    sp_chan *a = sp_chan_make(sizeof(unsigned), 1);
    sp_chan *b = sp_chan_make(sizeof(unsigned), 1);
    unsigned av = 0, bv = 0;
    int v;

    CHECK(a && b);
    sel_counter = sel_shift = 0;
    v = sel_send(a, b);
    CHECKF(v == 2, "Send returned %d != 2", v);
    sp_chan_recv(a, &av);
    sp_chan_recv(b, &bv);
    CHECKF((av | bv) == 3, "bad values %u %u", av, bv);
    v = sel_send(a, NULL);
    CHECKF(v == 1, "Send returned %d != 1", v);
    CHECKF(sel_counter == 10, "counter is %u != 10", sel_counter);
    sp_chan_free(a);
    sp_chan_free(b);
}

/* ---- test/chan/select2.go -------------------------------------------- */

/* Selects do not consume undue memory: a second round of N selects grows
   the heap by under 110,000 bytes (Go's bound for 100,000). */
#define S2_N (SP_TSAN ? 20000 : 100000)     /* Go: 100000 */

struct s2 {
    sp_chan *c;
    int n;
};

static void s2_sender(void *arg)
{
    struct s2 *s = arg;

    for (int i = 0; i < s->n; i++)
        sp_chan_send(s->c, &(int){ 1 });
}

static int s2_receiver(sp_chan *c, sp_chan *dummy, int n)
{
    for (int i = 0; i < n; i++) {
        struct sp_case cs[2] = { { c, SP_RECV, NULL, false },
                                 { dummy, SP_RECV, NULL, false } };

        if (sp_select(cs, 2, true) != 0)
            return -1;          /* Go: panic("dummy") */
    }
    return 0;
}

/* test/chan/select2.go */
TEST(chan_select2)
{
    static struct s2 s;
    sp_chan *dummy = sp_chan_make(sizeof(int), 0);
    long alloc, after;

    s = (struct s2){ sp_chan_make(sizeof(int), 0), S2_N };
    CHECK(s.c && dummy);
    sp_go(s2_sender, &s);               /* warm up */
    CHECK(s2_receiver(s.c, dummy, S2_N) == 0);
    alloc = heap_in_use();
    CHECK(alloc >= 0);
    sp_go(s2_sender, &s);
    CHECK(s2_receiver(s.c, dummy, S2_N) == 0);
    after = heap_in_use();
    CHECKF(after - alloc <= 110000,
           "too much memory for %d selects: %ld bytes", S2_N,
           after - alloc);
    sp_chan_free(s.c);
    sp_chan_free(dummy);
}

/* ---- test/chan/select3.go -------------------------------------------- */

/*
 * Go's testBlock(signal, f): f runs in a G and must block "always" (it
 * has not returned after 0.1 s) or "never" (it has).  Here every f runs
 * in its own G at once and one 0.1 s wait serves them all.
 */
enum { NEVER, ALWAYS };

static sp_chan *s3_nilch;       /* a nil channel, as Go's var nilch chan */
static sp_chan *s3_closedch;

static int s3_recv_closed10(void)
{
    for (int i = 0; i < 10; i++) {
        int x = -1;
        bool ok;

        sp_chan_recv(s3_closedch, &x);
        if (x != 0)
            return -1;  /* expected zero value when reading from closed */
        x = -1;
        ok = sp_chan_recv(s3_closedch, &x);
        if (x != 0 || ok)
            return -1;  /* expected 0, false from closed channel */
    }
    return 0;
}

/* Each case of select3.go's main; returns -1 if it went wrong. */
static int s3_case(int k)
{
    int seven = 7, x;
    sp_chan *ch;

    switch (k) {
    case 0:     /* send to a nil channel blocks */
        sp_chan_send(s3_nilch, &seven);
        return 0;
    case 1:     /* receive from a nil channel blocks */
        sp_chan_recv(s3_nilch, &x);
        return 0;
    case 2: {   /* send to an async channel with room never blocks */
        ch = sp_chan_make(sizeof(int), 1);
        sp_chan_send(ch, &seven);
        sp_chan_free(ch);
        return 0;
    }
    case 3:     /* receive from a closed channel never blocks */
        return s3_recv_closed10();
    case 4:     /* receive from a channel not ready blocks */
        ch = sp_chan_make(sizeof(int), 0);
        sp_chan_recv(ch, &x);
        return 0;
    case 5:     /* empty selects always block */
        sp_select(NULL, 0, true);
        return 0;
    case 6: {   /* a select with only nil channels blocks: receive */
        struct sp_case cs[1] = { { s3_nilch, SP_RECV, &x, false } };

        sp_select(cs, 1, true);
        return -1;              /* unreachable() */
    }
    case 7: {   /* ... send */
        struct sp_case cs[1] = { { s3_nilch, SP_SEND, &seven, false } };

        sp_select(cs, 1, true);
        return -1;
    }
    case 8: {   /* ... both */
        struct sp_case cs[2] = { { s3_nilch, SP_RECV, &x, false },
                                 { s3_nilch, SP_SEND, &seven, false } };

        sp_select(cs, 2, true);
        return -1;
    }
    case 9: {   /* a select of channels not ready blocks */
        struct sp_case cs[1] = { { sp_chan_make(sizeof(int), 0), SP_RECV, &x,
                                   false } };

        sp_select(cs, 1, true);
        return -1;
    }
    case 10:    /* a select with only a default never blocks */
        return sp_select(NULL, 0, false) == -1 ? 0 : -1;
    case 11: {  /* nil receive case and a default: the default */
        struct sp_case cs[1] = { { s3_nilch, SP_RECV, &x, false } };

        return sp_select(cs, 1, false) == -1 ? 0 : -1;
    }
    case 12: {  /* nil send case and a default: the default */
        struct sp_case cs[1] = { { s3_nilch, SP_SEND, &seven, false } };

        return sp_select(cs, 1, false) == -1 ? 0 : -1;
    }
    case 13: {  /* a ready send never blocks, the default is not taken */
        struct sp_case cs[1] = { { sp_chan_make(sizeof(int), 1), SP_SEND,
                                   &seven, false } };
        int r = sp_select(cs, 1, false) == 0 ? 0 : -1;

        sp_chan_free(cs[0].ch);
        return r;
    }
    case 14: {  /* a ready receive never blocks */
        struct sp_case cs[1] = { { sp_chan_make(sizeof(int), 1), SP_RECV, &x,
                                   false } };
        int r;

        sp_chan_send(cs[0].ch, &seven);
        r = sp_select(cs, 1, false) == 0 && x == 7 ? 0 : -1;
        sp_chan_free(cs[0].ch);
        return r;
    }
    case 15: {  /* a closed channel in a select acts as a receive: x */
        struct sp_case cs[1] = { { s3_closedch, SP_RECV, NULL, false } };

        return sp_select(cs, 1, true) == 0 ? 0 : -1;
    }
    case 16: {  /* ... x := (<-closedch) */
        struct sp_case cs[1] = { { s3_closedch, SP_RECV, &x, false } };

        x = -1;
        return sp_select(cs, 1, true) == 0 && x == 0 ? 0 : -1;
    }
    case 17: {  /* ... x, ok := (<-closedch) */
        struct sp_case cs[1] = { { s3_closedch, SP_RECV, &x, true } };

        x = -1;
        return sp_select(cs, 1, true) == 0 && x == 0 && !cs[0].ok ? 0 : -1;
    }
    case 18: {  /* a select that sees itself is not confused: blocks */
        struct sp_case cs[2] = { { sp_chan_make(sizeof(int), 0), SP_SEND,
                                   &(int){ 1 }, false },
                                 { NULL, SP_RECV, &x, false } };

        cs[1].ch = cs[0].ch;
        sp_select(cs, 2, true);
        return -1;
    }
    }
    return -1;
}

#define S3_CASES 19

static const int s3_signal[S3_CASES] = {
    ALWAYS, ALWAYS, NEVER, NEVER, ALWAYS, ALWAYS, ALWAYS, ALWAYS, ALWAYS,
    ALWAYS, NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, NEVER, ALWAYS,
};

static int s3_done[S3_CASES], s3_bad[S3_CASES];

static void s3_run(void *arg)
{
    int k = (int)(uintptr_t)arg;

    if (s3_case(k) < 0)
        store(&s3_bad[k], 1);
    store(&s3_done[k], 1);
}

/* test/chan/select3.go (its Gs that must block stay parked for good) */
TEST(chan_select3)
{
    s3_nilch = NULL;
    s3_closedch = sp_chan_make(sizeof(int), 0);
    CHECK(s3_closedch);
    sp_chan_close(s3_closedch);
    for (int k = 0; k < S3_CASES; k++)
        sp_go(s3_run, (void *)(uintptr_t)k);
    sp_sleep(SP_MS(100));       /* 0.1 s seems plenty long */
    for (int k = 0; k < S3_CASES; k++) {
        CHECKF(load(&s3_done[k]) == (s3_signal[k] == NEVER),
               "case %d: %s block", k,
               s3_signal[k] == ALWAYS ? "always" : "never");
        CHECKF(!load(&s3_bad[k]), "case %d: wrong result", k);
    }
}

/* ---- test/chan/select4.go -------------------------------------------- */

/* test/chan/select4.go */
TEST(chan_select4)
{
    struct {
        int a;
    } x = { 0 };
    int never_written = 0x5eed;
    sp_chan *c = sp_chan_make(sizeof(int), 1);
    sp_chan *c1 = sp_chan_make(sizeof(int), 0);
    struct sp_case cs[2];

    CHECK(c && c1);
    sp_chan_send(c, &(int){ 42 });
    cs[0] = (struct sp_case){ c1, SP_RECV, &never_written, false };
    cs[1] = (struct sp_case){ c, SP_RECV, &x.a, false };
    CHECK(sp_select(cs, 2, true) == 1);
    CHECKF(x.a == 42, "BUG: %d", x.a);
    CHECKF(never_written == 0x5eed, "BUG: the case that did not run wrote "
           "its destination");
    sp_chan_free(c);
    sp_chan_free(c1);
}

/* ---- test/chan/select6.go -------------------------------------------- */

/*
 * Go issue 2075: a select corrupted the queues of its failed cases when
 * several Gs waited on them and the select was last in the queue;
 * further waiters on such a channel were never woken.
 */
struct s6 {
    sp_chan *c1, *c2, *c3;
    int bad;
};

static void s6_recv_c1(void *arg)
{
    struct s6 *s = arg;

    sp_chan_recv(s->c1, NULL);
}

static void s6_select(void *arg)
{
    struct s6 *s = arg;
    struct sp_case cs[2] = { { s->c1, SP_RECV, NULL, false },
                             { s->c2, SP_RECV, NULL, false } };

    if (sp_select(cs, 2, true) == 0)
        store(&s->bad, 1);      /* Go: panic("dummy") */
    else
        sp_chan_send(s->c3, &(bool){ true });
    sp_chan_recv(s->c1, NULL);
}

static void s6_send_c2(void *arg)
{
    struct s6 *s = arg;

    sp_chan_send(s->c2, &(bool){ true });
}

/* test/chan/select6.go */
TEST(chan_select6)
{
    static struct s6 s;
    struct sp_case cs[1];

    s = (struct s6){ sp_chan_make(sizeof(bool), 0),
                     sp_chan_make(sizeof(bool), 0),
                     sp_chan_make(sizeof(bool), 0), 0 };
    CHECK(s.c1 && s.c2 && s.c3);
    sp_go(s6_recv_c1, &s);
    sp_go(s6_select, &s);
    sp_go(s6_send_c2, &s);
    CHECK(recv_wait(s.c3, NULL));
    CHECK(!load(&s.bad));
    /* c1 <- true twice: both receivers must be woken (bounded here). */
    for (int i = 0; i < 2; i++) {
        uint64_t end = sp_nanotime() + WAIT_NS;

        cs[0] = (struct sp_case){ s.c1, SP_SEND, &(bool){ true }, false };
        while (sp_select(cs, 1, false) != 0) {
            CHECKF(sp_nanotime() < end, "send %d on c1 found no receiver",
                   i + 1);
            sp_sleep(SP_MS(1));
        }
    }
}

/* ---- test/chan/select7.go -------------------------------------------- */

/* A receive that discards its value, by <-c, a one-case select and a
   two-case select, meets a send of each of the same three forms. */
static void recv1(sp_chan *c)
{
    sp_chan_recv(c, NULL);
}

static void recv2(sp_chan *c)
{
    struct sp_case cs[1] = { { c, SP_RECV, NULL, false } };

    sp_select(cs, 1, true);
}

static void recv3(sp_chan *c)
{
    sp_chan *c2 = sp_chan_make(sizeof(int), 0);
    struct sp_case cs[2] = { { c, SP_RECV, NULL, false },
                             { c2, SP_RECV, NULL, false } };

    sp_select(cs, 2, true);
    sp_chan_free(c2);
}

struct s7 {
    sp_chan *c, *done;
    void (*recv)(sp_chan *c);
};

static void s7_receiver(void *arg)
{
    struct s7 *s = arg;

    s->recv(s->c);
    sp_chan_send(s->done, NULL);
}

/* Go's send1..send3, by form; false if the receiver never got it. */
static bool s7_send(int form, void (*recv)(sp_chan *c))
{
    struct s7 s = { sp_chan_make(sizeof(int), 0), sp_chan_make(0, 1), recv };
    sp_chan *c2 = sp_chan_make(sizeof(int), 0);
    int one = 1;
    struct sp_case cs[2] = { { s.c, SP_SEND, &one, false },
                             { c2, SP_SEND, &one, false } };

    if (!s.c || !s.done || !c2)
        return false;
    sp_go(s7_receiver, &s);
    sp_yield();                 /* runtime.Gosched() */
    switch (form) {
    case 1:
        sp_chan_send(s.c, &one);
        break;
    case 2:
        sp_select(cs, 1, true);
        break;
    case 3:
        sp_select(cs, 2, true);
        break;
    }
    if (!recv_wait(s.done, NULL))
        return false;
    sp_chan_free(s.c);
    sp_chan_free(s.done);
    sp_chan_free(c2);
    return true;
}

/* test/chan/select7.go */
TEST(chan_select7)
{
    void (*recvs[3])(sp_chan *) = { recv1, recv2, recv3 };

    for (int r = 0; r < 3; r++)
        for (int s = 1; s <= 3; s++)
            CHECKF(s7_send(s, recvs[r]), "send%d(recv%d) did not complete",
                   s, r + 1);
}

/* ---- test/chan/select8.go -------------------------------------------- */

static void s8_sender(void *arg)
{
    for (;;)
        sp_chan_send(arg, &(int){ 5 });
}

/* test/chan/select8.go (its sender stays parked for good, as in Go) */
TEST(chan_select8)
{
    sp_chan *ch = sp_chan_make(sizeof(int), 0);
    int v = 0, ten = 10, k;

    CHECK(ch);
    sp_go(s8_sender, ch);
    {
        struct sp_case cs[1] = { { ch, SP_RECV, &v, false } };

        CHECK(sp_select(cs, 1, true) == 0 && v == 5);
    }
    CHECK(sp_select(NULL, 0, false) == -1);     /* default alone */
    {
        struct sp_case cs[1] = { { ch, SP_RECV, &v, false } };

        k = sp_select(cs, 1, false);
        CHECK(k == -1 || (k == 0 && v == 5));
    }
    {
        /* The send case can never run: nobody receives on ch. */
        struct sp_case cs[2] = { { ch, SP_RECV, &v, false },
                                 { ch, SP_SEND, &ten, false } };

        k = sp_select(cs, 2, false);
        CHECKF(k != 1, "unreachable: ch <- 10 ran");
        CHECK(k == -1 || (k == 0 && v == 5));
    }
}

/* ---- test/chan/sieve2.go --------------------------------------------- */

/*
 * Eratosthenes with channels: a G merges channels of the multiples of
 * each prime (kept in a heap by their heads) into one stream of
 * composites, and another G sieves them out of the odd numbers, feeding
 * each prime it finds back through a proxy G that buffers without bound
 * (its select disables its output with a nil channel while it holds
 * nothing).  Its Gs stay parked for good once main has its primes, as in
 * Go.
 */
static void sv_odds(void *arg)
{
    for (int n = 5;; n += 2)
        sp_chan_send(arg, &n);
}

struct sv_mult {
    sp_chan *out;
    int p;
};

static void sv_multiples(void *arg)
{
    struct sv_mult *m = arg;

    for (int n = m->p * m->p;; n += 2 * m->p)
        sp_chan_send(m->out, &n);
}

/* A channel of the odd multiples of p from p * p. */
static sp_chan *sv_make_multiples(int p)
{
    struct sv_mult *m = malloc(sizeof *m);

    m->out = sp_chan_make(sizeof(int), 10);
    m->p = p;
    sp_go(sv_multiples, m);
    return m->out;
}

struct peekch {
    int head;
    sp_chan *ch;
};

/* A binary min-heap of peekch by head (Go's container/heap). */
struct sv_heap {
    struct peekch *v;
    int n, cap;
};

static void heap_push(struct sv_heap *h, struct peekch x)
{
    int i;

    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 16;
        h->v = realloc(h->v, h->cap * sizeof *h->v);
    }
    for (i = h->n++; i > 0 && h->v[(i - 1) / 2].head > x.head; i = (i - 1) / 2)
        h->v[i] = h->v[(i - 1) / 2];
    h->v[i] = x;
}

static struct peekch heap_pop(struct sv_heap *h)
{
    struct peekch top = h->v[0], last = h->v[--h->n];
    int i = 0;

    for (;;) {
        int c = 2 * i + 1;

        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1].head < h->v[c].head)
            c++;
        if (last.head <= h->v[c].head)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

struct sieve2 {
    sp_chan *out, *composites, *primes;
};

/* Merges the multiples of each prime from primes into composites. */
static void sv_merge(void *arg)
{
    struct sieve2 *s = arg;
    struct sv_heap h = { 0 };
    int min = 15;

    for (;;) {
        int p, head;
        sp_chan *m;
        struct peekch x;

        sp_chan_recv(s->primes, &p);
        m = sv_make_multiples(p);
        sp_chan_recv(m, &head);
        while (min < head) {
            sp_chan_send(s->composites, &min);
            x = heap_pop(&h);
            min = x.head;
            sp_chan_recv(x.ch, &x.head);
            heap_push(&h, x);
        }
        while (min == head) {
            x = heap_pop(&h);
            min = x.head;
            sp_chan_recv(x.ch, &x.head);
            heap_push(&h, x);
        }
        sp_chan_send(s->composites, &head);
        x.ch = m;
        sp_chan_recv(m, &x.head);
        heap_push(&h, x);
    }
}

struct proxy {
    sp_chan *in, *out;
};

/* Go's sendproxy: whatever comes in goes out, in order, and the sender
   never waits; the ring grows when full. */
static void sv_proxy(void *arg)
{
    struct proxy *px = arg;
    int n = 16, first = 0, count = 0, *ring = malloc(n * sizeof *ring);

    for (;;) {
        int e = 0, in;
        struct sp_case cs[2] = {
            { px->in, SP_RECV, &in, false },
            { count ? px->out : NULL, SP_SEND, &e, false },  /* nil: off */
        };

        if (count)
            e = ring[first];
        if (sp_select(cs, 2, true) == 0) {
            if (count == n) {           /* full: double it */
                int *r = malloc(2 * n * sizeof *r);

                for (int i = 0; i < n; i++)
                    r[i] = ring[(first + i) % n];
                free(ring);
                ring = r;
                first = 0;
                n *= 2;
            }
            ring[(first + count++) % n] = in;
        } else {
            first = (first + 1) % n;
            count--;
        }
    }
}

/* Sieves the composites out of the odd numbers. */
static void sv_sieve(void *arg)
{
    struct sieve2 *s = arg;
    struct proxy *px = malloc(sizeof *px);
    sp_chan *candidates = sp_chan_make(sizeof(int), 50);
    int p, c;

    px->in = sp_chan_make(sizeof(int), 10);
    px->out = s->primes;
    sp_go(sv_proxy, px);
    sp_go(sv_odds, candidates);
    sp_chan_recv(candidates, &p);
    for (;;) {
        sp_chan_recv(s->composites, &c);
        while (p < c) {
            sp_chan_send(px->in, &p);
            sp_chan_send(s->out, &p);
            sp_chan_recv(candidates, &p);
        }
        if (p == c)
            sp_chan_recv(candidates, &p);
    }
}

/* test/chan/sieve2.go */
TEST(chan_sieve2)
{
    static const int a[] = { 2,  3,  5,  7,  11, 13, 17, 19, 23,
                             29, 31, 37, 41, 43, 47, 53, 59, 61,
                             67, 71, 73, 79, 83, 89, 97 };
    static struct sieve2 s;

    s = (struct sieve2){ sp_chan_make(sizeof(int), 10),
                         sp_chan_make(sizeof(int), 50),
                         sp_chan_make(sizeof(int), 10) };
    CHECK(s.out && s.composites && s.primes);
    sp_chan_send(s.out, &(int){ 2 });
    sp_chan_send(s.out, &(int){ 3 });
    sp_chan_send(s.primes, &(int){ 3 });    /* the feedback loop */
    sp_go(sv_merge, &s);
    sp_go(sv_sieve, &s);
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        int x = 0;

        CHECK(recv_wait(s.out, &x));
        CHECKF(x == a[i], "%d != %d", x, a[i]);
    }
}

int main(void)
{
    return sp_test_main();
}
