/*
 * loadopt_test.c - host unit test for boot/efi/loadopt.c, which turns
 * the EFI load options into the kernel command line (or declines, so
 * that the loader uses the one baked into the image).
 */
#include <stdint.h>
#include <string.h>
#include "boot/efi/loadopt.h"
#include "harness.h"

static uint16_t u[2048];
static char out[64];
static int cut;

/* s as UCS-2 in u, without its NUL unless nul; returns the byte size. */
static size_t ucs2(const char *s, int nul)
{
    size_t n = strlen(s);

    for (size_t i = 0; i < n; i++)
        u[i] = (unsigned char)s[i];
    u[n] = 0;
    return (n + (nul ? 1 : 0)) * 2;
}

static int opt(const char *s, int nul)
{
    return loadopt_cmdline(u, ucs2(s, nul), out, sizeof out, &cut);
}

/* A boot entry's optional data (efibootmgr --unicode, bcfg -opt). */
TEST(entry_data)
{
    CHECK(opt("smp=2 quantum=5 -- a b", 1) == 1);
    CHECK(!strcmp(out, "smp=2 quantum=5 -- a b") && !cut);
    CHECK(opt("smp=2", 0) == 1);            /* no NUL: the size ends it */
    CHECK(!strcmp(out, "smp=2"));
}

/* The UEFI shell passes the whole command line, its argv[0] first. */
TEST(shell_argv0)
{
    CHECK(opt("fs0:\\EFI\\BOOT\\BOOTX64.EFI  smp=1 -- from-shell", 1) == 1);
    CHECK(!strcmp(out, "smp=1 -- from-shell"));
    CHECK(opt("loader.efi quantum=5", 1) == 1);
    CHECK(!strcmp(out, "quantum=5"));
    CHECK(opt("BOOTX64.EFI", 1) == 0);       /* the name alone: none */
    CHECK(out[0] == 0);
    CHECK(opt("efi smp=2", 1) == 1);         /* not a file name */
    CHECK(!strcmp(out, "efi smp=2"));
}

/* What is not text is not a command line: the 16-byte GUID that OVMF's
   own boot entries carry, control characters, non-ASCII. */
TEST(not_text)
{
    static const uint8_t guid[16] = { 0xb4, 0xa3, 0x64, 0x1e, 0x8d, 0xb0, 0x4f, 0x43,
                                      0xa5, 0xc3, 0x2d, 0x16, 0x84, 0x0a, 0x5b, 0x40 };

    memcpy(u, guid, sizeof guid);
    strcpy(out, "junk");
    CHECK(loadopt_cmdline(u, sizeof guid, out, sizeof out, &cut) == 0);
    CHECK(out[0] == 0);
    ucs2("smp=2", 1);
    u[2] = 0x0a;
    CHECK(loadopt_cmdline(u, 12, out, sizeof out, &cut) == 0);
    ucs2("smp=2", 1);
    u[1] = 0x00e9;                            /* é */
    CHECK(loadopt_cmdline(u, 12, out, sizeof out, &cut) == 0);
}

/* Nothing, blanks only, an odd byte count, a NUL early. */
TEST(empty)
{
    CHECK(loadopt_cmdline(NULL, 0, out, sizeof out, &cut) == 0 && out[0] == 0);
    CHECK(loadopt_cmdline(NULL, 40, out, sizeof out, &cut) == 0);
    CHECK(opt("", 1) == 0);
    CHECK(opt("    ", 1) == 0);
    ucs2("ab", 0);
    CHECK(loadopt_cmdline(u, 3, out, sizeof out, &cut) == 1 && !strcmp(out, "a"));
    ucs2("smp=2", 1);
    u[3] = 0;
    CHECK(loadopt_cmdline(u, 12, out, sizeof out, &cut) == 1 && !strcmp(out, "smp"));
}

/* Longer than the buffer: cut, terminated, and said so. */
TEST(too_long)
{
    char s[200];

    memset(s, 'x', sizeof s - 1);
    s[sizeof s - 1] = 0;
    CHECK(opt(s, 1) == 1);
    CHECK(strlen(out) == sizeof out - 1 && cut);
    CHECK(opt("short", 1) == 1 && !cut);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
