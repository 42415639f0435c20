/*
 * fatal_send_closed - a send on a channel already closed panics "send on
 * closed channel", as in Go, whichever way it is made (see test.conf):
 * a plain send on an unbuffered channel (test/chan/select3.go's
 * `closedch <- 7`, test/closedchan.go's Send), a blocking select's send
 * case (select3.go's `select { case closedch <- 7: }`, closedchan.go's
 * SChan.Send; argv "-- select"), and a select with a default on a closed
 * buffered channel that still holds a value (closedchan.go's Nbsend on
 * closedasync(); argv "-- nbsend").  A sender parked when the channel
 * closes is tests/sched/chan_closed_panic.
 */
#include <string.h>
#include <spindle/chan.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "send";     /* or "cores=N" */
    bool nbsend = !strcmp(how, "nbsend");
    sp_chan *c = sp_chan_make(sizeof(int), nbsend ? 2 : 0);
    int seven = 7;
    struct sp_case cs[1] = { { c, SP_SEND, &seven, false } };

    if (nbsend)
        sp_chan_send(c, &(int){ 1 });
    sp_chan_close(c);
    if (!strcmp(how, "select"))
        sp_select(cs, 1, true);
    else if (nbsend)
        sp_select(cs, 1, false);
    else
        sp_chan_send(c, &seven);
    return 0;
}
