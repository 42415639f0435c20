/*
 * printk.c - console output shared by every core.
 *
 * One lock serializes writers, so each console_write call appears whole.
 * printk formats its message first (no lock held while formatting), which
 * keeps the lock hold time to the UART's own speed.  The console is the
 * arch's (a UART) and, once console_fb_start found one, the boot
 * framebuffer too (fbcon.c), written at the same point under the same
 * lock, so the panic path reaches both.
 */
#include <stdbool.h>
#include <string.h>
#include "kernel/printk.h"
#include "arch/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/fbcon.h"
#include "kernel/fmt.h"
#include "kernel/mem.h"
#include "kernel/spinlock.h"

static struct spinlock console_lock = SPINLOCK_INIT(LOCK_CONSOLE);

/* The framebuffer console; guarded by console_lock. */
static struct fbcon fbcon;
static struct bootfb fb;        /* the framebuffer console_fb_start kept */
static bool fb_on;              /* fbcon draws */
static bool fb_wait;            /* on once the final page tables map it */
static int fb_drawer = -1;      /* the core inside fbcon_put, or -1 */

/* A copy of the console output for tests; guarded by console_lock. */
static char *tap;
static size_t tap_len, tap_cap;
static bool tap_only;           /* the copy replaces the output */

void console_write(const char *s, size_t n)
{
    unsigned long f = spin_lock(&console_lock);

    if (!tap || !tap_only) {
        arch_console_write(s, n);
        if (fb_on && fb_drawer == this_cpu()->id) {
            fb_on = false;      /* a fault while drawing: the framebuffer is no use */
        } else if (fb_on) {
            fb_drawer = this_cpu()->id;
            fbcon_put(&fbcon, s, n);
            fb_drawer = -1;
        }
    }
    if (tap) {
        size_t k = n < tap_cap - tap_len ? n : tap_cap - tap_len;

        memcpy(tap + tap_len, s, k);
        tap_len += k;
    }
    spin_unlock(&console_lock, f);
}

/* Starts fbcon on fb (mapped) and says so; console lock held. */
static void fb_start(void)
{
    static const char no[] = "fbcon: the framebuffer cannot hold one character; off\n";

    if (fbcon_setup(&fbcon, phys_to_virt(fb.base), &fb) < 0) {
        fb_wait = false;
        arch_console_write(no, sizeof no - 1);
        return;
    }
    fb_on = true;
    fb_wait = false;
}

void console_fb_start(struct bootinfo *bi)
{
    unsigned long f;
    const char *v;
    long on = 1;

    fb = bi->fb;
    if (!fb.base)
        return;
    /* Device memory, whatever the firmware's map said of it. */
    bootinfo_add_reserved(bi, fb.base, fb.size);
    switch (cmdline_long("fbcon", 0, 1, &on)) {
    case CMDLINE_ABSENT:
    case CMDLINE_OK:
        break;
    default:
        cmdline_get("fbcon", &v);
        printk("fbcon: fbcon=%s is not 0 or 1; the framebuffer console stays on\n", v);
        on = 1;
    }
    if (!on) {
        printk("fbcon: off (fbcon=0); framebuffer %ux%u at 0x%lx left alone\n",
               fb.width, fb.height, (unsigned long)fb.base);
        return;
    }
    f = spin_lock(&console_lock);
    if (bi->mapped && fb.base + fb.size <= bi->mapped && fb.base + fb.size > fb.base)
        fb_start();
    else
        fb_wait = true;         /* beyond the boot page tables */
    spin_unlock(&console_lock, f);
    if (fb_on || fb_wait)
        printk("fbcon: %ux%u pixels at 0x%lx (%u per row, %s)%s\n", fb.width,
               fb.height, (unsigned long)fb.base, fb.stride,
               fb.format == BOOTFB_RGB ? "RGB" : fb.format == BOOTFB_BGR ? "BGR" : "bit mask",
               fb_wait ? "; drawn on from when paging is set up" : "");
}

void console_fb_paging_done(void)
{
    unsigned long f;
    uint64_t pa;

    if (!fb_on && !fb_wait)
        return;
    /* Every page, mapped where the direct map says it is. */
    for (uint64_t off = 0; off < fb.size; off += 4096) {
        uintptr_t va = (uintptr_t)phys_to_virt(fb.base + off);

        if (!arch_virt_to_phys(va, &pa) || pa != fb.base + off) {
            f = spin_lock(&console_lock);
            fb_on = fb_wait = false;
            spin_unlock(&console_lock, f);
            printk("fbcon: the page tables do not map the framebuffer at 0x%lx; "
                   "the console stays on the serial port\n", (unsigned long)(fb.base + off));
            return;
        }
    }
    f = spin_lock(&console_lock);
    if (fb_wait)
        fb_start();
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
