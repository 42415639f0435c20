/*
 * fatal_close_nil - closing a nil channel panics "close of nil channel",
 * as in Go (test/closedchan.go: shouldPanic(func() { close(ch) }) with
 * ch nil), in the G that closes it (see test.conf).
 */
#include <spindle/chan.h>

int main(void)
{
    sp_chan *volatile c = NULL;

    sp_chan_close(c);
    return 0;
}
