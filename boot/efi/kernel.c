/*
 * kernel.c - reading files from the EFI system partition (the kernel,
 * the command line, the initrd) and placing the kernel's ELF image where
 * it was linked (loader.h).
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

EFI_STATUS place_kernel(const char *file, UINTN size, struct memrange *span,
                        uint64_t *entry)
{
    const struct ehdr *eh = (const void *)file;
    uint64_t lo = ~0ull, hi = 0;
    EFI_PHYSICAL_ADDRESS at;
    EFI_STATUS st;

    *entry = 0;
    if (size < sizeof *eh || CompareMem(eh->ident, "\177ELF\2\1", 6) ||
        eh->type != ET_EXEC || eh->machine != ARCH_ELF_MACHINE ||
        eh->phentsize < sizeof(struct phdr) ||
        eh->phoff > size || eh->phnum > (size - eh->phoff) / eh->phentsize) {
        Print(L"spindle-efi: %s is not an %a ELF executable\r\n", KERNEL_PATH,
              ARCH_NAME);
        return EFI_LOAD_ERROR;
    }
    for (int pass = 0; pass < 3; pass++) {
        for (unsigned i = 0; i < eh->phnum; i++) {
            const struct phdr *ph = (const void *)(file + eh->phoff + i * eh->phentsize);

            if (pass == 0 && ph->type == PT_LOAD) {
                if (ph->filesz > ph->memsz || ph->offset > size ||
                    ph->filesz > size - ph->offset ||
                    ph->paddr + ph->memsz < ph->paddr) {
                    Print(L"spindle-efi: segment %u of the kernel lies outside its file\r\n", i);
                    return EFI_LOAD_ERROR;
                }
                if (ph->paddr < lo)
                    lo = ph->paddr;
                if (ph->paddr + ph->memsz > hi)
                    hi = ph->paddr + ph->memsz;
            } else if (pass == 0 && ph->type == PT_NOTE && !*entry) {
                *entry = note_entry(file, size, ph);
            } else if (pass == 2 && ph->type == PT_LOAD) {
                CopyMem((void *)ph->paddr, (void *)(file + ph->offset), ph->filesz);
                ZeroMem((void *)(ph->paddr + ph->filesz), ph->memsz - ph->filesz);
            }
        }
        if (pass == 0 && (lo >= hi || !*entry || *entry < lo || *entry >= hi)) {
            Print(L"spindle-efi: the kernel has %a\r\n",
                  lo >= hi ? "no loadable segment" :
                  "no EFI entry note (is it an older build?)");
            return EFI_LOAD_ERROR;
        }
        if (pass == 1) {
            lo &= ~(EFIMAP_PAGE - 1);
            hi = (hi + EFIMAP_PAGE - 1) & ~(EFIMAP_PAGE - 1);
            at = lo;
            st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
                                   EfiLoaderData, (hi - lo) / EFIMAP_PAGE, &at);
            if (EFI_ERROR(st)) {
                uint64_t taken;
                const char *what = memory_taken(lo, hi, &taken);

                Print(L"spindle-efi: the kernel is linked at 0x%lx-0x%lx, but the "
                      "firmware holds that memory (%a at 0x%lx): %r\r\n",
                      lo, hi, what, taken, st);
                return st;
            }
        }
    }
    span->base = lo;
    span->len = hi - lo;
    return EFI_SUCCESS;
}
