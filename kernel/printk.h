/*
 * printk.h - the kernel's console output.
 *
 * printk formats into a buffer first and writes each line under the
 * console lock, so lines from different cores never interleave.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include <stddef.h>

__attribute__((format(printf, 1, 2))) void printk(const char *fmt, ...);
void vprintk(const char *fmt, va_list ap);

/* Writes n bytes of text as whole lines, atomically with other writers. */
void console_write(const char *s, size_t n);

/*
 * Tests: from now on, also copy console output into buf (up to cap bytes;
 * NULL stops copying).  Returns how many bytes the previous tap got.
 */
size_t console_tap(char *buf, size_t cap);

/* console_tap whose copy replaces the output: nothing reaches the
   console until console_tap(NULL, 0) or another tap. */
size_t console_capture(char *buf, size_t cap);

struct bootinfo;

/*
 * The boot framebuffer (bi->fb) as a second console beside the UART
 * (fbcon.h).  kernel_main calls console_fb_start on the boot core once
 * the command line is parsed and before the page allocator is built: it
 * reserves the framebuffer's memory in bi (it is device memory, never
 * RAM to hand out, even with fbcon=0), and unless fbcon=0 clears the
 * screen and draws every console line from then on, at once if the boot
 * page tables map the framebuffer (below bi->mapped), else from
 * console_fb_paging_done.  That one is called once the final page tables
 * are live: a framebuffer they do not map wholly turns the framebuffer
 * console off with a message.
 */
void console_fb_start(struct bootinfo *bi);
void console_fb_paging_done(void);

/*
 * For the panic path only: takes the console even if another core holds
 * its lock (that core is about to be stopped).
 */
void console_break_lock(void);

#endif
