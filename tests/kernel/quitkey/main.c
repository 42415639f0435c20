/*
 * quitkey - Ctrl-\ on the console (kernel/console_in.h), end to end with
 * tests/host/quitkey_test.sh.  Booted by the runner, it checks that no
 * key came in while nobody pressed one.  Booted with `-- wait` by the
 * host script, it leaves Gs in a few states (parked on a channel, asleep
 * on a timer, main polling), prints `QUITKEY READY`, waits for the
 * script's Ctrl-\ (written to the serial console, or SIGQUIT on the
 * hosted build), gives what it set off (the scheduler's goroutine dump)
 * a moment to finish, and exits 0; 1 if no key came within WAIT_NS.
 */
#include <stdio.h>
#include <string.h>
#include <spindle/chan.h>
#include <spindle/sched.h>
#include <spindle/test.h>
#include <spindle/time.h>
#include "kernel/export_test.h"

#define WAIT_NS     SP_S(60)    /* for the key, after READY */
#define AFTER_NS    SP_S(1)     /* for the dump, after the key */

TEST(no_key_unpressed)
{
    CHECKF(console_quit_count() == 0, "%llu Ctrl-\\ received",
           (unsigned long long)console_quit_count());
}

static void receiver(void *ch)
{
    int v;

    sp_chan_recv(ch, &v);       /* parked until the machine ends */
}

static void sleeper(void *arg)
{
    sp_sleep(SP_S(3600));
}

static int wait_for_key(void)
{
    uint64_t t0;

    sp_go(receiver, sp_chan_make(sizeof(int), 0));
    sp_go(sleeper, NULL);
    sp_yield();
    printf("QUITKEY READY\n");
    t0 = sp_nanotime();
    while (console_quit_count() == 0) {
        if (sp_nanotime() - t0 > WAIT_NS) {
            printf("QUITKEY no Ctrl-\\ within %llu s\n",
                   (unsigned long long)(WAIT_NS / SP_S(1)));
            return 1;
        }
        sp_sleep(SP_MS(10));
    }
    sp_sleep(AFTER_NS);
    printf("QUITKEY DONE after %llu Ctrl-\\\n",
           (unsigned long long)console_quit_count());
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "wait"))
            return wait_for_key();
    return sp_test_main();
}
