/*
 * fbcon_test.c - host unit test for kernel/fbcon.c, the framebuffer
 * console's drawing, into framebuffers in heap memory sized exactly (so
 * that ASan reports any write outside one).  After each step the whole
 * framebuffer is compared with what the expected text grid looks like in
 * the font: every cell's glyph in the console's colours, the rest of the
 * visible area background, and the pixels past the width (stride
 * padding) untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fbfont.h"
#include "harness.h"
#include "kernel/fbcon.h"

#define CANARY  0x5A5A5A5Au
#define GREY    0xAAAAAAu       /* fbcon's foreground, 0xRRGGBB */

static struct fbcon con;

/* A framebuffer of cols x rows cells plus extra pixels each way, with
   stride - width pixels of padding, every pixel CANARY. */
static uint32_t *make(struct bootfb *fb, unsigned w, unsigned h, unsigned stride,
                      uint32_t format)
{
    uint32_t *px = malloc((size_t)stride * h * 4);

    for (size_t i = 0; i < (size_t)stride * h; i++)
        px[i] = CANARY;
    memset(fb, 0, sizeof *fb);
    fb->base = 0x80000000;
    fb->size = (uint64_t)stride * h * 4;
    fb->width = w;
    fb->height = h;
    fb->stride = stride;
    fb->format = format;
    return px;
}

/*
 * True if px shows exactly lines[] (NULL-terminated, each at most a row
 * wide; missing rows blank; '\x7f' stands for the replacement glyph,
 * fbfont[0]) in fbcon's colours; the first wrong pixel is reported.
 * Padding must still be CANARY.
 */
static bool shows(const uint32_t *px, const struct bootfb *fb, const char *const *lines)
{
    uint32_t fg = fbcon_pixel(fb, GREY), bg = fbcon_pixel(fb, 0);
    unsigned cols = fb->width / FBFONT_W, rows = fb->height / FBFONT_H;
    bool more = true;

    for (unsigned y = 0; y < fb->height; y++) {
        unsigned row = y / FBFONT_H;
        const char *line = NULL;

        for (unsigned r = 0; more && r <= row && row < rows; r++) {
            if (!lines[r]) {
                more = r > row;
                break;
            }
            line = r == row ? lines[r] : NULL;
        }
        for (unsigned x = 0; x < fb->stride; x++) {
            uint32_t want = bg, got = px[(size_t)y * fb->stride + x];

            if (x >= fb->width) {
                want = CANARY;
            } else if (line && x / FBFONT_W < cols && row < rows &&
                       x / FBFONT_W < strlen(line)) {
                unsigned char ch = line[x / FBFONT_W];

                if (ch == 0x7F)
                    ch = 0;

                if (fbfont[ch][y % FBFONT_H] & (0x80 >> (x % FBFONT_W)))
                    want = fg;
            }
            if (got != want) {
                FAIL("pixel (%u, %u): 0x%08x, expected 0x%08x", x, y, got, want);
                return false;
            }
        }
    }
    return true;
}

static void put(const char *s)
{
    fbcon_put(&con, s, strlen(s));
}

TEST(pixel_formats)
{
    struct bootfb fb = { .format = BOOTFB_RGB };

    CHECK(fbcon_pixel(&fb, 0x123456) == 0x563412);     /* byte 0 red */
    fb.format = BOOTFB_BGR;
    CHECK(fbcon_pixel(&fb, 0x123456) == 0x123456);     /* byte 0 blue */
    /* 10-bit channels, red on top: 0x12 -> 0x048, and so on. */
    fb.format = BOOTFB_BITMASK;
    fb.red_mask = 0x3FF00000;
    fb.green_mask = 0x000FFC00;
    fb.blue_mask = 0x000003FF;
    CHECK(fbcon_pixel(&fb, 0x123456) == (0x048u << 20 | 0x0D0u << 10 | 0x158u));
    /* 5-6-5 in the low half, the top of each channel kept. */
    fb.red_mask = 0xF800;
    fb.green_mask = 0x07E0;
    fb.blue_mask = 0x001F;
    CHECK(fbcon_pixel(&fb, 0xFF8010) == (0x1Fu << 11 | 0x20u << 5 | 0x02u));
    fb.format = 7;
    CHECK(fbcon_pixel(&fb, 0xFFFFFF) == 0);
}

/* Setup clears the visible area, never the padding; a glyph's pixels
   are the font's bitmap in the foreground, the rest background. */
TEST(glyph_pixels)
{
    struct bootfb fb;
    uint32_t *px = make(&fb, 4 * 8, 2 * 16, 4 * 8 + 3, BOOTFB_BGR);

    CHECK(fbcon_setup(&con, px, &fb) == 0);
    CHECK(con.cols == 4 && con.rows == 2);
    CHECK(shows(px, &fb, (const char *const[]){ NULL }));
    put("A");
    CHECK(shows(px, &fb, (const char *const[]){ "A", NULL }));
    put("b~\xe9");      /* Latin-1 0xE9 on its own: a UTF-8 lead byte */
    CHECK(shows(px, &fb, (const char *const[]){ "Ab~", NULL }));
    put("A");           /* ... cut short: a replacement glyph, then A */
    CHECK(shows(px, &fb, (const char *const[]){ "Ab~\x7f", "A", NULL }));
    free(px);
}

/* The same text in RGB and in a bit-mask format draws the same shapes,
   each in its own pixel values. */
TEST(formats_draw)
{
    static const uint32_t formats[] = { BOOTFB_RGB, BOOTFB_BGR, BOOTFB_BITMASK };

    for (int i = 0; i < 3; i++) {
        struct bootfb fb;
        uint32_t *px = make(&fb, 6 * 8, 2 * 16 + 5, 6 * 8, formats[i]);

        fb.red_mask = 0x000003FF;       /* BITMASK only: blue on top */
        fb.green_mask = 0x000FFC00;
        fb.blue_mask = 0x3FF00000;
        CHECK(fbcon_setup(&con, px, &fb) == 0);
        put("Hi, 0!");
        CHECK(shows(px, &fb, (const char *const[]){ "Hi, 0!", NULL }));
        free(px);
    }
}

TEST(wrap_at_the_right_edge)
{
    struct bootfb fb;
    uint32_t *px = make(&fb, 8 * 8 + 7, 3 * 16 + 15, 8 * 8 + 7, BOOTFB_RGB);

    CHECK(fbcon_setup(&con, px, &fb) == 0);
    CHECK(con.cols == 8 && con.rows == 3);
    put("0123456789");
    CHECK(shows(px, &fb, (const char *const[]){ "01234567", "89", NULL }));
    /* A line exactly a row wide, then '\n': no empty line between. */
    CHECK(fbcon_setup(&con, px, &fb) == 0);
    put("abcdefgh\nX");
    CHECK(shows(px, &fb, (const char *const[]){ "abcdefgh", "X", NULL }));
    free(px);
}

TEST(tab_and_carriage_return)
{
    struct bootfb fb;
    uint32_t *px = make(&fb, 20 * 8, 3 * 16, 20 * 8, BOOTFB_RGB);

    CHECK(fbcon_setup(&con, px, &fb) == 0);
    put("ab\tc\r\n\tx\tyz\rQ\n");
    CHECK(shows(px, &fb, (const char *const[]){ "ab      c", "Q       x       yz", NULL }));
    /* A tab past the last stop stops at the edge; the next character wraps. */
    put("0123456789abcdefg\t");
    CHECK(shows(px, &fb, (const char *const[]){ "ab      c", "Q       x       yz",
                                                "0123456789abcdefg", NULL }));
    CHECK(con.row == 2 && con.col == 20);
    put("Z");           /* wraps below the last row: scrolls one line */
    CHECK(shows(px, &fb, (const char *const[]){ "Q       x       yz",
                                                "0123456789abcdefg", "Z", NULL }));
    free(px);
}

/* Text below the last row moves up a quarter screen (at least a line);
   what scrolled away is cleared from the pixels too. */
TEST(scroll_at_the_bottom)
{
    struct bootfb fb;
    uint32_t *px = make(&fb, 6 * 8, 4 * 16, 6 * 8 + 1, BOOTFB_RGB);

    CHECK(fbcon_setup(&con, px, &fb) == 0);
    CHECK(con.jump == 1);
    put("line1\nline2\nline3\nlonger\nline5");
    CHECK(shows(px, &fb, (const char *const[]){ "line2", "line3", "longer", "line5", NULL }));
    put("\n");
    CHECK(shows(px, &fb, (const char *const[]){ "line3", "longer", "line5", "", NULL }));
    free(px);

    px = make(&fb, 10 * 8, 8 * 16, 10 * 8, BOOTFB_BGR);
    CHECK(fbcon_setup(&con, px, &fb) == 0);
    CHECK(con.jump == 2);
    for (int i = 0; i < 9; i++) {
        char s[16];

        snprintf(s, sizeof s, "%s%d", i ? "\n" : "", i);
        put(s);
    }
    /* 0..7 filled the screen; 8 moved it up by 2: 2..8 and a blank row. */
    CHECK(shows(px, &fb, (const char *const[]){ "2", "3", "4", "5", "6", "7", "8", "", NULL }));
    CHECK(con.row == 6);
    put("\n");
    for (int i = 0; i < 200; i++)
        put("a long line, wrapped\n");
    CHECK(shows(px, &fb, (const char *const[]){ "e, wrapped", "a long lin", "e, wrapped",
                                                "a long lin", "e, wrapped", "a long lin",
                                                "e, wrapped", "", NULL }));
    free(px);
}

/* UTF-8 up to U+00FF draws the Latin-1 glyph; beyond it, and malformed
   bytes, the replacement glyph (fbfont[0]); sequences may be split. */
TEST(utf8)
{
    struct bootfb fb;
    uint32_t *px = make(&fb, 12 * 8, 16, 12 * 8, BOOTFB_RGB);

    CHECK(fbcon_setup(&con, px, &fb) == 0);
    put("\xc3\xa9");                    /* é */
    put("\xe2\x82\xac");                /* € */
    put("\xc3");                        /* ü, split in two */
    put("\xbc");
    put("\x80");                        /* a stray continuation byte */
    put("\xc3" "A");                    /* cut short, then A */
    put("\x01\x7f!");                   /* controls: nothing */
    CHECK(shows(px, &fb, (const char *const[]){ "\xe9" "\x7f" "\xfc" "\x7f" "\x7f" "A!",
                                                NULL }));
    free(px);
}

/* Nothing is written to a framebuffer that cannot hold one glyph or is
   described inconsistently; ASan sees every pixel of the allocation. */
TEST(unusable_framebuffers)
{
    struct {
        unsigned w, h, stride;
        uint32_t format;
        uint64_t cut;           /* bytes taken off the size */
    } bad[] = {
        { 7, 16, 7, BOOTFB_RGB, 0 },            /* narrower than a glyph */
        { 8, 15, 8, BOOTFB_BGR, 0 },            /* lower than a glyph */
        { 0, 0, 0, BOOTFB_RGB, 0 },
        { 64, 32, 63, BOOTFB_RGB, 0 },          /* stride below width */
        { 64, 32, 64, BOOTFB_RGB, 4 },          /* size below the pixels */
        { 64, 32, 64, 3, 0 },                   /* unknown format */
        { 64, 32, 64, BOOTFB_BITMASK, 0 },      /* empty masks */
    };

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct bootfb fb;
        uint32_t *px = make(&fb, bad[i].w, bad[i].h, bad[i].stride ? bad[i].stride : 1,
                            bad[i].format);
        size_t n = (size_t)fb.stride * fb.height;

        fb.stride = bad[i].stride;
        fb.size -= bad[i].cut;
        if (!CHECK(fbcon_setup(&con, px, &fb) == -1))
            FAIL("case %zu was accepted", i);
        for (size_t k = 0; k < n; k++)
            if (px[k] != CANARY) {
                FAIL("case %zu: pixel %zu written", i, k);
                break;
            }
        free(px);
    }
    {
        struct bootfb fb;
        uint32_t *px = make(&fb, 8, 16, 8, BOOTFB_RGB);

        CHECK(fbcon_setup(&con, NULL, &fb) == -1);
        /* Exactly one glyph: usable, and every write inside. */
        CHECK(fbcon_setup(&con, px, &fb) == 0);
        put("ab\tc\nd\n\n\xc3\xa9");
        CHECK(shows(px, &fb, (const char *const[]){ "\xe9", NULL }));
        free(px);
    }
}

/* A screen wider and higher than the text grid holds uses its top left;
   the rest stays background. */
TEST(larger_than_the_grid)
{
    struct bootfb fb;
    uint32_t *px = make(&fb, (FBCON_MAXCOLS + 3) * 8, (FBCON_MAXROWS + 1) * 16,
                        (FBCON_MAXCOLS + 3) * 8, BOOTFB_RGB);

    CHECK(fbcon_setup(&con, px, &fb) == 0);
    CHECK(con.cols == FBCON_MAXCOLS && con.rows == FBCON_MAXROWS);
    for (int i = 0; i < FBCON_MAXCOLS + 1; i++)
        put("x");
    CHECK(con.row == 1 && con.col == 1);
    CHECK(px[FBCON_MAXCOLS * 8 + 3 + 4 * fb.stride] == fbcon_pixel(&fb, 0));
    free(px);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
