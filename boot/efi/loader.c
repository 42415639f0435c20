/*
 * loader.c - Spindle's EFI loader: EFI/BOOT/BOOTX64.EFI on x86_64,
 * EFI/BOOT/BOOTAA64.EFI on aarch64.
 *
 * In order (steps 1-4 and a dry run of step 6 are prepare()):
 *  1. takes the command line from the EFI load options when they hold
 *     text (a boot entry's optional data, or the shell's arguments;
 *     loadopt.c), else from EFI/spindle/cmdline, which `make image`
 *     writes from CMDLINE;
 *  2. reads the kernel (EFI/spindle/kernel.elf) and places it at a
 *     2 MiB-aligned address the firmware has free, a random one with
 *     efi_place=random on the command line (kernel.c; the kernel
 *     relocates itself there, boot/reloc.h), and the initrd
 *     (EFI/spindle/initrd, if the partition has one: make INITRD=)
 *     into pages of its own;
 *  3. finds the ACPI RSDP (2.0 before 1.0) and the device tree in the
 *     configuration table, notes the firmware's vendor and the SMBIOS
 *     names (board.c), reads the firmware's clock and takes the GOP
 *     framebuffer (gop.c);
 *  4. lets the arch check the CPU's state and claim what it needs
 *     (x86_64.c: the AP start-up trampoline's page);
 *  5. gets the memory map and exits boot services, getting the map
 *     again and retrying while the map key is stale (UEFI 2.10 §7.4,
 *     ExitBootServices);
 *  6. after that, with no boot service left, converts the final map
 *     into the handoff (efimap.c, handoff.h) and enters the kernel the
 *     arch's way (arch_enter).
 * Any failure before step 5 prints why on the firmware console, gives
 * back what was allocated and returns to the firmware, which goes on to
 * its next boot option.  Firmware oddities that do not stop the boot (no
 * RSDP, a busy trampoline page, a strange map) become "efi: ..." notes
 * the kernel prints.
 */
#include "boot/efi/efimap.h"
#include "boot/efi/efitime.h"
#include "boot/efi/gop.h"
#include "boot/efi/handoff.h"
#include "boot/efi/loader.h"
#include "boot/efi/loadopt.h"

#define EBS_TRIES 8

static struct efi_handoff *h;

void note(const char *a, const char *b, const char *c)
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

/* Whether the command line has efi_place=random (the test runner's):
   the kernel goes to a random free address on every boot.  Another
   efi_place= value gets a note and the default placement. */
static int place_random_asked(void)
{
    static const char key[] = "efi_place=";
    const char *c = h->cmdline;

    while (*c) {
        const char *t = c;
        UINTN n = 0;

        while (t[n] && t[n] != ' ')
            n++;
        if (n == 2 && t[0] == '-' && t[1] == '-')
            break;              /* the app's arguments */
        if (n >= sizeof key - 1 && !CompareMem(t, key, sizeof key - 1)) {
            if (n == sizeof key - 1 + 6 && !CompareMem(t + sizeof key - 1, "random", 6))
                return 1;
            note("efi_place= takes only random; the firmware's choice instead", 0, 0);
            return 0;
        }
        c = t + n;
        while (*c == ' ')
            c++;
    }
    return 0;
}

/* v as "0x..." in buf (20 bytes). */
static const char *hex(uint64_t v, char *buf)
{
    char d[16];
    int n = 0, i = 2;

    do {
        d[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    buf[0] = '0';
    buf[1] = 'x';
    while (n)
        buf[i++] = d[--n];
    buf[i] = 0;
    return buf;
}

/* The configuration table's entry for guid, or 0. */
static uint64_t config_table(EFI_GUID *guid)
{
    EFI_CONFIGURATION_TABLE *t = ST->ConfigurationTable;

    for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
        if (!CompareGuid(&t[i].VendorGuid, guid))
            return (uint64_t)t[i].VendorTable;
    return 0;
}

/* The RSDP (ACPI 2.0+ before 1.0) and the device tree, if the firmware
   lists them; it may list either or both.  With neither, the kernel
   says so and falls back (NO_TABLES_NOTE). */
static void find_tables(void)
{
    static EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
    static EFI_GUID dtb = { 0xb1b621d5, 0xf19c, 0x41a5,
                            { 0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0 } };

    h->bi.rsdp = config_table(&acpi20);
    if (!h->bi.rsdp)
        h->bi.rsdp = config_table(&acpi10);
    h->bi.dtb = config_table(&dtb);
    if (!h->bi.rsdp && !h->bi.dtb)
        note(NO_TABLES_NOTE, 0, 0);
}

/* The firmware clock as Unix time, taken as UTC (as the kernel takes the
   RTCs it reads itself), or 0 with a note if it cannot be read or holds
   no sensible date.  For machines whose tables name no RTC the kernel
   drives (aarch64 with ACPI). */
static uint64_t firmware_time(void)
{
    EFI_TIME t;
    uint64_t s;

    if (EFI_ERROR(uefi_call_wrapper(RT->GetTime, 2, &t, NULL))) {
        note("the firmware's clock cannot be read; the wall clock may start at 1970", 0, 0);
        return 0;
    }
    s = efitime_to_unix(t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second);
    if (!s)
        note("the firmware's clock holds no valid date; the wall clock may start at 1970", 0, 0);
    return s;
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
    struct memrange claimed[3];     /* the kernel image, the handoff, the
                                       initrd (len 0: none) */
    int nclaimed;                   /* 3 with an initrd, else 2 */
    uint64_t entry;
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
    char *kfile, buf[20];
    int random;
    UINTN ksize, isize, key;
    UINT32 dver;
    EFI_STATUS st;

    st = arch_check();
    if (EFI_ERROR(st))
        return st;
    st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li);
    if (EFI_ERROR(st)) {
        Print(L"spindle-efi: no loaded-image protocol (%r)\r\n", st);
        return st;
    }
    /* The handoff below 4 GiB: x86_64's boot page tables map that. */
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
    h->size = sizeof *h;
    b->claimed[1].base = at;
    b->claimed[1].len = EFI_SIZE_TO_PAGES(sizeof *h) * EFI_PAGE_SIZE;

    get_cmdline(li);
    st = read_file(li, KERNEL_PATH, &kfile, &ksize);
    if (EFI_ERROR(st)) {
        Print(L"spindle-efi: cannot read %s (%r)\r\n", KERNEL_PATH, st);
        return st;
    }
    random = place_random_asked();
    st = place_kernel(kfile, ksize, random, &b->claimed[0], &b->entry);
    FreePool(kfile);
    if (EFI_ERROR(st))
        return st;
    note("kernel at ", hex(b->claimed[0].base, buf),
         random ? " (efi_place=random)" : " (the firmware's choice)");
    st = read_file_pages(li, INITRD_PATH, &b->claimed[2], &isize);
    if (st == EFI_NOT_FOUND) {
        isize = 0;
    } else if (EFI_ERROR(st)) {
        Print(L"spindle-efi: cannot read %s (%r)\r\n", INITRD_PATH, st);
        return st;
    } else if (!isize) {
        note("EFI/spindle/initrd is empty; no initrd", 0, 0);
    }
    h->bi.initrd = b->claimed[2].base;
    h->bi.initrd_size = isize;
    b->nclaimed = b->claimed[2].len ? 3 : 2;
    find_tables();
    board_notes();
    h->bi.wallclock = firmware_time();
    gop_find(&h->bi.fb, note);
    arch_claim();

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
        efimap_to_bootinfo(b->map, b->size, b->dsize, b->claimed, b->nclaimed,
                           &h->bi, h->notes + b->pre, EFI_NOTES_MAX - b->pre) < 0) {
        Print(L"spindle-efi: the firmware's memory map is unusable (%r):\r\n%a", st,
              h->notes);
        return EFI_ERROR(st) ? st : EFI_LOAD_ERROR;
    }
    Print(L"spindle-efi: kernel at 0x%lx-0x%lx, RSDP 0x%lx, DTB 0x%lx, "
          "command line \"%a\"\r\n", b->claimed[0].base,
          b->claimed[0].base + b->claimed[0].len, h->bi.rsdp, h->bi.dtb, h->cmdline);
    if (isize)
        Print(L"spindle-efi: initrd %s at 0x%lx, %lu bytes\r\n", INITRD_PATH,
              h->bi.initrd, isize);
    return EFI_SUCCESS;
}

/* Gives back what prepare() took, so that the firmware's next boot
   option (or this one, tried again) finds the memory free. */
static void release(struct boot *b)
{
    for (int i = 0; i < 3; i++)
        if (b->claimed[i].len)
            uefi_call_wrapper(BS->FreePages, 2, b->claimed[i].base,
                              b->claimed[i].len / EFI_PAGE_SIZE);
    arch_release();
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
       whose console says so (boot/handoff.c). */
    arch_mask_interrupts();
    h->bi.nreserved = 0;
    efimap_to_bootinfo(b.map, b.size, b.dsize, b.claimed, b.nclaimed, &h->bi,
                       h->notes + b.pre, EFI_NOTES_MAX - b.pre);
    efimap_ram_gib(b.map, b.size, b.dsize, h->ram_gib);
    arch_enter(b.entry, h, b.claimed, b.nclaimed);
}
