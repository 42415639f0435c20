/*
 * chan - channels and select (include/spindle/chan.h) across cores: FIFO
 * order, unbuffered rendezvous, close, select fairness, default, nil
 * channels, select against select, many producers and consumers, and a
 * final check that every G started here has finished.
 */
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "sched/export_test.h"

#define WAIT_NS 20000000000ULL      /* a waiting loop gives up after 20 s */

/* Yields until *v >= want; false if that took longer than WAIT_NS. */
static bool wait_for(int *v, int want)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
        if (sp_nanotime() > end)
            return false;
        sp_yield();
    }
    return true;
}

static void yield_n(int n)
{
    for (int i = 0; i < n; i++)
        sp_yield();
}

/* ---- buffered FIFO: 100,000 values from one G to another ------------ */

#define FIFO_N 100000

struct fifo {
    sp_chan *c, *done;
    int bad_at, bad_val;
};

static void fifo_producer(void *arg)
{
    struct fifo *f = arg;

    for (int i = 0; i < FIFO_N; i++)
        sp_chan_send(f->c, &i);
}

static void fifo_consumer(void *arg)
{
    struct fifo *f = arg;
    int v;

    f->bad_at = -1;
    for (int i = 0; i < FIFO_N; i++) {
        if (!sp_chan_recv(f->c, &v) || (v != i && f->bad_at < 0)) {
            f->bad_at = i;
            f->bad_val = v;
        }
    }
    sp_chan_send(f->done, NULL);
}

TEST(fifo_buffered)
{
    struct fifo f = { .c = sp_chan_make(sizeof(int), 64),
                      .done = sp_chan_make(0, 0) };

    CHECK(f.c && f.done);
    CHECK(sp_chan_cap(f.c) == 64 && sp_chan_len(f.c) == 0);
    sp_go(fifo_consumer, &f);
    sp_go(fifo_producer, &f);
    sp_chan_recv(f.done, NULL);
    CHECKF(f.bad_at < 0, "value %d arrived as number %d", f.bad_val,
           f.bad_at);
    CHECK(sp_chan_len(f.c) == 0);
    sp_chan_free(f.c);
    sp_chan_free(f.done);
}

/* ---- unbuffered rendezvous ------------------------------------------- */

#define RV_ROUNDS 300

struct rv {
    sp_chan *c, *done;
    int stage;                  /* 1: receiver is about to receive */
    int got;
    int delay;
};

static void rv_receiver(void *arg)
{
    struct rv *r = arg;

    yield_n(r->delay);
    __atomic_store_n(&r->stage, 1, __ATOMIC_RELEASE);
    sp_chan_recv(r->c, &r->got);
    sp_chan_send(r->done, NULL);
}

/* The sender must not return before the receiver took the value: while
   the receiver dawdles, the sender waits; when it came first, the sender
   hands over directly. */
TEST(unbuffered_rendezvous)
{
    struct rv r = { .c = sp_chan_make(sizeof(int), 0),
                    .done = sp_chan_make(0, 0) };

    CHECK(r.c && r.done);
    for (int i = 0; i < RV_ROUNDS; i++) {
        int v = 1000 + i;

        r.stage = 0;
        r.got = -1;
        r.delay = i % 3 == 0 ? 0 : i % 7;
        sp_go(rv_receiver, &r);
        if (i % 3 == 0)
            yield_n(3);         /* often lets the receiver wait first */
        sp_chan_send(r.c, &v);
        CHECKF(__atomic_load_n(&r.stage, __ATOMIC_ACQUIRE) == 1,
               "round %d: send returned before the receiver received", i);
        sp_chan_recv(r.done, NULL);
        CHECKF(r.got == v, "round %d: received %d, sent %d", i, r.got, v);
    }
    CHECK(!sp_chan_trysend(r.c, &(int){ 1 }));    /* nobody receives */
    sp_chan_free(r.c);
    sp_chan_free(r.done);
}

/* ---- close wakes every receiver -------------------------------------- */

#define NRECV 100

struct closer {
    sp_chan *c, *results;
    int entered;
};

struct recv_result {
    bool ok;
    int v;
};

static void close_receiver(void *arg)
{
    struct closer *cl = arg;
    struct recv_result r = { true, 0x5eed };

    __atomic_add_fetch(&cl->entered, 1, __ATOMIC_ACQ_REL);
    r.ok = sp_chan_recv(cl->c, &r.v);
    sp_chan_send(cl->results, &r);
}

TEST(close_wakes_receivers)
{
    struct closer cl = {
        .c = sp_chan_make(sizeof(int), 0),
        .results = sp_chan_make(sizeof(struct recv_result), NRECV),
    };
    int nok = 0, nset = 0;

    CHECK(cl.c && cl.results);
    for (int i = 0; i < NRECV; i++)
        sp_go(close_receiver, &cl);
    CHECK(wait_for(&cl.entered, NRECV));
    yield_n(20);                /* most of them are parked by now */
    CHECK(sp_chan_len(cl.results) == 0);
    sp_chan_close(cl.c);
    for (int i = 0; i < NRECV; i++) {
        struct recv_result r;

        CHECK(sp_chan_recv(cl.results, &r));
        nok += r.ok;
        nset += r.v != 0;
    }
    CHECKF(nok == 0, "%d receivers got ok == true from a closed channel",
           nok);
    CHECKF(nset == 0, "%d receivers got a value that was not zeroed", nset);
    sp_chan_free(cl.c);
    sp_chan_free(cl.results);
}

/* ---- receive after close drains the buffer first --------------------- */

TEST(recv_after_close_drains)
{
    sp_chan *c = sp_chan_make(sizeof(long), 5);
    long v;
    bool ok;

    CHECK(c);
    for (long i = 1; i <= 3; i++)
        sp_chan_send(c, &i);
    sp_chan_close(c);
    CHECK(sp_chan_len(c) == 3);
    for (long i = 1; i <= 3; i++) {
        v = 0;
        CHECKF(sp_chan_recv(c, &v) && v == i, "value %ld: got %ld", i, v);
    }
    v = 77;
    CHECK(!sp_chan_recv(c, &v) && v == 0);
    CHECK(!sp_chan_recv(c, NULL));
    v = 77;
    ok = true;
    CHECK(sp_chan_tryrecv(c, &v, &ok) == 1 && !ok && v == 0);
    CHECK(sp_chan_len(c) == 0);
    sp_chan_free(c);
}

/* ---- a blocked sender's value queues behind the buffer --------------- */

#define BLOCKED_N 2000

static void blocked_sender(void *arg)
{
    for (int i = 0; i < BLOCKED_N; i++)
        sp_chan_send(arg, &i);
    sp_chan_close(arg);
}

TEST(buffered_blocked_sender)
{
    sp_chan *c = sp_chan_make(sizeof(int), 2);
    int v, n = 0;

    CHECK(c);
    sp_go(blocked_sender, c);
    yield_n(5);                 /* the sender fills the buffer and waits */
    while (sp_chan_recv(c, &v)) {
        CHECKF(v == n, "got %d, expected %d", v, n);
        n++;
        if (n % 7 == 0)
            yield_n(2);
    }
    CHECK(n == BLOCKED_N);
    sp_chan_free(c);
}

/* ---- element sizes ---------------------------------------------------- */

struct big {
    uint64_t a, b, c;
    char tag[17];
};

static void big_sender(void *arg)
{
    for (int i = 0; i < 100; i++) {
        struct big b = { i, i * 2, i * 3, "" };

        memset(b.tag, 'a' + i % 26, 16);
        sp_chan_send(arg, &b);
    }
}

TEST(elem_sizes)
{
    sp_chan *u = sp_chan_make(sizeof(struct big), 0);
    sp_chan *sig = sp_chan_make(0, 3);
    struct big b;

    CHECK(u && sig);
    sp_go(big_sender, u);
    for (uint64_t i = 0; i < 100; i++) {
        CHECK(sp_chan_recv(u, &b));
        CHECK(b.a == i && b.b == 2 * i && b.c == 3 * i);
        CHECK(strlen(b.tag) == 16 && b.tag[15] == (char)('a' + i % 26));
    }
    /* Zero-size elements still count. */
    CHECK(sp_chan_trysend(sig, NULL) && sp_chan_trysend(sig, NULL));
    CHECK(sp_chan_len(sig) == 2);
    CHECK(sp_chan_trysend(sig, NULL) && !sp_chan_trysend(sig, NULL));
    CHECK(sp_chan_recv(sig, NULL) && sp_chan_len(sig) == 2);
    CHECK(sp_chan_len(NULL) == 0 && sp_chan_cap(NULL) == 0);
    sp_chan_free(u);
    sp_chan_free(sig);
    sp_chan_free(NULL);
}

/* ---- select: fairness among ready cases ------------------------------ */

#define FAIR_ROUNDS 40000

TEST(select_fair)
{
    sp_chan *c[4];
    struct sp_case cs[4];
    int v[4], hits[4] = { 0 };

    for (int i = 0; i < 4; i++) {
        c[i] = sp_chan_make(sizeof(int), 1);
        CHECK(c[i]);
        sp_chan_send(c[i], &i);
        cs[i] = (struct sp_case){ c[i], SP_RECV, &v[i], false };
    }
    for (int r = 0; r < FAIR_ROUNDS; r++) {
        int k = sp_select(cs, 4, r % 2);    /* every case is ready */

        CHECKF(k >= 0 && k < 4, "select returned %d", k);
        CHECK(cs[k].ok && v[k] == k);
        hits[k]++;
        CHECK(sp_chan_trysend(c[k], &k));
    }
    for (int i = 0; i < 4; i++) {
        CHECKF(hits[i] >= FAIR_ROUNDS / 5 && hits[i] <= FAIR_ROUNDS * 3 / 10,
               "case %d ran %d of %d times (%d %d %d %d)", i, hits[i],
               FAIR_ROUNDS, hits[0], hits[1], hits[2], hits[3]);
        sp_chan_free(c[i]);
    }
}

/* ---- select: default when nothing is ready --------------------------- */

TEST(select_default)
{
    sp_chan *empty = sp_chan_make(sizeof(int), 4);
    sp_chan *full = sp_chan_make(sizeof(int), 1);
    sp_chan *unbuf = sp_chan_make(sizeof(int), 0);
    int x = 5, y = 0;
    bool ok;

    CHECK(empty && full && unbuf);
    CHECK(sp_chan_trysend(full, &x));
    struct sp_case cs[] = {
        { empty, SP_RECV, &y, false },
        { full, SP_SEND, &x, false },
        { unbuf, SP_SEND, &x, false },
        { unbuf, SP_RECV, &y, false },
    };
    for (int i = 0; i < 100; i++)
        CHECK(sp_select(cs, 4, false) == -1);
    CHECK(sp_select(NULL, 0, false) == -1);
    CHECK(sp_chan_tryrecv(empty, &y, &ok) == 0);
    CHECK(!sp_chan_trysend(full, &x) && !sp_chan_trysend(unbuf, &x));
    /* Make one ready: it is the one chosen. */
    CHECK(sp_chan_trysend(empty, &x));
    CHECK(sp_select(cs, 4, false) == 0 && y == 5 && cs[0].ok);
    CHECK(sp_select(cs, 4, false) == -1);
    sp_chan_free(empty);
    sp_chan_free(full);
    sp_chan_free(unbuf);
}

/* ---- select against select, sends and receives ----------------------- */

#define SR_N 3000

struct sr {
    sp_chan *in, *out, *done;
    int bad;
};

/* Sends 0..SR_N-1 on out and expects 0..SR_N-1 on in, in one select. */
static void sr_loop(sp_chan *in, sp_chan *out, int *bad)
{
    int sent = 0, got = 0, inv = -1, outv;

    while (sent < SR_N || got < SR_N) {
        struct sp_case cs[2] = {
            { got < SR_N ? in : NULL, SP_RECV, &inv, false },
            { sent < SR_N ? out : NULL, SP_SEND, &outv, false },
        };

        outv = sent;
        switch (sp_select(cs, 2, true)) {
        case 0:
            if ((!cs[0].ok || inv != got) && !*bad)
                *bad = 1 + got;
            got++;
            break;
        case 1:
            sent++;
            break;
        default:
            *bad = -1;
            return;
        }
    }
}

static void sr_peer(void *arg)
{
    struct sr *s = arg;

    sr_loop(s->in, s->out, &s->bad);
    sp_chan_send(s->done, NULL);
}

TEST(select_send_recv)
{
    for (size_t cap = 0; cap <= 3; cap += 3) {
        struct sr s = { sp_chan_make(sizeof(int), cap),
                        sp_chan_make(sizeof(int), cap),
                        sp_chan_make(0, 0), 0 };
        int bad = 0;

        CHECK(s.in && s.out && s.done);
        sp_go(sr_peer, &s);
        sr_loop(s.out, s.in, &bad);     /* the mirror image */
        sp_chan_recv(s.done, NULL);
        CHECKF(!bad && !s.bad, "cap %d: order broken at %d / %d", (int)cap,
               bad, s.bad);
        sp_chan_free(s.in);
        sp_chan_free(s.out);
        sp_chan_free(s.done);
    }
}

/* ---- select: a nil channel never fires -------------------------------- */

static void late_sender(void *arg)
{
    yield_n(10);
    sp_chan_send(arg, &(int){ 42 });
}

TEST(select_nil_never_fires)
{
    sp_chan *c = sp_chan_make(sizeof(int), 1);
    int v = 0, w = 9;

    CHECK(c);
    struct sp_case cs[] = {
        { NULL, SP_RECV, &v, false },
        { c, SP_RECV, &v, false },
        { NULL, SP_SEND, &w, false },
    };
    for (int i = 0; i < 1000; i++) {
        CHECK(sp_chan_trysend(c, &i));
        CHECK(sp_select(cs, 3, i % 2) == 1 && v == i);
    }
    CHECK(sp_select(cs, 3, false) == -1);
    CHECK(sp_select(cs, 1, false) == -1);       /* only nil channels */
    CHECK(sp_chan_tryrecv(NULL, &v, NULL) == 0);
    CHECK(!sp_chan_trysend(NULL, &v));
    /* Parked with a nil case: only the real channel wakes it. */
    sp_go(late_sender, c);
    CHECK(sp_select(cs, 3, true) == 1 && v == 42);
    sp_chan_free(c);
}

/* ---- select: close wakes a blocked select ----------------------------- */

static void late_closer(void *arg)
{
    yield_n(10);
    sp_chan_close(arg);
}

TEST(select_close_wakes)
{
    sp_chan *a = sp_chan_make(sizeof(int), 0);
    sp_chan *b = sp_chan_make(sizeof(int), 2);
    int va = 1, vb = 1;

    CHECK(a && b);
    struct sp_case cs[] = {
        { a, SP_RECV, &va, true },
        { b, SP_RECV, &vb, true },
    };
    sp_go(late_closer, b);
    CHECK(sp_select(cs, 2, true) == 1 && !cs[1].ok && vb == 0);
    CHECK(sp_select(cs, 2, false) == 1);        /* closed stays ready */
    CHECK(sp_chan_trysend(a, &va) == false);
    sp_chan_free(a);
    sp_chan_free(b);
}

/* ---- select with more cases than fit on the stack --------------------- */

#define MANY 20

/* c[0..MANY) for the values, c[MANY] for main's acknowledgements, so
   that only one case is ready at a time. */
static void many_sender(void *arg)
{
    sp_chan **c = arg;

    for (int i = 0; i < 200; i++) {
        int k = (i * 7) % MANY;

        sp_chan_send(c[k], &k);
        sp_chan_recv(c[MANY], NULL);
    }
}

TEST(select_many_cases)
{
    sp_chan *c[MANY + 1];
    struct sp_case cs[MANY];
    int v[MANY];

    for (int i = 0; i <= MANY; i++) {
        c[i] = sp_chan_make(sizeof(int), i % 2);
        CHECK(c[i]);
        if (i < MANY)
            cs[i] = (struct sp_case){ c[i], SP_RECV, &v[i], false };
    }
    sp_go(many_sender, c);
    for (int i = 0; i < 200; i++) {
        int k = sp_select(cs, MANY, true);

        CHECKF(k == (i * 7) % MANY && v[k] == k, "round %d: case %d", i, k);
        sp_chan_send(c[MANY], NULL);
    }
    for (int i = 0; i <= MANY; i++)
        sp_chan_free(c[i]);
}

/* ---- many producers and consumers on all cores ------------------------ */

#define MPMC_PER_PRODUCER 4000

struct mpmc {
    sp_chan *c, *quit, *sums;
    int nprod;
};

static void mpmc_producer(void *arg)
{
    struct mpmc *m = arg;

    for (long i = 1; i <= MPMC_PER_PRODUCER; i++)
        sp_chan_send(m->c, &i);
    sp_chan_send(m->sums, &(long){ -1 });       /* "I am done" */
}

/* Half the consumers receive directly, half through a select with quit. */
static void mpmc_consumer(void *arg)
{
    struct mpmc *m = arg;
    long v, sum = 0;
    bool via_select = sp_goid() % 2;

    for (;;) {
        if (via_select) {
            struct sp_case cs[2] = { { m->c, SP_RECV, &v, false },
                                     { m->quit, SP_RECV, NULL, false } };

            if (sp_select(cs, 2, true) == 1 || !cs[0].ok)
                break;
        } else if (!sp_chan_recv(m->c, &v)) {
            break;
        }
        sum += v;
    }
    sp_chan_send(m->sums, &sum);
}

TEST(mpmc)
{
    int np = 2 * sp_ncpu(), nc = 2 * sp_ncpu();
    struct mpmc m = { sp_chan_make(sizeof(long), 16), sp_chan_make(0, 0),
                      sp_chan_make(sizeof(long), 0), np };
    long want = (long)np * MPMC_PER_PRODUCER * (MPMC_PER_PRODUCER + 1) / 2;
    long total = 0, s;
    int ended = 0, summed = 0;

    CHECK(m.c && m.quit && m.sums);
    for (int i = 0; i < nc; i++)
        sp_go(mpmc_consumer, &m);
    for (int i = 0; i < np; i++)
        sp_go(mpmc_producer, &m);
    while (ended < np) {
        sp_chan_recv(m.sums, &s);
        if (s == -1)
            ended++;
        else
            summed++, total += s;   /* cannot happen before close */
    }
    sp_chan_close(m.c);             /* drained consumers stop */
    while (summed < nc) {
        sp_chan_recv(m.sums, &s);
        summed++;
        total += s;
    }
    CHECKF(total == want, "sum %ld, expected %ld", total, want);
    sp_chan_close(m.quit);
    sp_chan_free(m.c);
    sp_chan_free(m.quit);
    sp_chan_free(m.sums);
}

/* ---- selects against selects on all cores ------------------------------ */

#define SS_PER_PRODUCER 3000

struct ss {
    sp_chan *ch[3];             /* two unbuffered, one buffered */
    sp_chan *quit, *sums;
};

static void ss_producer(void *arg)
{
    struct ss *s = arg;

    for (long i = 1; i <= SS_PER_PRODUCER; i++) {
        struct sp_case cs[3];

        for (int k = 0; k < 3; k++)
            cs[k] = (struct sp_case){ s->ch[k], SP_SEND, &i, false };
        sp_select(cs, 3, true);
    }
    sp_chan_send(s->sums, &(long){ -1 });
}

static void ss_consumer(void *arg)
{
    struct ss *s = arg;
    long v, sum = 0;

    for (;;) {
        struct sp_case cs[4] = {
            { s->ch[0], SP_RECV, &v, false },
            { s->ch[1], SP_RECV, &v, false },
            { s->ch[2], SP_RECV, &v, false },
            { s->quit, SP_RECV, NULL, false },
        };

        if (sp_select(cs, 4, true) == 3)
            break;
        sum += v;
    }
    /* Every send has completed: only the buffer may still hold values. */
    while (sp_chan_tryrecv(s->ch[2], &v, NULL))
        sum += v;
    sp_chan_send(s->sums, &sum);
}

TEST(select_stress)
{
    int np = sp_ncpu() + 1, nc = sp_ncpu() + 1, ended = 0;
    struct ss s = { { sp_chan_make(sizeof(long), 0),
                      sp_chan_make(sizeof(long), 0),
                      sp_chan_make(sizeof(long), 4) },
                    sp_chan_make(0, 0), sp_chan_make(sizeof(long), 0) };
    long want = (long)np * SS_PER_PRODUCER * (SS_PER_PRODUCER + 1) / 2;
    long total = 0, v;

    CHECK(s.ch[0] && s.ch[1] && s.ch[2] && s.quit && s.sums);
    for (int i = 0; i < nc; i++)
        sp_go(ss_consumer, &s);
    for (int i = 0; i < np; i++)
        sp_go(ss_producer, &s);
    while (ended < np) {
        sp_chan_recv(s.sums, &v);
        ended += v == -1;
    }
    sp_chan_close(s.quit);
    for (int i = 0; i < nc; i++) {
        sp_chan_recv(s.sums, &v);
        total += v;
    }
    CHECKF(total == want, "sum %ld, expected %ld", total, want);
    for (int k = 0; k < 3; k++)
        sp_chan_free(s.ch[k]);
    sp_chan_free(s.quit);
    sp_chan_free(s.sums);
}

/* ---- a buffered channel's wake-up is not lost on a select ------------
 *
 * Go's invariant: no G stays parked on a buffered channel that could
 * serve it.  Here a select parked on buffered channels a and b is woken
 * by a value arriving in a; a plain G waits behind it on a.  Before the
 * select runs, b becomes ready too.  Whichever case the select takes, the
 * other G must not stay parked while a can serve it: if the select takes
 * b, the plain G gets a's value (or a's free cell, for sends).
 */

#define NOTICE_ROUNDS 300
#define NOTICE_WAIT_NS 5000000000ULL

struct notice {
    sp_chan *a, *b, *out;
    bool send;                  /* the Gs send to full channels */
    struct g *sel, *plain;      /* for waiting until each has parked */
};

static void notice_select(void *arg)
{
    struct notice *n = arg;
    int v = 7, w[2];
    int dir = n->send ? SP_SEND : SP_RECV;
    struct sp_case cs[2] = {
        { n->a, dir, n->send ? (void *)&v : &w[0], false },
        { n->b, dir, n->send ? (void *)&v : &w[1], false },
    };
    int k;

    __atomic_store_n(&n->sel, getg(), __ATOMIC_RELEASE);
    k = sp_select(cs, 2, true);
    sp_chan_send(n->out, &k);
}

static void notice_plain(void *arg)
{
    struct notice *n = arg;
    int v = 9, two = 2;

    __atomic_store_n(&n->plain, getg(), __ATOMIC_RELEASE);
    if (n->send)
        sp_chan_send(n->a, &v);
    else
        sp_chan_recv(n->a, &v);
    sp_chan_send(n->out, &two);
}

/* Yields until gp (once set) is parked for reason r. */
static bool wait_parked(struct g **gpp, enum waitreason r)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    for (;;) {
        struct g *gp = __atomic_load_n(gpp, __ATOMIC_ACQUIRE);

        if (gp && __atomic_load_n(&gp->status, __ATOMIC_ACQUIRE) ==
                      G_WAITING && gp->waitreason == r)
            return true;
        if (sp_nanotime() > end)
            return false;
        sp_yield();
    }
}

/* One round; a failure stops the case (sp_test_failed). */
static void notice_round(bool send)
{
    struct notice n = { sp_chan_make(sizeof(int), 1),
                        sp_chan_make(sizeof(int), 1),
                        sp_chan_make(sizeof(int), 2), send, NULL, NULL };
    int v = 1, k = -1, done;

    CHECK(n.a && n.b && n.out);
    if (send)                   /* full, so both sides wait to send */
        CHECK(sp_chan_trysend(n.a, &v) && sp_chan_trysend(n.b, &v));
    sp_go(notice_select, &n);
    CHECK(wait_parked(&n.sel, WAIT_SELECT));
    sp_go(notice_plain, &n);
    CHECK(wait_parked(&n.plain, send ? WAIT_CHAN_SEND : WAIT_CHAN_RECV));
    /* Ready a (the select is first in its queue), then b. */
    if (send) {
        CHECK(sp_chan_tryrecv(n.a, &v, NULL) &&
              sp_chan_tryrecv(n.b, &v, NULL));
    } else {
        CHECK(sp_chan_trysend(n.a, &v) && sp_chan_trysend(n.b, &v));
    }
    CHECK(sp_chan_recv_timeout(n.out, &k, NOTICE_WAIT_NS, NULL));
    CHECK(k == 0 || k == 1);
    if (k == 1) {
        /* a could serve the plain G all along: it must not stay parked. */
        CHECKF(sp_chan_recv_timeout(n.out, &done, NOTICE_WAIT_NS, NULL) &&
                   done == 2,
               "%s: the select took b and the G waiting on a stayed "
               "parked", send ? "send" : "recv");
    } else {
        /* The select took a; the plain G waits for the next turn. */
        if (send)
            sp_chan_recv(n.a, &v);
        else
            sp_chan_send(n.a, &v);
        CHECK(sp_chan_recv_timeout(n.out, &done, NOTICE_WAIT_NS, NULL) &&
              done == 2);
    }
    sp_chan_free(n.a);
    sp_chan_free(n.b);
    sp_chan_free(n.out);
}

TEST(select_notice_passed_on)
{
    for (int r = 0; r < NOTICE_ROUNDS && !sp_test_failed(); r++)
        notice_round(r % 2);
}

/* ---- every G started by this app has finished ------------------------- */

TEST(leak_check)
{
    uint64_t end = sp_nanotime() + WAIT_NS;

    while (sched_live_gs() > 1 && sp_nanotime() < end)
        sp_yield();
    CHECKF(sched_live_gs() == 1, "%ld Gs alive, expected only main",
           sched_live_gs());
}

int main(void)
{
    return sp_test_main();
}
