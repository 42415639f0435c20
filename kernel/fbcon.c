/*
 * fbcon.c - the framebuffer text console's drawing (fbcon.h).
 *
 * text[][] mirrors what the screen shows, one Latin-1 code a cell, so a
 * scroll redraws from it instead of reading pixels back (reads from a
 * framebuffer are slow on real hardware) and skips the cells whose
 * character stays the same, which on a console of short lines is most
 * of them.  Pixels are written one 32-bit store at a time through a
 * volatile pointer: device memory (aarch64's Device-nGnRnE) takes
 * aligned single stores only.
 */
#include "kernel/fbcon.h"
#include "fbfont.h"

#define FG      0xAAAAAA        /* the VGA text palette's light grey */
#define BG      0x000000
#define TABSTOP 8
#define BLANK   ' '
#define BAD     0               /* fbfont[0]: the replacement glyph */

/* Channel value v (0..255) placed in mask, scaled to its width. */
static uint32_t channel(uint32_t v, uint32_t mask)
{
    int shift = __builtin_ctz(mask), width = __builtin_popcount(mask);

    if (width < 8)
        v >>= 8 - width;
    else
        v <<= width - 8;
    return (v << shift) & mask;
}

uint32_t fbcon_pixel(const struct bootfb *fb, uint32_t rgb)
{
    uint32_t r = rgb >> 16 & 0xFF, g = rgb >> 8 & 0xFF, b = rgb & 0xFF;

    switch (fb->format) {
    case BOOTFB_RGB:
        return r | g << 8 | b << 16;
    case BOOTFB_BGR:
        return b | g << 8 | r << 16;
    case BOOTFB_BITMASK:
        if (!fb->red_mask || !fb->green_mask || !fb->blue_mask)
            return 0;
        return channel(r, fb->red_mask) | channel(g, fb->green_mask) |
               channel(b, fb->blue_mask);
    default:
        return 0;
    }
}

int fbcon_setup(struct fbcon *c, void *px, const struct bootfb *fb)
{
    unsigned cols = fb->width / FBFONT_W, rows = fb->height / FBFONT_H;

    if (!px || !cols || !rows || fb->stride < fb->width ||
        fb->size / 4 / fb->stride < fb->height || fb->format > BOOTFB_BITMASK ||
        (fb->format == BOOTFB_BITMASK &&
         (!fb->red_mask || !fb->green_mask || !fb->blue_mask)))
        return -1;
    c->px = px;
    c->stride = fb->stride;
    c->fg = fbcon_pixel(fb, FG);
    c->bg = fbcon_pixel(fb, BG);
    c->cols = cols < FBCON_MAXCOLS ? cols : FBCON_MAXCOLS;
    c->rows = rows < FBCON_MAXROWS ? rows : FBCON_MAXROWS;
    c->jump = c->rows / 4 ? c->rows / 4 : 1;
    c->col = c->row = 0;
    c->cp = c->need = 0;
    for (unsigned r = 0; r < c->rows; r++)
        for (unsigned i = 0; i < c->cols; i++)
            c->text[r][i] = BLANK;
    for (uint32_t y = 0; y < fb->height; y++)
        for (uint32_t x = 0; x < fb->width; x++)
            c->px[(size_t)y * c->stride + x] = c->bg;
    return 0;
}

/* Draws glyph ch at cell (col, row) and records it. */
static void draw(struct fbcon *c, unsigned col, unsigned row, unsigned char ch)
{
    volatile uint32_t *p = c->px + (size_t)row * FBFONT_H * c->stride +
                           (size_t)col * FBFONT_W;

    c->text[row][col] = ch;
    for (int y = 0; y < FBFONT_H; y++, p += c->stride) {
        unsigned bits = fbfont[ch][y];

        for (int x = 0; x < FBFONT_W; x++)
            p[x] = bits & (0x80 >> x) ? c->fg : c->bg;
    }
}

/* Moves the text up by c->jump lines, redrawing the cells that change. */
static void scroll(struct fbcon *c)
{
    for (unsigned r = 0; r < c->rows; r++)
        for (unsigned i = 0; i < c->cols; i++) {
            unsigned char ch = r + c->jump < c->rows ? c->text[r + c->jump][i]
                                                     : BLANK;

            if (c->text[r][i] != ch)
                draw(c, i, r, ch);
        }
    c->row = c->rows - c->jump;
}

static void newline(struct fbcon *c)
{
    c->col = 0;
    if (++c->row == c->rows)
        scroll(c);
}

/* One character of the font (a Latin-1 code, or BAD). */
static void glyph(struct fbcon *c, unsigned char ch)
{
    if (c->col == c->cols)
        newline(c);
    draw(c, c->col++, c->row, ch);
}

/* One decoded code point. */
static void put_cp(struct fbcon *c, uint32_t cp)
{
    switch (cp) {
    case '\n':
        newline(c);
        return;
    case '\r':
        c->col = 0;
        return;
    case '\t':
        if (c->col == c->cols)
            newline(c);
        do
            glyph(c, BLANK);
        while (c->col % TABSTOP && c->col < c->cols);
        return;
    }
    if (cp < 0x20 || cp == 0x7F)
        return;
    glyph(c, cp <= 0xFF ? cp : BAD);
}

void fbcon_put(struct fbcon *c, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char b = s[k];

        if (c->need) {
            if ((b & 0xC0) == 0x80) {
                c->cp = c->cp << 6 | (b & 0x3F);
                if (!--c->need)
                    put_cp(c, c->cp);
                continue;
            }
            c->need = 0;        /* cut short: one bad character */
            glyph(c, BAD);
        }
        if (b < 0x80) {
            put_cp(c, b);
        } else if ((b & 0xE0) == 0xC0) {
            c->cp = b & 0x1F;
            c->need = 1;
        } else if ((b & 0xF0) == 0xE0) {
            c->cp = b & 0x0F;
            c->need = 2;
        } else if ((b & 0xF8) == 0xF0) {
            c->cp = b & 0x07;
            c->need = 3;
        } else {
            glyph(c, BAD);      /* a stray continuation or invalid byte */
        }
    }
}
