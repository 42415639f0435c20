/*
 * ring.c - the workloads with many live Gs, from the Benchmarks Game:
 * thread-ring (a token passed around a ring of Gs over unbuffered
 * channels) and chameneos-redux (creatures meeting in pairs through a
 * mall G).  bench/go/ring.go is the same in Go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/cpu.h>
#include "bench.h"

/* ---- threadring: a token passed around N Gs ------------------------- */

/*
 * Node i (1-based) receives the token on in[i-1] and sends it, one less,
 * on in[i % n].  The token starts at `passes` on node 1, so node
 * passes % n + 1 receives 0: it notes the time and its id, and sends
 * STOP round the ring, which every node forwards before exiting, except
 * the one whose successor is the winner (gone already).
 */
#define STOP (-1L)

struct ring {
    int n;
    sp_chan **in;
    struct countdown cd;        /* every node exits */
    uint64_t t_end;             /* sp_nanotime when the token reached 0 */
    long winner;                /* the node that received 0 */
};

struct node {
    struct ring *r;
    int id;                     /* 1..n */
};

static void ring_node(void *arg)
{
    struct node *me = arg;
    struct ring *r = me->r;
    sp_chan *in = r->in[me->id - 1], *out = r->in[me->id % r->n];
    long t;

    for (;;) {
        sp_chan_recv(in, &t);
        if (t == STOP) {
            if (me->id % r->n + 1 != r->winner)
                sp_chan_send(out, &t);
            break;
        }
        if (t == 0) {
            r->t_end = sp_nanotime();
            r->winner = me->id;
            t = STOP;
            if (r->n > 1)
                sp_chan_send(out, &t);
            break;
        }
        t--;
        sp_chan_send(out, &t);
    }
    countdown_hit(&r->cd);
}

/* ns per pass of a ring of n Gs passing the token `passes` times, or a
 * negative value after printing an error. */
static double threadring(const char *name, int n, long passes)
{
    struct ring r = { .n = n };
    struct node *nodes = malloc(n * sizeof *nodes);
    double ns = -1;
    uint64_t t0;
    int made = 0;

    r.in = malloc(n * sizeof *r.in);
    if (!nodes || !r.in)
        goto oom;
    for (; made < n; made++) {
        r.in[made] = sp_chan_make(sizeof(long), 0);
        if (!r.in[made])
            goto oom;
        nodes[made] = (struct node){ &r, made + 1 };
    }
    countdown_init(&r.cd, n);
    t0 = sp_nanotime();
    for (int i = 0; i < n; i++)
        sp_go(ring_node, &nodes[i]);
    sp_chan_send(r.in[0], &passes);
    countdown_wait(&r.cd);
    if (r.winner != passes % n + 1)
        printf("# ERROR %s: node %ld received 0, not node %ld\n", name,
               r.winner, passes % n + 1);
    else
        ns = (double)(r.t_end - t0) / passes;
    goto out;
oom:
    printf("# ERROR %s: out of memory for a ring of %d\n", name, n);
out:
    for (int i = 0; i < made; i++)
        sp_chan_free(r.in[i]);
    free(r.in);
    free(nodes);
    return ns;
}

#define RING_PASSES  5000000L   /* the and Go's figure */
#define SCALE_PASSES 2000000L

bool bench_threadring(double out[NFIG])
{
    out[0] = threadring("threadring_503", 503, RING_PASSES);
    out[1] = threadring("threadring_10007", 10007, RING_PASSES);
    return out[0] > 0 && out[1] > 0;
}

/* How the cost per pass grows with the ring: 1k, 10k and 100k Gs. */
bool bench_ring_scale(double out[NFIG])
{
    static const int sizes[] = { 1000, 10000, 100000 };
    static const char *names[] = { "ring_1k", "ring_10k", "ring_100k" };

    for (int i = 0; i < 3; i++) {
        out[i] = threadring(names[i], sizes[i], SCALE_PASSES);
        if (out[i] < 0)
            return false;
    }
    return true;
}

/* ---- chameneos: creatures meet in pairs at a mall ------------------- */

/*
 * Each creature asks the mall for a meeting by sending a request that
 * names its colour and its reply channel; the mall pairs requests two
 * by two and tells each creature the other's colour (and whether the
 * other was itself, which never happens: a creature has one request
 * out at a time).  Both then take the complement of the two colours.
 * After `meetings` pairings the mall answers each creature's next
 * request with CLOSED, and the creature exits with its count.
 */
enum colour { BLUE, RED, YELLOW };
#define CLOSED (-1)

struct request {
    int colour, id;
    sp_chan *reply;             /* of struct answer, capacity 1 */
};

struct answer {
    int colour, id;             /* the other's; colour CLOSED: mall shut */
};

struct game {
    sp_chan *mall;              /* of struct request, unbuffered */
    long meetings;
    struct countdown cd;        /* every creature and the mall exit */
    long met[10];               /* per creature, written before its hit */
};

struct creature {
    struct game *g;
    int id, colour;
    sp_chan *reply;
};

static int complement(int a, int b)
{
    return a == b ? a : 3 - a - b;
}

static void creature(void *arg)
{
    struct creature *c = arg;
    struct request rq = { c->colour, c->id, c->reply };
    struct answer a;
    long met = 0;

    for (;;) {
        rq.colour = c->colour;
        sp_chan_send(c->g->mall, &rq);
        sp_chan_recv(c->reply, &a);
        if (a.colour == CLOSED)
            break;
        c->colour = complement(c->colour, a.colour);
        met++;
    }
    c->g->met[c->id] = met;
    countdown_hit(&c->g->cd);
}

struct mall_arg {
    struct game *g;
    int ncreatures;
};

static void mall(void *arg)
{
    struct mall_arg *m = arg;
    struct request a, b;

    for (long i = 0; i < m->g->meetings; i++) {
        sp_chan_recv(m->g->mall, &a);
        sp_chan_recv(m->g->mall, &b);
        sp_chan_send(a.reply, &(struct answer){ b.colour, b.id });
        sp_chan_send(b.reply, &(struct answer){ a.colour, a.id });
    }
    for (int i = 0; i < m->ncreatures; i++) {
        sp_chan_recv(m->g->mall, &a);
        sp_chan_send(a.reply, &(struct answer){ CLOSED, -1 });
    }
    countdown_hit(&m->g->cd);
}

/* ns per meeting of n creatures (colours cycling blue, red, yellow)
 * meeting `meetings` times, or a negative value after an error. */
static double chameneos(const char *name, int n, long meetings)
{
    struct game g = { .meetings = meetings };
    struct creature cs[10];
    struct mall_arg m = { &g, n };
    double ns = -1;
    uint64_t t0;
    long total = 0;
    int made = 0;

    g.mall = sp_chan_make(sizeof(struct request), 0);
    for (; g.mall && made < n; made++) {
        cs[made] = (struct creature){ &g, made, made % 3,
                                      sp_chan_make(sizeof(struct answer), 1) };
        if (!cs[made].reply)
            break;
    }
    if (!g.mall || made < n) {
        printf("# ERROR %s: out of memory for the channels\n", name);
        goto out;
    }
    countdown_init(&g.cd, n + 1);
    t0 = sp_nanotime();
    sp_go(mall, &m);
    for (int i = 0; i < n; i++)
        sp_go(creature, &cs[i]);
    countdown_wait(&g.cd);
    ns = since(t0) / meetings;
    for (int i = 0; i < n; i++)
        total += g.met[i];
    if (total != 2 * meetings) {
        printf("# ERROR %s: creatures met %ld times, not %ld\n", name,
               total, 2 * meetings);
        ns = -1;
    }
out:
    for (int i = 0; i < made; i++)
        sp_chan_free(cs[i].reply);
    if (g.mall)
        sp_chan_free(g.mall);
    return ns;
}

#define MEETINGS 600000L

bool bench_chameneos(double out[NFIG])
{
    out[0] = chameneos("chameneos_3", 3, MEETINGS);
    out[1] = chameneos("chameneos_10", 10, MEETINGS);
    return out[0] > 0 && out[1] > 0;
}
