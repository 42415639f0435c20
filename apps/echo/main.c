/*
 * echo - a TCP echo server, one G per connection: every byte a client
 * sends comes back.  Listens on port 7, or on the port given after --:
 *
 *   make run APP=echo NET=user GUESTPORT=7 HOSTPORT=7007
 *   nc 127.0.0.1 7007
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/net.h>
#include <spindle/sched.h>
#include <spindle/time.h>

static void serve(void *arg)
{
    sp_conn *c = arg;
    char buf[4096];
    long n;

    while ((n = sp_read(c, buf, sizeof buf)) > 0)
        if (sp_write(c, buf, (size_t)n) < 0)
            break;
    sp_close(c);
}

int main(int argc, char **argv)
{
    char addr[16], listen[16];
    int port = argc > 1 ? atoi(argv[1]) : 7, err;
    sp_listener *l;

    if ((err = sp_net_wait(SP_MS(10000))) < 0) {
        printf("echo: %s\n", sp_net_strerror(err));
        return 1;
    }
    snprintf(listen, sizeof listen, ":%d", port);
    if (!(l = sp_listen(listen, &err))) {
        printf("echo: listen %s: %s\n", listen, sp_net_strerror(err));
        return 1;
    }
    sp_net_addr(addr, sizeof addr);
    printf("echo: listening on %s:%d\n", addr, port);
    for (;;) {
        sp_conn *c = sp_accept(l, &err);

        if (!c) {
            printf("echo: accept: %s\n", sp_net_strerror(err));
            return 1;
        }
        sp_go(serve, c);
    }
}
