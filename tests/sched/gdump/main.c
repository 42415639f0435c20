/*
 * gdump - the goroutine dump and the profiles an app writes itself
 * (<spindle/profile.h>): sp_goroutine_profile in its three forms, and
 * sp_profile_stop_pprof.
 *
 * NWAIT Gs park in wait_here on a channel and NLOCK in lock_here on a
 * held mutex; every form of the dump must show each of them in that state
 * and function, and main running.  The pprof forms are gzip of stored
 * blocks here, which the test opens itself (its CRC-32 and length
 * checked) to look for the strings a reader would show; `go tool pprof`
 * reads them in tests/host/pprofhttp_test.sh, through apps/httpd.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/profile.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define NWAIT 3
#define NLOCK 2

static sp_chan *ch;
static sp_mutex mu;
static sp_waitgroup wg;
static uint64_t ids[NWAIT + NLOCK];    /* the parked Gs' ids (main's) */
static uint64_t sink;

/* What a writer collected. */
struct buf {
    char *b;
    size_t n, cap;
};

static int collect(void *arg, const void *p, size_t n)
{
    struct buf *b = arg;

    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;

        while (cap < b->n + n + 1)
            cap *= 2;
        if (!(b->b = realloc(b->b, cap)))
            return -ENOMEM;
        b->cap = cap;
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
    b->b[b->n] = 0;
    return 0;
}

static int refuse(void *arg, const void *p, size_t n)
{
    return -EIO;
}

/* The empty asm after each call keeps it a call with its frame. */
static __attribute__((noinline)) void wait_here(void)
{
    sp_chan_recv(ch, NULL);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void lock_here(void)
{
    sp_mutex_lock(&mu);
    sp_mutex_unlock(&mu);
    __asm__ volatile("" ::: "memory");
}

static void waiter(void *arg)
{
    wait_here();
    sp_waitgroup_done(&wg);
}

static void locker(void *arg)
{
    lock_here();
    sp_waitgroup_done(&wg);
}

/* A debug=2 dump in which all NWAIT + NLOCK Gs have parked; "" if they
   did not within 10 s. */
static char *dump_parked(struct buf *b)
{
    for (int tries = 0; tries < 1000; tries++) {
        int parked = 0;
        char head[64];

        b->n = 0;
        if (sp_goroutine_profile(2, collect, b) < 0)
            return "";
        for (int i = 0; i < NWAIT + NLOCK; i++) {
            snprintf(head, sizeof head, "goroutine %llu [%s",
                     (unsigned long long)ids[i],
                     i < NWAIT ? "chan receive" : "sync.Mutex.Lock");
            parked += ids[i] && strstr(b->b, head);
        }
        if (parked == NWAIT + NLOCK)
            return b->b;
        sp_sleep(SP_MS(10));
    }
    return "";
}

/* The block of G id in a debug=2 dump (up to the next blank line). */
static char *block_of(const char *dump, uint64_t id, char *out, size_t n)
{
    char head[48];
    const char *s, *e;

    snprintf(head, sizeof head, "\ngoroutine %llu [",
             (unsigned long long)id);
    if (!(s = strstr(dump, head)))
        return strcpy(out, "");
    e = strstr(s + 1, "\n\n");
    n = e && (size_t)(e - s) < n ? (size_t)(e - s) : n - 1;
    memcpy(out, s, n);
    out[n] = 0;
    return out;
}

static uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffff;

    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = c >> 1 ^ (0xedb88320 & -(c & 1));
    }
    return ~c;
}

/* The payload of gzip b (stored blocks only) into *out; NULL if b is not
   one whole and intact. */
static const char *gunzip_stored(const struct buf *b, struct buf *out)
{
    const uint8_t *p = (const uint8_t *)b->b, *end = p + b->n;
    bool last = false;

    out->n = 0;
    if (b->n < 18 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8)
        return NULL;
    p += 10;
    while (!last) {
        size_t len;

        if (end - p < 5 || (p[0] & 6))
            return NULL;
        last = p[0] & 1;
        len = p[1] | p[2] << 8;
        if ((len ^ (p[3] | p[4] << 8)) != 0xffff || (size_t)(end - p) < 5 + len)
            return NULL;
        if (collect(out, p + 5, len) < 0)
            return NULL;
        p += 5 + len;
    }
    if (end - p != 8 || !out->b)
        return NULL;
    if ((p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24) !=
        crc32((const uint8_t *)out->b, out->n) ||
        (p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24) != out->n)
        return NULL;
    return out->b;
}

/* Whether the n bytes at p hold s. */
static bool holds(const char *p, size_t n, const char *s)
{
    size_t k = strlen(s);

    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(p + i, s, k))
            return true;
    return false;
}

static void start_parkers(void)
{
    ch = sp_chan_make(0, 0);
    sp_mutex_lock(&mu);
    sp_waitgroup_add(&wg, NWAIT + NLOCK);
    for (int i = 0; i < NWAIT; i++)
        ids[i] = sp_go(waiter, NULL);
    for (int i = NWAIT; i < NWAIT + NLOCK; i++)
        ids[i] = sp_go(locker, NULL);
}

static void stop_parkers(void)
{
    sp_chan_close(ch);
    sp_mutex_unlock(&mu);
    sp_waitgroup_wait(&wg);
    sp_chan_free(ch);
}

TEST(every_g_with_state_and_stack)
{
    struct buf b = { 0 }, b1 = { 0 }, b0 = { 0 }, raw = { 0 };
    char blk[1024], line[160];
    const char *dump, *pb;
    int total = 0;

    start_parkers();
    dump = dump_parked(&b);
    CHECKF(*dump, "the parked Gs are not all in the dump:\n%s",
           b.b ? b.b : "(none)");
    /* Each G's block: its state, its function on the stack, where it
       started; main (the test's G) running. */
    for (int i = 0; i < NWAIT + NLOCK; i++) {
        block_of(dump, ids[i], blk, sizeof blk);
        CHECKF(strstr(blk, i < NWAIT ? "\twait_here+0x" : "\tlock_here+0x") &&
               strstr(blk, i < NWAIT ? "started at waiter"
                                     : "started at locker"),
               "G %llu:\n%s", (unsigned long long)ids[i], blk);
    }
    block_of(dump, sp_goid(), blk, sizeof blk);
    CHECKF(strstr(blk, "[running, core ") &&
           strstr(blk, "\tsp_goroutine_profile+0x"), "the dumper:\n%s", blk);
    CHECK(strstr(dump, "\nend of goroutine dump\n"));
    for (const char *s = dump; (s = strstr(s, "\ngoroutine ")); s++)
        total++;

    /* debug=1: the Gs grouped; the waiters one group of NWAIT, the
       lockers one of NLOCK, each with their ids. */
    CHECK(sp_goroutine_profile(1, collect, &b1) == 0);
    snprintf(line, sizeof line, "goroutine profile: total %d\n", total);
    CHECKF(!strncmp(b1.b, line, strlen(line)), "%.80s (want %s)", b1.b, line);
    snprintf(line, sizeof line, "\n%d @ 0x", NWAIT);
    CHECKF(strstr(b1.b, line), "no group of %d:\n%s", NWAIT, b1.b);
    snprintf(line, sizeof line, "# state: chan receive; goroutines: %llu %llu %llu\n",
             (unsigned long long)ids[0], (unsigned long long)ids[1],
             (unsigned long long)ids[2]);
    CHECKF(strstr(b1.b, line), "no line %s in\n%s", line, b1.b);
    snprintf(line, sizeof line, "# state: sync.Mutex.Lock; goroutines: %llu %llu\n",
             (unsigned long long)ids[3], (unsigned long long)ids[4]);
    CHECKF(strstr(b1.b, line), "no line %s in\n%s", line, b1.b);

    /* debug=0: intact gzip of a profile naming the type, the states and
       the functions. */
    CHECK(sp_goroutine_profile(0, collect, &b0) == 0);
    CHECKF((pb = gunzip_stored(&b0, &raw)), "debug=0: %zu bytes, not an "
           "intact gzip of stored blocks", b0.n);
    CHECK(holds(pb, raw.n, "goroutine") && holds(pb, raw.n, "count") &&
          holds(pb, raw.n, "wait_here") && holds(pb, raw.n, "lock_here") &&
          holds(pb, raw.n, "chan receive") &&
          holds(pb, raw.n, "sync.Mutex.Lock"));

    CHECK(sp_goroutine_profile(3, collect, &b0) == -EINVAL);
    CHECK(sp_goroutine_profile(2, refuse, NULL) == -EIO);
    stop_parkers();
    free(b.b);
    free(b1.b);
    free(b0.b);
    free(raw.b);
}

static __attribute__((noinline)) uint64_t burn(uint64_t end)
{
    uint64_t x = end;

    while (sp_nanotime() < end) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

TEST(cpu_profile_as_pprof)
{
    struct sp_profile_stats st;
    struct buf b = { 0 }, raw = { 0 };
    const char *pb;

    CHECK(sp_profile_stop_pprof(&st, collect, &b) == -ENOENT && b.n == 0);
    CHECK(sp_profile_stop_pprof(&st, NULL, NULL) == -EINVAL);
    CHECK(sp_profile_start(1000) == 0);
    __atomic_store_n(&sink, burn(sp_nanotime() + SP_MS(300)),
                     __ATOMIC_RELAXED);
    CHECK(sp_profile_stop_pprof(&st, collect, &b) == 0);
    CHECK(!sp_profile_on());
    CHECKF(st.hz == 1000 && st.samples > 0 && st.records > 0,
           "%llu samples, %llu records at %d Hz",
           (unsigned long long)st.samples, (unsigned long long)st.records,
           st.hz);
    CHECKF((pb = gunzip_stored(&b, &raw)), "%zu bytes, not an intact gzip "
           "of stored blocks", b.n);
    CHECK(holds(pb, raw.n, "cpu") && holds(pb, raw.n, "nanoseconds") &&
          holds(pb, raw.n, "burn") && holds(pb, raw.n, "gfn"));
    /* A writer's error comes back, and the profiler is stopped anyway. */
    CHECK(sp_profile_start(1000) == 0);
    CHECK(sp_profile_stop_pprof(&st, refuse, NULL) == -EIO);
    CHECK(!sp_profile_on());
    free(b.b);
    free(raw.b);
}

int main(void)
{
    return sp_test_main();
}
