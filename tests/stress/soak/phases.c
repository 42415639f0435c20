/*
 * phases.c - the soak's workloads (soak.h).  Each phase owns its Gs from
 * start to finish: it returns only when every G it started has signalled
 * its wait group, and it frees every channel and timer it made, so that
 * main.c finds the machine back where the phase began.
 */
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/time.h>
#include "kernel/export_test.h"
#include "soak.h"
#include "tests/lib/testutil.h"

/* A set of ids, each to be marked exactly once. */
struct bits {
    uint64_t *w;
    int n;
};

static bool bits_make(struct bits *b, int n)
{
    b->n = n;
    b->w = calloc((n + 63) / 64, sizeof *b->w);
    if (!b->w)
        soak_fail("out of memory for a bitmap of %d", n);
    return b->w != NULL;
}

/* Marks id; false if it was out of range or marked already. */
static bool bits_mark(struct bits *b, uint64_t id)
{
    uint64_t bit;

    if (id >= (uint64_t)b->n)
        return false;
    bit = 1ULL << (id % 64);
    return !(__atomic_fetch_or(&b->w[id / 64], bit, __ATOMIC_RELAXED) & bit);
}

static bool bits_test(const struct bits *b, int id)
{
    return __atomic_load_n(&b->w[id / 64], __ATOMIC_RELAXED) >> (id % 64) & 1;
}

/* How many ids are not marked; the first one in *first. */
static int bits_missing(const struct bits *b, int *first)
{
    int n = 0;

    for (int i = b->n - 1; i >= 0; i--)
        if (!bits_test(b, i)) {
            *first = i;
            n++;
        }
    return n;
}

static void add(uint64_t *counter, uint64_t n)
{
    __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

/* ---- spawn: a tree of Gs, each leaf run exactly once ------------------ */

static struct {
    struct bits ran;
    sp_waitgroup wg;
    int n, spawners;
} sp;

static void leaf(void *arg)
{
    if (!bits_mark(&sp.ran, (uintptr_t)arg))
        soak_fail("spawn: G for leaf %lu ran twice", (unsigned long)(uintptr_t)arg);
    sp_waitgroup_done(&sp.wg);
}

static void spawner(void *arg)
{
    int k = (int)(uintptr_t)arg;

    for (int i = k; i < sp.n; i += sp.spawners)
        sp_go(leaf, (void *)(uintptr_t)i);
    sp_waitgroup_done(&sp.wg);
}

void phase_spawn(const struct sizes *sz, uint64_t seed)
{
    int first = 0, missing;

    sp.n = sz->spawn;
    sp.spawners = sp_ncpu();
    if (!bits_make(&sp.ran, sp.n))
        return;
    sp_waitgroup_add(&sp.wg, sp.n + sp.spawners);
    for (int k = 0; k < sp.spawners; k++)
        sp_go(spawner, (void *)(uintptr_t)k);
    sp_waitgroup_wait(&sp.wg);
    if ((missing = bits_missing(&sp.ran, &first)))
        soak_fail("spawn: %d of %d leaves never ran (first %d)", missing,
                  sp.n, first);
    add(&tally.spawned, sp.n + sp.spawners);
    free(sp.ran.w);
}

/* ---- chan: producers and consumers, each message received once -------- */

static struct {
    sp_chan *c;
    struct bits got;
    int per, producers_left;
    sp_waitgroup wg;
} ch;

static void producer(void *arg)
{
    uint64_t base = (uintptr_t)arg * ch.per;

    for (int k = 0; k < ch.per; k++) {
        uint64_t v = base + k;

        sp_chan_send(ch.c, &v);
    }
    if (__atomic_sub_fetch(&ch.producers_left, 1, __ATOMIC_ACQ_REL) == 0)
        sp_chan_close(ch.c);
    sp_waitgroup_done(&ch.wg);
}

static void consumer(void *arg)
{
    uint64_t v, n = 0;

    while (sp_chan_recv(ch.c, &v)) {
        if (!bits_mark(&ch.got, v))
            soak_fail("chan: message %lu received twice or never sent",
                      (unsigned long)v);
        n++;
    }
    add(&tally.msgs, n);
    sp_waitgroup_done(&ch.wg);
}

void phase_chan(const struct sizes *sz, uint64_t seed)
{
    static const int caps[] = { 0, 1, 16, 128 };
    int n = sz->producers * sz->msgs_per_producer, first = 0, missing;

    ch.per = sz->msgs_per_producer;
    ch.producers_left = sz->producers;
    ch.c = sp_chan_make(sizeof(uint64_t), caps[seed % 4]);
    if (!ch.c || !bits_make(&ch.got, n)) {
        soak_fail("chan: out of memory");
        return;
    }
    sp_waitgroup_add(&ch.wg, sz->producers + sz->consumers);
    for (int i = 0; i < sz->consumers; i++)
        sp_go(consumer, NULL);
    for (int i = 0; i < sz->producers; i++)
        sp_go(producer, (void *)(uintptr_t)i);
    sp_waitgroup_wait(&ch.wg);
    if ((missing = bits_missing(&ch.got, &first)))
        soak_fail("chan (cap %d): %d of %d messages lost (first %d)",
                  caps[seed % 4], missing, n, first);
    add(&tally.spawned, sz->producers + sz->consumers);
    sp_chan_free(ch.c);
    free(ch.got.w);
}

/* ---- select: two channels, defaults and timeouts ---------------------- */

static struct {
    sp_chan *a, *b, *never;
    struct bits got;
    int each, senders_left;
    sp_waitgroup wg;
} sel;

static void sel_sender(void *arg)
{
    uint64_t base = (uintptr_t)arg * sel.each, v;
    struct sp_case cs[2] = {
        { .ch = sel.a, .dir = SP_SEND, .elem = &v },
        { .ch = sel.b, .dir = SP_SEND, .elem = &v },
    };

    for (int k = 0; k < sel.each; k++) {
        v = base + k;
        sp_select(cs, 2, true);
    }
    add(&tally.selects, sel.each);
    if (__atomic_sub_fetch(&sel.senders_left, 1, __ATOMIC_ACQ_REL) == 0) {
        sp_chan_close(sel.a);
        sp_chan_close(sel.b);
    }
    sp_waitgroup_done(&sel.wg);
}

static void sel_receiver(void *arg)
{
    uint64_t v, s = (uintptr_t)arg * 7919 + 1, n = 0;
    struct sp_case cs[2] = {
        { .ch = sel.a, .dir = SP_RECV, .elem = &v },
        { .ch = sel.b, .dir = SP_RECV, .elem = &v },
    };

    while (cs[0].ch || cs[1].ch) {
        int i;
        bool ok;

        /* Now and then a select with a default, or a receive with a
           timeout on a channel nobody sends on (it must time out). */
        if (rnd(&s) % 16 == 0 &&
            sp_chan_recv_timeout(sel.never, &v, 20000, &ok) != 0)
            soak_fail("select: a receive on a silent channel did not time out");
        i = sp_select(cs, 2, rnd(&s) % 8 != 0);
        if (i < 0) {
            sp_yield();
            continue;
        }
        if (!cs[i].ok) {
            cs[i].ch = NULL;    /* closed: that case never fires again */
            continue;
        }
        if (!bits_mark(&sel.got, v))
            soak_fail("select: message %lu received twice or never sent",
                      (unsigned long)v);
        n++;
    }
    add(&tally.msgs, n);
    add(&tally.selects, n);
    sp_waitgroup_done(&sel.wg);
}

void phase_select(const struct sizes *sz, uint64_t seed)
{
    int n = sz->selectors * sz->selects_each, first = 0, missing;

    sel.each = sz->selects_each;
    sel.senders_left = sz->selectors;
    sel.a = sp_chan_make(sizeof(uint64_t), 0);
    sel.b = sp_chan_make(sizeof(uint64_t), 4);
    sel.never = sp_chan_make(sizeof(uint64_t), 0);
    if (!sel.a || !sel.b || !sel.never || !bits_make(&sel.got, n)) {
        soak_fail("select: out of memory");
        return;
    }
    sp_waitgroup_add(&sel.wg, 2 * sz->selectors);
    for (int i = 0; i < sz->selectors; i++) {
        sp_go(sel_receiver, (void *)(uintptr_t)(seed + i));
        sp_go(sel_sender, (void *)(uintptr_t)i);
    }
    sp_waitgroup_wait(&sel.wg);
    if ((missing = bits_missing(&sel.got, &first)))
        soak_fail("select: %d of %d messages lost (first %d)", missing, n,
                  first);
    add(&tally.spawned, 2 * sz->selectors);
    sp_chan_free(sel.a);
    sp_chan_free(sel.b);
    sp_chan_free(sel.never);
    free(sel.got.w);
}

/* ---- mutex: an exact counter, and readers that never see a torn pair -- */

static struct {
    sp_mutex m;
    sp_rwmutex rw;
    uint64_t count;             /* under m */
    uint64_t pair[2];           /* under rw: always equal */
    int each;
    sp_waitgroup wg;
} mx = { .m = SP_MUTEX_INIT, .rw = SP_RWMUTEX_INIT };

static void locker(void *arg)
{
    uint64_t s = (uintptr_t)arg * 104729 + 3;

    for (int k = 0; k < mx.each; k++) {
        switch (rnd(&s) % 4) {
        case 0:                 /* writer: the pair moves together */
            sp_rwmutex_lock(&mx.rw);
            mx.pair[0]++;
            if (k % 8 == 0)
                sp_yield();     /* hold it across a switch now and then */
            mx.pair[1]++;
            sp_rwmutex_unlock(&mx.rw);
            break;
        case 1:                 /* reader */
            sp_rwmutex_rlock(&mx.rw);
            if (mx.pair[0] != mx.pair[1])
                soak_fail("mutex: a reader saw a writer's half-done pair");
            sp_rwmutex_runlock(&mx.rw);
            break;
        default:
            sp_mutex_lock(&mx.m);
            mx.count++;
            sp_mutex_unlock(&mx.m);
        }
    }
    add(&tally.locks, mx.each);
    sp_waitgroup_done(&mx.wg);
}

void phase_mutex(const struct sizes *sz, uint64_t seed)
{
    uint64_t want = 0;

    mx.count = mx.pair[0] = mx.pair[1] = 0;
    mx.each = sz->locks_each;
    /* The same random streams as the lockers: what the count must be. */
    for (int i = 0; i < sz->lockers; i++) {
        uint64_t s = (seed + i) * 104729 + 3;

        for (int k = 0; k < mx.each; k++)
            want += rnd(&s) % 4 >= 2;
    }
    sp_waitgroup_add(&mx.wg, sz->lockers);
    for (int i = 0; i < sz->lockers; i++)
        sp_go(locker, (void *)(uintptr_t)(seed + i));
    sp_waitgroup_wait(&mx.wg);
    if (mx.count != want)
        soak_fail("mutex: counter %lu, want %lu", (unsigned long)mx.count,
                  (unsigned long)want);
    add(&tally.spawned, sz->lockers);
}

/* ---- timers: each fires once, a stopped one never --------------------- */

static struct {
    struct bits fired;
    unsigned char *stopped;
    int nfired;
} tm;

static void fire(void *arg)
{
    uintptr_t i = (uintptr_t)arg;

    if (!bits_mark(&tm.fired, i))
        soak_fail("timers: timer %lu fired twice", (unsigned long)i);
    __atomic_add_fetch(&tm.nfired, 1, __ATOMIC_RELEASE);
}

void phase_timers(const struct sizes *sz, uint64_t seed)
{
    int n = sz->timers, nstopped = 0;
    sp_timer **t = calloc(n, sizeof *t);
    uint64_t s = seed * 31 + 7, end;

    tm.nfired = 0;
    tm.stopped = calloc(n, 1);
    if (!t || !tm.stopped || !bits_make(&tm.fired, n)) {
        soak_fail("timers: out of memory");
        return;
    }
    for (int i = 0; i < n; i++) {
        t[i] = sp_after_func(rnd(&s) % 3000000, fire, (void *)(uintptr_t)i);
        if (!t[i]) {
            soak_fail("timers: out of memory for timer %d", i);
            n = i;
            break;
        }
        /* A stop that succeeds promises that fire never runs. */
        if (rnd(&s) % 4 == 0 && sp_timer_stop(t[i])) {
            tm.stopped[i] = 1;
            nstopped++;
        }
    }
    end = sp_nanotime() + 10000000000ULL;
    while (__atomic_load_n(&tm.nfired, __ATOMIC_ACQUIRE) < n - nstopped &&
           sp_nanotime() < end)
        sp_sleep(1000000);
    sp_sleep(4000000);          /* past every deadline: nothing more fires */
    if (__atomic_load_n(&tm.nfired, __ATOMIC_ACQUIRE) != n - nstopped)
        soak_fail("timers: %d fired, want %d of %d (%d stopped)", tm.nfired,
                  n - nstopped, n, nstopped);
    for (int i = 0; i < n; i++) {
        if (tm.stopped[i] && bits_test(&tm.fired, i)) {
            soak_fail("timers: timer %d fired after a successful stop", i);
            break;
        }
        if (!tm.stopped[i] && !bits_test(&tm.fired, i)) {
            soak_fail("timers: timer %d never fired", i);
            break;
        }
    }
    for (int i = 0; i < n; i++)
        sp_timer_free(t[i]);
    add(&tally.timers, n);
    add(&tally.spawned, tm.nfired);     /* each fire ran in a G of its own */
    free(t);
    free(tm.stopped);
    free(tm.fired.w);
}

/* ---- hogs: CPU-bound Gs beside sleepers -------------------------------- */

static struct {
    int ms, each;
    sp_waitgroup wg;
} hg;

static void hog(void *arg)
{
    uint64_t p0 = sp_preempted(), end = sp_nanotime() + hg.ms * 1000000ULL;
    volatile uint64_t x = 0;

    while (sp_nanotime() < end)
        x++;
    add(&tally.preempts, sp_preempted() - p0);
    add(&tally.hog_ms, hg.ms);
    sp_waitgroup_done(&hg.wg);
}

static void sleeper(void *arg)
{
    uint64_t s = (uintptr_t)arg * 65537 + 11;

    for (int k = 0; k < hg.each; k++)
        sp_sleep(rnd(&s) % 1000000);
    add(&tally.sleeps, hg.each);
    sp_waitgroup_done(&hg.wg);
}

void phase_hogs(const struct sizes *sz, uint64_t seed)
{
    hg.ms = sz->hog_ms;
    hg.each = sz->sleeps_each;
    sp_waitgroup_add(&hg.wg, sz->hogs + sz->sleepers);
    for (int i = 0; i < sz->hogs; i++)
        sp_go(hog, NULL);
    for (int i = 0; i < sz->sleepers; i++)
        sp_go(sleeper, (void *)(uintptr_t)(seed + i));
    sp_waitgroup_wait(&hg.wg);
    add(&tally.spawned, sz->hogs + sz->sleepers);
}

/* ---- net: TCP to the machine's own address, every byte echoed --------- */

/* A message's longest round trip: a connection quiet longer is wedged. */
#define NET_MSG_WAIT 120000000000ULL

static struct {
    bool tried, up;
    sp_listener *l;
    char addr[32];              /* "a.b.c.d:port" of the listener */
    char via[32];               /* an address that leads back to it
                                   through the NIC (netfault), or "" */
    const char *target;         /* what this phase's clients dial */
    uint64_t *bytes;            /* and where they count what came back */
    int msgs;
    sp_waitgroup wg;
} nt;

static void echo(void *arg)
{
    sp_conn *c = arg;
    char buf[2048];
    long n;

    while ((n = sp_read(c, buf, sizeof buf)) > 0)
        if (sp_write(c, buf, n) != n)
            break;
    sp_close(c);
    sp_waitgroup_done(&nt.wg);
}

static void acceptor(void *arg)
{
    int n = (int)(uintptr_t)arg, err;

    for (int i = 0; i < n; i++) {
        sp_conn *c = sp_accept(nt.l, &err);

        if (!c) {
            soak_fail("net: accept: %s", sp_net_strerror(err));
            /* The echo G this connection would have had. */
            sp_waitgroup_done(&nt.wg);
            continue;
        }
        add(&tally.spawned, 1);
        sp_go(echo, c);
    }
    sp_waitgroup_done(&nt.wg);
}

/* The byte at offset j of message k of client i. */
static char pattern(uint64_t i, int k, int j)
{
    return (char)(i * 131 + k * 31 + j * 7);
}

static void client(void *arg)
{
    uint64_t i = (uintptr_t)arg, s = i * 2654435761u + 1, bytes = 0;
    char out[2048], in[2048];
    int err;
    sp_conn *c = sp_dial(nt.target, 30000000000ULL, &err);

    if (!c) {
        soak_fail("net: dial %s: %s", nt.target, sp_net_strerror(err));
        sp_waitgroup_done(&nt.wg);
        return;
    }
    for (int k = 0; k < nt.msgs; k++) {
        int len = 1 + (int)(rnd(&s) % sizeof out), got = 0;

        for (int j = 0; j < len; j++)
            out[j] = pattern(i, k, j);
        sp_set_deadline(c, (int64_t)(sp_nanotime() + NET_MSG_WAIT));
        if (sp_write(c, out, len) != len) {
            soak_fail("net: client %lu: write failed", (unsigned long)i);
            break;
        }
        while (got < len) {
            long n = sp_read(c, in + got, len - got);

            if (n <= 0) {
                soak_fail("net: client %lu of %s: read %ld after %d of %d "
                          "bytes", (unsigned long)i, nt.target, n, got, len);
                goto out;
            }
            got += (int)n;
        }
        if (memcmp(in, out, len)) {
            soak_fail("net: client %lu: message %d came back changed",
                      (unsigned long)i, k);
            break;
        }
        bytes += len;
    }
out:
    add(nt.bytes, bytes);
    sp_close(c);
    sp_waitgroup_done(&nt.wg);
}

/* The listener, once: none if the machine has no NIC. */
static bool net_up(void)
{
    char ip[16];
    int err;

    if (nt.tried)
        return nt.up;
    nt.tried = true;
    if ((err = sp_net_wait(30000000000ULL))) {
        printf("soak: no network (%s): no network phase\n",
               sp_net_strerror(err));
        return false;
    }
    if (sp_net_addr(ip, sizeof ip) || !(nt.l = sp_listen(":7070", &err))) {
        soak_fail("net: no listener on :7070: %s", sp_net_strerror(err));
        return false;
    }
    snprintf(nt.addr, sizeof nt.addr, "%s:7070", ip);
    printf("soak: network phase against %s\n", nt.addr);
    if (nt.via[0])
        printf("soak: network-fault phase through %s, which leads back to "
               "it over the NIC%s\n", nt.via, fault_link_on ? ", under the "
               "link faults of fault=" : " (no link fault is on)");
    return nt.up = true;
}

bool phase_net_enabled(void)
{
    return nt.up;
}

bool phase_netfault_enabled(void)
{
    return nt.up && nt.via[0];
}

void phase_netfault_via(const char *addr)
{
    snprintf(nt.via, sizeof nt.via, "%s", addr);
}

/* n clients, each dialling target and echoing its messages through the
   listener's echo Gs; their bytes counted into *bytes. */
static void clients(const struct sizes *sz, uint64_t seed, const char *target,
                    uint64_t *bytes)
{
    int n = sz->conns;

    nt.msgs = sz->msgs_per_conn;
    nt.target = target;
    nt.bytes = bytes;
    /* Clients and acceptor; each accepted connection adds its echo G. */
    sp_waitgroup_add(&nt.wg, 2 * n + 1);
    sp_go(acceptor, (void *)(uintptr_t)n);
    for (int i = 0; i < n; i++)
        sp_go(client, (void *)(uintptr_t)(seed * 64 + i));
    sp_waitgroup_wait(&nt.wg);
    add(&tally.spawned, n + 1);
}

void phase_net(const struct sizes *sz, uint64_t seed)
{
    if (net_up())
        clients(sz, seed, nt.addr, &tally.net_bytes);
}

void phase_netfault(const struct sizes *sz, uint64_t seed)
{
    if (net_up() && nt.via[0])
        clients(sz, seed, nt.via, &tally.netfault_bytes);
}
