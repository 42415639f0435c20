/*
 * sieve.h - the concurrent prime sieve (Go's classic example): a generator
 * G sends 2, 3, 4, ... down a channel; each prime found adds a filter G
 * that drops its multiples, so the chain grows one G per prime.
 */
#ifndef APPS_PRIMES_SIEVE_H
#define APPS_PRIMES_SIEVE_H

#include <stdlib.h>
#include <spindle/chan.h>
#include <spindle/sched.h>

struct filter {
    sp_chan *in, *out;
    int prime;
};

static void generate(void *arg)
{
    sp_chan *ch = arg;

    for (int i = 2;; i++)
        sp_chan_send(ch, &i);
}

static void filter(void *arg)
{
    struct filter *f = arg;
    int i;

    while (sp_chan_recv(f->in, &i))
        if (i % f->prime)
            sp_chan_send(f->out, &i);
}

/*
 * Puts the first n primes in out[]; returns n, or -1 when out of memory.
 * The chain's Gs stay parked on their channels afterwards (as in Go's
 * example, where main simply returns).
 */
static int sieve(int n, int *out)
{
    sp_chan *ch = sp_chan_make(sizeof(int), 0);

    if (!ch)
        return -1;
    sp_go(generate, ch);
    for (int k = 0; k < n; k++) {
        struct filter *f = malloc(sizeof *f);

        sp_chan_recv(ch, &out[k]);
        if (!f || !(f->out = sp_chan_make(sizeof(int), 0)))
            return -1;
        f->in = ch;
        f->prime = out[k];
        sp_go(filter, f);
        ch = f->out;
    }
    return n;
}

#endif
