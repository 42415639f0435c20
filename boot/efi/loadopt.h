/*
 * loadopt.h - the EFI load options as a kernel command line.
 *
 * Pure C, like efimap.c: the loader calls it on its loaded image's
 * LoadOptions, and tests/host/loadopt_test.c on hand-made ones.
 */
#ifndef BOOT_EFI_LOADOPT_H
#define BOOT_EFI_LOADOPT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Copies the load options (opts, size bytes of UCS-2; NULL if none) to
 * out (cap bytes, cap > 0, always NUL terminated) as ASCII, and returns
 * true if they are a command line: printable characters (0x20-0x7e) up
 * to the first NUL or the end, at least one word.  Anything else (the
 * binary data a firmware's own boot entries carry, say) returns false
 * with out empty.  A first word ending in ".efi" (any case) is the UEFI
 * shell's argv[0], and is dropped with the blanks after it.  *cut is set
 * when the text did not fit out.
 */
int loadopt_cmdline(const uint16_t *opts, size_t size, char *out, size_t cap,
                    int *cut);

#endif
