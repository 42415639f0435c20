/*
 * efiimage_test.c - host check of a disk image made by `make image`
 * (tools/build/mkimage.sh):
 *
 *   efiimage_test [IMAGE [case...]]      IMAGE: build/x86_64/hello.img,
 *                                        or the build's -DIMAGE
 *
 * The protective MBR; the primary and backup GPT headers (signature,
 * revision, their own CRC32 and the partition array's); the first
 * partition's type GUID being the EFI system partition's; the FAT volume
 * in it holding the loader, EFI/BOOT/BOOTX64.EFI (BOOTAA64.EFI when the
 * image's path names aarch64), and EFI/spindle/kernel.elf (read with
 * mtools at the partition's offset); and the PE header of the loader:
 * machine x86_64 (0x8664) or arm64 (0xaa64), subsystem EFI application
 * (10), entry point inside .text.
 *
 * The corrupt_* cases damage a copy of the image one structure at a time
 * and assert that the check of that structure fails (and, where the
 * damage is made consistent elsewhere, that the others still pass), so
 * no check can silently pass everything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

#define SECTOR 512

#ifndef IMAGE
#define IMAGE "build/x86_64/hello.img"
#endif

static const char *path = IMAGE;
static const char *loader = "BOOTX64.EFI";     /* the arch's, set by main */
static uint16_t pe_machine = 0x8664;
static uint8_t *img;            /* the image as read */
static size_t size;
static char why[256];           /* what the last failing check saw */

/* ESP type GUID C12A7328-F81F-11D2-BA4B-00A0C93EC93B as stored on disk
   (the first three fields little endian). */
static const uint8_t esp_guid[16] = {
    0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11,
    0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b,
};

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t rd16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = v >> 8 * i; }

/* CRC-32 as the GPT uses it (IEEE 802.3, reflected, inverted). */
static uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = ~0u;

    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = c >> 1 ^ (0xedb88320u & -(c & 1));
    }
    return ~c;
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return 0;
}

static int check_mbr(const uint8_t *d, size_t n)
{
    uint64_t sectors = n / SECTOR;
    uint32_t want = sectors - 1 > 0xffffffffu ? 0xffffffffu : sectors - 1;
    const uint8_t *e = d + 446;

    if (n < 2 * SECTOR || d[510] != 0x55 || d[511] != 0xaa)
        return bad("no MBR signature 55 aa");
    if (e[4] != 0xee)
        return bad("MBR partition 1 has type %#x, not the protective 0xee", e[4]);
    if (rd32(e + 8) != 1 || rd32(e + 12) != want)
        return bad("protective partition covers LBA %u+%u, not 1+%u",
                   rd32(e + 8), rd32(e + 12), want);
    for (int i = 1; i < 4; i++)
        for (int k = 0; k < 16; k++)
            if (e[16 * i + k])
                return bad("MBR partition %d is not empty", i + 1);
    return 1;
}

/* The GPT header at LBA lba: signature, revision, header CRC, where it
   says it is, and its partition array's CRC. */
static int check_gpt(const uint8_t *d, size_t n, uint64_t lba)
{
    const uint8_t *h = d + lba * SECTOR;
    uint8_t copy[SECTOR];
    uint32_t hs, nent, esz;
    uint64_t at;

    if ((lba + 1) * SECTOR > n)
        return bad("image too small for a GPT header at LBA %llu", (unsigned long long)lba);
    if (memcmp(h, "EFI PART", 8))
        return bad("no 'EFI PART' signature at LBA %llu", (unsigned long long)lba);
    if (rd32(h + 8) != 0x00010000)
        return bad("GPT revision %#x, not 1.0", rd32(h + 8));
    hs = rd32(h + 12);
    if (hs < 92 || hs > SECTOR)
        return bad("GPT header size %u", hs);
    memcpy(copy, h, hs);
    wr32(copy + 16, 0);
    if (crc32(copy, hs) != rd32(h + 16))
        return bad("GPT header CRC32 %#x, computed %#x", rd32(h + 16), crc32(copy, hs));
    if (rd64(h + 24) != lba)
        return bad("GPT header at LBA %llu says it is at %llu", (unsigned long long)lba,
                   (unsigned long long)rd64(h + 24));
    at = rd64(h + 72);
    nent = rd32(h + 80);
    esz = rd32(h + 84);
    if (esz < 128 || nent == 0 || nent > 4096 || at * SECTOR + (uint64_t)nent * esz > n)
        return bad("GPT partition array (LBA %llu, %u x %u bytes) does not fit",
                   (unsigned long long)at, nent, esz);
    if (crc32(d + at * SECTOR, (size_t)nent * esz) != rd32(h + 88))
        return bad("GPT partition array CRC32 %#x, computed %#x", rd32(h + 88),
                   crc32(d + at * SECTOR, (size_t)nent * esz));
    return 1;
}

static int check_gpts(const uint8_t *d, size_t n)
{
    uint64_t last = n / SECTOR - 1;

    if (!check_gpt(d, n, 1))
        return 0;
    if (rd64(d + SECTOR + 32) != last)
        return bad("primary GPT names the backup at LBA %llu, the disk ends at %llu",
                   (unsigned long long)rd64(d + SECTOR + 32), (unsigned long long)last);
    return check_gpt(d, n, last);
}

/* The first partition is an EFI system partition; *off its byte offset. */
static int check_esp(const uint8_t *d, size_t n, uint64_t *off)
{
    const uint8_t *h = d + SECTOR, *e;
    uint64_t first, last;

    if ((rd64(h + 72) + 1) * SECTOR > n)
        return bad("the partition array lies beyond the image");
    e = d + rd64(h + 72) * SECTOR;
    if (memcmp(e, esp_guid, 16))
        return bad("partition 1's type GUID is not the EFI system partition's");
    first = rd64(e + 32);
    last = rd64(e + 40);
    if (first < rd64(h + 40) || last > rd64(h + 48) || first > last)
        return bad("partition 1 (LBA %llu-%llu) is outside the usable LBAs",
                   (unsigned long long)first, (unsigned long long)last);
    *off = first * SECTOR;
    return 1;
}

/* The FAT volume at off in file f holds the two files; the loader is
   copied to out.  mtools reads the volume where it lies in the image. */
static int check_fat(const char *f, const uint8_t *d, uint64_t off, const char *out)
{
    char cmd[1024];
    const uint8_t *bs = d + off;

    if (bs[510] != 0x55 || bs[511] != 0xaa || memcmp(bs + 82, "FAT32   ", 8))
        return bad("no FAT32 boot sector at byte %llu", (unsigned long long)off);
    snprintf(cmd, sizeof cmd,
             "MTOOLS_SKIP_CHECK=1 mdir -b -i '%s@@%llu' ::/EFI/spindle/kernel.elf >/dev/null 2>&1 && "
             "MTOOLS_SKIP_CHECK=1 mcopy -n -i '%s@@%llu' ::/EFI/BOOT/%s '%s' 2>/dev/null",
             f, (unsigned long long)off, f, (unsigned long long)off, loader, out);
    if (system(cmd) != 0)
        return bad("the FAT volume lacks EFI/BOOT/%s or EFI/spindle/kernel.elf", loader);
    return 1;
}

/* PE32+: the arch's machine, subsystem 10, entry point inside .text. */
static int check_pe(const uint8_t *p, size_t n)
{
    uint32_t pe, ep, nsec, opt;
    const uint8_t *s;

    if (n < 64 || p[0] != 'M' || p[1] != 'Z')
        return bad("%s has no MZ header", loader);
    pe = rd32(p + 60);
    if (pe > n - 24 || memcmp(p + pe, "PE\0\0", 4))
        return bad("%s has no PE signature", loader);
    if (rd16(p + pe + 4) != pe_machine)
        return bad("PE machine %#x, not %#x", rd16(p + pe + 4), pe_machine);
    nsec = rd16(p + pe + 6);
    opt = rd16(p + pe + 20);
    if (pe + 24 + opt + nsec * 40 > n || opt < 72 || rd16(p + pe + 24) != 0x20b)
        return bad("PE optional header is not PE32+");
    if (rd16(p + pe + 24 + 68) != 10)
        return bad("PE subsystem %u, not EFI application (10)", rd16(p + pe + 24 + 68));
    ep = rd32(p + pe + 24 + 16);
    s = p + pe + 24 + opt;
    for (uint32_t i = 0; i < nsec; i++, s += 40)
        if (!memcmp(s, ".text\0\0\0", 8)) {
            uint32_t va = rd32(s + 12), vs = rd32(s + 8);

            if (ep < va || ep >= va + vs)
                return bad("entry point %#x outside .text (%#x-%#x)", ep, va, va + vs);
            return 1;
        }
    return bad("%s has no .text section", loader);
}

static uint8_t *slurp(const char *f, size_t *n)
{
    FILE *fp = fopen(f, "rb");
    uint8_t *b;
    long len;

    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    len = ftell(fp);
    rewind(fp);
    b = malloc(len ? len : 1);
    if (b && fread(b, 1, len, fp) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(fp);
    *n = len;
    return b;
}

#define REQUIRE_IMAGE()                                                 \
    do {                                                                \
        if (!CHECK(img != NULL && "image readable (make image)"))        \
            return;                                                     \
    } while (0)
#define OK(e) do { if (!(e)) h_failf(__FILE__, __LINE__, "%s", why); } while (0)

TEST(mbr) { REQUIRE_IMAGE(); OK(check_mbr(img, size)); }
TEST(gpt) { REQUIRE_IMAGE(); OK(check_gpts(img, size)); }

TEST(esp_type)
{
    uint64_t off;

    REQUIRE_IMAGE();
    OK(check_esp(img, size, &off));
}

TEST(fat_and_pe)
{
    char out[] = "/tmp/efiimage.XXXXXX";
    uint64_t off = 0;
    uint8_t *pe;
    size_t n;
    int fd = mkstemp(out);

    REQUIRE_IMAGE();
    if (!CHECK(fd >= 0))
        return;
    close(fd);
    unlink(out);
    if (!check_esp(img, size, &off)) {
        OK(0);                  /* no partition to read the volume from */
        return;
    }
    OK(check_fat(path, img, off, out));
    pe = slurp(out, &n);
    if (CHECK(pe != NULL))
        OK(check_pe(pe, n));
    free(pe);
    unlink(out);
}

/* The damaged copies: each check must notice its own structure. */
static uint8_t *copy(void)
{
    uint8_t *c = malloc(size);

    memcpy(c, img, size);
    return c;
}

static void refresh_crcs(uint8_t *d, uint64_t lba)
{
    uint8_t *h = d + lba * SECTOR;

    wr32(h + 88, crc32(d + rd64(h + 72) * SECTOR, (size_t)rd32(h + 80) * rd32(h + 84)));
    wr32(h + 16, 0);
    wr32(h + 16, crc32(h, rd32(h + 12)));
}

TEST(corrupt_mbr)
{
    uint8_t *c;

    REQUIRE_IMAGE();
    c = copy();
    c[511] = 0;
    CHECK(!check_mbr(c, size));
    c[511] = 0xaa;
    c[446 + 4] = 0x83;
    CHECK(!check_mbr(c, size));
    CHECK(check_gpts(c, size));
    free(c);
}

TEST(corrupt_gpt)
{
    uint8_t *c;
    uint64_t last = size / SECTOR - 1, entries;

    REQUIRE_IMAGE();
    c = copy();
    c[SECTOR + 56] ^= 1;                /* the disk GUID: header CRC */
    CHECK(!check_gpts(c, size) && strstr(why, "header CRC32"));
    c[SECTOR + 56] ^= 1;
    c[SECTOR] = 'X';
    CHECK(!check_gpts(c, size) && strstr(why, "signature"));
    c[SECTOR] = 'E';
    entries = rd64(c + SECTOR + 72);
    c[entries * SECTOR + 56] ^= 1;      /* partition 1's name: array CRC */
    CHECK(!check_gpts(c, size) && strstr(why, "array CRC32"));
    c[entries * SECTOR + 56] ^= 1;
    c[last * SECTOR + 60] ^= 1;         /* the backup header alone */
    CHECK(!check_gpts(c, size) && strstr(why, "header CRC32"));
    c[last * SECTOR + 60] ^= 1;
    CHECK(check_gpts(c, size));
    free(c);
}

TEST(corrupt_esp_type)
{
    uint8_t *c;
    uint64_t off;

    REQUIRE_IMAGE();
    c = copy();
    c[rd64(c + SECTOR + 72) * SECTOR] ^= 0xff;   /* type GUID, CRCs redone */
    refresh_crcs(c, 1);
    CHECK(check_gpt(c, size, 1));
    CHECK(!check_esp(c, size, &off));
    free(c);
}

TEST(corrupt_fat_and_pe)
{
    char f[] = "/tmp/efiimage.XXXXXX", out[] = "/tmp/efiimage.XXXXXX", cmd[512];
    uint64_t off = 0;
    uint8_t *pe, *c;
    size_t n, pe_off;
    int fd = mkstemp(f), fo = mkstemp(out);
    FILE *fp;

    REQUIRE_IMAGE();
    if (!CHECK(fd >= 0 && fo >= 0) || !CHECK(check_esp(img, size, &off)))
        return;
    close(fd);
    close(fo);
    unlink(out);
    fp = fopen(f, "wb");
    CHECK(fp && fwrite(img, 1, size, fp) == size);
    fclose(fp);
    CHECK(check_fat(f, img, off, out));
    pe = slurp(out, &n);
    unlink(out);
    if (CHECK(pe != NULL) && CHECK(check_pe(pe, n))) {
        pe_off = rd32(pe + 60);
        pe[pe_off + 4] = 0x4c;                  /* machine i386 0x14c */
        CHECK(!check_pe(pe, n) && strstr(why, "machine"));
        pe[pe_off + 4] = 0x64;
        pe[pe_off + 24 + 68] = 3;               /* console application */
        CHECK(!check_pe(pe, n) && strstr(why, "subsystem"));
        pe[pe_off + 24 + 68] = 10;
        wr32(pe + pe_off + 24 + 16, 0x7ffffff0); /* entry point */
        CHECK(!check_pe(pe, n) && strstr(why, "entry point"));
        pe[0] = 'Z';
        CHECK(!check_pe(pe, n));
    }
    free(pe);
    /* The loader deleted from the volume; then the boot sector damaged. */
    snprintf(cmd, sizeof cmd, "MTOOLS_SKIP_CHECK=1 mdel -i '%s@@%llu' ::/EFI/BOOT/%s",
             f, (unsigned long long)off, loader);
    CHECK(system(cmd) == 0);
    CHECK(!check_fat(f, img, off, out));
    unlink(out);
    c = copy();
    memcpy(c + off + 82, "NOTAFAT ", 8);
    CHECK(!check_fat(path, c, off, out));
    free(c);
    unlink(f);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strchr(argv[1], '/')) {
        path = argv[1];
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    if (strstr(path, "aarch64")) {
        loader = "BOOTAA64.EFI";
        pe_machine = 0xaa64;
    }
    img = slurp(path, &size);
    if (!img)
        fprintf(stderr, "efiimage_test: cannot read %s (make image makes it)\n", path);
    return h_run(argc, argv);
}
