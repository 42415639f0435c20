/*
 * cond - sp_cond, the condition variable under pthread_cond (Go's
 * sync.Cond with deadlines), on every build, the sanitizer ones
 * included:
 *
 *   pingpong        two Gs take turns through one mutex and two
 *                   conditions; every turn counted, in order
 *   broadcast       N waiters all woken by one broadcast; a signal wakes
 *                   exactly one of them
 *   timeout         a wait with a deadline never returns before it and
 *                   says it timed out, holding the mutex again
 *   timeout_race    waiters whose short deadlines keep expiring, and give
 *                   up without looking, beside patient ones, while a
 *                   producer hands out one item at a time with one
 *                   signal each: no signal is spent on a waiter that
 *                   timed out, so every item is taken
 */
#include <stdint.h>
#include <stdio.h>
#include <spindle/sched.h>
#include <spindle/sync.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define TURNS (SP_TSAN ? 2000 : 20000)

static sp_mutex mu;
static sp_cond ping, pong;
static long turn;               /* under mu */
static sp_waitgroup wg;

static void ponger(void *arg)
{
    sp_mutex_lock(&mu);
    for (long i = 1; i < TURNS; i += 2) {
        while (turn != i)
            sp_cond_wait(&pong, &mu);
        turn++;
        sp_cond_signal(&ping);
    }
    sp_mutex_unlock(&mu);
    sp_waitgroup_done(&wg);
}

TEST(pingpong)
{
    sp_waitgroup_add(&wg, 1);
    sp_go(ponger, NULL);
    sp_mutex_lock(&mu);
    for (long i = 0; i < TURNS; i += 2) {
        while (turn != i)
            sp_cond_wait(&ping, &mu);
        turn++;
        sp_cond_signal(&pong);
    }
    while (turn != TURNS)
        sp_cond_wait(&ping, &mu);
    sp_mutex_unlock(&mu);
    sp_waitgroup_wait(&wg);
    CHECK(turn == TURNS);
}

/* ---- broadcast ------------------------------------------------------------ */

#define WAITERS 16

static sp_cond gate;
static int open_gen, woken, waiting;      /* under mu */

static void gate_waiter(void *arg)
{
    int gen;

    sp_mutex_lock(&mu);
    gen = open_gen;
    waiting++;
    while (open_gen == gen)
        sp_cond_wait(&gate, &mu);
    woken++;
    sp_mutex_unlock(&mu);
    sp_waitgroup_done(&wg);
}

static void wait_for_waiters(int n)
{
    int w;

    do {
        sp_sleep(SP_MS(1));
        sp_mutex_lock(&mu);
        w = waiting;
        sp_mutex_unlock(&mu);
    } while (w < n);
}

TEST(broadcast)
{
    sp_waitgroup_add(&wg, WAITERS);
    for (int i = 0; i < WAITERS; i++)
        sp_go(gate_waiter, NULL);
    wait_for_waiters(WAITERS);
    sp_mutex_lock(&mu);
    open_gen++;
    sp_mutex_unlock(&mu);
    sp_cond_broadcast(&gate);
    sp_waitgroup_wait(&wg);
    CHECK(woken == WAITERS);
}

/* A signal wakes one waiter; the cond is FIFO, nobody else stirs. */
static sp_cond one;
static int tickets, served;     /* under mu */

static void ticket_waiter(void *arg)
{
    sp_mutex_lock(&mu);
    waiting++;
    while (!tickets)
        sp_cond_wait(&one, &mu);
    tickets--;
    served++;
    sp_mutex_unlock(&mu);
    sp_waitgroup_done(&wg);
}

TEST(signal_wakes_one)
{
    int n;

    waiting = 0;
    sp_waitgroup_add(&wg, 4);
    for (int i = 0; i < 4; i++)
        sp_go(ticket_waiter, NULL);
    wait_for_waiters(4);
    for (int k = 1; k <= 4; k++) {
        sp_mutex_lock(&mu);
        tickets++;
        sp_mutex_unlock(&mu);
        sp_cond_signal(&one);
        sp_sleep(SP_MS(20));
        sp_mutex_lock(&mu);
        n = served;
        sp_mutex_unlock(&mu);
        CHECKF(n == k, "after %d signals %d waiters served", k, n);
    }
    sp_waitgroup_wait(&wg);
}

/* ---- timeouts --------------------------------------------------------------- */

TEST(timeout)
{
    sp_cond c = SP_COND_INIT;
    uint64_t t0 = sp_nanotime(), deadline = t0 + SP_MS(30);
    bool woke;

    sp_mutex_lock(&mu);
    woke = sp_cond_wait_until(&c, &mu, deadline);
    CHECK(!woke);
    CHECKF(sp_nanotime() >= deadline, "returned %lld ns early",
           (long long)(deadline - sp_nanotime()));
    CHECK(!sp_mutex_trylock(&mu));      /* held again */
    sp_mutex_unlock(&mu);
}

#define ITEMS (SP_TSAN ? 300 : 2000)
#define PATIENT 4
#define IMPATIENT 8

static sp_cond avail, taken;
static int items, consumed, producing = 1, impatient_woken;  /* under mu */

/* Takes the item a wake-up was for; under mu. */
static void take_item(void)
{
    items--;
    consumed++;
    sp_cond_signal(&taken);
}

/* Waits without a deadline for each item. */
static void patient(void *arg)
{
    sp_mutex_lock(&mu);
    for (;;) {
        while (!items && producing)
            sp_cond_wait(&avail, &mu);
        if (!items)
            break;
        take_item();
    }
    sp_mutex_unlock(&mu);
    sp_waitgroup_done(&wg);
}

/* Waits 0-200 us at a time and gives up at each timeout without looking:
   only a wake-up entitles it to the item. */
static void impatient(void *arg)
{
    uint64_t us = (uintptr_t)arg * 25;

    sp_mutex_lock(&mu);
    while (producing) {
        if (!sp_cond_wait_until(&avail, &mu, sp_nanotime() + SP_US(us)))
            continue;
        if (items) {
            impatient_woken++;
            take_item();
        }
    }
    sp_mutex_unlock(&mu);
    sp_waitgroup_done(&wg);
}

TEST(timeout_race)
{
    int lost = 0;

    sp_waitgroup_add(&wg, PATIENT + IMPATIENT);
    for (uintptr_t i = 0; i < IMPATIENT; i++)
        sp_go(impatient, (void *)i);
    for (int i = 0; i < PATIENT; i++)
        sp_go(patient, NULL);
    sp_sleep(SP_MS(5));         /* the patient ones wait by now */
    /* One item at a time, one signal each: the signal goes to a waiter
       still waiting, which takes it.  One spent on a waiter whose
       deadline passed leaves the item to nobody (the patient ones sleep
       on), and it is still there a second later. */
    sp_mutex_lock(&mu);
    for (int i = 0; i < ITEMS && !lost; i++) {
        items = 1;
        sp_cond_signal(&avail);
        while (items && !lost)
            lost = !sp_cond_wait_until(&taken, &mu, sp_nanotime() + SP_S(1))
                   && items;
    }
    producing = 0;
    sp_mutex_unlock(&mu);
    sp_cond_broadcast(&avail);
    sp_waitgroup_wait(&wg);
    printf("# %d of %d items taken by impatient waiters\n", impatient_woken,
           ITEMS);
    CHECKF(!lost && consumed == ITEMS, "item %d not taken a second after "
           "its signal: a wake-up was lost", consumed + 1);
}

int main(void)
{
    return sp_test_main();
}
