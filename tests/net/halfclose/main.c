/*
 * halfclose - a connection whose sending half was closed first
 * (sp_close_write), and whose peer then closed too, stays the socket's to
 * close however lwIP reuses what it held.  Over the machine's own address,
 * one stack:
 *
 *   pool_reuse_after_both_fins   a server socket sends its FIN, reads the
 *                                client's (its pcb now in TIME_WAIT, which
 *                                lwIP frees at will), then 140 pairs of
 *                                connections fill the pcb pool so that lwIP
 *                                takes TIME_WAIT pcbs back for them; the old
 *                                socket's sp_close must leave every pair
 *                                working: a byte each way on each, the last
 *                                closes clean
 *
 * Before sockets let go of such a pcb, sp_close closed whichever connection
 * lwIP had given it to (and httpd, lingering after its answers, panicked
 * in lwIP's pool under a connection flood).
 */
#include <string.h>
#include <spindle/net.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define PAIRS 140               /* 280 pcbs: more than the 256 of a stack */

static char me[24];

static bool pair(sp_listener *l, sp_conn **c, sp_conn **s)
{
    int err;

    *c = sp_dial(me, SP_S(5), &err);
    if (!*c)
        return false;
    *s = sp_accept(l, &err);
    if (!*s) {
        sp_close(*c);
        return false;
    }
    return true;
}

/* One byte from a to b within a second. */
static bool byte(sp_conn *a, sp_conn *b)
{
    char x = 'x';

    sp_set_read_deadline(b, (int64_t)(sp_nanotime() + SP_S(1)));
    return sp_write(a, &x, 1) == 1 && sp_read(b, &x, 1) == 1 && x == 'x';
}

TEST(pool_reuse_after_both_fins)
{
    static sp_conn *c[PAIRS], *s[PAIRS];
    sp_listener *l;
    sp_conn *oc, *os;
    char buf[8];
    int err, n = 0, bad = 0;

    CHECK(sp_net_wait(SP_S(30)) == 0);
    CHECK(sp_net_addr(me, 16) == 0);
    strcat(me, ":9000");
    l = sp_listen(":9000", &err);
    CHECKF(l, "listen: %s", sp_net_strerror(err));
    CHECK(pair(l, &oc, &os));
    CHECK(sp_close_write(os) == 0);
    CHECK(sp_read(oc, buf, sizeof buf) == 0);     /* the server's FIN */
    sp_close(oc);
    CHECK(sp_read(os, buf, sizeof buf) == 0);     /* the client's */
    while (n < PAIRS && pair(l, &c[n], &s[n]))
        n++;
    CHECKF(n >= 128, "only %d pairs", n);
    sp_close(os);
    for (int i = 0; i < n; i++)
        if (!byte(c[i], s[i]) || !byte(s[i], c[i]))
            bad++;
    CHECKF(bad == 0, "%d of %d pairs broken after the old socket's close",
           bad, n);
    for (int i = 0; i < n; i++) {
        sp_close(c[i]);
        sp_set_read_deadline(s[i], (int64_t)(sp_nanotime() + SP_S(1)));
        if (sp_read(s[i], buf, sizeof buf) != 0)
            bad++;
        sp_close(s[i]);
    }
    CHECKF(bad == 0, "%d pairs did not end with the client's FIN", bad);
    sp_close(l);
}

int main(void)
{
    return sp_test_main();
}
