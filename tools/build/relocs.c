/*
 * relocs.c - relocs ELF > relocs.S: the relocation table (boot/reloc.h)
 * of a kernel image linked with --emit-relocs (ld -q), as assembly for
 * the image's final link (tools/build/link.sh).  relocs --types ARCH
 * lists the relocation types it knows, a number and name a line
 * (tests/host/reloc_test.c builds one of each).
 *
 * Every relocation ld applied to a loaded section is sorted by its type:
 * one that wrote an absolute address of something in the image is a
 * site of the table (R_X86_64_64, _32, _32S; R_AARCH64_ABS64, _ABS32);
 * one that wrote a PC-relative value, a :lo12: offset (kept by a 4 KiB
 * move) or a TLS offset needs nothing.  A type in neither list stops the
 * build, naming it: a new compiler flag or hand-written instruction must
 * be looked at before an image that would break when moved boots.  So
 * do an absolute relocation against something that is neither in the
 * image nor absolute, and a PC-relative one against an absolute symbol.
 *
 * ld writes the GOT (aarch64 code reaches weak symbols through it) with
 * no relocation of its own: each slot holding the address of an in-image
 * symbol that a GOT relocation names is a 64-bit site; one holding an
 * absolute symbol's value (__tls_align) or 0 (an undefined weak one)
 * is not; any other value stops the build.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "boot/reloc.h"

enum { NONE = RELOC_KINDS, GOT };   /* beside RELOC_64, _32, _32S */

struct type { unsigned type; int kind; int pcrel; const char *name; };

/* Every relocation type an image may hold: reloc_test.c builds each. */
static const struct type x86_types[] = {
    { R_X86_64_64, RELOC_64, 0, "R_X86_64_64" },
    { R_X86_64_32, RELOC_32, 0, "R_X86_64_32" },
    { R_X86_64_32S, RELOC_32S, 0, "R_X86_64_32S" },
    { R_X86_64_PC32, NONE, 1, "R_X86_64_PC32" },
    { R_X86_64_PLT32, NONE, 1, "R_X86_64_PLT32" },
    { R_X86_64_PC64, NONE, 1, "R_X86_64_PC64" },
    { R_X86_64_TPOFF32, NONE, 0, "R_X86_64_TPOFF32" },
    { 0, 0, 0, NULL },
};

static const struct type arm_types[] = {
    { R_AARCH64_ABS64, RELOC_64, 0, "R_AARCH64_ABS64" },
    { R_AARCH64_ABS32, RELOC_32, 0, "R_AARCH64_ABS32" },
    { R_AARCH64_PREL64, NONE, 1, "R_AARCH64_PREL64" },
    { R_AARCH64_PREL32, NONE, 1, "R_AARCH64_PREL32" },
    { R_AARCH64_PREL16, NONE, 1, "R_AARCH64_PREL16" },
    { R_AARCH64_LD_PREL_LO19, NONE, 1, "R_AARCH64_LD_PREL_LO19" },
    { R_AARCH64_ADR_PREL_LO21, NONE, 1, "R_AARCH64_ADR_PREL_LO21" },
    { R_AARCH64_ADR_PREL_PG_HI21, NONE, 1, "R_AARCH64_ADR_PREL_PG_HI21" },
    { R_AARCH64_ADD_ABS_LO12_NC, NONE, 0, "R_AARCH64_ADD_ABS_LO12_NC" },
    { R_AARCH64_LDST8_ABS_LO12_NC, NONE, 0, "R_AARCH64_LDST8_ABS_LO12_NC" },
    { R_AARCH64_LDST16_ABS_LO12_NC, NONE, 0, "R_AARCH64_LDST16_ABS_LO12_NC" },
    { R_AARCH64_LDST32_ABS_LO12_NC, NONE, 0, "R_AARCH64_LDST32_ABS_LO12_NC" },
    { R_AARCH64_LDST64_ABS_LO12_NC, NONE, 0, "R_AARCH64_LDST64_ABS_LO12_NC" },
    { R_AARCH64_LDST128_ABS_LO12_NC, NONE, 0, "R_AARCH64_LDST128_ABS_LO12_NC" },
    { R_AARCH64_TSTBR14, NONE, 1, "R_AARCH64_TSTBR14" },
    { R_AARCH64_CONDBR19, NONE, 1, "R_AARCH64_CONDBR19" },
    { R_AARCH64_JUMP26, NONE, 1, "R_AARCH64_JUMP26" },
    { R_AARCH64_CALL26, NONE, 1, "R_AARCH64_CALL26" },
    { R_AARCH64_ADR_GOT_PAGE, GOT, 1, "R_AARCH64_ADR_GOT_PAGE" },
    { R_AARCH64_LD64_GOT_LO12_NC, GOT, 0, "R_AARCH64_LD64_GOT_LO12_NC" },
    { R_AARCH64_TLSLE_ADD_TPREL_HI12, NONE, 0, "R_AARCH64_TLSLE_ADD_TPREL_HI12" },
    { R_AARCH64_TLSLE_ADD_TPREL_LO12, NONE, 0, "R_AARCH64_TLSLE_ADD_TPREL_LO12" },
    { R_AARCH64_TLSLE_ADD_TPREL_LO12_NC, NONE, 0, "R_AARCH64_TLSLE_ADD_TPREL_LO12_NC" },
    { 0, 0, 0, NULL },
};

static const char *elf;             /* the file's name, for messages */
static const uint8_t *file;
static size_t fsize;
static const Elf64_Shdr *sh;
static unsigned nsh;

struct sites { uint64_t *a; size_t n, cap; };
static struct sites sites[RELOC_KINDS];

static void die(const char *f, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *f, ...)
{
    va_list ap;

    fprintf(stderr, "relocs: %s: ", elf);
    va_start(ap, f);
    vfprintf(stderr, f, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static const void *at(uint64_t off, uint64_t len)
{
    if (off > fsize || len > fsize - off)
        die("truncated (offset 0x%llx)", (unsigned long long)off);
    return file + off;
}

static void add(int kind, uint64_t addr)
{
    struct sites *s = &sites[kind];

    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->a = realloc(s->a, s->cap * sizeof *s->a);
        if (!s->a)
            die("out of memory");
    }
    s->a[s->n++] = addr;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Whether a symbol moves with the image: defined in a loaded section. */
static int in_image(const Elf64_Sym *s)
{
    return s->st_shndx != SHN_UNDEF && s->st_shndx < nsh &&
           (sh[s->st_shndx].sh_flags & SHF_ALLOC);
}

static const Elf64_Sym *symtab;
static size_t nsym;
static const char *strtab;

static const char *symname(const Elf64_Sym *s)
{
    return s->st_name ? strtab + s->st_name : "(a section)";
}

static uint64_t symval(const char *name)
{
    for (size_t i = 0; i < nsym; i++)
        if (symtab[i].st_name && !strcmp(strtab + symtab[i].st_name, name))
            return symtab[i].st_value;
    die("no symbol %s (is it linked with linker/<arch>.ld?)", name);
}

/* The GOT's slots (see the top). */
static void got_sites(const Elf64_Shdr *got, const uint8_t *named, uint64_t link,
                      uint64_t end)
{
    const uint64_t *slot = at(got->sh_offset, got->sh_size);

    for (uint64_t i = 0; i < got->sh_size / 8; i++) {
        int moves = 0, stays = !slot[i];

        for (size_t j = 0; j < nsym; j++) {
            if (!named[j] || symtab[j].st_value != slot[i])
                continue;
            if (in_image(&symtab[j]))
                moves = 1;
            else
                stays = 1;
        }
        if (moves && stays)
            die("the GOT slot at 0x%llx holds an address that is both an image "
                "symbol's and an absolute one's", (unsigned long long)(got->sh_addr + 8 * i));
        if (!moves && !stays)
            die("the GOT slot at 0x%llx holds no symbol a GOT relocation names",
                (unsigned long long)(got->sh_addr + 8 * i));
        if (moves) {
            if (got->sh_addr + 8 * i < link || got->sh_addr + 8 * i + 8 > end)
                die("the GOT at 0x%llx lies outside the relocated part of the image",
                    (unsigned long long)got->sh_addr);
            add(RELOC_64, got->sh_addr + 8 * i);
        }
    }
}

static void print_table(uint64_t link, uint64_t end)
{
    printf("/* Made by tools/build/relocs.c from %s: boot/reloc.h. */\n", elf);
    printf("\t.section .relocs, \"a\"\n\t.balign 8\n");
    printf("\t.long 0x%x, %zu, %zu, %zu\n", RELOC_MAGIC, sites[0].n, sites[1].n, sites[2].n);
    printf("\t.quad 0x%llx, 0x%llx\n", (unsigned long long)link, (unsigned long long)end);
    for (int k = 0; k < RELOC_KINDS; k++) {
        qsort(sites[k].a, sites[k].n, sizeof *sites[k].a, cmp);
        for (size_t i = 0; i < sites[k].n; i++)
            printf("%s0x%llx%s", i % 8 ? ", " : "\t.long ",
                   (unsigned long long)(sites[k].a[i] - link),
                   i % 8 == 7 || i + 1 == sites[k].n ? "\n" : "");
    }
}

int main(int argc, char **argv)
{
    const Elf64_Ehdr *eh;
    const struct type *types;
    uint8_t *named;
    uint64_t link, end;
    struct stat st;
    int fd;

    if (argc == 3 && !strcmp(argv[1], "--types")) {
        types = !strcmp(argv[2], "x86_64") ? x86_types :
                !strcmp(argv[2], "aarch64") ? arm_types : NULL;
        for (; types && types->name; types++)
            printf("%u %s\n", types->type, types->name);
        return types ? 0 : 2;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: relocs ELF > relocs.S\n"
                        "       relocs --types x86_64|aarch64   the types it knows\n");
        return 2;
    }
    elf = argv[1];
    fd = open(elf, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) < 0)
        die("cannot be read");
    fsize = st.st_size;
    file = mmap(NULL, fsize, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file == MAP_FAILED)
        die("cannot be mapped");
    eh = at(0, sizeof *eh);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr))
        die("not a 64-bit ELF file");
    types = eh->e_machine == EM_X86_64 ? x86_types :
            eh->e_machine == EM_AARCH64 ? arm_types : NULL;
    if (!types)
        die("machine %u is neither x86_64 nor aarch64", eh->e_machine);
    nsh = eh->e_shnum;
    sh = at(eh->e_shoff, (uint64_t)nsh * sizeof *sh);
    for (unsigned i = 0; i < nsh; i++)
        if (sh[i].sh_type == SHT_SYMTAB) {
            symtab = at(sh[i].sh_offset, sh[i].sh_size);
            nsym = sh[i].sh_size / sizeof *symtab;
            if (sh[i].sh_link >= nsh)
                die("the symbol table has no string table");
            strtab = at(sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size);
        }
    if (!symtab)
        die("has no symbol table");
    link = symval("__kernel_start");
    end = symval("__relocs_start");
    named = calloc(nsym + 1, 1);
    for (unsigned i = 0; i < nsh; i++) {
        const Elf64_Shdr *r = &sh[i], *t;
        const Elf64_Rela *rel;

        if ((sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_addralign > RELOC_ALIGN)
            die("a section aligned to %llu bytes: a move keeps 4 KiB alignment only",
                (unsigned long long)sh[i].sh_addralign);
        if (r->sh_type == SHT_REL)
            die("REL relocations (not RELA): not an ld -q output of this arch");
        if (r->sh_type != SHT_RELA || r->sh_info >= nsh)
            continue;
        t = &sh[r->sh_info];
        if (!(t->sh_flags & SHF_ALLOC))
            continue;           /* debug information: not loaded */
        rel = at(r->sh_offset, r->sh_size);
        for (size_t j = 0; j < r->sh_size / sizeof *rel; j++) {
            unsigned type = ELF64_R_TYPE(rel[j].r_info);
            size_t si = ELF64_R_SYM(rel[j].r_info);
            const struct type *ty;
            const Elf64_Sym *s;

            for (ty = types; ty->name && ty->type != type; ty++)
                ;
            if (!ty->name)
                die("relocation type %u at 0x%llx is not one the kernel knows how to move "
                    "(tools/build/relocs.c)", type, (unsigned long long)rel[j].r_offset);
            if (si >= nsym)
                die("a relocation names symbol %zu, past the table", si);
            s = &symtab[si];
            if (ty->kind == GOT) {
                named[si] = 1;
            } else if (ty->pcrel && s->st_shndx == SHN_ABS) {
                die("%s at 0x%llx against the absolute symbol %s would change when the image "
                    "moves", ty->name, (unsigned long long)rel[j].r_offset, symname(s));
            } else if (ty->kind < RELOC_KINDS && in_image(s)) {
                if (rel[j].r_offset < link || rel[j].r_offset > end ||
                    end - rel[j].r_offset < (ty->kind == RELOC_64 ? 8u : 4u))
                    die("a %s site at 0x%llx lies outside the image's sites "
                        "(__kernel_start to __relocs_start)", ty->name,
                        (unsigned long long)rel[j].r_offset);
                add(ty->kind, rel[j].r_offset);
            } else if (ty->kind < RELOC_KINDS && s->st_shndx != SHN_ABS &&
                       s->st_shndx != SHN_UNDEF) {
                die("%s at 0x%llx against %s, which is neither in the image nor absolute",
                    ty->name, (unsigned long long)rel[j].r_offset, symname(s));
            }
        }
    }
    for (unsigned i = 0; i < nsh; i++) {
        const char *names = at(sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size);

        if (!strcmp(names + sh[i].sh_name, ".got") && sh[i].sh_type == SHT_PROGBITS)
            got_sites(&sh[i], named, link, end);
        else if (!strcmp(names + sh[i].sh_name, ".got.plt")) {
            const uint64_t *slot = at(sh[i].sh_offset, sh[i].sh_size);

            for (uint64_t k = 0; k < sh[i].sh_size / 8; k++)
                if (slot[k])
                    die("the .got.plt slot at 0x%llx is not empty: a static image "
                        "calls no PLT", (unsigned long long)(sh[i].sh_addr + 8 * k));
        }
    }
    print_table(link, end);
    return 0;
}
