/*
 * fbcon.h - a text console drawn on a linear framebuffer of 32-bit
 * pixels: a fixed 8x16 font (build/gen/fbfont.h, made by tools/build/psf.py
 * from a Debian console font), light grey on black.
 *
 * Pure drawing, no locks and no kernel calls: the caller serializes
 * every call on one struct fbcon (the kernel calls fbcon_put under the
 * console lock, kernel/printk.c) and owns the pixel memory.  Only the
 * text grid and what fbcon_setup clears are ever written; the pixels are
 * never read, so a slow or write-combined framebuffer costs writes only.
 *
 * Text is UTF-8: code points up to U+00FF are drawn from the font's
 * Latin-1 glyphs, others (and malformed bytes) as the font's replacement
 * glyph.  '\n' starts a new line, '\r' returns to column 0, '\t' moves to
 * the next multiple of 8 columns, other control characters are ignored.
 * A character that does not fit the line goes to the next one.  A new
 * line below the last one scrolls the text up by a quarter of the screen
 * (at least one line), redrawing only the cells whose character changed,
 * so scrolling costs about what drawing the text on screen once did,
 * every quarter screen, rather than a copy of the whole framebuffer per
 * line.
 */
#ifndef KERNEL_FBCON_H
#define KERNEL_FBCON_H

#include <stddef.h>
#include <stdint.h>
#include "kernel/bootinfo.h"

/* The text grid's largest size; a larger screen uses its top left. */
#define FBCON_MAXCOLS 480       /* 3840 pixels */
#define FBCON_MAXROWS 160       /* 2560 pixels */

struct fbcon {
    volatile uint32_t *px;      /* pixel (0, 0) */
    uint32_t stride;            /* pixels from one row to the next */
    uint32_t fg, bg;            /* pixel values */
    unsigned cols, rows;        /* the text grid */
    unsigned col, row;          /* where the next character goes */
    unsigned jump;              /* lines a scroll moves the text up */
    uint32_t cp;                /* UTF-8: the code point so far */
    unsigned need;              /* UTF-8: continuation bytes to come */
    unsigned char text[FBCON_MAXROWS][FBCON_MAXCOLS];  /* what is drawn */
};

/*
 * Sets c up to draw on fb, whose pixels start at px (fb->base mapped),
 * clears the whole visible framebuffer to the background and puts the
 * cursor at the top left.  Returns 0, or -1 without writing a pixel if
 * fb cannot hold one glyph, is not described consistently (stride below
 * width, size below stride * height pixels) or has an unknown format or
 * empty colour masks.
 */
int fbcon_setup(struct fbcon *c, void *px, const struct bootfb *fb);

/* Draws n bytes of text (see above). */
void fbcon_put(struct fbcon *c, const char *s, size_t n);

/* The pixel value of colour 0xRRGGBB in fb's format (0 for an unknown
   format). */
uint32_t fbcon_pixel(const struct bootfb *fb, uint32_t rgb);

#endif
