/*
 * reloc_test.c - the kernel's relocation (boot/reloc.c, boot/reloc.h).
 *
 * Hand-made tables: each kind of site moved up and down, unaligned
 * 32-bit sites, and every way a table can be wrong refused with its own
 * message and the image left as it was.  Fixtures (reloc_test.mk): for
 * each arch, an object with every relocation type tools/build/relocs.c
 * knows (the case fails if the tool knows one the fixture lacks), linked
 * at two addresses; the first image's table, applied at the second
 * address, must give the second image byte for byte.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "boot/reloc.h"
#include "harness.h"

/* --- hand-made tables --------------------------------------------- */

#define SITES 0x2000            /* sites lie in [0, SITES); the table follows */
#define SIZE  0x3000

static uint8_t *img, before[SIZE];
static uint64_t link_addr;      /* where the image is "linked" */

/* A fresh image at a 4 KiB-aligned host address, linked d bytes away
   from where it is, with a table of n[k] sites of each kind at offs. */
static void make(int64_t d, const uint32_t n[RELOC_KINDS], const uint32_t *offs)
{
    struct reloc_header h = { .magic = RELOC_MAGIC };
    uint32_t total = 0;

    if (!img)
        img = aligned_alloc(4096, SIZE);
    for (int i = 0; i < SIZE; i++)
        img[i] = (uint8_t)(i * 7 + 1);
    link_addr = (uint64_t)(uintptr_t)img - (uint64_t)d;
    for (int k = 0; k < RELOC_KINDS; k++)
        total += h.count[k] = n[k];
    h.link_base = link_addr;
    h.sites_end = link_addr + SITES;
    memcpy(img + SITES, &h, sizeof h);
    if (total)
        memcpy(img + SITES + sizeof h, offs, total * 4);
}

static uint64_t tab_len(void)
{
    struct reloc_header h;

    memcpy(&h, img + SITES, sizeof h);
    return sizeof h + 4ull * (h.count[0] + h.count[1] + h.count[2]);
}

static int apply(void)
{
    memcpy(before, img, SIZE);
    return reloc_apply(img, link_addr, img + SITES, tab_len(), 1);
}

static void put64(uint32_t off, uint64_t v) { memcpy(img + off, &v, 8); }
static void put32(uint32_t off, uint32_t v) { memcpy(img + off, &v, 4); }
static uint64_t get64(uint32_t off) { uint64_t v; memcpy(&v, img + off, 8); return v; }
static uint32_t get32(uint32_t off) { uint32_t v; memcpy(&v, img + off, 4); return v; }

TEST(moves_each_kind_up)
{
    static const uint32_t n[] = { 2, 1, 1 }, offs[] = { 0x100, 0x1ff8, 0x203, 0x301 };

    make(0x200000, n, offs);
    put64(0x100, link_addr + 0x500);
    put64(0x1ff8, link_addr);           /* the last 8 bytes before the table */
    put32(0x203, 0x10000500);           /* unaligned, as x86 immediates are */
    put32(0x301, 0x7fd00000);
    memcpy(before, img, SIZE);
    if (!CHECK(apply() == RELOC_OK))
        return;
    CHECK(get64(0x100) == (uintptr_t)img + 0x500);
    CHECK(get64(0x1ff8) == (uintptr_t)img);
    CHECK(get32(0x203) == 0x10200500);
    CHECK(get32(0x301) == 0x7ff00000);
    /* Nothing else changed. */
    put64(0x100, get64(0x100) - 0x200000);
    put64(0x1ff8, get64(0x1ff8) - 0x200000);
    put32(0x203, get32(0x203) - 0x200000);
    put32(0x301, get32(0x301) - 0x200000);
    CHECK(!memcmp(img, before, SIZE));
}

TEST(moves_down_and_32s_stays_signed)
{
    static const uint32_t n[] = { 0, 1, 1 }, offs[] = { 0x10, 0x20 };

    make(-0x400000, n, offs);
    put32(0x10, 0x500000);
    put32(0x20, 0xfff00000);            /* sign-extended: -1 MiB, fits moved */
    if (!CHECK(apply() == RELOC_OK))
        return;
    CHECK(get32(0x10) == 0x100000);
    CHECK(get32(0x20) == 0xffb00000);
}

TEST(nothing_to_do_at_the_link_address)
{
    static const uint32_t n[] = { 1, 0, 0 }, offs[] = { 0x40 };

    make(0, n, offs);
    put64(0x40, 0x1234);
    CHECK(apply() == RELOC_OK);
    CHECK(get64(0x40) == 0x1234);
    CHECK(reloc_apply(img, (uintptr_t)img, NULL, 0, 1) == RELOC_OK);
}

/* err, with its own message, and the image untouched. */
static void refused(int got, int err)
{
    if (!CHECK(got == err))
        printf("    got %d (%s), want %d\n", got, reloc_error(got), err);
    CHECK(!memcmp(img, before, SIZE));
    CHECK(strcmp(reloc_error(err), "unknown error") && strlen(reloc_error(err)) > 20);
}

TEST(refuses_a_moved_image_without_a_table)
{
    static const uint32_t n[] = { 0, 0, 0 };

    make(0x200000, n, NULL);
    memcpy(before, img, SIZE);
    refused(reloc_apply(img, link_addr, img + SITES, 0, 1), RELOC_ENOTABLE);
}

TEST(refuses_a_short_table)
{
    static const uint32_t n[] = { 0, 0, 0 };

    make(0x200000, n, NULL);
    memcpy(before, img, SIZE);
    refused(reloc_apply(img, link_addr, img + SITES, 8, 1), RELOC_ESHORT);
}

TEST(refuses_a_bad_magic)
{
    static const uint32_t n[] = { 1, 0, 0 }, offs[] = { 0x40 };

    make(0x200000, n, offs);
    img[SITES] ^= 1;
    refused(apply(), RELOC_EMAGIC);
}

TEST(refuses_counts_that_disagree_with_the_length)
{
    static const uint32_t n[] = { 2, 0, 0 }, offs[] = { 0x40, 0x48 };

    make(0x200000, n, offs);
    memcpy(before, img, SIZE);
    refused(reloc_apply(img, link_addr, img + SITES, tab_len() - 4, 1), RELOC_ESIZE);
    refused(reloc_apply(img, link_addr, img + SITES, tab_len() + 4, 1), RELOC_ESIZE);
}

TEST(refuses_another_link_address)
{
    static const uint32_t n[] = { 1, 0, 0 }, offs[] = { 0x40 };

    make(0x200000, n, offs);
    memcpy(before, img, SIZE);
    refused(reloc_apply(img, link_addr + 0x1000, img + SITES, tab_len(), 1), RELOC_ELINK);
}

TEST(refuses_a_table_of_another_link)
{
    static const uint32_t n[] = { 1, 0, 0 }, offs[] = { 0x40 };
    uint64_t end;

    make(0x200000, n, offs);
    memcpy(&end, img + SITES + 24, 8);
    end += 8;                           /* made where the table began later */
    memcpy(img + SITES + 24, &end, 8);
    refused(apply(), RELOC_ESTALE);
}

TEST(refuses_a_move_off_4k)
{
    static const uint32_t n[] = { 1, 0, 0 }, offs[] = { 0x40 };

    make(0x200800, n, offs);
    refused(apply(), RELOC_EALIGN);
}

TEST(refuses_a_site_outside_the_image)
{
    static const uint32_t n[] = { 1, 0, 0 }, offs[] = { SITES - 4 };
    static const uint32_t n32[] = { 0, 1, 0 }, offs32[] = { 0xfffffffc };

    make(0x200000, n, offs);            /* 8 bytes over the table's start */
    refused(apply(), RELOC_ERANGE);
    make(0x200000, n32, offs32);
    refused(apply(), RELOC_ERANGE);
}

TEST(refuses_sites_out_of_order_and_writes_none)
{
    static const uint32_t n[] = { 3, 0, 0 }, offs[] = { 0x40, 0x80, 0x80 };

    make(0x200000, n, offs);
    put64(0x40, link_addr);
    refused(apply(), RELOC_EORDER);     /* the first site was fine: unwritten */
}

TEST(refuses_a_32_bit_site_that_overflows)
{
    static const uint32_t n32[] = { 1, 1, 0 }, offs32[] = { 0x40, 0x80 };
    static const uint32_t n32s[] = { 0, 0, 1 }, offs32s[] = { 0x80 };

    make(0x200000, n32, offs32);
    put32(0x80, 0xfff00000);            /* past 4 GiB once moved */
    refused(apply(), RELOC_EOVERFLOW);
    make(0x200000, n32s, offs32s);
    put32(0x80, 0x7ff00000);            /* past 2 GiB: sign-extends wrong */
    refused(apply(), RELOC_EOVERFLOW);
    make(-0x200000, n32, offs32);
    put32(0x80, 0x100000);              /* below 0 */
    refused(apply(), RELOC_EOVERFLOW);
}

TEST(names_every_error)
{
    for (int e = 1; e < RELOC_ERRORS; e++)
        CHECK(strcmp(reloc_error(e), "unknown error") && strcmp(reloc_error(e), reloc_error(e - 1)));
    CHECK(!strcmp(reloc_error(RELOC_ERRORS), "unknown error"));
    CHECK(!strcmp(reloc_error(-1), "unknown error"));
}

/* --- the fixtures ------------------------------------------------- */

struct elf {
    uint8_t *data;
    size_t size;
    const Elf64_Ehdr *eh;
};

static bool load(struct elf *e, const char *path)
{
    FILE *f = fopen(path, "rb");

    memset(e, 0, sizeof *e);
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    e->size = ftell(f);
    rewind(f);
    e->data = malloc(e->size);
    if (fread(e->data, 1, e->size, f) != e->size)
        e->size = 0;
    fclose(f);
    e->eh = (const void *)e->data;
    return e->size >= sizeof *e->eh && !memcmp(e->data, ELFMAG, SELFMAG);
}

static const Elf64_Shdr *section(const struct elf *e, const char *name)
{
    const Elf64_Shdr *sh = (const void *)(e->data + e->eh->e_shoff);
    const char *names = (const char *)e->data + sh[e->eh->e_shstrndx].sh_offset;

    for (int i = 0; i < e->eh->e_shnum; i++)
        if (!strcmp(names + sh[i].sh_name, name))
            return &sh[i];
    return NULL;
}

/* The loaded bytes of e from its lowest address, in a buffer of *len. */
static uint8_t *image(const struct elf *e, uint64_t *lo, uint64_t *len)
{
    const Elf64_Phdr *ph = (const void *)(e->data + e->eh->e_phoff);
    uint64_t hi = 0;
    uint8_t *b;

    *lo = ~0ull;
    for (int i = 0; i < e->eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            *lo = ph[i].p_paddr < *lo ? ph[i].p_paddr : *lo;
            hi = ph[i].p_paddr + ph[i].p_memsz > hi ? ph[i].p_paddr + ph[i].p_memsz : hi;
        }
    *len = hi - *lo;
    b = calloc(1, *len);
    for (int i = 0; i < e->eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD)
            memcpy(b + ph[i].p_paddr - *lo, e->data + ph[i].p_offset, ph[i].p_filesz);
    return b;
}

/* Every type `relocs --types arch` names appears in the fixture object. */
static void covers_every_type(const char *arch)
{
    char cmd[256], path[256], name[64];
    struct elf o;
    unsigned type, known = 0;
    FILE *p;

    snprintf(path, sizeof path, RELOC_FIX "/%s.o", arch);
    if (!CHECK(load(&o, path)))
        return;
    snprintf(cmd, sizeof cmd, "build/tools/relocs --types %s", arch);
    p = popen(cmd, "r");
    if (!CHECK(p))
        return;
    while (fscanf(p, "%u %63s", &type, name) == 2) {
        const Elf64_Shdr *sh = (const void *)(o.data + o.eh->e_shoff);
        bool seen = false;

        known++;
        for (int i = 0; i < o.eh->e_shnum; i++) {
            const Elf64_Rela *r = (const void *)(o.data + sh[i].sh_offset);

            for (size_t j = 0; sh[i].sh_type == SHT_RELA && j < sh[i].sh_size / sizeof *r; j++)
                seen |= ELF64_R_TYPE(r[j].r_info) == type;
        }
        if (!seen)
            h_failf(__FILE__, __LINE__, "tests/host/reloc/%s.S has no %s site", arch, name);
    }
    CHECK(pclose(p) == 0 && known >= 7);
    free(o.data);
}

/* The .lo image, its table applied at the .hi address, is the .hi one. */
static void moves_like_a_link(const char *arch)
{
    char path[256];
    struct elf lo, hi;
    const Elf64_Shdr *rs;
    uint64_t lo_at, lo_len, hi_at, hi_len, sites;
    uint8_t *lo_img, *hi_img, *at;

    snprintf(path, sizeof path, RELOC_FIX "/%s.lo.elf", arch);
    if (!CHECK(load(&lo, path)))
        return;
    snprintf(path, sizeof path, RELOC_FIX "/%s.hi.elf", arch);
    if (!CHECK(load(&hi, path)))
        return;
    rs = section(&lo, ".relocs");
    lo_img = image(&lo, &lo_at, &lo_len);
    hi_img = image(&hi, &hi_at, &hi_len);
    if (!CHECK(rs && lo_at == 0x10000000 && hi_at == 0x30000000 && lo_len == hi_len))
        return;
    sites = rs->sh_addr - lo_at;
    CHECK(memcmp(lo_img, hi_img, sites));   /* the move has work to do */
    at = mmap((void *)(uintptr_t)hi_at, lo_len, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (!CHECK(at == (void *)(uintptr_t)hi_at))
        return;
    memcpy(at, lo_img, lo_len);
    CHECK(reloc_apply(at, lo_at, at + sites, rs->sh_size, 1) == RELOC_OK);
    for (uint64_t i = 0; i < sites; i++)
        if (at[i] != hi_img[i]) {
            h_failf(__FILE__, __LINE__, "byte 0x%lx of the moved image is 0x%02x, the "
                    "image linked there has 0x%02x", (unsigned long)(hi_at + i), at[i],
                    hi_img[i]);
            break;
        }
    munmap(at, lo_len);
    free(lo_img);
    free(hi_img);
    free(lo.data);
    free(hi.data);
}

TEST(x86_64_fixture_covers_every_type) { covers_every_type("x86_64"); }
TEST(x86_64_fixture_moves_like_a_link) { moves_like_a_link("x86_64"); }
#ifdef RELOC_AARCH64
TEST(aarch64_fixture_covers_every_type) { covers_every_type("aarch64"); }
TEST(aarch64_fixture_moves_like_a_link) { moves_like_a_link("aarch64"); }
#endif

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
