/*
 * loader.c - Spindle's EFI loader for x86_64: EFI/BOOT/BOOTX64.EFI.
 *
 * In order (steps 1-4 and a dry run of step 6 are prepare()):
 *  1. reads the kernel (EFI/spindle/kernel.elf) and places it where it
 *     was linked (kernel.c);
 *  2. takes the command line from the EFI load options when they hold
 *     text (a boot entry's optional data, or the shell's arguments;
 *     loadopt.c), else from EFI/spindle/cmdline, which `make image`
 *     writes from CMDLINE;
 *  3. finds the ACPI RSDP in the configuration table (2.0 before 1.0);
 *  4. claims the page of the AP start-up trampoline;
 *  5. gets the memory map and exits boot services, getting the map
 *     again and retrying while the map key is stale (UEFI 2.10 §7.4,
 *     ExitBootServices);
 *  6. after that, with no boot service left, converts the final map
 *     into the handoff (efimap.c, handoff.h) and calls the kernel's
 *     64-bit EFI entry.
 * Any failure before step 5 prints why on the firmware console, gives
 * back what was allocated and returns to the firmware, which goes on to
 * its next boot option.  Firmware oddities that do not stop the boot (no
 * RSDP, a busy trampoline page, a strange map) become "efi: ..." notes
 * the kernel prints.
 */
#include "efimap.h"
#include "gop.h"
#include "handoff.h"
#include "loader.h"
#include "loadopt.h"
#include "x86.h"

#define EBS_TRIES 8
#define CR4_LA57  (1 << 12)         /* 5-level paging (Intel SDM Vol. 3A §2.5) */

typedef void kernel_entry(struct efi_handoff *h);   /* does not return */

static struct efi_handoff *h;

/* Appends one line "efi: " a b c to the handoff's notes (b, c may be
   NULL). */
static void note(const char *a, const char *b, const char *c)
{
    const char *part[] = { "efi: ", a, b, c };
    UINTN n = strlena((CHAR8 *)h->notes);

    for (int i = 0; i < 4; i++)
        for (const char *s = part[i]; s && *s && n < EFI_NOTES_MAX - 2; s++)
            h->notes[n++] = *s;
    h->notes[n++] = '\n';
    h->notes[n] = 0;
}

static void get_cmdline(EFI_LOADED_IMAGE *li)
{
    char *file;
    UINTN size, k = 0;
    int cut;

    if (loadopt_cmdline(li->LoadOptions, li->LoadOptionsSize, h->cmdline,
                        EFI_CMDLINE_MAX, &cut)) {
        if (cut)
            note("the load options are longer than the command line buffer; cut", 0, 0);
        return;
    }
    if (EFI_ERROR(read_file(li, CMDLINE_PATH, &file, &size)))
        return;                 /* none baked in: an empty command line */
    for (UINTN i = 0; i < size && k < EFI_CMDLINE_MAX - 1; i++)
        if (file[i] != '\n' && file[i] != '\r')
            h->cmdline[k++] = file[i];
    h->cmdline[k] = 0;
    FreePool(file);
}

static uint64_t find_rsdp(void)
{
    static EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
    EFI_CONFIGURATION_TABLE *t = ST->ConfigurationTable;

    for (int want = 0; want < 2; want++)
        for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
            if (!CompareGuid(&t[i].VendorGuid, want ? &acpi10 : &acpi20))
                return (uint64_t)t[i].VendorTable;
    note("no ACPI RSDP in the firmware's configuration table; the kernel "
         "looks in the BIOS area, else starts the boot core only", 0, 0);
    return 0;
}

/* The final map goes into the handoff; only GetMemoryMap and
   ExitBootServices are called once the first ExitBootServices is. */
static EFI_STATUS exit_boot_services(EFI_HANDLE image, void *map, UINTN cap,
                                     UINTN *size, UINTN *dsize)
{
    UINTN key;
    UINT32 dver;
    EFI_STATUS st = EFI_SUCCESS;

    for (int i = 0; i < EBS_TRIES; i++) {
        *size = cap;
        st = uefi_call_wrapper(BS->GetMemoryMap, 5, size, map, &key, dsize, &dver);
        if (EFI_ERROR(st))
            return st;
        st = uefi_call_wrapper(BS->ExitBootServices, 2, image, key);
        if (st != EFI_INVALID_PARAMETER)    /* stale key: read the map again */
            return st;
    }
    return st;
}

/* What prepare() gathers for the jump; the pages of claimed[] and the
   map are released again if the boot does not happen. */
struct boot {
    struct memrange claimed[2];     /* the kernel image, the handoff */
    uint64_t entry;
    uint64_t trampoline;            /* its page, 0 if not claimed */
    void *map;
    UINTN cap, size, dsize, pre;    /* pre: notes before the map's */
};

/* Steps 1-4 and the map buffer, with a dry run of the conversion on
   today's map: one without usable memory stops here, where the firmware
   console can still say so.  Prints why it fails. */
static EFI_STATUS prepare(EFI_HANDLE image, struct boot *b)
{
    EFI_LOADED_IMAGE *li;
    EFI_PHYSICAL_ADDRESS at;
    char *kfile;
    UINTN ksize, key;
    UINT32 dver;
    EFI_STATUS st;
    uint64_t cr4;

    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    if (cr4 & CR4_LA57) {
        Print(L"spindle-efi: the firmware runs with 5-level paging, which the "
              "kernel's boot page tables do not handle\r\n");
        return EFI_UNSUPPORTED;
    }
    st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li);
    if (EFI_ERROR(st)) {
        Print(L"spindle-efi: no loaded-image protocol (%r)\r\n", st);
        return st;
    }
    /* The handoff below 4 GiB: the kernel's boot page tables map that. */
    at = 0xFFFFFFFF;
    st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
                           EFI_SIZE_TO_PAGES(sizeof *h), &at);
    if (EFI_ERROR(st)) {
        Print(L"spindle-efi: no memory below 4 GiB for the boot data (%r)\r\n", st);
        return st;
    }
    h = (void *)at;
    ZeroMem(h, sizeof *h);
    h->magic = EFI_HANDOFF_MAGIC;
    b->claimed[1].base = at;
    b->claimed[1].len = EFI_SIZE_TO_PAGES(sizeof *h) * EFI_PAGE_SIZE;

    st = read_file(li, KERNEL_PATH, &kfile, &ksize);
    if (EFI_ERROR(st)) {
        Print(L"spindle-efi: cannot read %s (%r)\r\n", KERNEL_PATH, st);
        return st;
    }
    st = place_kernel(kfile, ksize, &b->claimed[0], &b->entry);
    FreePool(kfile);
    if (EFI_ERROR(st))
        return st;
    get_cmdline(li);
    h->bi.rsdp = find_rsdp();
    gop_find(&h->fb, note);
    at = TRAMPOLINE_PA;
    if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
                                    EfiLoaderData, 1, &at)))
        note("the firmware holds the AP trampoline's page (",
             memory_taken(at, at + EFI_PAGE_SIZE, &at), "); other cores may not start");
    else
        b->trampoline = at;

    /* A map buffer with room for the entries that allocating it adds. */
    b->size = 0;
    uefi_call_wrapper(BS->GetMemoryMap, 5, &b->size, NULL, &key, &b->dsize, &dver);
    b->cap = b->size + 16 * b->dsize;
    b->map = AllocatePool(b->cap);
    if (!b->map) {
        Print(L"spindle-efi: no memory for the memory map\r\n");
        return EFI_OUT_OF_RESOURCES;
    }
    b->size = b->cap;
    b->pre = strlena((CHAR8 *)h->notes);
    st = uefi_call_wrapper(BS->GetMemoryMap, 5, &b->size, b->map, &key, &b->dsize, &dver);
    if (EFI_ERROR(st) ||
        efimap_to_bootinfo(b->map, b->size, b->dsize, b->claimed, 2, &h->bi,
                           h->notes + b->pre, EFI_NOTES_MAX - b->pre) < 0) {
        Print(L"spindle-efi: the firmware's memory map is unusable (%r):\r\n%a", st,
              h->notes);
        return EFI_ERROR(st) ? st : EFI_LOAD_ERROR;
    }
    Print(L"spindle-efi: kernel at 0x%lx-0x%lx, RSDP 0x%lx, command line \"%a\"\r\n",
          b->claimed[0].base, b->claimed[0].base + b->claimed[0].len, h->bi.rsdp,
          h->cmdline);
    return EFI_SUCCESS;
}

/* Gives back what prepare() took, so that the firmware's next boot
   option (or this one, tried again) finds the memory free. */
static void release(struct boot *b)
{
    for (int i = 0; i < 2; i++)
        if (b->claimed[i].len)
            uefi_call_wrapper(BS->FreePages, 2, b->claimed[i].base,
                              b->claimed[i].len / EFI_PAGE_SIZE);
    if (b->trampoline)
        uefi_call_wrapper(BS->FreePages, 2, b->trampoline, 1);
    if (b->map)
        FreePool(b->map);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
    struct boot b = { 0 };
    EFI_STATUS st;

    InitializeLib(image, systab);
    Print(L"spindle-efi: loading %s\r\n", KERNEL_PATH);
    st = prepare(image, &b);
    if (EFI_ERROR(st)) {
        /* Time to read the message before the firmware's menu or next
           boot option takes the screen. */
        Print(L"spindle-efi: not booting; back to the firmware in 10 s\r\n");
        release(&b);
        uefi_call_wrapper(BS->Stall, 1, 10 * 1000 * 1000);
        return st;
    }
    st = exit_boot_services(image, b.map, b.cap, &b.size, &b.dsize);
    if (EFI_ERROR(st))
        return st;              /* nothing may be printed or freed now */

    /* The final map replaces the dry run's result and notes.  A map that
       lost all its usable memory meanwhile still reaches the kernel,
       whose console says so (efi.c). */
    __asm__ volatile("cli");
    h->bi.nreserved = 0;
    efimap_to_bootinfo(b.map, b.size, b.dsize, b.claimed, 2, &h->bi,
                       h->notes + b.pre, EFI_NOTES_MAX - b.pre);
    ((kernel_entry *)b.entry)(h);
    __builtin_unreachable();
}
