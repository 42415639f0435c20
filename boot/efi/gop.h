/*
 * gop.h - the framebuffer the EFI loader hands to the kernel: the
 * current mode of the firmware's Graphics Output Protocol (UEFI 2.10
 * §12.9).  Runs before ExitBootServices.
 */
#ifndef BOOT_EFI_GOP_H
#define BOOT_EFI_GOP_H

#include "kernel/bootinfo.h"

/* loader.c's note(): appends the line "efi: " a b c (b, c may be NULL). */
typedef void gop_note_fn(const char *a, const char *b, const char *c);

/*
 * Fills *fb with the GOP's framebuffer (32-bit pixels, linear), or
 * leaves it zeroed (no framebuffer) and says why through note().  The
 * current mode is kept when it has such a framebuffer; otherwise the
 * largest mode that has one is set, with a note, and failing that there
 * is none.  Nothing is allocated.
 */
void gop_find(struct bootfb *fb, gop_note_fn *note);

#endif
