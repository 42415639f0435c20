/*
 * comm.c - the workloads where Gs talk: unbuffered ping-pong, fan-in over
 * a buffered channel, and one contended mutex.
 */
#include <stdio.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include "bench.h"

/* ---- pingpong: 1,000,000 round trips over two unbuffered channels ---- */

#define NTRIPS 1000000

struct pingpong {
    sp_chan *ping, *pong;
    struct countdown cd;
    long bad;                   /* replies that were not request + 1 */
};

static void pinger(void *arg)
{
    struct pingpong *pp = arg;

    for (long i = 0; i < NTRIPS; i++) {
        long v = i;

        sp_chan_send(pp->ping, &v);
        sp_chan_recv(pp->pong, &v);
        if (v != i + 1)
            pp->bad++;
    }
    countdown_hit(&pp->cd);
}

static void ponger(void *arg)
{
    struct pingpong *pp = arg;

    for (long i = 0; i < NTRIPS; i++) {
        long v;

        sp_chan_recv(pp->ping, &v);
        v++;
        sp_chan_send(pp->pong, &v);
    }
    countdown_hit(&pp->cd);
}

bool bench_pingpong(double out[NFIG])
{
    struct pingpong pp = {
        .ping = sp_chan_make(sizeof(long), 0),
        .pong = sp_chan_make(sizeof(long), 0),
    };
    uint64_t t0;

    if (!pp.ping || !pp.pong) {
        printf("# ERROR pingpong: out of memory for the channels\n");
        return false;
    }
    countdown_init(&pp.cd, 2);
    t0 = sp_nanotime();
    sp_go(ponger, &pp);
    sp_go(pinger, &pp);
    countdown_wait(&pp.cd);
    out[0] = since(t0) / (2.0 * NTRIPS);
    sp_chan_free(pp.ping);
    sp_chan_free(pp.pong);
    if (pp.bad) {
        printf("# ERROR pingpong: %ld of %d replies wrong\n", pp.bad,
               NTRIPS);
        return false;
    }
    return true;
}

/* ---- chan_fanin: 8 producers, 1 consumer, capacity 128 --------------- */

#define NPROD       8
#define NMSG        1000000
#define FANIN_CAP   128
#define PER_PROD    (NMSG / NPROD)

_Static_assert(NMSG % NPROD == 0, "producers send equal shares");

/* Producer p sends p*PER_PROD .. (p+1)*PER_PROD-1, in order. */
struct fanin {
    sp_chan *c;
    struct countdown cd;        /* the consumer's */
    long sum;                   /* of the values received */
    long misordered;            /* values that overtook a later one */
};

struct producer {
    struct fanin *f;
    int p;
};

static void producer(void *arg)
{
    struct producer *pr = arg;

    for (int v = pr->p * PER_PROD; v < (pr->p + 1) * PER_PROD; v++)
        sp_chan_send(pr->f->c, &v);
}

static void consumer(void *arg)
{
    struct fanin *f = arg;
    int last[NPROD];

    for (int p = 0; p < NPROD; p++)
        last[p] = -1;
    for (long i = 0; i < NMSG; i++) {
        int v;

        sp_chan_recv(f->c, &v);
        f->sum += v;
        if (v <= last[v / PER_PROD])
            f->misordered++;
        last[v / PER_PROD] = v;
    }
    countdown_hit(&f->cd);
}

bool bench_chan_fanin(double out[NFIG])
{
    struct fanin f = { .c = sp_chan_make(sizeof(int), FANIN_CAP) };
    struct producer pr[NPROD];
    const long want = (long)NMSG * (NMSG - 1) / 2;
    uint64_t t0;

    if (!f.c) {
        printf("# ERROR chan_fanin: out of memory for the channel\n");
        return false;
    }
    countdown_init(&f.cd, 1);
    t0 = sp_nanotime();
    sp_go(consumer, &f);
    for (int p = 0; p < NPROD; p++) {
        pr[p] = (struct producer){ &f, p };
        sp_go(producer, &pr[p]);
    }
    countdown_wait(&f.cd);
    out[0] = since(t0) / NMSG;
    sp_chan_free(f.c);
    if (f.sum != want || f.misordered) {
        printf("# ERROR chan_fanin: sum %ld, want %ld; %ld values out of "
               "their producer's order\n", f.sum, want, f.misordered);
        return false;
    }
    return true;
}

/* ---- mutex: 4*ncpu Gs, 4,000,000 locks in all ------------------------ */

#define NLOCKS 4000000

struct mutexbench {
    sp_mutex mu;
    long counter;               /* under mu */
    struct countdown cd;
};

struct locker {
    struct mutexbench *m;
    long n;
};

static void locker(void *arg)
{
    struct locker *l = arg;

    for (long i = 0; i < l->n; i++) {
        sp_mutex_lock(&l->m->mu);
        l->m->counter++;
        sp_mutex_unlock(&l->m->mu);
    }
    countdown_hit(&l->m->cd);
}

bool bench_mutex(double out[NFIG])
{
    int ng = 4 * sp_ncpu();
    struct mutexbench m = { .mu = SP_MUTEX_INIT };
    struct locker l[ng];
    uint64_t t0;

    countdown_init(&m.cd, ng);
    t0 = sp_nanotime();
    for (int i = 0; i < ng; i++) {
        l[i] = (struct locker){ &m, share(NLOCKS, ng, i) };
        sp_go(locker, &l[i]);
    }
    countdown_wait(&m.cd);
    out[0] = since(t0) / NLOCKS;
    if (m.counter != NLOCKS) {
        printf("# ERROR mutex: counter %ld after %d locked increments\n",
               m.counter, NLOCKS);
        return false;
    }
    return true;
}
