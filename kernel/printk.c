/*
 * printk.c - console output shared by every core.
 *
 * One lock serializes writers, so each console_write call appears whole.
 * printk formats its message first (no lock held while formatting), which
 * keeps the lock hold time to the UART's own speed.
 */
#include <stdbool.h>
#include <string.h>
#include "printk.h"
#include "fmt.h"
#include "spinlock.h"

static struct spinlock console_lock = SPINLOCK_INIT(LOCK_CONSOLE);

/* A copy of the console output for tests; guarded by console_lock. */
static char *tap;
static size_t tap_len, tap_cap;
static bool tap_only;           /* the copy replaces the output */

void console_write(const char *s, size_t n)
{
    unsigned long f = spin_lock(&console_lock);

    if (!tap || !tap_only)
        arch_console_write(s, n);
    if (tap) {
        size_t k = n < tap_cap - tap_len ? n : tap_cap - tap_len;

        memcpy(tap + tap_len, s, k);
        tap_len += k;
    }
    spin_unlock(&console_lock, f);
}

static size_t set_tap(char *buf, size_t cap, bool only)
{
    unsigned long f = spin_lock(&console_lock);
    size_t len = tap_len;

    tap = buf;
    tap_cap = cap;
    tap_len = 0;
    tap_only = only;
    spin_unlock(&console_lock, f);
    return len;
}

size_t console_tap(char *buf, size_t cap)
{
    return set_tap(buf, cap, false);
}

size_t console_capture(char *buf, size_t cap)
{
    return set_tap(buf, cap, true);
}

void console_break_lock(void)
{
    __atomic_store_n(&console_lock.cpu, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&console_lock.locked, 0, __ATOMIC_RELEASE);
}

void vprintk(const char *fmt, va_list ap)
{
    char buf[512];
    int n = fmt_vsnprintf(buf, sizeof buf, fmt, ap);

    if (n >= (int)sizeof buf) {
        n = sizeof buf - 1;
        buf[n - 1] = '\n';      /* a truncated line still ends */
    }
    console_write(buf, n);
}

void printk(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
}
