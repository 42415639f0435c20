/*
 * loadopt.c - the EFI load options as a kernel command line (loadopt.h).
 */
#include "boot/efi/loadopt.h"

static int is_efi_suffix(const uint16_t *w, size_t len)
{
    return len >= 4 && w[len - 4] == '.' && (w[len - 3] | 0x20) == 'e' &&
           (w[len - 2] | 0x20) == 'f' && (w[len - 1] | 0x20) == 'i';
}

int loadopt_cmdline(const uint16_t *opts, size_t size, char *out, size_t cap,
                    int *cut)
{
    size_t n = opts ? size / sizeof *opts : 0, i = 0, k = 0, w;

    out[0] = 0;
    *cut = 0;
    while (i < n && opts[i]) {
        if (opts[i] < 0x20 || opts[i] > 0x7e)
            return 0;
        i++;
    }
    n = i;
    for (w = 0; w < n && opts[w] != ' '; w++)
        ;
    i = is_efi_suffix(opts, w) ? w : 0;
    while (i < n && opts[i] == ' ')
        i++;
    for (; i < n && k < cap - 1; i++)
        out[k++] = (char)opts[i];
    out[k] = 0;
    *cut = i < n;
    while (k > 0 && out[k - 1] == ' ')
        out[--k] = 0;
    return k > 0;
}
