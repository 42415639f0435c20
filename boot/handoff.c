/*
 * handoff.c - the kernel's intake of the EFI loader's handoff
 * (boot/efi/handoff.h), shared by the EFI entries of both arches
 * (boot/x86_64/efi.c, boot/aarch64/efi.c).
 */
#include <string.h>
#include "boot/efi/handoff.h"
#include "kernel/bootinfo.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

_Static_assert(__builtin_offsetof(struct efi_handoff, ram_gib) == EFI_HANDOFF_RAM_GIB,
               "entry.S reads ram_gib at EFI_HANDOFF_RAM_GIB");

void efi_handoff_check(const struct efi_handoff *h)
{
    if (h->magic != EFI_HANDOFF_MAGIC)
        panic("efi_boot: no handoff from the EFI loader (magic 0x%lx)", h->magic);
    if (h->size != sizeof *h)
        panic("efi_boot: the EFI loader is of another build (handoff of %lu "
              "bytes, this kernel's is %lu): rebuild both (make image)",
              h->size, sizeof *h);
}

void efi_handoff_take(const struct efi_handoff *h, struct bootinfo *bi,
                      char cmdline[EFI_CMDLINE_MAX])
{
    uint64_t entry_cycles = bi->entry_cycles;
    const struct machine *m = bi->machine;

    *bi = h->bi;
    bi->entry_cycles = entry_cycles;
    bi->machine = m;
    if (bi->initrd || bi->initrd_size)
        bi->initrd_from = "efi";    /* the loader's pointer means nothing here */
    memcpy(cmdline, h->cmdline, EFI_CMDLINE_MAX - 1);
    cmdline[EFI_CMDLINE_MAX - 1] = 0;
    bi->cmdline = cmdline;
    /* The loader's findings about the firmware: one "efi: ..." a line. */
    for (size_t i = 0, n = strnlen(h->notes, sizeof h->notes); i < n;) {
        size_t len = strcspn(h->notes + i, "\n");

        printk("%.*s\n", (int)(len < n - i ? len : n - i), h->notes + i);
        i += len + 1;
    }
    if (!bi->nusable)
        panic("efi_boot: the firmware's memory map left no usable memory");
}
