/*
 * console_in.c - the console's receive side (see console_in.h).
 *
 * The handler is one pointer: console_on_quit's store-release pairs with
 * the load-acquire in console_input, so a handler seen is one whose
 * owner set up what it needs before registering it.
 */
#include "kernel/console_in.h"

static void (*quit_fn)(void);   /* store-release; NULL: dropped */
static uint64_t quits;          /* atomic */

void console_on_quit(void (*fn)(void))
{
    __atomic_store_n(&quit_fn, fn, __ATOMIC_RELEASE);
}

void console_input(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void (*fn)(void);

        if ((uint8_t)s[i] != CONSOLE_QUIT_KEY)
            continue;
        __atomic_add_fetch(&quits, 1, __ATOMIC_RELAXED);
        fn = __atomic_load_n(&quit_fn, __ATOMIC_ACQUIRE);
        if (fn)
            fn();
    }
}

uint64_t console_quit_count(void)
{
    return __atomic_load_n(&quits, __ATOMIC_RELAXED);
}
