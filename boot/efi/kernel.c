/*
 * kernel.c - reading files from the EFI system partition (the kernel,
 * the command line, the initrd) and placing the kernel's ELF image at a
 * 2 MiB-aligned address the firmware has free (loader.h).
 *
 * Why a second file and not the kernel embedded in BOOTX64.EFI: the
 * loader stays one program for every app (built once, not relinked per
 * image), the image's kernel.elf is the very file `make` linked (its
 * symbols and sections can be checked with the usual tools), and the
 * runner makes a test image by copying two files, not by linking.  The
 * price is the simple file system protocol, which every firmware that
 * could load BOOTX64.EFI from that partition already provides.
 */
#include "boot/efi/efimap.h"
#include "boot/efi/handoff.h"
#include "boot/efi/loader.h"
#include "boot/reloc.h"

/* The few ELF64 fields the loader reads (System V gABI, ELF-64). */
struct ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct shdr {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t addralign, entsize;
};

#define PT_LOAD     1
#define PT_NOTE     4
#define ET_EXEC     2

/* Opens the file at path on the loader's volume: *f, and its size in *n.
   If the file cannot be opened (EFI_NOT_FOUND: there is none), Open's
   status comes back quietly; the later failures print why. */
static EFI_STATUS open_file(EFI_LOADED_IMAGE *li, CHAR16 *path, EFI_FILE_HANDLE *f,
                            UINTN *n)
{
    EFI_FILE_HANDLE root;
    EFI_FILE_INFO *info;
    EFI_STATUS st;

    root = LibOpenRoot(li->DeviceHandle);
    if (!root) {
        Print(L"spindle-efi: cannot open the volume the loader came from\r\n");
        return EFI_NOT_FOUND;
    }
    st = uefi_call_wrapper(root->Open, 5, root, f, path, EFI_FILE_MODE_READ, 0);
    uefi_call_wrapper(root->Close, 1, root);
    if (EFI_ERROR(st))
        return st;              /* the caller decides whether that is fatal */
    info = LibFileInfo(*f);
    if (!info) {
        uefi_call_wrapper((*f)->Close, 1, *f);
        Print(L"spindle-efi: cannot read the size of %s\r\n", path);
        return EFI_DEVICE_ERROR;
    }
    *n = info->FileSize;
    FreePool(info);
    return EFI_SUCCESS;
}

/* Reads all n bytes of f into buf and closes f; prints why if it cannot. */
static EFI_STATUS read_all(EFI_FILE_HANDLE f, CHAR16 *path, void *buf, UINTN n)
{
    UINTN got = n;
    EFI_STATUS st = uefi_call_wrapper(f->Read, 3, f, &got, buf);

    uefi_call_wrapper(f->Close, 1, f);
    if (EFI_ERROR(st) || got != n) {
        Print(L"spindle-efi: reading %s failed (%r)\r\n", path, st);
        return EFI_ERROR(st) ? st : EFI_END_OF_FILE;
    }
    return EFI_SUCCESS;
}

EFI_STATUS read_file(EFI_LOADED_IMAGE *li, CHAR16 *path, char **buf, UINTN *size)
{
    EFI_FILE_HANDLE f;
    EFI_STATUS st;
    UINTN n;

    st = open_file(li, path, &f, &n);
    if (EFI_ERROR(st))
        return st;
    *buf = AllocatePool(n + 1);
    if (!*buf) {
        uefi_call_wrapper(f->Close, 1, f);
        Print(L"spindle-efi: no memory for %s (%lu bytes)\r\n", path, n);
        return EFI_OUT_OF_RESOURCES;
    }
    st = read_all(f, path, *buf, n);
    if (EFI_ERROR(st)) {
        FreePool(*buf);
        return st;
    }
    *size = n;
    (*buf)[n] = 0;
    return EFI_SUCCESS;
}

EFI_STATUS read_file_pages(EFI_LOADED_IMAGE *li, CHAR16 *path, struct memrange *pages,
                           UINTN *size)
{
    EFI_PHYSICAL_ADDRESS at = 0xFFFFFFFF;
    EFI_FILE_HANDLE f;
    EFI_STATUS st;
    UINTN n;

    pages->base = pages->len = 0;
    st = open_file(li, path, &f, &n);
    if (EFI_ERROR(st))
        return st;
    *size = n;
    if (!n) {
        uefi_call_wrapper(f->Close, 1, f);
        return EFI_SUCCESS;
    }
    st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
                           EFI_SIZE_TO_PAGES(n), &at);
    if (EFI_ERROR(st)) {
        uefi_call_wrapper(f->Close, 1, f);
        Print(L"spindle-efi: no memory below 4 GiB for %s (%lu bytes): %r\r\n",
              path, n, st);
        return st;
    }
    st = read_all(f, path, (void *)at, n);
    if (EFI_ERROR(st)) {
        uefi_call_wrapper(BS->FreePages, 2, at, EFI_SIZE_TO_PAGES(n));
        return st;
    }
    pages->base = at;
    pages->len = EFI_SIZE_TO_PAGES(n) * EFI_PAGE_SIZE;
    return EFI_SUCCESS;
}

const char *memory_taken(uint64_t lo, uint64_t hi, uint64_t *at)
{
    static const char *const names[] = {
        "reserved", "loader code", "loader data", "boot-services code",
        "boot-services data", "runtime-services code",
        "runtime-services data", "free", "unusable", "ACPI reclaim",
        "ACPI NVS", "MMIO",
    };
    UINTN n, key, dsize;
    UINT32 dver;
    EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&n, &key, &dsize, &dver);
    const char *what = "nothing in the memory map";

    *at = lo;
    for (UINTN i = 0; map && i < n; i++) {
        EFI_MEMORY_DESCRIPTOR *d = (void *)((char *)map + i * dsize);
        uint64_t b = d->PhysicalStart, e = b + d->NumberOfPages * EFI_PAGE_SIZE;

        if (d->Type == EfiConventionalMemory || e <= lo || b >= hi)
            continue;
        if (what[0] == 'n' || b < *at) {
            *at = b > lo ? b : lo;
            what = d->Type < sizeof names / sizeof names[0] ? names[d->Type]
                                                            : "another type";
        }
    }
    if (map)
        FreePool(map);
    return what;
}

/* The entry address from the kernel's "Spindle" note, or 0. */
static uint64_t note_entry(const char *file, UINTN size, const struct phdr *ph)
{
    uint64_t off = ph->offset, end = ph->offset + ph->filesz;

    if (end > size || end < off)
        return 0;
    while (off + 12 <= end) {
        const uint32_t *h = (const uint32_t *)(file + off);
        uint64_t name = off + 12, desc = name + ((h[0] + 3) & ~3u);
        uint64_t next = desc + ((h[1] + 3) & ~3u);

        if (next > end)
            return 0;
        if (h[0] == sizeof EFI_NOTE_NAME && h[2] == EFI_NOTE_ENTRY64 &&
            h[1] == 8 && !CompareMem(file + name, EFI_NOTE_NAME, h[0]))
            return *(const uint64_t *)(file + desc);
        off = next;
    }
    return 0;
}

/* The link address and length of the kernel's .relocs section (the
   relocation table, boot/reloc.h), or 0, 0 if it has none. */
static void relocs_section(const char *file, UINTN size, const struct ehdr *eh,
                           uint64_t *addr, uint64_t *len)
{
    const struct shdr *sh = (const void *)(file + eh->shoff);
    const char *names;

    *addr = *len = 0;
    if (!eh->shoff || eh->shentsize < sizeof *sh || eh->shoff > size ||
        eh->shnum > (size - eh->shoff) / eh->shentsize || eh->shstrndx >= eh->shnum)
        return;
    sh = (const void *)(file + eh->shoff + eh->shstrndx * eh->shentsize);
    if (sh->offset > size || sh->size > size - sh->offset)
        return;
    names = file + sh->offset;
    for (unsigned i = 0; i < eh->shnum; i++) {
        const struct shdr *s = (const void *)(file + eh->shoff + i * eh->shentsize);

        if (s->name < sh->size - 8 && !CompareMem(names + s->name, ".relocs", 8)) {
            *addr = s->addr;
            *len = s->size;
        }
    }
}

/* 64 bits of randomness: the firmware's RNG protocol if it has one,
   mixed with the cycle counter (which alone still differs from boot to
   boot: the firmware's own start takes a varying time). */
static uint64_t random64(void)
{
    static EFI_GUID rng_guid = EFI_RNG_PROTOCOL_GUID;
    EFI_RNG_PROTOCOL *rng;
    uint64_t r = 0, z;

    if (!EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &rng_guid, NULL, (void **)&rng)))
        uefi_call_wrapper(rng->GetRNG, 4, rng, NULL, sizeof r, (UINT8 *)&r);
    z = r + arch_cycles() + 0x9e3779b97f4a7c15ull;      /* splitmix64's finish */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A random PLACE_ALIGN-aligned base below PLACE_LIMIT among the free
   memory, allocated for len bytes, or 0 if none is granted. */
static uint64_t place_random(uint64_t len)
{
    UINTN n, key, dsize;
    UINT32 dver;
    EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&n, &key, &dsize, &dver);
    uint64_t at = 0, slots;

    if (!map)
        return 0;
    slots = efimap_slots(map, n * dsize, dsize, len, PLACE_ALIGN, PLACE_LIMIT, ~0ull, &at);
    if (slots)
        efimap_slots(map, n * dsize, dsize, len, PLACE_ALIGN, PLACE_LIMIT,
                     random64() % slots, &at);
    FreePool(map);
    if (slots && !EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
                                              EfiLoaderData, len / EFIMAP_PAGE, &at)))
        return at;
    note("efi_place=random found no free aligned memory the firmware would grant; "
         "the firmware's choice instead", 0, 0);
    return 0;
}

/* Any PLACE_ALIGN-aligned base below PLACE_LIMIT, allocated for len
   bytes: a larger allocation with its unaligned head and tail given
   back.  0 if the firmware has no room. */
static uint64_t place_any(uint64_t len)
{
    EFI_PHYSICAL_ADDRESS at = PLACE_LIMIT - 1;
    uint64_t extra = PLACE_ALIGN - EFIMAP_PAGE, base;

    if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress,
                                    EfiLoaderData, (len + extra) / EFIMAP_PAGE, &at)))
        return 0;
    base = (at + PLACE_ALIGN - 1) & ~(PLACE_ALIGN - 1);
    if (base > at)
        uefi_call_wrapper(BS->FreePages, 2, at, (base - at) / EFIMAP_PAGE);
    if (at + len + extra > base + len)
        uefi_call_wrapper(BS->FreePages, 2, base + len,
                          (at + len + extra - base - len) / EFIMAP_PAGE);
    return base;
}

EFI_STATUS place_kernel(const char *file, UINTN size, int random, struct memrange *span,
                        uint64_t *entry)
{
    const struct ehdr *eh = (const void *)file;
    uint64_t lo = ~0ull, hi = 0, at = 0, raddr, rlen;
    int err;

    *entry = 0;
    if (size < sizeof *eh || CompareMem(eh->ident, "\177ELF\2\1", 6) ||
        eh->type != ET_EXEC || eh->machine != ARCH_ELF_MACHINE ||
        eh->phentsize < sizeof(struct phdr) ||
        eh->phoff > size || eh->phnum > (size - eh->phoff) / eh->phentsize) {
        Print(L"spindle-efi: %s is not an %a ELF executable\r\n", KERNEL_PATH,
              ARCH_NAME);
        return EFI_LOAD_ERROR;
    }
    for (unsigned i = 0; i < eh->phnum; i++) {
        const struct phdr *ph = (const void *)(file + eh->phoff + i * eh->phentsize);

        if (ph->type == PT_LOAD) {
            if (ph->filesz > ph->memsz || ph->offset > size ||
                ph->filesz > size - ph->offset || ph->paddr + ph->memsz < ph->paddr) {
                Print(L"spindle-efi: segment %u of the kernel lies outside its file\r\n", i);
                return EFI_LOAD_ERROR;
            }
            if (ph->paddr < lo)
                lo = ph->paddr;
            if (ph->paddr + ph->memsz > hi)
                hi = ph->paddr + ph->memsz;
        } else if (ph->type == PT_NOTE && !*entry) {
            *entry = note_entry(file, size, ph);
        }
    }
    if (lo >= hi || !*entry || *entry < lo || *entry >= hi) {
        Print(L"spindle-efi: the kernel has %a\r\n",
              lo >= hi ? "no loadable segment" : "no EFI entry note (is it an older build?)");
        return EFI_LOAD_ERROR;
    }
    if (lo % PLACE_ALIGN) {
        Print(L"spindle-efi: the kernel is linked at 0x%lx, not %lu KiB aligned\r\n", lo,
              PLACE_ALIGN >> 10);
        return EFI_LOAD_ERROR;
    }
    hi = (hi + EFIMAP_PAGE - 1) & ~(EFIMAP_PAGE - 1);
    relocs_section(file, size, eh, &raddr, &rlen);
    if (raddr < lo || raddr > hi || rlen > hi - raddr)
        raddr = rlen = 0;
    /* Without a table the kernel runs only where it was linked. */
    if (rlen && random)
        at = place_random(hi - lo);
    if (rlen && !at)
        at = place_any(hi - lo);
    if (!at) {
        EFI_STATUS st;

        at = lo;
        st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress, EfiLoaderData,
                               (hi - lo) / EFIMAP_PAGE, &at);
        if (EFI_ERROR(st)) {
            uint64_t taken;
            const char *what = memory_taken(lo, hi, &taken);

            Print(L"spindle-efi: no room for the kernel (%lu KiB)%a, and its link "
                  "address 0x%lx-0x%lx is taken (%a at 0x%lx): %r\r\n", (hi - lo) >> 10,
                  rlen ? "" : " as it has no relocation table", lo, hi, what, taken, st);
            return st;
        }
        if (!rlen)
            note("the kernel has no relocation table: placed at its link address", 0, 0);
    }
    for (unsigned i = 0; i < eh->phnum; i++) {
        const struct phdr *ph = (const void *)(file + eh->phoff + i * eh->phentsize);

        if (ph->type != PT_LOAD)
            continue;
        CopyMem((void *)(at + ph->paddr - lo), (void *)(file + ph->offset), ph->filesz);
        ZeroMem((void *)(at + ph->paddr - lo + ph->filesz), ph->memsz - ph->filesz);
    }
    /* The kernel applies the table at its entry; a table it would refuse
       is refused here, where the firmware console can say so. */
    err = reloc_apply((uint8_t *)at, lo, (const uint8_t *)(at + raddr - lo), rlen, 0);
    if (err) {
        Print(L"spindle-efi: the kernel cannot run at 0x%lx: %a\r\n", at, reloc_error(err));
        uefi_call_wrapper(BS->FreePages, 2, at, (hi - lo) / EFIMAP_PAGE);
        return EFI_LOAD_ERROR;
    }
    *entry += at - lo;
    span->base = at;
    span->len = hi - lo;
    return EFI_SUCCESS;
}
