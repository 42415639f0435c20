/*
 * initrd_test.c - host unit test for kernel/initrd.c: which archive
 * initrd_get returns, and initrd_setup's checks of the boot path's
 * initrd against the memory map (the kernel's defence against boot info
 * that is nonsense: empty, at 0, wrapping, outside RAM, no reserved
 * entry left), each a warning and the archive linked into the image
 * instead, never a crash.  The image's archive is a few bytes defined
 * below, as tools/build/files.S would link one in.
 */
#include <stdarg.h>
#include <stdint.h>
#include "harness.h"
#include "kernel/bootinfo.h"
#include "kernel/initrd.h"

__asm__(".section .rodata\n"
        ".globl spindle_files_start, spindle_files_end\n"
        "spindle_files_start: .ascii \"070701 the image's own\"\n"
        "spindle_files_end:\n"
        ".previous");
extern const char spindle_files_start[], spindle_files_end[];

static char out[4096];          /* what printk printed since the last reset */

void printk(const char *fmt, ...)
{
    size_t n = strlen(out);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out + n, sizeof(out) - n, fmt, ap);
    va_end(ap);
}

/* A machine with RAM at 1-2 GiB and 4-5 GiB, the kernel reserved at 32 MiB
   of the first, and a boot path's initrd at base, len bytes. */
static struct bootinfo bi;

static void machine(uint64_t base, uint64_t len)
{
    memset(&bi, 0, sizeof(bi));
    out[0] = 0;
    bootinfo_add_usable(&bi, 1ull << 30, 1ull << 30);
    bootinfo_add_usable(&bi, 4ull << 30, 1ull << 30);
    bootinfo_add_reserved(&bi, (1ull << 30) + (32 << 20), 8 << 20);
    bi.initrd = base;
    bi.initrd_size = len;
    bi.initrd_from = "pvh";
}

/* initrd_get's answer is the boot path's archive at base, len bytes. */
static bool got_boot(uint64_t base, uint64_t len)
{
    const void *p;
    size_t n;
    const char *from;

    return initrd_get(&p, &n, &from) && (uintptr_t)p == base && n == len &&
           !strcmp(from, "pvh");
}

/* initrd_get's answer is the image's own archive. */
static bool got_image(void)
{
    const void *p;
    size_t n;
    const char *from;

    return initrd_get(&p, &n, &from) && p == spindle_files_start &&
           n == (size_t)(spindle_files_end - spindle_files_start) &&
           !strcmp(from, "image");
}

/* The boot path's initrd is the last reserved range, as given. */
static bool reserved_last(uint64_t base, uint64_t len)
{
    return bi.nreserved > 0 && bi.reserved[bi.nreserved - 1].base == base &&
           bi.reserved[bi.nreserved - 1].len == len;
}

TEST(image_alone)
{
    machine(0, 0);
    bi.initrd_from = NULL;
    initrd_setup(&bi);
    CHECK(got_image());
    CHECK(bi.nreserved == 1);
    CHECK(!strncmp(out, "initrd: 22 bytes from image at ", 31));
    CHECK(strchr(out, '\n') == out + strlen(out) - 1);    /* one line */
}

TEST(boot_wins)
{
    uint64_t base = (1ull << 30) + (512 << 20) + 12;

    machine(base, 5000);
    initrd_setup(&bi);
    CHECK(got_boot(base, 5000));
    CHECK(reserved_last(base, 5000));
    CHECK(bi.initrd == base && bi.initrd_size == 5000);
    CHECK(strstr(out, "initrd: 5000 bytes from pvh at 0x6000000c (the image's own, "
                      "22 bytes, is not used: the boot path's wins)\n"));
}

TEST(ends_at_top_of_ram)
{
    uint64_t base = (5ull << 30) - 4096;

    machine(base, 4096);
    initrd_setup(&bi);
    CHECK(got_boot(base, 4096));
}

/* RAM in pieces that touch, and an EFI loader's claim (reserved, cut out
   of the usable ranges) holding the initrd: all of it is RAM. */
TEST(ram_in_pieces)
{
    uint64_t base = (1ull << 30) - 8192;

    machine(base, 3 * 4096);
    bootinfo_add_usable(&bi, (1ull << 30) - (1 << 20), 1 << 20);
    initrd_setup(&bi);
    CHECK(got_boot(base, 3 * 4096));

    base = (3ull << 30) + 4000;
    machine(base, 200);
    bootinfo_add_reserved(&bi, 3ull << 30, 4096);
    bootinfo_add_reserved(&bi, (3ull << 30) + 4096, 4096);
    initrd_setup(&bi);
    CHECK(got_boot(base, 200));
}

TEST(nonsense_falls_back)
{
    static const struct {
        uint64_t base, len;
        const char *why;
    } bad[] = {
        { 1ull << 30, 0, "it is empty" },
        { 0, 4096, "its address is 0" },
        { UINT64_MAX - 4095, 8192, "it runs past the top of the address space" },
        { 3ull << 30, 4096, "it is not all in the RAM of the memory map" },
        { (2ull << 30) - 4096, 8192, "it is not all in the RAM of the memory map" },
        { 64ull << 30, 1 << 20, "it is not all in the RAM of the memory map" },
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        machine(bad[i].base, bad[i].len);
        initrd_setup(&bi);
        if (!got_image() || bi.initrd || bi.initrd_size || bi.nreserved != 1 ||
            !strstr(out, bad[i].why) || !strstr(out, "; the image's own is used\n"))
            FAIL("case %zu: %s", i, out);
    }
}

TEST(no_reserved_entry_left)
{
    uint64_t base = (1ull << 30) + (512 << 20);

    machine(base, 4096);
    while (bi.nreserved < BOOT_MAXMEM)
        bootinfo_add_reserved(&bi, 4096, 4096);
    initrd_setup(&bi);
    CHECK(got_image() && bi.initrd == 0);
    CHECK(strstr(out, "no reserved range is left for it"));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
