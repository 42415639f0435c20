/*
 * chan_closed_panic - a sender parked on a channel that gets closed
 * panics "send on closed channel", as in Go (see `test.conf`).  If close did
 * not wake it, main would wait forever and the deadlock report, not the
 * panic, would end the boot.
 */
#include <spindle/chan.h>
#include <spindle/sched.h>

static void sender(void *arg)
{
    int v = 1;

    sp_chan_send(arg, &v);      /* nobody receives: parks, then panics */
}

int main(void)
{
    sp_chan *c = sp_chan_make(sizeof(int), 0);
    sp_chan *never = sp_chan_make(0, 0);

    sp_go(sender, c);
    for (int i = 0; i < 10; i++)
        sp_yield();             /* the sender is parked by now (or soon) */
    sp_chan_close(c);
    sp_chan_recv(never, NULL);  /* wait for the panic */
    return 0;
}
