/*
 * fbcon - the console on the framebuffer, through the firmware's GOP
 * (x86_64-efi, aarch64-efi): the runner dumps QEMU's screen once this
 * prints SCREEN DUMP and looks for the `screen` lines of test.conf on
 * it, glyph by glyph (tools/test/screen.py), while main sleeps.  What is printed first makes the
 * console scroll several times, wrap a line one character wider than
 * the screen on x86_64 (OVMF gives QEMU's standard VGA 1280x800 pixels:
 * 160 columns; AAVMF's ramfb has 100, test.conf says where the line
 * breaks there), expand a tab, return to column 0 and decode UTF-8.
 */
#include <stdio.h>
#include <string.h>
#include <spindle/test.h>
#include <spindle/time.h>

#define DUMP_NS SP_S(2)         /* the runner's time to take the dump */

TEST(prints_for_the_screen)
{
    char wide[154];
    uint64_t t0;

    for (int i = 0; i < 120; i++)
        printf("fbcon line %03d\n", i);
    memset(wide, '=', sizeof wide - 1);
    wide[sizeof wide - 1] = 0;
    printf("fbcon: %sw\n", wide);            /* 161 columns */
    printf("fbcon:\ttab\n");
    printf("fbcon: XXXXXXXXXX\rfbcon: over\n");
    printf("fbcon: Gr\u00fc\u00dfe, caf\u00e9, \u00bd \u00d7 \u00be\n");
    printf("SCREEN DUMP\n");
    t0 = sp_nanotime();
    sp_sleep(DUMP_NS);
    CHECKF(sp_nanotime() - t0 >= DUMP_NS, "slept only %llu ns",
           (unsigned long long)(sp_nanotime() - t0));
}

int main(void)
{
    return sp_test_main();
}
