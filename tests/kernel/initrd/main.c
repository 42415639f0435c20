/*
 * initrd - the packed file tree reaches the kernel intact (kernel/initrd.h).
 *
 * The runner says what this boot must find in the last app argument,
 * cpio=BYTES:CRC32:FROM (the archive's length, its zlib CRC-32 and
 * where it comes from: "image", "pvh", "dtb", "efi", "hosted"); without
 * one, there must be no archive.  This folder's boot has the initrd of
 * test.conf; its variants: initrd_files the tree linked in, initrd_both
 * both (the boot path's wins), initrd_none neither.
 *
 *   found_as_expected   initrd_get finds an archive exactly when one is
 *                       expected, from where the runner says, of its
 *                       length and CRC-32 (or says so in one line when
 *                       there is none)
 *   newc_intact         the archive is a run of "newc" entries from its
 *                       first byte: each header "070701" and 13 hex
 *                       fields, names NUL-terminated within the archive,
 *                       to the TRAILER!!! entry, after which nothing but
 *                       zero padding follows
 *   kept_from_allocator every free page, taken and written, lies off the
 *                       archive, whose CRC-32 is the same afterwards
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/test.h>
#include "kernel/export_test.h"

#define PAGE_BYTES 4096
#define RUN_PAGES 256           /* the allocator is drained a MiB at a time */
#define PATTERN 0x5a5aa5a5c3c33c3cull

static const char *want_from;   /* NULL: no archive expected */
static size_t want_len;
static uint32_t want_crc;

static const unsigned char *tree;
static size_t tree_len;

/* The 8 hex digits at p as a number; false if one is not a hex digit. */
static bool hex8(const unsigned char *p, uint32_t *v)
{
    char field[9];

    memcpy(field, p, 8);
    field[8] = 0;
    *v = (uint32_t)strtoul(field, NULL, 16);
    return strspn(field, "0123456789abcdefABCDEF") == 8;
}

static size_t up4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

TEST(found_as_expected)
{
    const void *base;
    const char *from;
    uint32_t crc;
    bool found = initrd_get(&base, &tree_len, &from);

    if (!want_from) {
        CHECKF(!found, "an archive of %zu bytes from %s, where none was expected",
               tree_len, found ? from : "");
        printf("initrd: none, as this boot has no archive\n");
        return;
    }
    CHECKF(found, "no archive; expected %zu bytes from %s", want_len, want_from);
    tree = base;
    CHECKF(!strcmp(from, want_from), "from %s, expected %s", from, want_from);
    CHECKF(tree_len == want_len, "%zu bytes, expected %zu", tree_len, want_len);
    crc = crc32_update(0, tree, tree_len);
    CHECKF(crc == want_crc, "CRC-32 %08x, expected %08x", crc, want_crc);
    printf("initrd: %zu bytes from %s at %p, CRC-32 %08x as the host computed\n",
           tree_len, from, base, crc);
}

TEST(newc_intact)
{
    size_t off = 0;
    int entries = 0;

    if (!tree)
        return;
    CHECKF(tree_len >= 6 && !memcmp(tree, "070701", 6), "no newc magic at the start");
    for (;;) {
        uint32_t f[13];
        const char *name;

        CHECKF(off + 110 <= tree_len, "entry %d's header at %zu runs past the end",
               entries, off);
        CHECKF(!memcmp(tree + off, "070701", 6), "entry %d at %zu: no newc magic",
               entries, off);
        for (int i = 0; i < 13; i++)
            CHECKF(hex8(tree + off + 6 + 8 * i, &f[i]),
                   "entry %d at %zu: field %d is not hex", entries, off, i);
        name = (const char *)tree + off + 110;
        /* f[11]: the name's size with its NUL; f[6]: the data's. */
        CHECKF(f[11] > 0 && off + 110 + f[11] <= tree_len && name[f[11] - 1] == 0,
               "entry %d at %zu: its name runs past the end", entries, off);
        off = up4(off + 110 + f[11]);
        if (!strcmp(name, "TRAILER!!!"))
            break;
        CHECKF(off + f[6] <= tree_len, "%s: its data runs past the end", name);
        off = up4(off + f[6]);
        entries++;
    }
    for (size_t i = off; i < tree_len; i++)
        CHECKF(tree[i] == 0, "byte %zu after the trailer is 0x%02x", i, tree[i]);
    printf("initrd: %d entries, then TRAILER!!!\n", entries);
}

/* Maps this G's stack some way below the running frame, so that the
   frames and interrupts of the drain find their stack pages mapped
   while no page is free. */
__attribute__((noinline)) static void stack_ready(void)
{
    volatile char pad[16384];

    for (size_t i = 0; i < sizeof pad; i += 1024)
        pad[i] = 0;
}

TEST(kept_from_allocator)
{
    uintptr_t lo = (uintptr_t)tree, hi = lo + tree_len;
    uint64_t head = 0, on_tree = 0;
    size_t run = RUN_PAGES, taken = 0, free0;
    uint32_t crc;

    if (!tree)
        return;
    stack_ready();
    mem_free_pages(mem_alloc_pages(1), 1);
    free0 = mem_free_count();
    /* Every free page, in runs chained through their first words: word 0
       the previous run, word 1 its length; the rest of each page gets
       the pattern (the allocator zeroed it first). */
    while (run) {
        uint64_t pa = mem_alloc_pages(run);
        uint64_t *w;

        if (!pa) {
            run /= 2;
            continue;
        }
        if (pa < hi && pa + run * PAGE_BYTES > lo)
            on_tree = pa;
        for (size_t i = 0; i < run; i++)
            ((uint64_t *)phys_to_virt(pa + i * PAGE_BYTES))[2] = PATTERN;
        w = phys_to_virt(pa);
        w[0] = head;
        w[1] = run;
        head = pa;
        taken += run;
    }
    while (head) {
        uint64_t *w = phys_to_virt(head), next = w[0];

        mem_free_pages(head, w[1]);
        head = next;
    }
    CHECKF(!on_tree, "the allocator handed out 0x%lx, on the archive at 0x%lx-0x%lx",
           (unsigned long)on_tree, (unsigned long)lo, (unsigned long)hi);
    CHECKF(taken >= free0, "%zu pages taken of the %zu free", taken, free0);
    CHECKF(mem_free_count() == free0, "%zu pages free before, %zu after", free0,
           mem_free_count());
    crc = crc32_update(0, tree, tree_len);
    CHECKF(crc == want_crc, "CRC-32 %08x after the drain, %08x before", crc, want_crc);
    printf("initrd: intact after %zu MiB were taken and written\n", taken * PAGE_BYTES >> 20);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        static char from[16];
        unsigned long len;
        unsigned int crc;

        if (sscanf(argv[i], "cpio=%lu:%x:%15s", &len, &crc, from) == 3) {
            want_len = len;
            want_crc = crc;
            want_from = from;
        }
    }
    return sp_test_main();
}
