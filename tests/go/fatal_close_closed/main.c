/*
 * fatal_close_closed - closing a channel a second time panics "close of
 * closed channel", as in Go (test/closedchan.go: shouldPanic(func() {
 * close(ch) }) after close(ch)), in the G that closes it (see
 * test.conf).  Both an unbuffered and a buffered channel (argv: "--
 * buffered"), the latter with a value still in it.
 */
#include <string.h>
#include <spindle/chan.h>

int main(int argc, char **argv)
{
    bool buffered = argc > 1 && !strcmp(argv[1], "buffered");
    sp_chan *c = sp_chan_make(sizeof(int), buffered ? 2 : 0);

    if (buffered)
        sp_chan_send(c, &(int){ 1 });
    sp_chan_close(c);
    sp_chan_close(c);
    return 0;
}
