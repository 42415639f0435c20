/*
 * spindle/chan.h - channels and select, as in Go.
 *
 *   sp_chan *c = sp_chan_make(sizeof(int), 16);   make(chan int, 16)
 *   sp_chan_send(c, &v);                          c <- v
 *   ok = sp_chan_recv(c, &v);                     v, ok := <-c
 *   sp_chan_close(c);                             close(c)
 *
 * Values are copied in and out by size (elemsize bytes).  A capacity of 0
 * makes an unbuffered channel: a send and a receive meet, and the value
 * goes straight from the sender's buffer to the receiver's.  Every blocking
 * call parks the calling G, never the core.
 *
 * A NULL channel behaves as Go's nil channel: send and receive block
 * forever, and a select case on it never fires.  Misuse panics with Go's
 * messages: "send on closed channel", "close of closed channel", "close of
 * nil channel".
 *
 * select:
 *
 *   struct sp_case cs[] = {
 *       { .ch = in,  .dir = SP_RECV, .elem = &v },
 *       { .ch = out, .dir = SP_SEND, .elem = &w },
 *   };
 *   switch (sp_select(cs, 2, true)) { case 0: ... cs[0].ok ...; case 1: ... }
 *
 * sp_select(cases, n, false) is a select with a default branch: it returns
 * -1 when no case is ready.  Among ready cases one is chosen uniformly at
 * random, as in Go.
 */
#ifndef SPINDLE_CHAN_H
#define SPINDLE_CHAN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sp_chan sp_chan;

/* A channel of cap elements of elemsize bytes; NULL when out of memory. */
sp_chan *sp_chan_make(size_t elemsize, size_t cap);

/* Frees c (NULL is fine).  Nobody may be waiting on it or use it again. */
void sp_chan_free(sp_chan *c);

/*
 * Sends *elem (NULL sends the zero value, handy for elemsize 0); blocks
 * until a receiver took it or there was room in the buffer.
 */
void sp_chan_send(sp_chan *c, const void *elem);

/*
 * Receives into *elem (elem may be NULL to discard the value).  Returns
 * Go's ok: true for a value that was sent, false once c is closed and its
 * buffer drained; *elem is then zeroed.
 */
bool sp_chan_recv(sp_chan *c, void *elem);

/* Closes c: waiting receivers get ok == false, waiting senders panic. */
void sp_chan_close(sp_chan *c);

/* Values queued in the buffer now, and the buffer's size (0 for NULL). */
size_t sp_chan_len(sp_chan *c);
size_t sp_chan_cap(sp_chan *c);

/* Sends only if that can be done without blocking; returns whether it did. */
bool sp_chan_trysend(sp_chan *c, const void *elem);

/*
 * Receives only if that can be done without blocking: returns 1 if it
 * received (*ok, if ok is not NULL, says as sp_chan_recv's result whether
 * it was a value or the close), 0 if it would have blocked.
 */
int sp_chan_tryrecv(sp_chan *c, void *elem, bool *ok);

/* ---- select ----------------------------------------------------------- */

enum {
    SP_SEND = 1,
    SP_RECV = 2,
};

struct sp_case {
    sp_chan *ch;        /* NULL: the case never fires */
    int dir;            /* SP_SEND or SP_RECV */
    void *elem;         /* SEND: the value; RECV: where it goes, or NULL */
    bool ok;            /* set for the case that ran: RECV as sp_chan_recv
                           returns, SEND true */
};

/*
 * Runs one ready case of cases[0..n) and returns its index.  If none is
 * ready: with block, waits until one is; without, returns -1 (Go's
 * default).  A SEND case on a closed channel panics when it is reached,
 * as in Go.  sp_select(NULL, 0, true) blocks forever (Go's `select {}`),
 * as does a blocking select whose channels are all NULL.
 */
int sp_select(struct sp_case *cases, int n, bool block);

#endif
