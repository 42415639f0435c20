/*
 * gochan - Go's own tests of channels, ported: runtime/chan_test.go (the
 * cases that are not about select, which are in tests/go/goselect),
 * runtime/chanbarrier_test.go, test/closedchan.go and the programs of
 * Go's test/chan/ that are not about select.  Each case is named after
 * the Go test it ports and keeps that test's assertion; the counts are
 * Go's, or scaled as noted (never below its -short ones), so that the
 * image runs in seconds under TCG and under TSan.
 *
 * Not ported (Spindle's API cannot express them, or they test something
 * else):
 *   - TestChan's GOMAXPROCS(4): the core count is fixed at boot; the case
 *     runs at whatever count booted.
 *   - TestShrinkStackDuringBlockedSend, TestNoShrinkStackWhileParking:
 *     runtime.GC() and its stack shrinking have no equivalent (a parked
 *     G gives its pages back only after `stackrelease=` ms, 1 s by
 *     default); the ports keep the traffic and the checks of the values.
 *   - chanbarrier_test.go's garbage ([]byte allocations to drive the GC's
 *     write barriers): no GC; the request traffic is ported.
 *   - test/closedchan.go's shouldPanic checks (send, select-send and
 *     close on a closed channel, close of a nil channel): a Spindle panic
 *     cannot be recovered, so each is a fatal-path test of its own:
 *     tests/go/fatal_send_closed (send and select send on a closed
 *     channel), tests/go/fatal_close_closed, tests/go/fatal_close_nil;
 *     a sender parked when the channel closes: tests/sched/chan_closed_panic.
 *   - test/chancap.go-style make panics (negative or huge capacity):
 *     sp_chan_make takes a size_t and returns NULL when out of memory.
 *   - test/chan/perm.go: compile-time checks of channel directions
 *     (errorcheck); C has no directional channel types.
 *   - test/chan/powser1.go, powser2.go: power series over rationals and
 *     interfaces; out of this suite's scope (their channel traffic is the
 *     daisy chains of sieve1 and goroutines).
 *   - test/chan/sendstmt.go's sendprec: a parsing case of Go's send
 *     statement, nothing at run time.
 *   - Everything about select (test/chan/select*.go, doubleselect.go,
 *     sieve2.go and the select tests of chan_test.go): tests/go/goselect.
 *   - Benchmarks (Benchmark*).
 */
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

/* ---- TestChan -------------------------------------------------------- */

/* Capacities: Go runs 200 (20 under -short). */
#define TC_CAPS (SP_TSAN ? 50 : 100)
#define TC_P 4                  /* producers and consumers */
#define TC_L (SP_TSAN ? 250 : 1000)     /* values per producer */

struct tc {
    sp_chan *c, *done;
    int recv1, recv2, sent;
    sp_waitgroup wg;
};

static void tc_recv1(void *arg)
{
    struct tc *t = arg;

    sp_chan_recv(t->c, NULL);
    store(&t->recv1, 1);
    sp_waitgroup_done(&t->wg);
}

static void tc_recv2(void *arg)
{
    struct tc *t = arg;
    int v;

    sp_chan_recv(t->c, &v);     /* v, ok := <-c */
    store(&t->recv2, 1);
    sp_waitgroup_done(&t->wg);
}

static void tc_send0(void *arg)
{
    struct tc *t = arg;

    sp_chan_send(t->c, &(int){ 0 });
    store(&t->sent, 1);
    sp_waitgroup_done(&t->wg);
}

static void tc_close_recv(void *arg)
{
    struct tc *t = arg;
    int v = 7;
    bool ok = sp_chan_recv(t->c, &v);
    bool good = v == 0 && !ok;

    sp_chan_send(t->done, &good);
    sp_waitgroup_done(&t->wg);
}

static void tc_send100(void *arg)
{
    struct tc *t = arg;

    for (int i = 0; i < 100; i++)
        sp_chan_send(t->c, &i);
    sp_waitgroup_done(&t->wg);
}

static void tc_sendL(void *arg)
{
    struct tc *t = arg;

    for (int i = 0; i < TC_L; i++)
        sp_chan_send(t->c, &i);
    sp_waitgroup_done(&t->wg);
}

/* Counts the TC_L values it receives by value; hands the counts over. */
static void tc_recvL(void *arg)
{
    struct tc *t = arg;
    int *recv = calloc(TC_L, sizeof *recv), v;

    for (int i = 0; i < TC_L; i++) {
        sp_chan_recv(t->c, &v);
        if (recv && v >= 0 && v < TC_L)
            recv[v]++;
    }
    sp_chan_send(t->done, &recv);
    sp_waitgroup_done(&t->wg);
}

/* One capacity of TestChan; a failure stops the case. */
static void test_chan_cap(int cap)
{
    struct tc *t = calloc(1, sizeof *t);
    int v;
    bool ok;

    CHECK(t);
    /* Receive from an empty channel blocks. */
    t->c = sp_chan_make(sizeof(int), cap);
    CHECK(t->c);
    sp_waitgroup_add(&t->wg, 2);
    sp_go(tc_recv1, t);
    sp_go(tc_recv2, t);
    sp_sleep(SP_MS(1));
    CHECKF(!load(&t->recv1) && !load(&t->recv2),
           "chan[%d]: receive from empty chan", cap);
    /* A non-blocking receive does not block (both forms). */
    CHECKF(sp_chan_tryrecv(t->c, &v, NULL) == 0,
           "chan[%d]: receive from empty chan", cap);
    CHECKF(sp_chan_tryrecv(t->c, &v, &ok) == 0,
           "chan[%d]: receive from empty chan", cap);
    sp_chan_send(t->c, &(int){ 0 });
    sp_chan_send(t->c, &(int){ 0 });
    CHECK(wg_wait(&t->wg));
    sp_chan_free(t->c);

    /* Send to a full channel blocks. */
    t->c = sp_chan_make(sizeof(int), cap);
    CHECK(t->c);
    for (int i = 0; i < cap; i++)
        sp_chan_send(t->c, &i);
    sp_waitgroup_add(&t->wg, 1);
    sp_go(tc_send0, t);
    sp_sleep(SP_MS(1));
    CHECKF(!load(&t->sent), "chan[%d]: send to full chan", cap);
    /* A non-blocking send does not block. */
    CHECKF(!sp_chan_trysend(t->c, &(int){ 0 }),
           "chan[%d]: send to full chan", cap);
    sp_chan_recv(t->c, &v);
    CHECK(wg_wait(&t->wg));
    sp_chan_free(t->c);

    /* A closed channel gives its values, then zeros. */
    t->c = sp_chan_make(sizeof(int), cap);
    CHECK(t->c);
    for (int i = 0; i < cap; i++)
        sp_chan_send(t->c, &i);
    sp_chan_close(t->c);
    for (int i = 0; i < cap; i++) {
        v = -1;
        sp_chan_recv(t->c, &v);
        CHECKF(v == i, "chan[%d]: received %d, expected %d", cap, v, i);
    }
    v = -1;
    sp_chan_recv(t->c, &v);
    CHECKF(v == 0, "chan[%d]: received %d, expected 0", cap, v);
    v = -1;
    ok = sp_chan_recv(t->c, &v);
    CHECKF(v == 0 && !ok, "chan[%d]: received %d/%d, expected 0/0", cap, v,
           ok);
    sp_chan_free(t->c);

    /* Close unblocks a receive. */
    t->c = sp_chan_make(sizeof(int), cap);
    t->done = sp_chan_make(sizeof(bool), 0);
    CHECK(t->c && t->done);
    sp_waitgroup_add(&t->wg, 1);
    sp_go(tc_close_recv, t);
    sp_sleep(SP_MS(1));
    sp_chan_close(t->c);
    ok = false;
    CHECK(recv_wait(t->done, &ok));
    CHECKF(ok, "chan[%d]: received non zero from closed chan", cap);
    CHECK(wg_wait(&t->wg));
    sp_chan_free(t->c);
    sp_chan_free(t->done);

    /* 100 integers arrive whole and in FIFO order, by recv and recv2. */
    t->c = sp_chan_make(sizeof(int), cap);
    CHECK(t->c);
    sp_waitgroup_add(&t->wg, 1);
    sp_go(tc_send100, t);
    for (int i = 0; i < 100; i++) {
        v = -1;
        sp_chan_recv(t->c, &v);
        CHECKF(v == i, "chan[%d]: received %d, expected %d", cap, v, i);
    }
    sp_waitgroup_add(&t->wg, 1);
    sp_go(tc_send100, t);
    for (int i = 0; i < 100; i++) {
        v = -1;
        ok = sp_chan_recv(t->c, &v);
        CHECKF(ok, "chan[%d]: receive failed, expected %d", cap, i);
        CHECKF(v == i, "chan[%d]: received %d, expected %d", cap, v, i);
    }

    /* TC_L integers from each of TC_P Gs: each arrives TC_P times. */
    t->done = sp_chan_make(sizeof(int *), 0);
    CHECK(t->done);
    sp_waitgroup_add(&t->wg, 2 * TC_P);
    for (int p = 0; p < TC_P; p++)
        sp_go(tc_sendL, t);
    for (int p = 0; p < TC_P; p++)
        sp_go(tc_recvL, t);
    {
        int *total = calloc(TC_L, sizeof *total), *recv;
        int distinct = 0;

        CHECK(total);
        for (int p = 0; p < TC_P; p++) {
            recv = NULL;
            CHECK(recv_wait(t->done, &recv) && recv);
            for (int k = 0; k < TC_L; k++)
                total[k] += recv[k];
            free(recv);
        }
        for (int k = 0; k < TC_L; k++) {
            distinct += total[k] != 0;
            CHECKF(total[k] == 0 || total[k] == TC_P,
                   "chan[%d]: received %d values, expected %d", cap,
                   total[k], TC_P);
        }
        CHECKF(distinct == TC_L, "chan[%d]: received %d values, expected %d",
               cap, distinct, TC_L);
        free(total);
    }
    CHECK(wg_wait(&t->wg));
    sp_chan_free(t->c);
    sp_chan_free(t->done);

    /* len and cap. */
    t->c = sp_chan_make(sizeof(int), cap);
    CHECK(t->c);
    CHECKF(sp_chan_len(t->c) == 0 && sp_chan_cap(t->c) == (size_t)cap,
           "chan[%d]: bad len/cap, expect 0/%d, got %d/%d", cap, cap,
           (int)sp_chan_len(t->c), (int)sp_chan_cap(t->c));
    for (int i = 0; i < cap; i++)
        sp_chan_send(t->c, &i);
    CHECKF(sp_chan_len(t->c) == (size_t)cap &&
               sp_chan_cap(t->c) == (size_t)cap,
           "chan[%d]: bad len/cap, expect %d/%d, got %d/%d", cap, cap, cap,
           (int)sp_chan_len(t->c), (int)sp_chan_cap(t->c));
    sp_chan_free(t->c);
    free(t);
}

/* runtime/chan_test.go */
TEST(TestChan)
{
    for (int cap = 0; cap < TC_CAPS && !sp_test_failed(); cap++)
        test_chan_cap(cap);
}

/* ---- TestNonblockRecvRace -------------------------------------------- */

#define NBRR_N 10000            /* Go: 10000, 100 in -short */

static int nbrr_bad;
static sp_waitgroup nbrr_wg;

static void nbrr_select(void *arg)
{
    struct sp_case cs[1] = { { arg, SP_RECV, NULL, false } };

    if (sp_select(cs, 1, false) != 0)   /* with a default case */
        store(&nbrr_bad, 1);       /* "chan is not ready" */
    sp_waitgroup_done(&nbrr_wg);
}

/* runtime/chan_test.go */
TEST(TestNonblockRecvRace)
{
    nbrr_bad = 0;
    for (int i = 0; i < NBRR_N && !load(&nbrr_bad); i++) {
        sp_chan *c = sp_chan_make(sizeof(int), 1);

        CHECK(c);
        sp_chan_send(c, &(int){ 1 });
        sp_waitgroup_add(&nbrr_wg, 1);
        sp_go(nbrr_select, c);
        sp_chan_close(c);
        sp_chan_recv(c, NULL);
        sp_waitgroup_wait(&nbrr_wg);
        sp_chan_free(c);
    }
    CHECKF(!load(&nbrr_bad), "chan is not ready");
}

/* ---- TestMultiConsumer ----------------------------------------------- */

#define MC_NWORK 23
#define MC_NITER (SP_TSAN ? 20000 : 100000)     /* Go: 271828 */

static const int mc_pn[] = { 2, 3, 7, 11, 13, 17, 19, 23, 27, 31 };
#define MC_NPN ((int)(sizeof mc_pn / sizeof mc_pn[0]))

struct mc {
    sp_chan *q, *r;
    sp_waitgroup workers, feeder;
    int w;                      /* the next worker's number */
};

static void mc_worker(void *arg)
{
    struct mc *m = arg;
    int w = __atomic_fetch_add(&m->w, 1, __ATOMIC_RELAXED), v;

    while (sp_chan_recv(m->q, &v)) {       /* for v := range q */
        if (mc_pn[w % MC_NPN] == v)
            sp_yield();         /* mess with the FIFO-ish order */
        sp_chan_send(m->r, &v);
    }
    sp_waitgroup_done(&m->workers);
}

static void mc_feeder(void *arg)
{
    struct mc *m = arg;

    for (int i = 0; i < MC_NITER; i++)
        sp_chan_send(m->q, &mc_pn[i % MC_NPN]);
    sp_chan_close(m->q);                    /* no more work */
    sp_waitgroup_wait(&m->workers);         /* workers done */
    sp_chan_close(m->r);                    /* so no more results */
    sp_waitgroup_done(&m->feeder);
}

/* runtime/chan_test.go */
TEST(TestMultiConsumer)
{
    static struct mc m;
    long expect = 0, s = 0;
    int n = 0, v;

    m = (struct mc){ .q = sp_chan_make(sizeof(int), MC_NWORK * 3),
                     .r = sp_chan_make(sizeof(int), MC_NWORK * 3) };
    CHECK(m.q && m.r);
    for (int i = 0; i < MC_NITER; i++)
        expect += mc_pn[i % MC_NPN];
    sp_waitgroup_add(&m.workers, MC_NWORK);
    for (int i = 0; i < MC_NWORK; i++)
        sp_go(mc_worker, &m);
    sp_waitgroup_add(&m.feeder, 1);
    sp_go(mc_feeder, &m);
    while (sp_chan_recv(m.r, &v)) {        /* for v := range r */
        n++;
        s += v;
    }
    CHECKF(n == MC_NITER && s == expect,
           "Expected sum %ld (got %ld) from %d iter (saw %d)", expect, s,
           MC_NITER, n);
    CHECK(wg_wait(&m.feeder));
    sp_chan_free(m.q);
    sp_chan_free(m.r);
}

/* ---- TestShrinkStackDuringBlockedSend, TestNoShrinkStackWhileParking --- */

struct shrink {
    sp_chan *c, *done;
    int n;
    int bad;                    /* 1 + the first wrong value's index */
};

static void shrink_sender(void *arg)
{
    struct shrink *s = arg;

    for (int i = 0; i < s->n; i++) {
        sp_chan_send(s->c, &i);
        stack_growth(20);       /* lots of stack, briefly */
    }
    sp_chan_send(s->done, NULL);
}

static void shrink_receiver(void *arg)
{
    struct shrink *s = arg;
    int v;

    for (int i = 0; i < s->n; i++) {
        sp_sleep(SP_US(10));    /* so the sender always blocks fully */
        v = -1;
        sp_chan_recv(s->c, &v);
        if (v != i && !s->bad)
            s->bad = 1 + i;
    }
    sp_chan_send(s->done, NULL);
}

/* runtime/chan_test.go */
TEST(TestShrinkStackDuringBlockedSend)
{
    struct shrink s = { .c = sp_chan_make(sizeof(int), 0),
                        .done = sp_chan_make(0, 0), .n = 10 };
    int x;

    CHECK(s.c && s.done);
    sp_go(shrink_sender, &s);
    for (int i = 0; i < s.n; i++) {
        x = -1;
        CHECK(recv_wait(s.c, &x));
        CHECKF(x == i, "bad channel read: want %d, got %d", i, x);
        sp_sleep(SP_MS(1));     /* the sender finishes and blocks again */
    }
    CHECK(recv_wait(s.done, NULL));
    sp_chan_free(s.c);
    sp_chan_free(s.done);
}

/* runtime/chan_test.go */
TEST(TestNoShrinkStackWhileParking)
{
    const int n = 10;

    for (int i = 0; i < n * (SP_TSAN ? 5 : 20); i++) {
        struct shrink s = { .c = sp_chan_make(sizeof(int), 0),
                            .done = sp_chan_make(0, 0), .n = n };

        CHECK(s.c && s.done);
        sp_go(shrink_receiver, &s);
        sp_go(shrink_sender, &s);
        sp_sleep(SP_US(50));    /* let them get into their groove */
        CHECK(recv_wait(s.done, NULL));
        CHECK(recv_wait(s.done, NULL));
        CHECKF(!s.bad, "round %d: value %d arrived out of place", i,
               s.bad - 1);
        sp_chan_free(s.c);
        sp_chan_free(s.done);
    }
}

/* ---- TestChanSendBarrier, TestChanSendSelectBarrier ------------------ */

/* Go: 100 Gs of 100000 requests, 10 of 1000 under -short. */
#define BARRIER_OUTER 100
#define BARRIER_INNER (SP_TSAN ? 200 : 1000)

enum { MY_ERROR = 0x5eed };

struct async {
    void *resp;
    int err;
};

struct request {
    sp_chan *ch, *done;
    bool use_select;
    sp_waitgroup sent;
};

static void request_sender(void *arg)
{
    struct request *r = arg;
    struct async *a = malloc(sizeof *a);

    if (a)
        *a = (struct async){ NULL, MY_ERROR };
    if (r->use_select) {
        struct sp_case cs[2] = { { r->ch, SP_SEND, &a, false },
                                 { r->done, SP_RECV, NULL, false } };

        sp_select(cs, 2, true);
    } else {
        sp_chan_send(r->ch, &a);
    }
    sp_waitgroup_done(&r->sent);
}

/* Go's doRequest: the error a G sends back; -1 if none came. */
static int do_request(bool use_select)
{
    struct request *r = calloc(1, sizeof *r);
    struct async *a = NULL;
    int err = -1;

    if (!r)
        return -1;
    r->ch = sp_chan_make(sizeof a, 0);
    r->done = sp_chan_make(0, 0);
    r->use_select = use_select;
    if (!r->ch || !r->done)
        return -1;
    sp_waitgroup_add(&r->sent, 1);
    sp_go(request_sender, r);
    sp_chan_recv(r->ch, &a);
    sp_yield();                 /* runtime.Gosched() */
    if (a)
        err = a->err;
    free(a);
    sp_waitgroup_wait(&r->sent);    /* then nobody uses the channels */
    sp_chan_free(r->ch);
    sp_chan_free(r->done);
    free(r);
    return err;
}

static sp_mutex barrier_mu;
static long barrier_global;
static int barrier_bad;
static sp_waitgroup barrier_wg;

static void barrier_worker(void *arg)
{
    bool use_select = arg != NULL;
    long garbage = 0;

    for (int j = 0; j < BARRIER_INNER; j++) {
        if (do_request(use_select) != MY_ERROR)
            store(&barrier_bad, 1);     /* Go: panic(1) */
        garbage += j;
    }
    sp_mutex_lock(&barrier_mu);
    barrier_global = garbage;
    sp_mutex_unlock(&barrier_mu);
    sp_waitgroup_done(&barrier_wg);
}

static void test_chan_send_barrier(bool use_select)
{
    barrier_bad = 0;
    sp_waitgroup_add(&barrier_wg, BARRIER_OUTER);
    for (int i = 0; i < BARRIER_OUTER; i++)
        sp_go(barrier_worker, use_select ? (void *)1 : NULL);
    CHECK(wg_wait(&barrier_wg));
    CHECKF(!load(&barrier_bad), "a request got no error, or the wrong one");
}

/* runtime/chanbarrier_test.go */
TEST(TestChanSendSelectBarrier)
{
    test_chan_send_barrier(true);
}

/* runtime/chanbarrier_test.go */
TEST(TestChanSendBarrier)
{
    test_chan_send_barrier(false);
}

/* ---- test/closedchan.go ---------------------------------------------- */

/*
 * The three ways of test/closedchan.go to work a channel: the operators
 * themselves, a select of the one case, and a select with a dummy case
 * besides.  Receive, receive with ok, and their non-blocking forms
 * (selected: whether the receive ran); the sends on a closed channel
 * panic, which the fatal-path tests cover.
 */
static sp_chan *cc_dummy;

struct cc_ops {
    const char *impl;
    int (*recv)(sp_chan *c);
    int (*recv2)(sp_chan *c, bool *ok);
    int (*nbrecv)(sp_chan *c, bool *selected);
    int (*nbrecv2)(sp_chan *c, bool *ok, bool *selected);
};

static int x_recv(sp_chan *c)
{
    int x = -1;

    sp_chan_recv(c, &x);
    return x;
}

static int x_recv2(sp_chan *c, bool *ok)
{
    int x = -1;

    *ok = sp_chan_recv(c, &x);
    return x;
}

static int x_nbrecv(sp_chan *c, bool *selected)
{
    int x = -1;

    *selected = sp_chan_tryrecv(c, &x, NULL) == 1;
    return *selected ? x : 0;
}

static int x_nbrecv2(sp_chan *c, bool *ok, bool *selected)
{
    int x = -1;

    *selected = sp_chan_tryrecv(c, &x, ok) == 1;
    if (!*selected) {
        *ok = false;
        return 0;
    }
    return x;
}

/* A select over c (and the dummy channel, with dummy); -1 for default. */
static int sel_recv(sp_chan *c, bool dummy, bool block, int *x, bool *ok)
{
    struct sp_case cs[2] = { { c, SP_RECV, x, false },
                             { cc_dummy, SP_RECV, NULL, false } };
    int k = sp_select(cs, dummy ? 2 : 1, block);

    *ok = k == 0 && cs[0].ok;
    return k;
}

static int s_recv(sp_chan *c)
{
    int x = -1;
    bool ok;

    return sel_recv(c, false, true, &x, &ok) == 0 ? x : -2;
}

static int s_recv2(sp_chan *c, bool *ok)
{
    int x = -1;

    return sel_recv(c, false, true, &x, ok) == 0 ? x : -2;
}

static int s_nbrecv(sp_chan *c, bool *selected)
{
    int x = -1;
    bool ok;

    *selected = sel_recv(c, false, false, &x, &ok) == 0;
    return *selected ? x : 0;
}

static int s_nbrecv2(sp_chan *c, bool *ok, bool *selected)
{
    int x = -1;

    *selected = sel_recv(c, false, false, &x, ok) == 0;
    return *selected ? x : 0;
}

static int ss_recv(sp_chan *c)
{
    int x = -1;
    bool ok;

    return sel_recv(c, true, true, &x, &ok) == 0 ? x : -2;
}

static int ss_recv2(sp_chan *c, bool *ok)
{
    int x = -1;

    return sel_recv(c, true, true, &x, ok) == 0 ? x : -2;
}

static int ss_nbrecv(sp_chan *c, bool *selected)
{
    int x = -1;
    bool ok;

    *selected = sel_recv(c, true, false, &x, &ok) == 0;
    return *selected ? x : 0;
}

static int ss_nbrecv2(sp_chan *c, bool *ok, bool *selected)
{
    int x = -1;

    *selected = sel_recv(c, true, false, &x, ok) == 0;
    return *selected ? x : 0;
}

static const struct cc_ops cc_mks[] = {
    { "(<- operator)", x_recv, x_recv2, x_nbrecv, x_nbrecv2 },
    { "(select)", s_recv, s_recv2, s_nbrecv, s_nbrecv2 },
    { "(select with a dummy case)", ss_recv, ss_recv2, ss_nbrecv,
      ss_nbrecv2 },
};

/* Go's test1: a closed, drained channel gives zeros, and never blocks. */
static void cc_test1(const struct cc_ops *o, sp_chan *c)
{
    for (int i = 0; i < 3; i++) {
        bool ok = true, selected = false;
        int x;

        x = o->recv(c);
        CHECKF(x == 0, "test1: recv on closed: %d %s", x, o->impl);
        x = o->recv2(c, &ok);
        CHECKF(x == 0 && !ok, "test1: recv2 on closed: %d %d %s", x, ok,
               o->impl);
        x = o->nbrecv(c, &selected);
        CHECKF(x == 0 && selected, "test1: recv on closed nb: %d %d %s", x,
               selected, o->impl);
        ok = true;
        selected = false;
        x = o->nbrecv2(c, &ok, &selected);
        CHECKF(x == 0 && !ok && selected,
               "test1: recv2 on closed nb: %d %d %d %s", x, ok, selected,
               o->impl);
    }
}

static sp_chan *closed_sync(void)
{
    sp_chan *c = sp_chan_make(sizeof(int), 0);

    if (c)
        sp_chan_close(c);
    return c;
}

static sp_chan *closed_async(void)
{
    sp_chan *c = sp_chan_make(sizeof(int), 2);

    if (c) {
        sp_chan_send(c, &(int){ 1 });
        sp_chan_close(c);
    }
    return c;
}

/* test/closedchan.go */
TEST(closedchan)
{
    cc_dummy = sp_chan_make(0, 0);
    CHECK(cc_dummy);
    for (int m = 0; m < 3; m++) {
        sp_chan *c = closed_sync();

        CHECK(c);
        cc_test1(&cc_mks[m], c);
        if (sp_test_failed())
            return;
        sp_chan_free(c);
    }
    /* testasync1..4: the last value comes first, by each kind of
       receive, then the zeros. */
    for (int kind = 0; kind < 4; kind++) {
        for (int m = 0; m < 3; m++) {
            const struct cc_ops *o = &cc_mks[m];
            sp_chan *c = closed_async();
            bool ok = false, selected = false;
            int x = -1;

            CHECK(c);
            switch (kind) {
            case 0:
                x = o->recv(c);
                ok = selected = true;
                break;
            case 1:
                x = o->recv2(c, &ok);
                selected = true;
                break;
            case 2:
                x = o->nbrecv(c, &selected);
                ok = true;
                break;
            case 3:
                x = o->nbrecv2(c, &ok, &selected);
                break;
            }
            CHECKF(x == 1 && ok && selected,
                   "testasync%d: did not get 1, true, true: %d %d %d %s",
                   kind + 1, x, ok, selected, o->impl);
            cc_test1(o, c);
            if (sp_test_failed())
                return;
            sp_chan_free(c);
        }
    }
    sp_chan_free(cc_dummy);
}

/* ---- test/chan/fifo.go ----------------------------------------------- */

#define FIFO_N 10

struct link {
    sp_chan *ch, *in, *out;
    int val;
    int *bad;
    sp_waitgroup *wg;
};

/* Go's Chain: waits its turn on in, then must receive val. */
static void chain(void *arg)
{
    struct link *l = arg;
    int v = -1;

    sp_chan_recv(l->in, NULL);
    sp_chan_recv(l->ch, &v);
    if (v != l->val)
        store(l->bad, 1 + l->val);
    sp_chan_send(l->out, &(int){ 1 });
    sp_waitgroup_done(l->wg);
}

/* test/chan/fifo.go */
TEST(chan_fifo)
{
    static sp_waitgroup wg;
    static int bad;
    sp_chan *ch = sp_chan_make(sizeof(int), FIFO_N), *links[FIFO_N + 1];
    struct link l[FIFO_N];

    /* AsynchFifo: a buffered channel is a FIFO. */
    CHECK(ch);
    for (int i = 0; i < FIFO_N; i++)
        sp_chan_send(ch, &i);
    for (int i = 0; i < FIFO_N; i++) {
        int v = -1;

        sp_chan_recv(ch, &v);
        CHECKF(v == i, "bad receive: %d, expected %d", v, i);
    }
    sp_chan_free(ch);

    /* SynchFifo: a daisy chain reads the values of an unbuffered channel
       in sequence. */
    ch = sp_chan_make(sizeof(int), 0);
    CHECK(ch);
    bad = 0;
    for (int i = 0; i <= FIFO_N; i++) {
        links[i] = sp_chan_make(sizeof(int), 0);
        CHECK(links[i]);
    }
    sp_waitgroup_add(&wg, FIFO_N);
    for (int i = 0; i < FIFO_N; i++) {
        l[i] = (struct link){ ch, links[i], links[i + 1], i, &bad, &wg };
        sp_go(chain, &l[i]);
    }
    sp_chan_send(links[0], &(int){ 0 });
    for (int i = 0; i < FIFO_N; i++)
        sp_chan_send(ch, &i);
    CHECK(recv_wait(links[FIFO_N], NULL));
    CHECK(wg_wait(&wg));
    CHECKF(!bad, "link %d received another value", load(&bad) - 1);
    for (int i = 0; i <= FIFO_N; i++)
        sp_chan_free(links[i]);
    sp_chan_free(ch);
}

/* ---- test/chan/goroutines.go ----------------------------------------- */

#define GOROUTINES_N (SP_TSAN ? 2000 : 10000)

struct pair {
    sp_chan *left, *right;
};

static sp_waitgroup gr_wg;

/* Go's f: left <- <-right. */
static void gr_f(void *arg)
{
    struct pair *p = arg;
    int v = 0;

    sp_chan_recv(p->right, &v);
    sp_chan_send(p->left, &v);
    sp_waitgroup_done(&gr_wg);
}

static void gr_start(void *arg)
{
    sp_chan_send(arg, &(int){ 1 });
    sp_waitgroup_done(&gr_wg);
}

/* test/chan/goroutines.go */
TEST(chan_goroutines)
{
    sp_chan **c = calloc(GOROUTINES_N + 1, sizeof *c);
    struct pair *p = calloc(GOROUTINES_N, sizeof *p);
    int v = 0;

    CHECK(c && p);
    for (int i = 0; i <= GOROUTINES_N; i++) {
        c[i] = sp_chan_make(sizeof(int), 0);
        CHECK(c[i]);
    }
    sp_waitgroup_add(&gr_wg, GOROUTINES_N + 1);
    for (int i = 0; i < GOROUTINES_N; i++) {
        p[i] = (struct pair){ c[i], c[i + 1] };
        sp_go(gr_f, &p[i]);
    }
    sp_go(gr_start, c[GOROUTINES_N]);
    CHECK(recv_wait(c[0], &v));         /* <-leftmost */
    CHECKF(v == 1, "the chain of %d Gs passed %d, not 1", GOROUTINES_N, v);
    CHECK(wg_wait(&gr_wg));             /* torn down cleanly */
    for (int i = 0; i <= GOROUTINES_N; i++)
        sp_chan_free(c[i]);
    free(c);
    free(p);
}

/* ---- test/chan/nonblock.go ------------------------------------------- */

/*
 * Non-blocking sends and receives of several sizes and types of value:
 * they fail on an empty (or full) channel, and succeed, within a bounded
 * number of tries, once a G waits on the other side (buffer 0) or the
 * buffer allows it (buffer 1).
 */
#define NB_MAX_TRIES 10000      /* up to 100 ms a value at 10 us a try */

/* The four kinds of value: int32, int64, bool and string. */
union nbval {
    int32_t i32;
    int64_t i64;
    bool b;
    char s[16];
};

struct nbtype {
    const char *name;
    size_t size;
    union nbval to_receiver;    /* what main sends, the receiver G wants */
    union nbval from_sender;    /* what the sender G sends, main wants */
};

static const struct nbtype nb_types[] = {
    { "i32", sizeof(int32_t), { .i32 = 123 }, { .i32 = 234 } },
    { "i64", sizeof(int64_t), { .i64 = 123456 }, { .i64 = 234567 } },
    { "b", sizeof(bool), { .b = true }, { .b = true } },
    { "s", 16, { .s = "hello" }, { .s = "hello again" } },
};

struct nb {
    sp_chan *c, *sync;
    const struct nbtype *t;
    int bad;
};

static sp_ticker *nb_ticker;

/* Go's sleep(): two ticks of a 10 us ticker and three yields. */
static void nb_sleep(void)
{
    sp_chan_recv(sp_timer_chan(nb_ticker), NULL);
    sp_chan_recv(sp_timer_chan(nb_ticker), NULL);
    sp_yield();
    sp_yield();
    sp_yield();
}

static void nb_receiver(void *arg)
{
    struct nb *n = arg;
    union nbval v;

    memset(&v, 0, sizeof v);
    sp_chan_recv(n->c, &v);
    if (memcmp(&v, &n->t->to_receiver, n->t->size))
        store(&n->bad, 1);      /* Go: panic("i32 value") and so on */
    sp_chan_send(n->sync, &(bool){ true });
}

static void nb_sender(void *arg)
{
    struct nb *n = arg;

    sp_chan_send(n->c, &n->t->from_sender);
    sp_chan_send(n->sync, &(bool){ true });
}

/* test/chan/nonblock.go */
TEST(chan_nonblock)
{
    sp_chan *sync = sp_chan_make(sizeof(bool), 0);

    CHECK(sync);
    nb_ticker = sp_ticker_new(SP_US(10));
    CHECK(nb_ticker);
    for (int buffer = 0; buffer < 2; buffer++) {
        struct nb n[4];

        for (int k = 0; k < 4; k++) {
            union nbval v;

            n[k] = (struct nb){ sp_chan_make(nb_types[k].size, buffer), sync,
                                &nb_types[k], 0 };
            CHECK(n[k].c);
            /* Nothing to receive yet: the select takes its default. */
            CHECKF(sp_chan_tryrecv(n[k].c, &v, NULL) == 0,
                   "blocked %ssender", nb_types[k].name);
        }
        for (int k = 0; k < 4; k++) {
            union nbval v;
            int try = 0;

            sp_go(nb_receiver, &n[k]);
            while (!sp_chan_trysend(n[k].c, &nb_types[k].to_receiver)) {
                CHECKF(++try <= NB_MAX_TRIES, "%sreceiver buffer=%d",
                       nb_types[k].name, buffer);
                nb_sleep();
            }
            CHECK(recv_wait(sync, NULL));
            CHECKF(!load(&n[k].bad), "%s value", nb_types[k].name);

            sp_go(nb_sender, &n[k]);
            if (buffer > 0)
                CHECK(recv_wait(sync, NULL));
            try = 0;
            memset(&v, 0, sizeof v);
            while (sp_chan_tryrecv(n[k].c, &v, NULL) != 1) {
                CHECKF(++try <= NB_MAX_TRIES, "%ssender buffer=%d",
                       nb_types[k].name, buffer);
                nb_sleep();
            }
            CHECKF(!memcmp(&v, &nb_types[k].from_sender, nb_types[k].size),
                   "%ssender value", nb_types[k].name);
            if (buffer == 0)
                CHECK(recv_wait(sync, NULL));
            sp_chan_free(n[k].c);
        }
    }
    sp_timer_free(nb_ticker);
    sp_chan_free(sync);
}

/* ---- test/chan/sendstmt.go ------------------------------------------- */

/* test/chan/sendstmt.go (chanchan: a channel of channels) */
TEST(chan_sendstmt)
{
    sp_chan *cc = sp_chan_make(sizeof(sp_chan *), 1);
    sp_chan *c = sp_chan_make(sizeof(int), 1), *got = NULL;
    int two = 2, v = 0;

    CHECK(cc && c);
    sp_chan_send(cc, &c);
    /* select { case <-cc <- 2: default: panic("nonblock") }: the channel
       is received when the case is evaluated, then sent on. */
    sp_chan_recv(cc, &got);
    CHECK(got == c);
    {
        struct sp_case cs[1] = { { got, SP_SEND, &two, false } };

        CHECKF(sp_select(cs, 1, false) == 0, "nonblock");
    }
    sp_chan_recv(c, &v);
    CHECKF(v == 2, "bad receive: %d", v);
    sp_chan_free(cc);
    sp_chan_free(c);
}

/* ---- test/chan/sieve1.go --------------------------------------------- */

/* Sends 2, 3, 4, ... on ch, for ever. */
static void sieve_generate(void *arg)
{
    for (int i = 2;; i++)
        sp_chan_send(arg, &i);
}

struct filter {
    sp_chan *in, *out;
    int prime;
};

/* Copies in to out, leaving out the multiples of prime. */
static void sieve_filter(void *arg)
{
    struct filter *f = arg;
    int i;

    while (sp_chan_recv(f->in, &i))
        if (i % f->prime != 0)
            sp_chan_send(f->out, &i);
}

/* The daisy chain of filters; each prime goes out on primes. */
static void sieve(void *arg)
{
    sp_chan *primes = arg, *ch = sp_chan_make(sizeof(int), 0);
    int prime;

    sp_go(sieve_generate, ch);
    for (;;) {
        struct filter *f = malloc(sizeof *f);
        sp_chan *ch1 = sp_chan_make(sizeof(int), 0);

        sp_chan_recv(ch, &prime);
        sp_chan_send(primes, &prime);
        *f = (struct filter){ ch, ch1, prime };
        sp_go(sieve_filter, f);
        ch = ch1;
    }
}

/* test/chan/sieve1.go (its Gs stay parked for good, as in Go) */
TEST(chan_sieve1)
{
    static const int a[] = { 2,  3,  5,  7,  11, 13, 17, 19, 23,
                             29, 31, 37, 41, 43, 47, 53, 59, 61,
                             67, 71, 73, 79, 83, 89, 97 };
    sp_chan *primes = sp_chan_make(sizeof(int), 0);

    CHECK(primes);
    sp_go(sieve, primes);
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        int x = 0;

        CHECK(recv_wait(primes, &x));
        CHECKF(x == a[i], "%d != %d", x, a[i]);
    }
}

/* ---- test/chan/zerosize.go ------------------------------------------- */

/* test/chan/zerosize.go */
TEST(chan_zerosize)
{
    /* make(chan [0]byte), make(chan [0]byte, 1), make(chan struct{}),
       make(chan struct{}, 1): in C all four are channels of size 0. */
    sp_chan *c[4] = { sp_chan_make(0, 0), sp_chan_make(0, 1),
                      sp_chan_make(0, 0), sp_chan_make(0, 1) };

    for (int i = 0; i < 4; i++)
        CHECKF(c[i] != NULL, "make of a zero-size channel %d failed", i);
    /* And they carry their (empty) values. */
    CHECK(sp_chan_trysend(c[1], NULL) && !sp_chan_trysend(c[1], NULL));
    CHECK(sp_chan_len(c[1]) == 1 && sp_chan_cap(c[1]) == 1);
    CHECK(sp_chan_recv(c[1], NULL) && sp_chan_len(c[1]) == 0);
    sp_chan_close(c[3]);
    CHECK(sp_chan_tryrecv(c[3], NULL, NULL) == 1);
    for (int i = 0; i < 4; i++)
        sp_chan_free(c[i]);
}

int main(void)
{
    return sp_test_main();
}
